// Tests of the sequence family (graph/ops/sequence.cc): SequenceMask,
// SequenceLast, SequenceReverse against plain loops of MXNet 1.9.1's
// behaviour (checked against a live MXNet), on every device present;
// gradients by finite differences (sequence_length excluded: it has none).
// Direct kernel tests cover lengths of another dtype than the data, every
// dtype MXNet takes, fractional and out-of-range lengths, and the errors.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "graph/node.h"
#include "graph/op.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"
#include "tests/ops/kernel_calls.h"

namespace symx {
namespace testing {
namespace {

enum class Seq { kMask, kLast, kReverse };

const char* OpName(Seq s) {
  return s == Seq::kMask ? "SequenceMask" : s == Seq::kLast ? "SequenceLast" : "SequenceReverse";
}

// The reference: data as (steps, batch, rest) (axis 0) or (batch, steps,
// rest) (axis 1); lengths truncated, clamped for mask and reverse.
std::vector<Values> SeqReference(Seq op, int axis, double value, bool use_len,
                                 const std::vector<Values>& in, const Shape& s) {
  const int64_t steps = s[axis], batch = s[1 - axis];
  int64_t rest = 1;
  for (int i = 2; i < s.ndim(); ++i) rest *= s[i];
  auto at = [&](int64_t t, int64_t b, int64_t r) {
    return (axis == 0 ? (t * batch + b) : (b * steps + t)) * rest + r;
  };
  auto length = [&](int64_t b) -> int64_t {
    if (!use_len) return steps;
    double v = std::trunc(in[1][b]);
    return static_cast<int64_t>(std::min<double>(std::max(v, 0.0), static_cast<double>(steps)));
  };
  const Values& x = in[0];
  if (op == Seq::kLast) {
    Values y(batch * rest);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t r = 0; r < rest; ++r) y[b * rest + r] = x[at(length(b) - 1, b, r)];
    }
    return {y};
  }
  Values y(x.size());
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t len = length(b);
    for (int64_t t = 0; t < steps; ++t) {
      for (int64_t r = 0; r < rest; ++r) {
        if (op == Seq::kMask) {
          y[at(t, b, r)] = t < len ? x[at(t, b, r)] : value;
        } else {
          y[at(t, b, r)] = x[at(t < len ? len - 1 - t : t, b, r)];
        }
      }
    }
  }
  return {y};
}

// `lengths` are the sequence_length values (empty: use_sequence_length off).
OpCase SeqCase(Seq op, const Shape& shape, int axis, const Values& lengths, double value = 0) {
  OpCase c;
  const bool use_len = !lengths.empty();
  c.op = OpName(op);
  c.name = absl::StrCat(c.op, " ", shape.ToString(), " axis ", axis, use_len ? " lengths" : "");
  c.attrs = {{"axis", std::to_string(axis)}};
  if (use_len) c.attrs["use_sequence_length"] = "True";
  if (op == Seq::kMask) c.attrs["value"] = absl::StrCat(value);
  c.shapes = {shape};
  if (use_len) {
    c.shapes.push_back(Shape{shape[1 - axis]});
    c.no_grad = {1};
  }
  c.init = [lengths](int input, const Shape& s) {
    if (input == 1) return lengths;
    Values v(NumElements(s));
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.7 * static_cast<double>(i) + 0.3);
    return v;
  };
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt32, DType::kInt64};
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return SeqReference(op, axis, value, use_len, in, s[0]);
  };
  return c;
}

TEST(SequenceConformance, Mask) {
  CheckOp(SeqCase(Seq::kMask, Shape{4, 3, 2}, 0, {}));
  CheckOp(SeqCase(Seq::kMask, Shape{4, 3, 2}, 0, {1, 4, 2}));
  CheckOp(SeqCase(Seq::kMask, Shape{4, 3}, 0, {0, 3, 2}, -1));
  CheckOp(SeqCase(Seq::kMask, Shape{2, 5, 2, 2}, 1, {3, 5}, 1));
  CheckOp(SeqCase(Seq::kMask, Shape{3, 2, 3}, 0, {2.7, 7}, 1));  // truncated; longer: no mask
}

