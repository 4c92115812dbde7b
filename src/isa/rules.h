#pragma once
/// The validity rules of single ops, beyond what their field types say. Each appends one
/// Problem per broken rule. Only called on words that decode (see validate.h).

#include "isa/problem.h"
#include "isa/word.h"

namespace sbrdma::isa {

/// dma_engine_mask fits 16 bits and selects 1, 2, 4, 8 or 16 engines [HIGH] wiki-facts §1.8;
/// is_bidirectional must be 0 ("currently NOT supported") [CHOICE D10].
void check_rdma_desc_gen(const Word& word, Problems& out);

/// in_dtype == out_dtype; lnc_size_fmt LNC1 or LNC2; 1 <= num_active_channels <= 128; at most
/// 256 source elements; source and destination in SBUF, not PSUM. [HIGH] wiki-facts §1.10,
/// [CHOICE D15c] for register-form addresses.
void check_sb2sb_collective(const Word& word, Problems& out);

/// op is ADD or MULT ("op restricted to add/multiply"). [HIGH] ext-tensor-tensor-arith.md §2,
/// [CHOICE D15e]
void check_ext_tensor_tensor_arith(const Word& word, Problems& out);

}  // namespace sbrdma::isa
