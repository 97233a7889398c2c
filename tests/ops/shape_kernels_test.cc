// Direct tests of the kernels in shape_kernels.cc, reduce_kernels.cc,
// softmax_kernels.cc, loss_kernels.cc, dropout_kernels.cc and
// indexing_kernels.cc for what the conformance tables
// cannot reach: Dropout's randomness, ties in max, in-place runs, indices of
// integer dtypes, dtypes the harness cannot compare (bool), large tensors on
// the thread pool, and errors on bad input instead of crashes.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
#include "graph/node.h"
#include "graph/op.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using ::testing::HasSubstr;

Device* Cpu() { return GetDevice(Context::CPU(0)).value(); }

// Runs op `op`'s CPU kernel on `inputs`, writing `outputs`.
absl::Status RunKernel(const std::string& op, AttrMap attrs, std::vector<Tensor> inputs,
                       std::vector<Tensor> outputs, bool is_train = true) {
  std::vector<NodeEntry> entries;
  for (size_t i = 0; i < inputs.size(); ++i) {
    entries.push_back(NodeEntry{MakeVariableNode("in" + std::to_string(i)), 0, 0});
  }
  absl::StatusOr<NodePtr> node = MakeOpNode(op, "n", std::move(attrs), entries);
  if (!node.ok()) return node.status();
  const KernelInfo* info = KernelRegistry::Find(op, DeviceType::kCPU);
  if (info == nullptr) return absl::NotFoundError("no kernel for " + op);
  KernelContext ctx;
  ctx.attrs = &(*node)->attrs;
  ctx.device = Cpu();
  ctx.is_train = is_train;
  ctx.inputs = std::move(inputs);
  ctx.outputs = std::move(outputs);
  ctx.req.assign(ctx.outputs.size(), OpReq::kWrite);
  return info->fn(ctx);
}

Tensor Empty(const Shape& s, DType t = DType::kFloat32) { return Tensor::Empty(s, t).value(); }

std::vector<double> Ramp(int64_t n, double scale = 1.0, double offset = 0.0) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.37 * i + offset) * scale;
  return v;
}

// ----------------------------------------------------------------------------- Dropout

TEST(DropoutKernel, DropsAboutPAndScalesTheRest) {
  const Shape s{1000, 200};
  Tensor x = Tensor::FromVector(s, std::vector<double>(s.Size(), 2.0));
  Tensor y = Empty(s), mask = Empty(s);
  Cpu()->Seed(7);
  ASSERT_TRUE(RunKernel("Dropout", {{"p", "0.3"}}, {x}, {y, mask}).ok());
  std::vector<double> out = y.ToDoubles(), m = mask.ToDoubles();
  int64_t zeros = 0;
  const double kept = static_cast<float>(2.0 / 0.7);
  for (int64_t i = 0; i < s.Size(); ++i) {
    if (out[i] == 0) {
      ++zeros;
      ASSERT_EQ(m[i], 0);
    } else {
      ASSERT_EQ(out[i], kept) << i;
      ASSERT_EQ(m[i], static_cast<float>(1 / 0.7));
    }
  }
  EXPECT_NEAR(static_cast<double>(zeros) / s.Size(), 0.3, 0.005);

  // The same seed gives the same mask; the backward is ograd * mask.
  Tensor y2 = Empty(s), mask2 = Empty(s);
  Cpu()->Seed(7);
  ASSERT_TRUE(RunKernel("Dropout", {{"p", "0.3"}}, {x}, {y2, mask2}).ok());
  EXPECT_EQ(mask2.ToDoubles(), m);
  Tensor og = Tensor::FromVector(s, Ramp(s.Size())), g = Empty(s);
  ASSERT_TRUE(RunKernel("_backward_Dropout", {{"p", "0.3"}}, {og, mask}, {g}).ok());
  std::vector<double> gv = g.ToDoubles(), ogv = og.ToDoubles();
  for (int64_t i = 0; i < s.Size(); ++i) {
    ASSERT_EQ(gv[i], static_cast<float>(ogv[i] * static_cast<float>(m[i]))) << i;
  }
}