TEST(SequenceConformance, Last) {
  CheckOp(SeqCase(Seq::kLast, Shape{4, 3, 2}, 0, {}));
  CheckOp(SeqCase(Seq::kLast, Shape{4, 3, 2}, 0, {1, 4, 2}));
  CheckOp(SeqCase(Seq::kLast, Shape{4, 3}, 0, {3, 3, 2}));
  CheckOp(SeqCase(Seq::kLast, Shape{2, 5, 2, 2}, 1, {3, 5}));
  CheckOp(SeqCase(Seq::kLast, Shape{2, 5}, 1, {}));
  CheckOp(SeqCase(Seq::kLast, Shape{3, 2, 3}, 0, {2.7, 1.2}));
}

TEST(SequenceConformance, Reverse) {
  CheckOp(SeqCase(Seq::kReverse, Shape{4, 3, 2}, 0, {}));
  CheckOp(SeqCase(Seq::kReverse, Shape{4, 3, 2}, 0, {1, 4, 2}));
  CheckOp(SeqCase(Seq::kReverse, Shape{5, 2}, 0, {0, 3}));
  CheckOp(SeqCase(Seq::kReverse, Shape{3, 2, 2, 2}, 0, {2.9, 3}));
}

// ------------------------------------------------------------------ direct kernel calls

using kernel_calls::Empty;
using kernel_calls::RunKernel;

AttrMap WithLengths(int axis = 0) {
  return {{"use_sequence_length", "1"}, {"axis", std::to_string(axis)}};
}

// The dtypes MXNet's kernels take, for data and lengths alike.
const std::vector<DType> kMxnetDTypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16,
                                         DType::kUint8,   DType::kInt8,    DType::kInt32,
                                         DType::kInt64};

TEST(SequenceKernel, EveryDataAndLengthDType) {
  const Values data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // (3, 2, 2)
  for (DType dt : kMxnetDTypes) {
    for (DType lt : kMxnetDTypes) {
      SCOPED_TRACE(absl::StrCat(DTypeName(dt), " data, ", DTypeName(lt), " lengths"));
      Tensor x = Tensor::FromVector(Shape{3, 2, 2}, data, dt);
      Tensor len = Tensor::FromVector(Shape{2}, {1, 3}, lt);
      AttrMap mask_attrs = WithLengths();
      mask_attrs["value"] = "-1";
      Tensor y = Empty(Shape{3, 2, 2}, dt);
      ASSERT_TRUE(RunKernel("SequenceMask", mask_attrs, {x, len}, {y}).ok());
      // -1 in uint8 is 255 (through an integer, as MXNet).
      const double fill = dt == DType::kUint8 ? 255 : -1;
      EXPECT_EQ(y.ToDoubles(), (Values{1, 2, 3, 4, fill, fill, 7, 8, fill, fill, 11, 12}));
      Tensor last = Empty(Shape{2, 2}, dt);
      ASSERT_TRUE(RunKernel("SequenceLast", WithLengths(), {x, len}, {last}).ok());
      EXPECT_EQ(last.ToDoubles(), (Values{1, 2, 11, 12}));
      Tensor rev = Empty(Shape{3, 2, 2}, dt);
      ASSERT_TRUE(RunKernel("SequenceReverse", WithLengths(), {x, len}, {rev}).ok());
      EXPECT_EQ(rev.ToDoubles(), (Values{1, 2, 11, 12, 5, 6, 7, 8, 9, 10, 3, 4}));
      Tensor g = Empty(Shape{3, 2, 2}, dt);
      ASSERT_TRUE(RunKernel("_backward_SequenceLast", WithLengths(),
                            {Tensor::FromVector(Shape{2, 2}, {1, 2, 3, 4}, dt), len}, {g})
                      .ok());
      EXPECT_EQ(g.ToDoubles(), (Values{1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 3, 4}));
    }
  }
}

TEST(SequenceKernel, MaskValueIsRoundedToFloat32First) {
  Tensor x = Tensor::FromVector(Shape{2, 1}, {5, 6}, DType::kFloat64);
  Tensor len = Tensor::FromVector(Shape{1}, {1}, DType::kFloat64);
  Tensor y = Empty(Shape{2, 1}, DType::kFloat64);
  AttrMap attrs = WithLengths();
  attrs["value"] = "0.1";
  ASSERT_TRUE(RunKernel("SequenceMask", attrs, {x, len}, {y}).ok());
  EXPECT_EQ(y.ToDoubles()[1], static_cast<double>(0.1f));
}

