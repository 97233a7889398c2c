// Imperative calls (executor/imperative.h): results equal a bound graph's,
// the plan cache serves repeated calls, out= and in-place calls, and every
// refusal names the op and what is wrong.
#include "executor/imperative.h"

#include <string>
#include <thread>
#include <vector>

#include "executor/executor.h"
#include "gmock/gmock.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"

namespace symx {
namespace {

using ::symx::testing::ErrorOf;
using ::symx::testing::ExpectNear;
using ::symx::testing::Full;
using ::symx::testing::Iota;
using ::testing::AllOf;
using ::testing::HasSubstr;

class ImperativeTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearImperativeCache(); }
};

TEST_F(ImperativeTest, DotComputesAndTheSecondCallHitsTheCache) {
  Tensor a = Iota(Shape{2, 3}, [](int64_t i) { return i; });
  Tensor b = Iota(Shape{3, 2}, [](int64_t i) { return 1 + i; });
  std::vector<Tensor> c = Invoke({.op = "dot", .positional = {a, b}});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].shape(), (Shape{2, 2}));
  // [[0 1 2] [3 4 5]] . [[1 2] [3 4] [5 6]]
  ExpectNear(c[0], {13, 16, 40, 52}, 0, "dot");
  ImperativeCacheStats first = GetImperativeCacheStats();
  EXPECT_EQ(first.plans, 1u);
  EXPECT_EQ(first.misses, 1u);
  // New arrays of the same shapes: the plan serves them, the result is new.
  Tensor a2 = Full(Shape{2, 3}, 1), b2 = Full(Shape{3, 2}, 2);
  std::vector<Tensor> c2 = Invoke({.op = "dot", .positional = {a2, b2}});
  ExpectNear(c2[0], {6, 6, 6, 6}, 0, "dot again");
  ExpectNear(c[0], {13, 16, 40, 52}, 0, "the first result is untouched");
  ImperativeCacheStats second = GetImperativeCacheStats();
  EXPECT_EQ(second.plans, 1u);
  EXPECT_EQ(second.hits, 1u);
  // Another shape is another plan.
  Invoke({.op = "dot", .positional = {Full(Shape{1, 3}, 1), b}});
  EXPECT_EQ(GetImperativeCacheStats().plans, 2u);
}

TEST_F(ImperativeTest, EqualsABoundGraph) {
  // A convolution (oneDNN with a prepared state) and FullyConnected by input
  // name: the imperative result is the bound graph's, bit for bit.
  Tensor x = Iota(Shape{2, 3, 6, 6}, [](int64_t i) { return std::sin(0.1 * i); });
  Tensor w = Iota(Shape{4, 3, 3, 3}, [](int64_t i) { return std::cos(0.2 * i); });
  Tensor bias = Iota(Shape{4}, [](int64_t i) { return 0.5 * i; });
  AttrMap conv = {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1)"}};
  Tensor y = Invoke({.op = "Convolution", .attrs = conv, .positional = {x, w, bias}})[0];
  OpCall call("Convolution");
  for (const auto& [k, v] : conv) call.Attr(k, v);
  Symbol net =
      call.Input(Symbol::Variable("x")).Input(Symbol::Variable("w")).Input(Symbol::Variable("b"));
  auto exe = Executor::Bind(net, {}, {x, w, bias}, std::nullopt);
  exe->Forward(false);
  EXPECT_EQ(y.ToDoubles(), exe->outputs()[0].ToDoubles());

  Tensor data = Iota(Shape{3, 5}, [](int64_t i) { return i * 0.25; });
  Tensor weight = Iota(Shape{2, 5}, [](int64_t i) { return 1.0 - i * 0.1; });
  Tensor fc = Invoke({.op = "FullyConnected",
                      .attrs = {{"num_hidden", "2"}, {"no_bias", "True"}},
                      .named = {{"weight", weight}, {"data", data}}})[0];
  std::vector<double> d = data.ToDoubles(), wv = weight.ToDoubles(), want;
  for (int r = 0; r < 3; ++r) {
    for (int h = 0; h < 2; ++h) {
      double acc = 0;
      for (int k = 0; k < 5; ++k) acc += d[r * 5 + k] * wv[h * 5 + k];
      want.push_back(acc);
    }
  }
  ExpectNear(fc, want, 1e-6, "FullyConnected by input name");
}

