// Program files of `sbrdma run`: directives, words per core, and the exact file:line error of
// every bad directive; the fill patterns' bytes as documented. [CHOICE D29]
#include "platform/program_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "platform/program_runner.h"
#include "platform/topology_json.h"

namespace sbrdma::platform {
namespace {

ProgramParse parse(const std::string& text, std::string_view topology = "trn2") {
  static const device::Topology trn2 = load_topology("trn2").value();
  static const device::Topology big = load_topology("trn2.48xlarge").value();
  const device::Topology& t = topology == "trn2" ? trn2 : big;
  return parse_program(text, "p.s", t, soc::cayman_profile());
}

/// The single error of a one-directive file.
std::string error_of(const std::string& line) {
  const ProgramParse p = parse(line + "\n");
  if (p.errors.size() != 1) return std::to_string(p.errors.size()) + " errors";
  return p.errors[0].format();
}

TEST(ProgramFile, WordsGoToTheirCoreSection) {
  const ProgramParse p = parse(
      "# comment\n"
      ".core 3\n"
      "rdma_desc_start\n"
      ".core 1\n"
      "ext_engine_nop   # one\n"
      ".core 3\n"
      "rdma_desc_start wait_mode=ge_imm wait_idx=1 semaphore_value=1\n"
      ".core 6\n");
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p.program.cores.size(), 3U);
  EXPECT_EQ(p.program.cores[0].core, 1U);
  EXPECT_EQ(p.program.cores[0].words.size(), 1U);
  EXPECT_EQ(p.program.cores[1].core, 3U);
  ASSERT_EQ(p.program.cores[1].words.size(), 2U);
  EXPECT_EQ(p.program.cores[1].locs[1].line, 7);
  EXPECT_EQ(p.program.cores[1].words[1][4], 0x05) << "the second word carries the wait";
  EXPECT_EQ(p.program.cores[2].core, 6U);
  EXPECT_TRUE(p.program.cores[2].words.empty());
}

TEST(ProgramFile, AWordBelongsToTheLastCoreLineBeforeIt) {
  const std::vector<CoreSection> sections = {{3, 5}, {7, 1}, {8, 4}, {20, 5}};
  EXPECT_EQ(core_at(sections, 1), std::nullopt) << "before every section";
  EXPECT_EQ(core_at(sections, 3), std::nullopt) << "a .core line is not in its own section";
  EXPECT_EQ(core_at(sections, 4), 5U);
  EXPECT_EQ(core_at(sections, 6), 5U);
  EXPECT_EQ(core_at(sections, 7), 5U);
  EXPECT_EQ(core_at(sections, 8), 1U) << "between two adjacent .core lines";
  EXPECT_EQ(core_at(sections, 9), 4U);
  EXPECT_EQ(core_at(sections, 20), 4U);
  EXPECT_EQ(core_at(sections, 21), 5U) << "after the last section";
  EXPECT_EQ(core_at(sections, 1'000'000), 5U);
  EXPECT_EQ(core_at({}, 5), std::nullopt) << "no section at all";
}

TEST(ProgramFile, DirectivesAndTheirDefaults) {
  const ProgramParse p = parse(
      ".init core=2 addr=0x100 bytes=64 pattern=const:0x7f partitions=16:32\n"
      ".init core=2 addr=0 bytes=229376 pattern=random:5\n"
      ".expect sem core=7 idx=255 value=0xffffffff\n"
      ".expect sbuf core=1 addr=0x40 bytes=8 equals core=2 addr=0x80 partitions=1:2\n");
  ASSERT_TRUE(p.ok()) << p.errors[0].format();
  ASSERT_EQ(p.program.inits.size(), 2U);
  const SbufRegion& a = p.program.inits[0].region;
  EXPECT_EQ(a.core, 2U);
  EXPECT_EQ(a.offset, 0x100U);
  EXPECT_EQ(a.bytes, 64U);
  EXPECT_EQ(a.first_partition, 16U);
  EXPECT_EQ(a.end_partition, 32U);
  EXPECT_EQ(p.program.inits[0].pattern.kind, FillPattern::Kind::kConst);
  EXPECT_EQ(p.program.inits[0].pattern.value, 0x7fU);
  EXPECT_EQ(p.program.inits[1].region.end_partition, 128U) << "all partitions by default";
  ASSERT_EQ(p.program.sem_expects.size(), 1U);
  EXPECT_EQ(p.program.sem_expects[0].value, 0xffffffffU);
  EXPECT_EQ(p.program.sem_expects[0].text, ".expect sem core=7 idx=255 value=0xffffffff");
  ASSERT_EQ(p.program.sbuf_expects.size(), 1U);
  const SbufExpect& e = p.program.sbuf_expects[0];
  EXPECT_EQ(e.expected.core, 2U);
  EXPECT_EQ(e.expected.offset, 0x80U);
  EXPECT_EQ(e.expected.bytes, 8U);
  EXPECT_EQ(e.actual.first_partition, 1U);
  EXPECT_EQ(e.expected.first_partition, 1U);
  EXPECT_EQ(e.expected.end_partition, 2U);
}

TEST(ProgramFile, EveryDirectiveErrorWithFileAndLine) {
  const std::pair<std::string, std::string> cases[] = {
      {".core", "p.s:1: error: .core takes one core id: .core N"},
      {".core 8",
       "p.s:1: error: core 8 does not exist (topology trn2 has 8 cores; trn2.48xlarge and trn2u "
       "have it: --topology NAME)"},
      {".core x", "p.s:1: error: bad number 'x' for core"},
      // Numbers past 64 bits are out of range as other numbers are, said with the text given.
      {".core 99999999999999999999999",
       "p.s:1: error: core 99999999999999999999999 does not exist (topology trn2 has 8 cores)"},
      {".core 0x8",
       "p.s:1: error: core 0x8 does not exist (topology trn2 has 8 cores; trn2.48xlarge and trn2u "
       "have it: --topology NAME)"},
      {".init core=0 addr=99999999999999999999999 bytes=4 pattern=iota",
       "p.s:1: error: addr '99999999999999999999999' does not fit in 64 bits"},
      {".init core=0 addr=0 bytes=4 pattern=const:99999999999999999999999",
       "p.s:1: error: const value 99999999999999999999999 out of range (0..255)"},
      {".init core=0 addr=0 bytes=4 pattern=random:99999999999999999999999",
       "p.s:1: error: pattern random '99999999999999999999999' does not fit in 64 bits"},
      {".init core=0 addr=0 bytes=4 pattern=const:x",
       "p.s:1: error: bad number 'x' for pattern const"},
      {".init core=0 addr=99999999999999999999x bytes=4 pattern=iota",
       "p.s:1: error: bad number '99999999999999999999x' for addr"},
      {".core 99999999999999999999x", "p.s:1: error: bad number '99999999999999999999x' for core"},
      {".init core=0 addr=0 bytes=4 pattern=iota partitions=0:99999999999999999999",
       "p.s:1: error: partitions 0:99999999999999999999 are not a range inside 0:128 (P0 < P1, P1 "
       "exclusive)"},
      {".expect sem core=0 idx=99999999999999999999999 value=1",
       "p.s:1: error: idx 99999999999999999999999 out of range (0..255)"},
      {".init core=0 addr=0 bytes=4", "p.s:1: error: missing key 'pattern' for .init"},
      {".init core=0 addr=0 pattern=iota", "p.s:1: error: missing key 'bytes' for .init"},
      {".init core=0 addr=0 bytes=0 pattern=iota", "p.s:1: error: bytes must be at least 1"},
      {".init core=0 addr=0 bytes=4 pattern=iota size=3",
       "p.s:1: error: unknown key 'size' for .init (core, addr, bytes, pattern, partitions)"},
      {".init core=0 core=1 addr=0 bytes=4 pattern=iota",
       "p.s:1: error: duplicate key 'core' for .init"},
      {".init core=0 addr=0 bytes=4 pattern", "p.s:1: error: missing '=' in 'pattern' (.init)"},
      {".init core=0 addr=0 bytes=4 pattern=zeros",
       "p.s:1: error: unknown pattern 'zeros' (iota, const:V or random:SEED)"},
      {".init core=0 addr=0 bytes=4 pattern=const:256",
       "p.s:1: error: const value 256 out of range (0..255)"},
      {".init core=0 addr=0x37ff0 bytes=17 pattern=iota",
       "p.s:1: error: 0x11 bytes from 0x37ff0 leave the active partition (0x38000 bytes on "
       "cayman)"},
      // Ranges whose end would pass 2^64 are said by start and length (no end below start).
      {".init core=0 addr=0xffffffffffffffff bytes=2 pattern=iota",
       "p.s:1: error: 0x2 bytes from 0xffffffffffffffff leave the active partition (0x38000 "
       "bytes on cayman)"},
      {".init core=0 addr=1 bytes=0xffffffffffffffff pattern=iota",
       "p.s:1: error: 0xffffffffffffffff bytes from 0x1 leave the active partition (0x38000 "
       "bytes on cayman)"},
      {".init core=0 addr=0 bytes=4 pattern=iota partitions=4:4",
       "p.s:1: error: partitions 4:4 are not a range inside 0:128 (P0 < P1, P1 exclusive)"},
      {".init core=0 addr=0 bytes=4 pattern=iota partitions=0:129",
       "p.s:1: error: partitions 0:129 are not a range inside 0:128 (P0 < P1, P1 exclusive)"},
      {".init core=0 addr=0 bytes=4 pattern=iota partitions=7",
       "p.s:1: error: bad partitions '7' (expected P0:P1)"},
      {".init core=0 addr=0 bytes=4 pattern=iota partitions=1:2:3",
       "p.s:1: error: bad partitions '1:2:3' (expected P0:P1)"},
      {".expect", "p.s:1: error: .expect needs a kind: sem or sbuf"},
      {".expect dram core=0", "p.s:1: error: unknown .expect kind 'dram' (sem or sbuf)"},
      {".expect sem core=0 idx=256 value=1", "p.s:1: error: idx 256 out of range (0..255)"},
      {".expect sem core=0 idx=1 value=0x100000000",
       "p.s:1: error: value 0x100000000 out of range for value (-2147483648..4294967295)"},
      {".expect sem core=0 idx=1 value=-2147483649",
       "p.s:1: error: value -2147483649 out of range for value (-2147483648..4294967295)"},
      {".expect sem core=0 idx=1 value=-99999999999999999999",
       "p.s:1: error: value -99999999999999999999 out of range for value "
       "(-2147483648..4294967295)"},
      {".expect sem core=0 idx=1 value=0xfffffffffffffffffffff",
       "p.s:1: error: value 0xfffffffffffffffffffff out of range for value "
       "(-2147483648..4294967295)"},
      {".expect sem core=0 idx=1 value=-", "p.s:1: error: bad number '-' for value"},
      {".expect sem core=0 idx=1 value=--1", "p.s:1: error: bad number '--1' for value"},
      {".expect sem core=0 idx=1 value=-abc", "p.s:1: error: bad number '-abc' for value"},
      // Negative numbers are decimal only, as on an instruction line.
      {".expect sem core=0 idx=1 value=-0x10", "p.s:1: error: bad number '-0x10' for value"},
      {".expect sem core=0 value=1", "p.s:1: error: missing key 'idx' for .expect sem"},
      {".expect sbuf core=0 addr=0 bytes=4 core=1 addr=0",
       "p.s:1: error: .expect sbuf needs 'equals core=M addr=A2' or 'pattern=P' after its "
       "region"},
      // The pattern form: the region's keys and the pattern, checked as .init's.
      {".expect sbuf core=0 addr=0 pattern=iota",
       "p.s:1: error: missing key 'bytes' for .expect sbuf"},
      {".expect sbuf core=0 addr=0 bytes=4 pattern=zeros",
       "p.s:1: error: unknown pattern 'zeros' (iota, const:V or random:SEED)"},
      // Both forms at once: said so, not "unknown key 'pattern'" (a key of the other form).
      {".expect sbuf core=0 addr=0 bytes=4 pattern=iota equals core=1 addr=0",
       "p.s:1: error: .expect sbuf takes either 'pattern=P' or 'equals core=M addr=A2', not "
       "both"},
      {".expect sbuf core=0 addr=0 bytes=4 equals core=1 addr=0 pattern=iota",
       "p.s:1: error: .expect sbuf takes either 'pattern=P' or 'equals core=M addr=A2', not "
       "both"},
      // No region before 'equals': that is the error, not the keys after it read twice.
      {".expect sbuf equals core=0 addr=0x1000 core=1 addr=0x2000 bytes=16",
       "p.s:1: error: .expect sbuf needs its region 'core=N addr=A bytes=B' before 'equals'"},
      {".expect sbuf core=0 addr=0 bytes=4 equals core=1 addr=0 bytes=4",
       "p.s:1: error: unknown key 'bytes' for .expect sbuf ... equals (core, addr, partitions)"},
      // A fault after 'equals' says so (the two regions' faults often read alike).
      {".expect sbuf core=0 addr=0 bytes=4 equals core=9 addr=0",
       "p.s:1: error: after 'equals': core 9 does not exist (topology trn2 has 8 cores; "
       "trn2.48xlarge and trn2u have it: --topology NAME)"},
      {".expect sbuf core=0 addr=0 bytes=4 equals core=1 addr=0x37ffd",
       "p.s:1: error: after 'equals': 0x4 bytes from 0x37ffd leave the active partition "
       "(0x38000 bytes on cayman)"},
      {".expect sbuf core=0 addr=0 bytes=4 partitions=0:1 equals core=1 addr=0 partitions=0:1",
       "p.s:1: error: duplicate key 'partitions' for .expect sbuf (give it once)"},
      {".expected sem",
       "p.s:1: error: unknown directive '.expected'; did you mean '.expect'? (.core, .init, "
       ".expect, .dump, .raw)"},
      {".coer 1",
       "p.s:1: error: unknown directive '.coer'; did you mean '.core'? (.core, .init, .expect, "
       ".dump, .raw)"},
      {".xyz 1", "p.s:1: error: unknown directive '.xyz' (.core, .init, .expect, .dump, .raw)"},
      {".dump", "p.s:1: error: .dump needs a kind: sbuf or ring"},
      {".dump sem core=0", "p.s:1: error: unknown .dump kind 'sem' (sbuf or ring)"},
      {".dump ring core=0", "p.s:1: error: missing key 'engine' for .dump ring"},
      {".dump ring core=0 engine=16", "p.s:1: error: engine 16 out of range (0..15)"},
      {".dump ring core=0 engine=0 slots=4", "p.s:1: error: bad slots '4' (expected A:B)"},
      {".dump ring core=0 engine=0 slots=1:2:3", "p.s:1: error: bad slots '1:2:3' (expected A:B)"},
      {".dump ring core=0 engine=0 slots=4:4",
       "p.s:1: error: slots 4:4 are not a range inside 0:1024 (A < B, B exclusive; a ring has "
       "1024 slots)"},
      {".dump ring core=0 engine=0 slots=0:1025",
       "p.s:1: error: slots 0:1025 are not a range inside 0:1024 (A < B, B exclusive; a ring has "
       "1024 slots)"},
      {".dump ring core=0 engine=0 bytes=4",
       "p.s:1: error: unknown key 'bytes' for .dump ring (core, engine, slots, hex)"},
      {".dump ring core=0 engine=0 hex=1", "p.s:1: error: bad hex '1' (expected yes or no)"},
      {".dump ring core=0 engine=0 hex=Yes", "p.s:1: error: bad hex 'Yes' (expected yes or no)"},
      {".dump sbuf core=0 addr=0", "p.s:1: error: missing key 'bytes' for .dump sbuf"},
      {".dump sbuf core=0 addr=0 bytes=4 pattern=iota",
       "p.s:1: error: unknown key 'pattern' for .dump sbuf (core, addr, bytes, partitions)"},
      {".dump sbuf core=0 addr=0x37fff bytes=4",
       "p.s:1: error: 0x4 bytes from 0x37fff leave the active partition (0x38000 bytes on "
       "cayman)"},
      // 1 MiB at most: 8193 bytes on 128 partitions is one partition's worth too many.
      {".dump sbuf core=0 addr=0 bytes=8193",
       "p.s:1: error: .dump sbuf prints at most 1048576 bytes (1 MiB) over its partitions; this "
       "one covers 128 partitions x 8193: narrow it with partitions=P0:P1 or a smaller bytes="},
      {"rdma_desc_start",
       "p.s:1: error: instruction before any '.core N' directive (which core "
       "runs it?)"},
  };
  for (const auto& [line, want] : cases) EXPECT_EQ(error_of(line), want) << line;
}

// A directive's tokens are echoed cut to 40 characters, as the assembler's are.
TEST(ProgramFile, LongTokensAreEchoedCut) {
  const std::string x(1'000'000, 'x');
  const std::string cut = std::string(37, 'x') + "...";
  const std::pair<std::string, std::string> cases[] = {
      {".core " + x, "p.s:1: error: bad number '" + cut + "' for core"},
      {".init core=0 addr=0 bytes=4 pattern=iota " + x,
       "p.s:1: error: missing '=' in '" + cut + "' (.init)"},
      {".init core=0 addr=0 bytes=4 pattern=iota " + x + "=1",
       "p.s:1: error: unknown key '" + cut +
           "' for .init (core, addr, bytes, pattern, partitions)"},
      {".init core=0 addr=0 bytes=4 pattern=" + x,
       "p.s:1: error: unknown pattern '" + cut + "' (iota, const:V or random:SEED)"},
      {".init core=0 addr=0 bytes=4 pattern=iota partitions=" + x,
       "p.s:1: error: bad partitions '" + cut + "' (expected P0:P1)"},
      {".expect " + x, "p.s:1: error: unknown .expect kind '" + cut + "' (sem or sbuf)"},
      {".expect sem core=0 idx=0 value=1" + std::string(1'000'000, '0'),
       "p.s:1: error: value 1" + std::string(36, '0') +
           "... out of range for value (-2147483648..4294967295)"},
      {"." + x, "p.s:1: error: unknown directive '." + std::string(36, 'x') +
                    "...' (.core, .init, .expect, .dump, .raw)"},
  };
  for (const auto& [line, want] : cases) EXPECT_EQ(error_of(line), want) << line.substr(0, 60);
}

TEST(ProgramFile, AllErrorsInLineOrderAndAssemblyErrorsToo) {
  const ProgramParse p = parse(
      ".core 0\n"
      "rdma_desc_gen local_sem=300\n"
      ".init core=0\n"
      "frob\n");
  ASSERT_EQ(p.errors.size(), 5U);
  EXPECT_EQ(p.errors[0].loc.line, 2);
  EXPECT_EQ(p.errors[1].format(), "p.s:3: error: missing key 'addr' for .init");
  EXPECT_EQ(p.errors[2].format(), "p.s:3: error: missing key 'bytes' for .init");
  EXPECT_EQ(p.errors[3].format(), "p.s:3: error: missing key 'pattern' for .init");
  EXPECT_EQ(p.errors[4].format(), "p.s:4: error: unknown mnemonic 'frob'");
}

// Every fault of a directive line is told, as an instruction line's are; a key written
// without '=' is told once, not also as missing.
TEST(ProgramFile, EveryErrorOfADirectiveLine) {
  const auto errors = [](const std::string& line) {
    std::string out;
    for (const base::Error& e : parse(line + "\n").errors) out += e.format() + "\n";
    return out;
  };
  EXPECT_EQ(errors(".init core=9 addr=zz bytes=0 pattern=foo size=1"),
            "p.s:1: error: unknown key 'size' for .init (core, addr, bytes, pattern, partitions)\n"
            "p.s:1: error: core 9 does not exist (topology trn2 has 8 cores; trn2.48xlarge and "
            "trn2u have it: --topology NAME)\n"
            "p.s:1: error: bad number 'zz' for addr\n"
            "p.s:1: error: bytes must be at least 1\n"
            "p.s:1: error: unknown pattern 'foo' (iota, const:V or random:SEED)\n");
  EXPECT_EQ(errors(".init core=0 addr=0 bytes=4 pattern"),
            "p.s:1: error: missing '=' in 'pattern' (.init)\n");
  EXPECT_EQ(errors(".expect sem core=x idx=999 value=-"),
            "p.s:1: error: bad number 'x' for core\n"
            "p.s:1: error: idx 999 out of range (0..255)\n"
            "p.s:1: error: bad number '-' for value\n");
  EXPECT_EQ(errors(".expect sbuf core=9 addr=0 equals core=x addr=0 partitions=2:1"),
            "p.s:1: error: core 9 does not exist (topology trn2 has 8 cores; trn2.48xlarge and "
            "trn2u have it: --topology NAME)\n"
            "p.s:1: error: missing key 'bytes' for .expect sbuf\n"
            "p.s:1: error: after 'equals': partitions 2:1 are not a range inside 0:128 (P0 < "
            "P1, P1 exclusive)\n"
            "p.s:1: error: after 'equals': bad number 'x' for core\n");
  // A bad partitions= does not hide a bad core, nor a fault of the region's range, nor the
  // reverse.
  EXPECT_EQ(errors(".init core=9 addr=0 bytes=4 pattern=iota partitions=2:1"),
            "p.s:1: error: core 9 does not exist (topology trn2 has 8 cores; trn2.48xlarge and "
            "trn2u have it: --topology NAME)\n"
            "p.s:1: error: partitions 2:1 are not a range inside 0:128 (P0 < P1, P1 exclusive)\n");
  EXPECT_EQ(errors(".init core=0 addr=0x38000 bytes=1 pattern=iota partitions=1:0"),
            "p.s:1: error: partitions 1:0 are not a range inside 0:128 (P0 < P1, P1 exclusive)\n"
            "p.s:1: error: 0x1 bytes from 0x38000 leave the active partition (0x38000 bytes on "
            "cayman)\n");
  EXPECT_EQ(errors(".expect sbuf core=0 addr=b bytes=1 equals core=1 addr=0 partitions=f"),
            "p.s:1: error: bad number 'b' for addr\n"
            "p.s:1: error: after 'equals': bad partitions 'f' (expected P0:P1)\n");
  // The same fault on both sides is told for each, the second said to be after 'equals'.
  EXPECT_EQ(errors(".expect sbuf core=0 addr=0x38000 bytes=1 equals core=1 addr=0x38000"),
            "p.s:1: error: 0x1 bytes from 0x38000 leave the active partition (0x38000 bytes on "
            "cayman)\n"
            "p.s:1: error: after 'equals': 0x1 bytes from 0x38000 leave the active partition "
            "(0x38000 bytes on cayman)\n");
  // Nothing of a bad line is kept.
  const ProgramParse p = parse(".init core=0 addr=0 bytes=4 pattern=foo\n");
  EXPECT_TRUE(p.program.inits.empty());
}

// A bad .core line is one error: the words of its section are not each reported as outside
// any section, and a good section after it still gets its words.
TEST(ProgramFile, ABadCoreLineIsOneErrorNotOnePerWord) {
  for (const char* bad : {".core 99\n", ".core x\n", ".core\n"}) {
    const ProgramParse p = parse(std::string(bad) +
                                 "rdma_desc_start\n"
                                 "rdma_desc_start\n"
                                 ".core 1\n"
                                 "rdma_desc_start\n");
    ASSERT_EQ(p.errors.size(), 1U) << bad << p.errors.back().format();
    EXPECT_EQ(p.errors[0].loc.line, 1) << bad;
    ASSERT_EQ(p.program.cores.size(), 1U) << bad;
    EXPECT_EQ(p.program.cores[0].core, 1U);
    EXPECT_EQ(p.program.cores[0].words.size(), 1U);
  }
}

// Semaphore values are signed 32-bit (udma-facts §4.4): -1 is 0xffffffff.
TEST(ProgramFile, ADumpPastTheLimitIsToldBesideARangeFault) {
  const ProgramParse p = parse(".dump sbuf core=0 addr=0x30000 bytes=0x10000\n");
  ASSERT_EQ(p.errors.size(), 2U);
  EXPECT_EQ(p.errors[0].format(),
            "p.s:1: error: 0x10000 bytes from 0x30000 leave the active partition (0x38000 bytes "
            "on cayman)");
  EXPECT_EQ(p.errors[1].format(),
            "p.s:1: error: .dump sbuf prints at most 1048576 bytes (1 MiB) over its partitions; "
            "this one covers 128 partitions x 65536: narrow it with partitions=P0:P1 or a "
            "smaller bytes=");
  const ProgramParse one = parse(".dump sbuf core=0 addr=0 bytes=1048577 partitions=0:1\n");
  ASSERT_EQ(one.errors.size(), 2U);
  EXPECT_NE(one.errors[1].message.find("covers 1 partition x 1048577:"), std::string::npos)
      << one.errors[1].message;
  // A byte count past 64 bits' worth over the partitions does not wrap to a small total.
  const ProgramParse q = parse(".dump sbuf core=0 addr=0 bytes=0x200000000000000\n");
  ASSERT_EQ(q.errors.size(), 2U);
  EXPECT_NE(q.errors[1].message.find("128 partitions x 144115188075855872"), std::string::npos);
}

TEST(ProgramFile, DirectiveNumbersTakeUnderscoreGroups) {
  const ProgramParse p = parse(
      ".init core=0 addr=0x1_0000 bytes=4_096 pattern=const:2_55\n"
      ".expect sem core=0 idx=1_0 value=-1_000\n");
  ASSERT_TRUE(p.ok()) << p.errors[0].format();
  EXPECT_EQ(p.program.inits[0].region.offset, 0x10000U);
  EXPECT_EQ(p.program.inits[0].region.bytes, 4096U);
  EXPECT_EQ(p.program.inits[0].pattern.value, 255U);
  EXPECT_EQ(p.program.sem_expects[0].idx, 10U);
  EXPECT_EQ(p.program.sem_expects[0].value, static_cast<std::uint32_t>(-1000));
  EXPECT_EQ(error_of(".init core=0 addr=0x1__0 bytes=4 pattern=iota"),
            "p.s:1: error: bad number '0x1__0' for addr");
}

TEST(ProgramFile, ADumpTakesItsRegion) {
  const ProgramParse p = parse(
      ".dump sbuf core=3 addr=0x100 bytes=64 partitions=2:5\n"
      ".dump sbuf core=0 addr=0 bytes=8192\n");  // exactly 1 MiB
  ASSERT_TRUE(p.ok()) << p.errors[0].format();
  ASSERT_EQ(p.program.dumps.size(), 2U);
  const SbufDump& d = p.program.dumps[0];
  EXPECT_EQ(d.loc.line, 1);
  EXPECT_EQ(d.text, ".dump sbuf core=3 addr=0x100 bytes=64 partitions=2:5");
  EXPECT_EQ(d.region.core, 3U);
  EXPECT_EQ(d.region.offset, 0x100U);
  EXPECT_EQ(d.region.bytes, 64U);
  EXPECT_EQ(d.region.first_partition, 2U);
  EXPECT_EQ(d.region.end_partition, 5U);
  EXPECT_EQ(p.program.dumps[1].region.total_bytes(), kMaxDumpBytes);
  const ProgramParse q = parse(
      ".dump ring core=7 engine=15 slots=1020:1024\n"
      ".dump ring engine=0x3 core=0\n"
      ".dump ring core=1 engine=2 hex=yes\n"
      ".dump ring core=1 engine=2 hex=no\n");
  ASSERT_TRUE(q.ok()) << q.errors[0].format();
  ASSERT_EQ(q.program.ring_dumps.size(), 4U);
  EXPECT_FALSE(q.program.ring_dumps[0].hex);
  EXPECT_TRUE(q.program.ring_dumps[2].hex);
  EXPECT_FALSE(q.program.ring_dumps[3].hex);
  EXPECT_EQ(q.program.ring_dumps[0].core, 7U);
  EXPECT_EQ(q.program.ring_dumps[0].engine, 15U);
  EXPECT_EQ(q.program.ring_dumps[0].slots, (std::pair{1020U, 1024U}));
  EXPECT_EQ(q.program.ring_dumps[1].loc.line, 2);
  EXPECT_EQ(q.program.ring_dumps[1].engine, 3U);
  EXPECT_FALSE(q.program.ring_dumps[1].slots.has_value());
}

TEST(ProgramFile, DumpLinesStarRepeatsAndFoldEqualPartitions) {
  // Partitions 0-2 of 40 bytes at 0xf8: p0 and p1 alike (a zero row, a repeat, a short
  // last row), p2 different; the offsets padded to the widest one shown (0x11f).
  SbufRegion r{0, 0xf8, 40, 0, 4};
  std::vector<std::uint8_t> bytes(r.total_bytes(), 0);
  for (unsigned p = 0; p < 4; ++p) bytes[p * 40 + 39] = p < 2 ? 0xab : 0xcd;  // last rows
  bytes[2 * 40] = 1;  // p2's first row differs from p1's, so p2 is shown whole
  EXPECT_EQ(dump_lines(r, bytes),
            (std::vector<std::string>{
                "  p0 +0x0f8: 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00",
                "  *",
                "  p0 +0x118: 00 00 00 00 00 00 00 ab",
                "  p1: as p0",
                "  p2 +0x0f8: 01 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00",
                "  p2 +0x108: 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00",
                "  p2 +0x118: 00 00 00 00 00 00 00 cd",
                "  p3 +0x0f8: 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00",
                "  *",
                "  p3 +0x118: 00 00 00 00 00 00 00 cd",
            }));
  // A run of equal partitions is one line; partition numbers are padded to the widest.
  SbufRegion wide{0, 0, 4, 8, 12};
  const std::vector<std::uint8_t> same(wide.total_bytes(), 7);
  EXPECT_EQ(dump_lines(wide, same),
            (std::vector<std::string>{"  p8  +0x0: 07 07 07 07", "  p9-11: as p8"}));
}

TEST(ProgramFile, ASemaphoreExpectMayBeNegative) {
  const ProgramParse p = parse(
      ".expect sem core=0 idx=1 value=-1\n"
      ".expect sem core=0 idx=2 value=-2147483648\n");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.program.sem_expects[0].value, 0xffffffffU);
  EXPECT_EQ(p.program.sem_expects[1].value, 0x80000000U);
}

