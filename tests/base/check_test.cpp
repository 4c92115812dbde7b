#include "base/check.h"

#include <gtest/gtest.h>

namespace sbrdma::base {
namespace {

// A failed check is an internal error: one line naming it, and exit status 2, as the README
// says (not abort()'s 134).
TEST(CheckDeathTest, AFailedCheckExitsTwoWithItsLine) {
  EXPECT_EXIT(SBRDMA_CHECK_MSG(1 + 1 == 3, "arithmetic"), ::testing::ExitedWithCode(2),
              "internal error: check failed: 1 \\+ 1 == 3: arithmetic");
}

}  // namespace
}  // namespace sbrdma::base