TEST_F(ImperativeTest, OutArraysAndInPlaceCalls) {
  Tensor x = Full(Shape{4}, 2);
  Tensor out = Full(Shape{4}, -1);
  std::vector<Tensor> r =
      Invoke({.op = "_plus_scalar", .attrs = {{"scalar", "1"}}, .positional = {x}, .out = {out}});
  EXPECT_TRUE(r[0].SharesStorageWith(out));
  ExpectNear(out, {3, 3, 3, 3}, 0, "out=");
  // x += 1: the output is the input.
  Invoke({.op = "_plus_scalar", .attrs = {{"scalar", "1"}}, .positional = {x}, .out = {x}});
  ExpectNear(x, {3, 3, 3, 3}, 0, "in place");
  // An output that is an input the op still reads (a = dot(a, b)) is
  // computed aside and copied: the product of the old values.
  Tensor a = Iota(Shape{2, 2}, [](int64_t i) { return i + 1; });  // [[1 2] [3 4]]
  Tensor b = Iota(Shape{2, 2}, [](int64_t i) { return i == 0 || i == 3; });
  Tensor swap = Iota(Shape{2, 2}, [](int64_t i) { return i == 1 || i == 2; });
  Invoke({.op = "dot", .positional = {a, swap}, .out = {a}});
  ExpectNear(a, {2, 1, 4, 3}, 0, "a = dot(a, swap)");
  Invoke({.op = "dot", .positional = {a, b}, .out = {a}});
  ExpectNear(a, {2, 1, 4, 3}, 0, "a = dot(a, identity)");
}

TEST_F(ImperativeTest, EveryCallChecksItsOutArrays) {
  // A plan found by key knows the out arrays' aliasing only: their shape,
  // dtype and context are checked on every call.
  Tensor x = Full(Shape{2, 2}, -1);
  Invoke({.op = "relu", .positional = {x}, .out = {Full(Shape{2, 2}, 5)}});
  EXPECT_THAT(
      ErrorOf([&] {
        Invoke({.op = "relu", .positional = {x}, .out = {Full(Shape{2, 2}, 0, DType::kFloat64)}});
      }),
      HasSubstr("out[0] is [2,2] float64, the output is [2,2] float32"));
  EXPECT_THAT(
      ErrorOf([&] { Invoke({.op = "relu", .positional = {x}, .out = {Full(Shape{1}, 0)}}); }),
      HasSubstr("out[0] is [1] float32"));
  Tensor on1 = ValueOrThrow(Tensor::Zeros(Shape{2, 2}, DType::kFloat32, Context::CPU(1)));
  EXPECT_THAT(ErrorOf([&] { Invoke({.op = "relu", .positional = {x}, .out = {on1}}); }),
              HasSubstr("out[0] is on cpu(1)"));
}

TEST_F(ImperativeTest, AnOutputOverlappingAnInputIsStagedWhateverCameBefore) {
  // z += row (an in-place plan for broadcast_add's lhs), then x += x[0:1]:
  // the second output is also the first input, but overlaps the second, so
  // it must be computed aside, not in place (which would change the row
  // while it is read).
  Tensor z = Full(Shape{3, 3}, 0);
  Invoke({.op = "broadcast_add", .positional = {z, Full(Shape{1, 3}, 1)}, .out = {z}});
  Tensor x = Iota(Shape{3, 3}, [](int64_t i) { return i; });
  Tensor row = ValueOrThrow(x.Slice(0, 1));
  Invoke({.op = "broadcast_add", .positional = {x, row}, .out = {x}});
  ExpectNear(x, {0, 2, 4, 3, 5, 7, 6, 8, 10}, 0, "x += x[0:1]");
}

TEST_F(ImperativeTest, OpsWithoutInputsVariadicOpsAndHiddenOutputs) {
  Tensor z = Invoke({.op = "_zeros",
                     .attrs = {{"shape", "(2, 3)"}, {"dtype", "float64"}},
                     .ctx = Context::CPU(1)})[0];
  EXPECT_EQ(z.shape(), (Shape{2, 3}));
  EXPECT_EQ(z.dtype(), DType::kFloat64);
  EXPECT_EQ(z.ctx(), Context::CPU(1));
  Tensor o = Invoke({.op = "_ones", .attrs = {{"shape", "(2,)"}, {"ctx", "cpu(2)"}}})[0];
  EXPECT_EQ(o.ctx(), Context::CPU(2));
  ExpectNear(o, {1, 1}, 0, "ones");

  // num_args comes from the positional inputs, as when composing.
  Tensor s = Invoke(
      {.op = "add_n", .positional = {Full(Shape{2}, 1), Full(Shape{2}, 2), Full(Shape{2}, 3)}})[0];
  ExpectNear(s, {6, 6}, 0, "add_n");
  Tensor c = Invoke({.op = "Concat",
                     .attrs = {{"dim", "0"}},
                     .positional = {Full(Shape{1, 2}, 1), Full(Shape{2, 2}, 2)}})[0];
  ExpectNear(c, {1, 1, 2, 2, 2, 2}, 0, "Concat");

  // BatchNorm gives its one visible output; in training mode it normalizes
  // with the batch statistics and updates the moving ones (its aux inputs).
  Tensor data = Iota(Shape{4, 2}, [](int64_t i) { return i; });
  Tensor gamma = Full(Shape{2}, 1), beta = Full(Shape{2}, 0);
  Tensor mean = Full(Shape{2}, 0), var = Full(Shape{2}, 1);
  AttrMap bn = {{"fix_gamma", "False"}, {"momentum", "0.5"}, {"eps", "0"}};
  std::vector<Tensor> y = Invoke({.op = "BatchNorm",
                                  .attrs = bn,
                                  .positional = {data, gamma, beta, mean, var},
                                  .is_train = true});
  ASSERT_EQ(y.size(), 1u);
  // Columns 0,2,4,6 and 1,3,5,7: means 3 and 4, variance 5.
  ExpectNear(mean, {1.5, 2}, 1e-6, "moving mean");
  const double k = 1 / std::sqrt(5.0);
  ExpectNear(y[0], {-3 * k, -3 * k, -k, -k, k, k, 3 * k, 3 * k}, 1e-6, "normalized");
  // Inference mode reads the moving statistics and leaves them.
  Invoke({.op = "BatchNorm", .attrs = bn, .positional = {data, gamma, beta, mean, var}});
  ExpectNear(mean, {1.5, 2}, 1e-6, "moving mean after inference");
}