TEST(DropoutKernel, AxesShareTheMask) {
  const Shape s{50, 40, 6};
  Tensor x = Tensor::FromVector(s, Ramp(s.Size(), 1.0, 0.5), DType::kFloat64);
  Tensor y = Empty(s, DType::kFloat64), mask = Empty(Shape{50, 1, 6}, DType::kFloat64);
  ASSERT_TRUE(RunKernel("Dropout", {{"p", "0.5"}, {"axes", "(1,)"}}, {x}, {y, mask}).ok());
  std::vector<double> xv = x.ToDoubles(), yv = y.ToDoubles(), m = mask.ToDoubles();
  int64_t zeros = 0;
  for (int64_t a = 0; a < 50; ++a) {
    for (int64_t b = 0; b < 40; ++b) {
      for (int64_t c = 0; c < 6; ++c) {
        const int64_t i = (a * 40 + b) * 6 + c;
        ASSERT_EQ(yv[i], xv[i] * m[a * 6 + c]);
      }
    }
  }
  for (double v : m) {
    ASSERT_TRUE(v == 0 || v == 2.0);
    zeros += v == 0;
  }
  EXPECT_GT(zeros, 100);
  EXPECT_LT(zeros, 200);
}

TEST(DropoutKernel, InferenceIsIdentityUnlessModeAlways) {
  const Shape s{4, 5};
  Tensor x = Tensor::FromVector(s, Ramp(s.Size(), 1.0, 1.0));
  Tensor y = Empty(s), mask = Empty(s);
  ASSERT_TRUE(RunKernel("Dropout", {{"p", "0.5"}}, {x}, {y, mask}, /*is_train=*/false).ok());
  EXPECT_EQ(y.ToDoubles(), x.ToDoubles());
  EXPECT_EQ(mask.ToDoubles(), std::vector<double>(s.Size(), 1.0));
  // mode=always drops at inference too.
  const Shape big{100, 100};
  Tensor bx = Tensor::FromVector(big, std::vector<double>(big.Size(), 1.0));
  Tensor by = Empty(big), bm = Empty(big);
  ASSERT_TRUE(
      RunKernel("Dropout", {{"p", "0.5"}, {"mode", "always"}}, {bx}, {by, bm}, /*is_train=*/false)
          .ok());
  std::vector<double> v = by.ToDoubles();
  int64_t zeros = 0;
  for (double e : v) zeros += e == 0;
  EXPECT_NEAR(zeros / 10000.0, 0.5, 0.03);
}

TEST(DropoutKernel, InPlace) {
  const Shape s{64, 64};
  Tensor x = Tensor::FromVector(s, std::vector<double>(s.Size(), 1.0));
  Tensor mask = Empty(s);
  ASSERT_TRUE(RunKernel("Dropout", {{"p", "0.25"}}, {x}, {x, mask}).ok());
  EXPECT_EQ(x.ToDoubles(), mask.ToDoubles());
}

// ----------------------------------------------------------------------------- reductions

TEST(ReduceKernel, MaxGradientGoesToEveryTie) {
  Tensor data = Tensor::FromVector(Shape{2, 3}, {1, 3, 3, -2, -2, -5});
  Tensor out = Empty(Shape{2});
  ASSERT_TRUE(RunKernel("max", {{"axis", "1"}}, {data}, {out}).ok());
  EXPECT_EQ(out.ToDoubles(), (std::vector<double>{3, -2}));
  Tensor og = Tensor::FromVector(Shape{2}, {10, 20}), g = Empty(Shape{2, 3});
  ASSERT_TRUE(RunKernel("_backward_max", {{"axis", "1"}}, {og, data, out}, {g}).ok());
  EXPECT_EQ(g.ToDoubles(), (std::vector<double>{0, 10, 10, 20, 20, 0}));
}

TEST(ReduceKernel, LargeReductionsOnThePool) {
  const Shape s{300, 7, 400};
  std::vector<double> v = Ramp(s.Size());
  Tensor x = Tensor::FromVector(s, v, DType::kFloat64);
  for (const char* axis : {"(0, 2)", "(1,)", "(0,)", "(2,)"}) {
    SCOPED_TRACE(axis);
    std::vector<bool> red = {std::string(axis).find('0') != std::string::npos,
                             std::string(axis).find('1') != std::string::npos,
                             std::string(axis).find('2') != std::string::npos};
    Shape os{red[0] ? 1 : 300, red[1] ? 1 : 7, red[2] ? 1 : 400};
    Tensor out = Empty(os, DType::kFloat64);
    ASSERT_TRUE(RunKernel("sum", {{"axis", axis}, {"keepdims", "True"}}, {x}, {out}).ok());
    std::vector<double> want(os.Size(), 0.0);
    for (int64_t a = 0; a < 300; ++a) {
      for (int64_t b = 0; b < 7; ++b) {
        for (int64_t c = 0; c < 400; ++c) {
          int64_t o = ((red[0] ? 0 : a) * os[1] + (red[1] ? 0 : b)) * os[2] + (red[2] ? 0 : c);
          want[o] += v[(a * 7 + b) * 400 + c];
        }
      }
    }
    std::vector<double> got = out.ToDoubles();
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-9) << i;
  }
}