TEST(ProgramFile, CoresOfABiggerTopology) {
  EXPECT_TRUE(parse(".core 127\n", "trn2.48xlarge").ok());
  EXPECT_EQ(parse(".core 128\n", "trn2.48xlarge").errors.at(0).message,
            "core 128 does not exist (topology trn2.48xlarge has 128 cores; trn2u has it: "
            "--topology trn2u)");
  // Past every built-in of the profile: none is named.
  EXPECT_EQ(parse(".core 512\n", "trn2.48xlarge").errors.at(0).message,
            "core 512 does not exist (topology trn2.48xlarge has 128 cores)");
}

TEST(FillPattern, BytesAsDocumented) {
  std::vector<std::uint8_t> b(10);
  fill_pattern_bytes({FillPattern::Kind::kIota, 0}, 250, b);
  EXPECT_EQ(b, (std::vector<std::uint8_t>{250, 251, 252, 253, 254, 255, 0, 1, 2, 3}));
  fill_pattern_bytes({FillPattern::Kind::kConst, 0xab}, 3, b);
  EXPECT_EQ(b, std::vector<std::uint8_t>(10, 0xab));
  // random:0, partition 0: splitmix64 from state mix(0x9E3779B97F4A7C15), which is
  // splitmix64's well-known first value from seed 0, 0xE220A8397B1DCDAF; its first output is
  // mix(0xE220A8397B1DCDAF + 0x9E3779B97F4A7C15) = 0xA706DD2F4D197E6F.
  fill_pattern_bytes({FillPattern::Kind::kRandom, 0}, 0, b);
  EXPECT_EQ(
      b, (std::vector<std::uint8_t>{0x6f, 0x7e, 0x19, 0x4d, 0x2f, 0xdd, 0x06, 0xa7, b[8], b[9]}));
  std::vector<std::uint8_t> again(10);
  fill_pattern_bytes({FillPattern::Kind::kRandom, 0}, 0, again);
  EXPECT_EQ(again, b) << "deterministic";
  fill_pattern_bytes({FillPattern::Kind::kRandom, 0}, 1, again);
  EXPECT_NE(again, b) << "per partition";
  // Partition streams are independent: none is a neighbour's shifted by whole outputs, so a
  // copy that lands 8 bytes off across partitions fails its check.
  for (std::uint64_t seed : {0, 5, 42}) {
    std::vector<std::uint8_t> p0(64);
    std::vector<std::uint8_t> p1(64);
    fill_pattern_bytes({FillPattern::Kind::kRandom, seed}, 0, p0);
    fill_pattern_bytes({FillPattern::Kind::kRandom, seed}, 1, p1);
    for (std::size_t shift = 8; shift < 64; shift += 8) {
      EXPECT_FALSE(std::equal(p1.begin(), p1.end() - shift, p0.begin() + shift))
          << "seed " << seed << ": partition 1 is partition 0 shifted by " << shift << " bytes";
    }
  }
  std::vector<std::uint8_t> prefix(3);
  fill_pattern_bytes({FillPattern::Kind::kRandom, 0}, 0, prefix);
  EXPECT_EQ(prefix, std::vector<std::uint8_t>(b.begin(), b.begin() + 3)) << "prefix-stable";
}

