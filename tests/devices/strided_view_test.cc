// The shared strided views (devices/geometry/strided_view.h): strides and the
// simplification both devices' copies rely on. FrontView and DiagView are
// checked through the slice_like and diag conformance cases.
#include "devices/geometry/strided_view.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using ::testing::ElementsAre;

TEST(StridedViewTest, RowMajorStrides) {
  EXPECT_THAT(StridesOf(Shape({2, 3, 4})), ElementsAre(12, 4, 1));
  EXPECT_THAT(StridesOf(Shape({5})), ElementsAre(1));
  EXPECT_THAT(StridesOf(Shape({})), ElementsAre());
}

TEST(StridedViewTest, SimplifyDropsUnitDimsAndMergesContiguousOnes) {
  // The front (2, 1, 3, 4) corner of a (2, 5, 3, 4) array: rows of 12 are
  // contiguous, and the unit dim goes.
  StridedView v{{2, 1, 3, 4}, {60, 12, 4, 1}, 7};
  EXPECT_EQ(v.size(), 24);
  v.Simplify();
  EXPECT_THAT(v.dims, ElementsAre(2, 12));
  EXPECT_THAT(v.steps, ElementsAre(60, 1));
  EXPECT_EQ(v.offset, 7);
  EXPECT_EQ(v.size(), 24);
  // A diagonal (step m + 1) merges with nothing; all-unit dims leave one.
  StridedView d{{4}, {5}, 0};
  d.Simplify();
  EXPECT_THAT(d.dims, ElementsAre(4));
  StridedView one{{1, 1}, {3, 1}, 2};
  one.Simplify();
  EXPECT_THAT(one.dims, ElementsAre(1));
  EXPECT_EQ(one.size(), 1);
}

}  // namespace
}  // namespace symx