TEST(ReduceKernel, RejectsBadAxesWithoutCrashing) {
  Tensor x = Tensor::FromVector(Shape{2, 3}, Ramp(6));
  Tensor out = Empty(Shape{2});
  // A node built for 3-D data run on 2-D data: the axis is out of range.
  absl::Status s = RunKernel("sum", {{"axis", "2"}}, {x}, {out});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("sum"));
  // Integer data is not reduced.
  Tensor xi = Tensor::FromVector(Shape{2, 3}, Ramp(6), DType::kInt32);
  s = RunKernel("sum", {{"axis", "1"}}, {xi}, {Empty(Shape{2}, DType::kInt32)});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
}

// ----------------------------------------------------------------------------- data movement

TEST(ShapeKernel, ReshapeCopiesOrDoesNothingInPlace) {
  Tensor x = Tensor::FromVector(Shape{2, 3}, {1, 0, 1, 1, 0, 0}, DType::kBool);
  Tensor y = Empty(Shape{6}, DType::kBool);
  ASSERT_TRUE(RunKernel("Reshape", {{"shape", "(-1,)"}}, {x}, {y}).ok());
  EXPECT_EQ(y.ToDoubles(), x.ToDoubles());
  Tensor view = x.View(Shape{3, 2}).value();
  ASSERT_TRUE(RunKernel("Reshape", {{"shape", "(3, 2)"}}, {x}, {view}).ok());
  EXPECT_EQ(view.ToDoubles(), x.ToDoubles());
  Tensor g = Empty(Shape{2, 3}, DType::kBool);
  ASSERT_TRUE(RunKernel("_backward_reshape", {{"shape", "(-1,)"}}, {y}, {g}).ok());
  EXPECT_EQ(g.ToDoubles(), x.ToDoubles());
}

TEST(ShapeKernel, TransposeBoolAndLargeTensors) {
  Tensor b = Tensor::FromVector(Shape{2, 3}, {1, 0, 0, 1, 1, 0}, DType::kBool);
  Tensor bt = Empty(Shape{3, 2}, DType::kBool);
  ASSERT_TRUE(RunKernel("transpose", {}, {b}, {bt}).ok());
  EXPECT_EQ(bt.ToDoubles(), (std::vector<double>{1, 1, 0, 1, 0, 0}));

  const Shape s{37, 300, 21};
  std::vector<double> v(s.Size());
  std::iota(v.begin(), v.end(), 0.0);
  for (DType t : {DType::kFloat64, DType::kInt32, DType::kFloat16, DType::kInt8}) {
    SCOPED_TRACE(DTypeName(t));
    std::vector<double> vt = v;
    if (t == DType::kFloat16 || t == DType::kInt8) {
      for (double& e : vt) e = std::fmod(e, 100.0);
    }
    Tensor x = Tensor::FromVector(s, vt, t);
    Tensor y = Empty(Shape{21, 37, 300}, t);
    ASSERT_TRUE(RunKernel("transpose", {{"axes", "(2, 0, 1)"}}, {x}, {y}).ok());
    std::vector<double> got = y.ToDoubles();
    for (int64_t c = 0; c < 21; ++c) {
      for (int64_t a = 0; a < 37; ++a) {
        for (int64_t b2 = 0; b2 < 300; ++b2) {
          ASSERT_EQ(got[(c * 37 + a) * 300 + b2], vt[(a * 300 + b2) * 21 + c]);
        }
      }
    }
  }
}

