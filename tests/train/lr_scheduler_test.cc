// The schedules' spellings and errors (their numbers are checked against
// MXNet's in optimizer_test's SchedulesMatchMXNet).
#include "train/lr_scheduler.h"

#include <functional>

#include "graph/error.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"
#include "tests/expect_contains.h"

namespace symx::train {
namespace {

using ::symx::testing::ErrorOf;

TEST(LRScheduler, SpellingsAndDefaults) {
  auto f = ParseLRScheduler("factor:step=2,factor=0.5", 0.4);
  EXPECT_DOUBLE_EQ((*f)(1), 0.4);  // base_lr from the default (--lr)
  EXPECT_DOUBLE_EQ((*f)(3), 0.2);
  EXPECT_DOUBLE_EQ((*f)(1), 0.2);  // it remembers, as MXNet's
  auto m = ParseLRScheduler("MultiFactor:step=[2, 4],factor=0.1,base_lr=1");
  EXPECT_DOUBLE_EQ((*m)(2), 1.0);
  EXPECT_NEAR((*m)(5), 0.01, 1e-15);
  auto p = ParseLRScheduler("poly:max_update=10,pwr=1,warmup_steps=2,warmup_begin_lr=0", 1.0);
  EXPECT_DOUBLE_EQ((*p)(1), 0.5);   // linear warmup
  EXPECT_DOUBLE_EQ((*p)(6), 0.5);   // halfway from update 2 to 10
  EXPECT_DOUBLE_EQ((*p)(20), 0.5);  // past max_update: the last rate reached, as MXNet
  EXPECT_DOUBLE_EQ((*p)(10), 0.0);
  EXPECT_DOUBLE_EQ((*p)(20), 0.0);
  auto c = ParseLRScheduler(
      "cosine:max_update=4,final_lr=0.1,warmup_steps=2,warmup_mode=constant,"
      "warmup_begin_lr=0.05",
      1.0);
  EXPECT_DOUBLE_EQ((*c)(0), 0.05);
  EXPECT_DOUBLE_EQ((*c)(3), 0.1 + 0.9 * 0.5);
  EXPECT_NE(c->Describe().find("cosine"), std::string::npos);
}

TEST(LRScheduler, Errors) {
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("step:step=2"); }), "unknown lr schedule 'step'");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("factor"); }), "step is required");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("factor:step=0"); }), "at least 1");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("factor:step=2,factor=2"); }), "at most 1");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("factor:step=2,gamma=2"); }), "no setting 'gamma'");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("multifactor:step=[3,2]"); }), "must increase");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("multifactor:step=[3,x]"); }), "list of integers");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("multifactor:step=[3,4"); }), "open '['");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("poly:max_update=5,warmup_steps=5"); }),
                  "equals warmup_steps");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("cosine"); }), "max_update is required");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("factor:step=2,warmup_mode=cubic"); }),
                  "warmup_mode must be linear or constant");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler("factor:step=2,warmup_begin_lr=1", 0.1); }),
                  "must not exceed base_lr");
  EXPECT_CONTAINS(ErrorOf([] { ParseLRScheduler(":step=2"); }), "has no name");
}

}  // namespace
}  // namespace symx::train