TEST_F(ImperativeTest, HalfPrecisionOnCpuWidens) {
  Tensor x = Tensor::FromVector(Shape{3}, {0, 1, -1}, DType::kFloat16);
  Tensor y = Invoke({.op = "exp", .positional = {x}})[0];
  EXPECT_EQ(y.dtype(), DType::kFloat16);
  ExpectNear(y, {1, 2.718, 0.3679}, 1e-3, "exp in float16");
}

TEST_F(ImperativeTest, ErrorsNameTheOpAndWhatIsWrong) {
  Tensor a = Full(Shape{2, 3}, 1);
  EXPECT_THAT(ErrorOf([&] { Invoke({.op = "no_such_op", .positional = {a}}); }),
              HasSubstr("no_such_op"));
  EXPECT_THAT(ErrorOf([&] {
                Invoke({.op = "dot", .positional = {a, a}});
              }),
              HasSubstr("operator dot"));
  EXPECT_THAT(ErrorOf([&] {
                Invoke({.op = "FullyConnected", .attrs = {{"num_hidden", "2"}}, .positional = {a}});
              }),
              AllOf(HasSubstr("operator FullyConnected"), HasSubstr("weight, bias not given")));
  EXPECT_THAT(ErrorOf([&] {
                Invoke({.op = "FullyConnected",
                        .attrs = {{"num_hidden", "2"}},
                        .positional = {a},
                        .named = {{"wieght", a}}});
              }),
              HasSubstr("has no input named 'wieght' (inputs: data, weight, bias)"));
  EXPECT_THAT(ErrorOf([&] {
                Invoke({.op = "relu", .positional = {a, a}});
              }),
              HasSubstr("got 2 positional inputs, but it takes 1 (data)"));
  EXPECT_THAT(ErrorOf([&] {
                Invoke({.op = "relu", .attrs = {{"no_such_attr", "1"}}, .positional = {a}});
              }),
              AllOf(HasSubstr("operator relu"), HasSubstr("no_such_attr")));
  Tensor on1 = ValueOrThrow(Tensor::Zeros(Shape{2, 3}, DType::kFloat32, Context::CPU(1)));
  EXPECT_THAT(ErrorOf([&] {
                Invoke({.op = "elemwise_add", .positional = {a, on1}});
              }),
              HasSubstr("inputs are on different contexts (cpu(0) and cpu(1))"));
  EXPECT_THAT(ErrorOf([&] {
                Invoke({.op = "relu", .positional = {a}, .out = {Full(Shape{3, 2}, 0)}});
              }),
              HasSubstr("out[0] is [3,2] float32, the output is [2,3] float32"));
  EXPECT_THAT(ErrorOf([&] { Invoke({.op = "relu", .positional = {a}, .out = {on1}}); }),
              HasSubstr("out[0] is on cpu(1), the op runs on cpu(0)"));
  EXPECT_THAT(ErrorOf([&] {
                Invoke({.op = "relu", .positional = {a}, .out = {a, a}});
              }),
              HasSubstr("out= has 2 array(s) for 1 output(s)"));
  EXPECT_THAT(ErrorOf([&] { Invoke({.op = "relu", .positional = {Tensor()}}); }),
              HasSubstr("positional input 0 is not an array"));
  EXPECT_THAT(ErrorOf([&] {
                Invoke({.op = "_backward_relu", .positional = {a, a}});
              }),
              HasSubstr("not callable imperatively"));
  EXPECT_THAT(ErrorOf([&] {
                Invoke({.op = "_zeros", .attrs = {{"ctx", "tpu(0)"}}});
              }),
              HasSubstr("tpu(0)"));
  // Failed calls leave no plan.
  EXPECT_EQ(GetImperativeCacheStats().plans, 0u);
}