TEST(SequenceKernel, OutOfRangeLengthsClampForMaskAndReverse) {
  Tensor x = Tensor::FromVector(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor len = Tensor::FromVector(Shape{2}, {-2, 9});
  Tensor y = Empty(Shape{3, 2});
  ASSERT_TRUE(RunKernel("SequenceMask", WithLengths(), {x, len}, {y}).ok());
  EXPECT_EQ(y.ToDoubles(), (Values{0, 2, 0, 4, 0, 6}));
  ASSERT_TRUE(RunKernel("SequenceReverse", WithLengths(), {x, len}, {y}).ok());
  EXPECT_EQ(y.ToDoubles(), (Values{1, 6, 3, 4, 5, 2}));
}

TEST(SequenceKernel, MaskRunsInPlace) {
  Tensor x = Tensor::FromVector(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor len = Tensor::FromVector(Shape{2}, {2, 1});
  ASSERT_TRUE(RunKernel("SequenceMask", WithLengths(), {x, len}, {x}).ok());
  EXPECT_EQ(x.ToDoubles(), (Values{1, 2, 3, 0, 0, 0}));
}

TEST(SequenceKernel, LastRefusesLengthsOutsideTheSteps) {
  Tensor x = Tensor::FromVector(Shape{3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor y = Empty(Shape{2});
  for (double bad : {0.0, 4.0, -1.0, std::nan("")}) {
    Tensor len = Tensor::FromVector(Shape{2}, {2, bad});
    absl::Status s = RunKernel("SequenceLast", WithLengths(), {x, len}, {y});
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_CONTAINS(std::string(s.message()), "sequence_length[1]");
    EXPECT_CONTAINS(std::string(s.message()), "outside [1, 3]");
  }
}

// ------------------------------------------------------------------ schema

TEST(SequenceSchema, ParametersAndShapes) {
  std::string msg = ErrorOf([&] {
    RunOp("SequenceMask", {{"axis", "2"}},
          {MakeTensor(Shape{2, 2}, {1, 2, 3, 4}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "axis");
  EXPECT_CONTAINS(msg, "2");
  msg = ErrorOf([&] {
    RunOp("SequenceReverse", {{"axis", "1"}},
          {MakeTensor(Shape{2, 2}, {1, 2, 3, 4}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "axis");
  EXPECT_CONTAINS(msg, "axis 0 only");
  msg = ErrorOf([&] {
    RunOp("SequenceLast", {{"use_sequence_length", "maybe"}},
          {MakeTensor(Shape{2, 2}, {1, 2, 3, 4}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "use_sequence_length");
  EXPECT_CONTAINS(msg, "maybe");
  msg = ErrorOf([&] {
    RunOp("SequenceLast", {{"value", "1"}},
          {MakeTensor(Shape{2, 2}, {1, 2, 3, 4}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "value");
  msg = ErrorOf([&] {
    RunOp("SequenceMask", {}, {MakeTensor(Shape{4}, {1, 2, 3, 4}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "[4]");
  EXPECT_CONTAINS(msg, "2 or more dims");
  // sequence_length must be (batch): axis 1 takes the batch from dim 0.
  msg = ErrorOf([&] {
    RunOp("SequenceMask", WithLengths(1),
          {MakeTensor(Shape{2, 3}, {1, 2, 3, 4, 5, 6}, DType::kFloat32),
           MakeTensor(Shape{3}, {1, 1, 1}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "sequence_length");
  EXPECT_CONTAINS(msg, "[3]");
  EXPECT_CONTAINS(msg, "[2]");
}

TEST(SequenceSchema, LengthsTakeTheirOwnDTypeOrData) {
  const Op* mask = OpRegistry::Global().Find("_npx_sequence_mask");
  ASSERT_NE(mask, nullptr);
  EXPECT_EQ(mask->name(), "SequenceMask");
  EXPECT_TRUE(mask->IsIndexInput(1));
  std::vector<Tensor> y = RunOp("SequenceLast", WithLengths(),
                                {MakeTensor(Shape{2, 2}, {1, 2, 3, 4}, DType::kFloat16),
                                 MakeTensor(Shape{2}, {2, 1}, DType::kInt64)});
  EXPECT_EQ(y[0].dtype(), DType::kFloat16);
  EXPECT_EQ(y[0].ToDoubles(), (Values{3, 2}));
  EXPECT_EQ(y[0].shape(), (Shape{2}));
}

}  // namespace
}  // namespace testing
}  // namespace symx
