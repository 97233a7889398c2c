// The GPU CTCLoss kernel's sample table (devices/geometry/ctc_plan.h), built on the
// host: each extended-label position's class, the next position of that
// class and whether it is the class's first, which the kernel's posterior
// sums follow in the CPU's order.
#include "devices/geometry/ctc_plan.h"

#include "devices/geometry/ctc_math.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

TEST(CtcPlanTest, SampleTableChainsEachClassInOrder) {
  CtcDims d;
  d.tmax = 6;
  d.batch = 2;
  d.alphabet = 4;
  d.lmax = 3;
  // Sample 0: label (2, 2, 3) -> l' = (0, 2, 0, 2, 0, 3, 0); sample 1: label (1), padded.
  CtcSample a;
  a.steps = 6;
  a.sym = {0, 2, 0, 2, 0, 3, 0};
  CtcSample b;
  b.steps = 1;
  b.sym = {0, 1, 0};
  b.feasible = true;
  const std::vector<int64_t> meta = CtcSampleTable(d, {a, b});
  const int64_t smax = d.max_symbols(), per = CtcMetaPerSample(smax);
  ASSERT_EQ(static_cast<int64_t>(meta.size()), 2 * per);
  const int64_t* m = meta.data();
  EXPECT_THAT(std::vector<int64_t>(m, m + 3), ElementsAre(6, 7, 1));
  EXPECT_THAT(std::vector<int64_t>(m + 3, m + 3 + 7), ElementsAreArray(a.sym));
  // Next position of the same class: blanks chain 0 -> 2 -> 4 -> 6, the 2s 1 -> 3.
  EXPECT_THAT(std::vector<int64_t>(m + 3 + smax, m + 3 + smax + 7),
              ElementsAre(2, 3, 4, -1, 6, -1, -1));
  EXPECT_THAT(std::vector<int64_t>(m + 3 + 2 * smax, m + 3 + 2 * smax + 7),
              ElementsAre(1, 1, 0, 0, 0, 1, 0));
  const int64_t* m1 = meta.data() + per;
  EXPECT_THAT(std::vector<int64_t>(m1, m1 + 3), ElementsAre(1, 3, 1));
  EXPECT_THAT(std::vector<int64_t>(m1 + 3 + smax, m1 + 3 + smax + 3), ElementsAre(2, -1, -1));
  EXPECT_THAT(std::vector<int64_t>(m1 + 3 + 2 * smax, m1 + 3 + 2 * smax + 3),
              ElementsAre(1, 1, 0));
}

TEST(CtcPlanTest, InfeasibleSamplesAreMarked) {
  CtcDims d;
  d.tmax = 2;
  d.batch = 1;
  d.alphabet = 3;
  d.lmax = 2;
  CtcSample s;
  s.steps = 2;
  s.sym = {0, 1, 0, 1, 0};
  s.feasible = false;
  const std::vector<int64_t> meta = CtcSampleTable(d, {s});
  EXPECT_EQ(meta[2], 0);
}

}  // namespace
}  // namespace symx
