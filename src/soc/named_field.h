#pragma once
/// A bit field with its hardware name: the rows of the address-view and descriptor-word
/// tables that printers, parsers and tests iterate.

#include <string_view>

#include "base/bits.h"

namespace sbrdma::soc {

/// One named field [msb:lsb] of a word.
struct NamedField {
  std::string_view name;
  base::BitField bits;
};

}  // namespace sbrdma::soc