TEST_F(ImperativeTest, TheCacheKeepsTheMostRecentlyUsedPlans) {
  Tensor x = Full(Shape{1}, 0);
  Invoke({.op = "_plus_scalar", .attrs = {{"scalar", "-1"}}, .positional = {x}});
  for (size_t i = 0; i < kImperativeCachePlans; ++i) {
    // The first plan stays the most recently used: it is never evicted.
    Invoke({.op = "_plus_scalar", .attrs = {{"scalar", "-1"}}, .positional = {x}});
    Invoke({.op = "_plus_scalar", .attrs = {{"scalar", std::to_string(i)}}, .positional = {x}});
  }
  ImperativeCacheStats s = GetImperativeCacheStats();
  EXPECT_EQ(s.plans, kImperativeCachePlans);
  const uint64_t hits = s.hits;
  Invoke({.op = "_plus_scalar", .attrs = {{"scalar", "-1"}}, .positional = {x}});
  EXPECT_EQ(GetImperativeCacheStats().hits, hits + 1);
  // The oldest of the others is gone.
  Invoke({.op = "_plus_scalar", .attrs = {{"scalar", "0"}}, .positional = {x}});
  EXPECT_EQ(GetImperativeCacheStats().hits, hits + 1);
}

// The optimizer family's attributes change every step (a schedule's rate):
// one plan serves every value, each call computing with its own.
TEST_F(ImperativeTest, PerCallAttributesShareOnePlan) {
  Tensor w = Full(Shape{3}, 1);
  Tensor g = Full(Shape{3}, 1);
  const uint64_t misses = GetImperativeCacheStats().misses;
  double want = 1;
  for (int step = 1; step <= 5; ++step) {
    const double lr = 0.125 * step;
    Invoke({.op = "sgd_update",
            .attrs = {{"lr", std::to_string(lr)}},
            .positional = {w, g},
            .out = {w}});
    want -= lr;
    for (double v : w.ToDoubles()) EXPECT_DOUBLE_EQ(v, want) << "step " << step;
  }
  EXPECT_EQ(GetImperativeCacheStats().misses, misses + 1);
  // A bad value is still the op's error, not a stale plan's run.
  EXPECT_THROW(
      Invoke({.op = "sgd_update", .attrs = {{"lr", "fast"}}, .positional = {w, g}, .out = {w}}),
      Error);
  // Other ops key on the values: a new scalar is a new plan.
  Tensor x = Full(Shape{1}, 0);
  Invoke({.op = "_plus_scalar", .attrs = {{"scalar", "7"}}, .positional = {x}});
  const uint64_t before = GetImperativeCacheStats().misses;
  Invoke({.op = "_plus_scalar", .attrs = {{"scalar", "8"}}, .positional = {x}});
  EXPECT_EQ(GetImperativeCacheStats().misses, before + 1);
}

TEST_F(ImperativeTest, APlanHoldsNoArrayOfItsCallsAndCountsItsMemory) {
  Tensor x = Full(Shape{16}, 1);
  const long before = x.storage().use_count();
  Tensor y = Invoke({.op = "exp", .positional = {x}})[0];
  EXPECT_EQ(x.storage().use_count(), before);
  EXPECT_EQ(y.storage().use_count(), 1);
  EXPECT_EQ(GetImperativeCacheStats().bytes, 0u);
  // BatchNorm's hidden batch mean and variance stay with the plan.
  Invoke({.op = "BatchNorm",
          .positional = {Full(Shape{4, 3}, 1), Full(Shape{3}, 1), Full(Shape{3}, 0),
                         Full(Shape{3}, 0), Full(Shape{3}, 1)},
          .is_train = true});
  EXPECT_GE(GetImperativeCacheStats().bytes, 2 * 3 * sizeof(float));
  ClearImperativeCache();
  EXPECT_EQ(GetImperativeCacheStats().bytes, 0u);
  EXPECT_EQ(GetImperativeCacheStats().plans, 0u);
}

TEST_F(ImperativeTest, CallsFromSeveralThreads) {
  // One plan shared by four threads: each gets its own result.
  std::vector<std::thread> threads;
  std::vector<std::string> errors(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &errors] {
      Tensor x = Full(Shape{64}, t);
      for (int i = 0; i < 200; ++i) {
        Tensor y = Invoke({.op = "_mul_scalar", .attrs = {{"scalar", "2"}}, .positional = {x}})[0];
        for (double v : y.ToDoubles()) {
          if (v != 2.0 * t) errors[t] = "thread " + std::to_string(t) + " got " + std::to_string(v);
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
  EXPECT_EQ(GetImperativeCacheStats().plans, 1u);
}

}  // namespace
}  // namespace symx