TEST(FillPattern, ParseAndFormat) {
  for (const char* text : {"iota", "const:7", "random:123"}) {
    auto p = parse_fill_pattern(text);
    ASSERT_TRUE(p.ok()) << text;
    EXPECT_EQ(format_fill_pattern(*p), text);
  }
  EXPECT_EQ(parse_fill_pattern("random:0x10")->value, 16U);
  EXPECT_EQ(parse_fill_pattern("random:").error().message, "bad number '' for pattern random");
}

// The pages `sbrdma run` checks before it starts (D43e): each partition's OS pages the .init
// regions write, overlaps once, and a whole partition's address space for each one written.
TEST(ProgramFile, TheInitsCertainPagesCountEachPageOnce) {
  const ProgramParse p = parse(
      ".init core=0 addr=0x0 bytes=4096 pattern=iota\n"                      // page 0, 128 parts
      ".init core=0 addr=0x800 bytes=8192 pattern=const:1 partitions=0:2\n"  // pages 0-2, 2 parts
      ".init core=0 addr=0x2000 bytes=1 pattern=const:2 partitions=1:2\n"    // page 2 again
      ".init core=5 addr=0xfff bytes=2 pattern=random:3 partitions=4:7\n"    // pages 0-1, 3 parts
      ".core 0\n");
  ASSERT_TRUE(p.ok());
  const MemoryNeed need = init_memory_need(p.program, soc::cayman_profile());
  EXPECT_EQ(need.at_least, (128 + 2 * 2 + 3 * 2) * 4096U);
  EXPECT_EQ(need.mapped_at_least, (128 + 3) * std::uint64_t{229376});
  EXPECT_EQ(need.at_most, 0U);  // what the legs write is not known before the run
  EXPECT_EQ(need.mapped_at_most, 0U);
  EXPECT_EQ(init_memory_need(parse(".core 0\n").program, soc::cayman_profile()).at_least, 0U);
}

}  // namespace
}  // namespace sbrdma::platform
