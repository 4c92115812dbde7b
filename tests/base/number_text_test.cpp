#include "base/number_text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "base/number_runs.h"

namespace sbrdma::base {
namespace {

void expect_value(std::string_view text, std::uint64_t v) {
  const UnsignedText n = read_unsigned_text(text);
  EXPECT_EQ(n.form, NumberForm::kValue) << text;
  EXPECT_EQ(n.value, v) << text;
}

void expect_form(std::string_view text, NumberForm form) {
  const UnsignedText n = read_unsigned_text(text);
  EXPECT_EQ(n.form, form) << text;
  EXPECT_EQ(n.value, 0U) << text;
}

TEST(NumberText, DecimalAndHexUpTo64Bits) {
  expect_value("0", 0);
  expect_value("007", 7);
  expect_value("0x1f", 31);
  expect_value("0XFF", 255);
  expect_value("0x0052800000100000", 0x0052800000100000ULL);
  expect_value("18446744073709551615", UINT64_MAX);
  expect_value("0xffffffffffffffff", UINT64_MAX);
}

TEST(NumberText, PastSixtyFourBitsIsTooLargeNotMalformed) {
  expect_form("18446744073709551616", NumberForm::kTooLarge);
  expect_form("0x10000000000000000", NumberForm::kTooLarge);
  expect_form("99999999999999999999999", NumberForm::kTooLarge);
}

TEST(NumberText, AnythingElseIsNoNumber) {
  for (std::string_view t : {"", "0x", "0X", "x1", "-1", "+1", " 1", "1 ", "1_000", "12ab", "0x1g",
                             "0x-1", "99999999999999999999x", "1.0", "0b101"}) {
    expect_form(t, NumberForm::kMalformed);
  }
}

TEST(NumberText, AnUnderscoreGroupsDigitsOnlyBetweenTwoOfThem) {
  EXPECT_EQ(read_grouped_unsigned_text("1_000").value, 1000U);
  EXPECT_EQ(read_grouped_unsigned_text("0x0052_8000").value, 0x528000U);
  EXPECT_EQ(read_grouped_unsigned_text("0xff_ff_ff").value, 0xffffffU);
  EXPECT_EQ(read_grouped_unsigned_text("42").value, 42U);
  for (std::string_view t : {"_8", "8_", "0x_10", "1__0", "_", "0_x10"}) {
    EXPECT_EQ(read_grouped_unsigned_text(t).form, NumberForm::kMalformed) << t;
  }
  EXPECT_EQ(read_grouped_unsigned_text("18_446_744_073_709_551_616").form, NumberForm::kTooLarge);
}

TEST(NumberRuns, ConsecutiveNumbersGroupIntoRuns) {
  using Runs = std::vector<std::pair<unsigned, unsigned>>;
  EXPECT_EQ(consecutive_runs(std::vector<unsigned>{}), Runs{});
  EXPECT_EQ(consecutive_runs(std::vector<unsigned>{4}), (Runs{{4, 4}}));
  EXPECT_EQ(consecutive_runs(std::vector<unsigned>{1, 3, 5, 6, 7, 9}),
            (Runs{{1, 1}, {3, 3}, {5, 7}, {9, 9}}));
  EXPECT_EQ(consecutive_runs(std::vector<std::uint64_t>{0, 1, 2}),
            (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0, 2}}));
}

}  // namespace
}  // namespace sbrdma::base