TEST(ShapeKernel, ConcatAndSplitLargeAndBool) {
  const int64_t rows = 2000;
  Tensor a = Tensor::FromVector(Shape{rows, 30}, Ramp(rows * 30), DType::kFloat64);
  Tensor b = Tensor::FromVector(Shape{rows, 50}, Ramp(rows * 50, 2.0), DType::kFloat64);
  Tensor y = Empty(Shape{rows, 80}, DType::kFloat64);
  ASSERT_TRUE(RunKernel("Concat", {{"num_args", "2"}, {"dim", "1"}}, {a, b}, {y}).ok());
  std::vector<double> av = a.ToDoubles(), bv = b.ToDoubles(), yv = y.ToDoubles();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < 80; ++c) {
      ASSERT_EQ(yv[r * 80 + c], c < 30 ? av[r * 30 + c] : bv[r * 50 + c - 30]);
    }
  }
  Tensor ga = Empty(Shape{rows, 30}, DType::kFloat64), gb = Empty(Shape{rows, 50}, DType::kFloat64);
  ASSERT_TRUE(RunKernel("_backward_Concat", {{"num_args", "2"}, {"dim", "1"}}, {y}, {ga, gb}).ok());
  EXPECT_EQ(ga.ToDoubles(), av);
  EXPECT_EQ(gb.ToDoubles(), bv);

  Tensor flags = Tensor::FromVector(Shape{2, 4}, {1, 0, 0, 1, 1, 1, 0, 0}, DType::kBool);
  Tensor p0 = Empty(Shape{2, 2}, DType::kBool), p1 = Empty(Shape{2, 2}, DType::kBool);
  ASSERT_TRUE(RunKernel("SliceChannel", {{"num_outputs", "2"}}, {flags}, {p0, p1}).ok());
  EXPECT_EQ(p0.ToDoubles(), (std::vector<double>{1, 0, 1, 1}));
  EXPECT_EQ(p1.ToDoubles(), (std::vector<double>{0, 1, 0, 0}));
  Tensor s = Empty(Shape{2, 3}, DType::kBool);
  ASSERT_TRUE(
      RunKernel("slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "None"}}, {flags}, {s}).ok());
  EXPECT_EQ(s.ToDoubles(), (std::vector<double>{0, 0, 1, 1, 0, 0}));
  Tensor back = Empty(Shape{2, 4}, DType::kBool);
  ASSERT_TRUE(RunKernel("_backward_slice_axis", {{"axis", "1"}, {"begin", "1"}, {"end", "None"}},
                        {s}, {back})
                  .ok());
  EXPECT_EQ(back.ToDoubles(), (std::vector<double>{0, 0, 0, 1, 0, 1, 0, 0}));
}

TEST(ShapeKernel, MismatchedPartsAreErrors) {
  Tensor a = Tensor::FromVector(Shape{2, 3}, Ramp(6));
  Tensor b = Tensor::FromVector(Shape{2, 2}, Ramp(4));
  absl::Status s =
      RunKernel("Concat", {{"num_args", "2"}, {"dim", "1"}}, {a, b}, {Empty(Shape{2, 4})});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("Concat"));
  s = RunKernel("slice_axis", {{"axis", "0"}, {"begin", "1"}, {"end", "5"}}, {a},
                {Empty(Shape{4, 3})});
  EXPECT_FALSE(s.ok());
}

// ----------------------------------------------------------------------------- softmax

TEST(SoftmaxKernel, InPlaceMatchesOutOfPlace) {
  for (const char* op : {"softmax", "log_softmax"}) {
    for (const char* axis : {"-1", "1", "0"}) {
      SCOPED_TRACE(std::string(op) + " axis " + axis);
      const Shape s{3, 130, 5};
      std::vector<double> v = Ramp(s.Size(), 3.0);
      Tensor x = Tensor::FromVector(s, v, DType::kFloat64);
      Tensor y = Empty(s, DType::kFloat64);
      ASSERT_TRUE(RunKernel(op, {{"axis", axis}}, {x}, {y}).ok());
      ASSERT_TRUE(RunKernel(op, {{"axis", axis}}, {x}, {x}).ok());
      EXPECT_EQ(x.ToDoubles(), y.ToDoubles());
    }
  }
}

TEST(SoftmaxKernel, UnsupportedOutputDtypeIsAnError) {
  Tensor x = Tensor::FromVector(Shape{2, 3}, Ramp(6));
  absl::Status s =
      RunKernel("softmax", {{"dtype", "float16"}}, {x}, {Empty(Shape{2, 3}, DType::kFloat16)});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(s.message()), HasSubstr("float16"));
}

TEST(SoftmaxKernel, SoftmaxOutputBadLabelIsAnErrorAndInPlaceWorks) {
  Tensor x = Tensor::FromVector(Shape{2, 3}, {1, 2, 3, 0, 0, 0});
  ASSERT_TRUE(RunKernel("SoftmaxOutput", {}, {x, Tensor::FromVector(Shape{2}, {0, 1})}, {x}).ok());
  std::vector<double> y = x.ToDoubles();
  EXPECT_NEAR(y[2], std::exp(3.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), 1e-6);
  EXPECT_NEAR(y[4], 1.0 / 3, 1e-6);
  // A label with too few entries for the data: an error, not a crash.
  absl::Status s = RunKernel("_backward_SoftmaxOutput", {}, {x, Tensor::FromVector(Shape{1}, {0})},
                             {Empty(Shape{2, 3}), Empty(Shape{1})});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("label"));
}

