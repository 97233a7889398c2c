// Index values to positions (devices/geometry/index_position.h), the one definition
// the CPU and GPU kernels of one_hot, pick, take and gather_nd share.
#include "devices/geometry/index_position.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace symx {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(IndexPositionTest, ClipTruncatesTowardZeroAndClips) {
  EXPECT_EQ(ClipOrWrapPosition(2.9, 5, false), 2);
  EXPECT_EQ(ClipOrWrapPosition(-0.5, 5, false), 0);
  EXPECT_EQ(ClipOrWrapPosition(-7, 5, false), 0);
  EXPECT_EQ(ClipOrWrapPosition(4.0, 5, false), 4);
  EXPECT_EQ(ClipOrWrapPosition(1e30, 5, false), 4);
  EXPECT_EQ(ClipOrWrapPosition(kNaN, 5, false), 0);
}

TEST(IndexPositionTest, WrapIsPythonModuloOfTheTruncatedValue) {
  EXPECT_EQ(ClipOrWrapPosition(7, 5, true), 2);
  EXPECT_EQ(ClipOrWrapPosition(-1, 5, true), 4);
  EXPECT_EQ(ClipOrWrapPosition(-6.7, 5, true), 4);  // trunc(-6.7) = -6 -> 4
  EXPECT_EQ(ClipOrWrapPosition(5, 5, true), 0);
  EXPECT_EQ(ClipOrWrapPosition(kNaN, 5, true), 0);
}

TEST(IndexPositionTest, RaiseAndGatherNdRejectOutOfRange) {
  EXPECT_EQ(RaisePosition(3, 4), 3);
  EXPECT_EQ(RaisePosition(2.5, 4), 2);
  EXPECT_EQ(RaisePosition(3.5, 4), -1);  // past n - 1, though it truncates to 3
  EXPECT_EQ(RaisePosition(4, 4), -1);
  EXPECT_EQ(RaisePosition(-0.5, 4), -1);
  EXPECT_EQ(RaisePosition(kNaN, 4), -1);
  EXPECT_EQ(GatherNdPosition(-1, 4), 3);
  EXPECT_EQ(GatherNdPosition(-4, 4), 0);
  EXPECT_EQ(GatherNdPosition(-5, 4), -1);
  EXPECT_EQ(GatherNdPosition(4, 4), -1);
  EXPECT_EQ(GatherNdPosition(kNaN, 4), -1);
}

TEST(IndexPositionTest, OneHotColumn) {
  EXPECT_EQ(OneHotColumn(2.7, 4), 2);
  EXPECT_EQ(OneHotColumn(-0.5, 4), 0);  // trunc(-0.5) = -0
  EXPECT_EQ(OneHotColumn(-1, 4), -1);
  EXPECT_EQ(OneHotColumn(4, 4), -1);
  EXPECT_EQ(OneHotColumn(kNaN, 4), -1);
}

TEST(IndexPositionTest, FormatIndexValue) {
  EXPECT_EQ(FormatIndexValue(7), "7");
  EXPECT_EQ(FormatIndexValue(-3), "-3");
  EXPECT_EQ(FormatIndexValue(2.5), "2.5");
}

}  // namespace
}  // namespace symx
