#pragma once
/// Program files of `sbrdma run` (docs/program-files.md): assembly (docs/isa-syntax.md) plus
/// directives, one per line.
///
///   .core N                       following words go to core N's POOL queue (global core id)
///   .init core=N addr=A bytes=B pattern=iota|const:V|random:SEED [partitions=P0:P1]
///   .expect sem core=N idx=I value=V
///   .expect sbuf core=N addr=A bytes=B equals core=M addr=A2 [partitions=P0:P1]
///   .expect sbuf core=N addr=A bytes=B pattern=P [partitions=P0:P1]
///   .dump sbuf core=N addr=A bytes=B [partitions=P0:P1]    print the bytes after the run
///   .dump ring core=N engine=E [slots=A:B]                 print an engine's rings after it
///
/// addr is a byte offset inside each partition; a range covers it in every partition
/// (0..127) unless partitions=P0:P1 narrows it to [P0, P1). Numbers are decimal or 0x hex.
/// Every error — assembly or directive — is reported as `file:line: error: ...`, all of them,
/// and a file with any error does not run.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "device/topology.h"
#include "isa/word.h"
#include "platform/sbuf_region.h"
#include "soc/profile.h"

namespace sbrdma::platform {

/// `.init`: fill a region before the run.
struct InitDirective {
  base::SourceLoc loc;
  SbufRegion region;
  FillPattern pattern;
};

/// `.expect sem`: a semaphore's value after the run.
struct SemExpect {
  base::SourceLoc loc;
  std::string text;  ///< the directive as written (comment and blanks stripped)
  device::CoreId core = 0;
  unsigned idx = 0;
  std::uint32_t value = 0;
};

/// `.expect sbuf`: two regions hold the same bytes after the run.
struct SbufExpect {
  base::SourceLoc loc;
  std::string text;
  SbufRegion actual;    ///< core=N addr=A
  SbufRegion expected;  ///< core=M addr=A2, same size and partitions (without `pattern`)
  /// `pattern=P` instead of `equals ...`: the region holds the bytes .init would write there.
  std::optional<FillPattern> pattern;
};

/// `.dump sbuf`: print a region's bytes after the run.
struct SbufDump {
  base::SourceLoc loc;
  std::string text;  ///< the directive as written
  SbufRegion region;
};

/// `.dump ring`: print an engine's RDMA rings (M2S and S2M, slot by slot) after the run.
struct RingDump {
  base::SourceLoc loc;
  std::string text;  ///< the directive as written
  device::CoreId core = 0;
  unsigned engine = 0;
  /// slots=A:B, [A, B); nullopt: every slot the core's words wrote (the whole ring once they
  /// went round it).
  std::optional<std::pair<unsigned, unsigned>> slots;
  /// hex=yes: each written descriptor's 16 bytes too, as `sbrdma decode desc` reads them.
  bool hex = false;
};

/// The most bytes (over all its partitions) one `.dump sbuf` prints: 64 Ki lines of hex.
inline constexpr std::uint64_t kMaxDumpBytes = std::uint64_t{1} << 20;

/// The words of one core, with their source lines.
struct CoreProgram {
  device::CoreId core = 0;
  std::vector<isa::Word> words;
  std::vector<base::SourceLoc> locs;
};

/// A parsed program file.
struct ProgramFile {
  std::vector<CoreProgram> cores;  ///< ascending core id; a `.core` with no words is listed
  std::vector<InitDirective> inits;
  std::vector<SemExpect> sem_expects;
  std::vector<SbufExpect> sbuf_expects;
  std::vector<SbufDump> dumps;
  std::vector<RingDump> ring_dumps;
  /// The files it was read from, in order (one; a folder's coreN.s files in core order): the
  /// order its expects and dumps are reported in, file by file, each by line.
  std::vector<std::string> files;
};

/// The bytes of a partition one `.dump sbuf` line shows.
inline constexpr std::uint64_t kDumpRowBytes = 16;

/// The most lines of bytes and slots a program's dumps print together (an upper bound for
/// each: 16 bytes of a partition or one ring slot a line; each dump's heading and a ring
/// dump's two pointer lines come besides): 4 MiB of SBUF, or 256 whole rings.
inline constexpr std::uint64_t kMaxDumpLines = std::uint64_t{1} << 18;

/// The program and every error found (the program is unusable unless errors is empty).
struct ProgramParse {
  ProgramFile program;
  base::Errors errors;
  [[nodiscard]] bool ok() const { return errors.empty(); }
};

/// A `.core` line and the core it names.
struct CoreSection {
  int line = 0;
  device::CoreId core = 0;
};

/// The core of the section a word on `line` belongs to: that of the last `.core` line before
/// it, or none if it comes before every `.core` line. `sections` is in line order; the lookup is
/// a binary search because a file may alternate a `.core` line with every word.
[[nodiscard]] std::optional<device::CoreId> core_at(std::span<const CoreSection> sections,
                                                    int line);

/// Parses `text` (named `file` in errors) for `topology`, whose profile is `profile`. Words
/// before the first `.core` line go to `first_core` when given (the words of one core, as
/// `bench --dump-programs` writes them to coreN.s); without it they are an error. Contract:
/// first_core < topology.num_cores().
ProgramParse parse_program(std::string_view text, std::string_view file,
                           const device::Topology& topology, const soc::Profile& profile,
                           std::optional<device::CoreId> first_core = std::nullopt);

}  // namespace sbrdma::platform