// ----------------------------------------------------------------------------- Embedding

TEST(EmbeddingKernel, IntegerIndicesAreClipped) {
  const Shape table{5, 2};
  Tensor w = Tensor::FromVector(table, {0, 1, 10, 11, 20, 21, 30, 31, 40, 41});
  for (DType t : {DType::kInt32, DType::kInt64, DType::kUint8, DType::kInt8, DType::kFloat16}) {
    SCOPED_TRACE(DTypeName(t));
    std::vector<double> idx = {3, 0, 9, 4, 2};
    if (t != DType::kUint8) idx[1] = -4;
    Tensor ix = Tensor::FromVector(Shape{5}, idx, t);
    Tensor y = Empty(Shape{5, 2});
    AttrMap attrs = {{"input_dim", "5"}, {"output_dim", "2"}};
    ASSERT_TRUE(RunKernel("Embedding", attrs, {ix, w}, {y}).ok());
    EXPECT_EQ(y.ToDoubles(), (std::vector<double>{30, 31, 0, 1, 40, 41, 40, 41, 20, 21}));
    Tensor og = Tensor::FromVector(Shape{5, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    Tensor gi = Empty(Shape{5}, t), gw = Empty(table);
    ASSERT_TRUE(RunKernel("_backward_Embedding", attrs, {og, ix}, {gi, gw}).ok());
    EXPECT_EQ(gi.ToDoubles(), std::vector<double>(5, 0.0));
    EXPECT_EQ(gw.ToDoubles(), (std::vector<double>{3, 4, 0, 0, 9, 10, 1, 2, 12, 14}));
  }
}

TEST(EmbeddingKernel, LargeScatterAddMatchesLoop) {
  const int64_t rows = 97, dim = 33, n = 5000;
  std::vector<double> idx(n);
  for (int64_t i = 0; i < n; ++i) idx[i] = static_cast<double>((i * 31) % rows);
  Tensor ix = Tensor::FromVector(Shape{n}, idx, DType::kInt32);
  Tensor og = Tensor::FromVector(Shape{n, dim}, Ramp(n * dim), DType::kFloat64);
  Tensor gi = Empty(Shape{n}, DType::kInt32), gw = Empty(Shape{rows, dim}, DType::kFloat64);
  ASSERT_TRUE(RunKernel("_backward_Embedding",
                        {{"input_dim", std::to_string(rows)}, {"output_dim", std::to_string(dim)}},
                        {og, ix}, {gi, gw})
                  .ok());
  std::vector<double> want(rows * dim, 0.0), ogv = og.ToDoubles();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t c = 0; c < dim; ++c) want[idx[i] * dim + c] += ogv[i * dim + c];
  }
  std::vector<double> got = gw.ToDoubles();
  for (size_t k = 0; k < want.size(); ++k) ASSERT_NEAR(got[k], want[k], 1e-9) << k;
}

// ----------------------------------------------------------------------------- MakeLoss

TEST(MakeLossKernel, ValidNormalizationReadsTheOutput) {
  // The gradient node takes the forward output only for normalization=valid.
  NodePtr x = MakeVariableNode("x");
  for (const char* norm : {"null", "batch", "valid"}) {
    NodePtr loss = MakeOpNode("MakeLoss", "loss", {{"normalization", norm}}, {{x, 0, 0}}).value();
    std::vector<NodeEntry> grads = loss->op()->gradient()(loss, {NodeEntry{}});
    ASSERT_EQ(grads.size(), 1u);
    EXPECT_EQ(grads[0].node->inputs.size(), std::string(norm) == "valid" ? 1u : 0u) << norm;
  }
  Tensor out = Tensor::FromVector(Shape{2, 3}, {0.5, -1, 2, 0.1, 0.3, 0});
  Tensor g = Empty(Shape{2, 3});
  ASSERT_TRUE(RunKernel("_backward_MakeLoss",
                        {{"normalization", "valid"}, {"valid_thresh", "0.2"}, {"grad_scale", "3"}},
                        {out}, {g})
                  .ok());
  EXPECT_EQ(g.ToDoubles(), std::vector<double>(6, 1.0));  // 3 / #{0.5, 2, 0.3}
}

}  // namespace
}  // namespace symx
