// Tests of the linalg family (graph/ops/linalg.cc): _linalg_gemm2, _linalg_gemm,
// _linalg_syrk, _linalg_sumlogdiag, _linalg_extractdiag, _linalg_makediag,
// _linalg_extracttrian and _linalg_maketrian.
//
// Conformance: forward against plain loops in float32 and float64 (every
// transpose combination, a row axis other than -2, batches, alpha and beta; the
// diagonal and triangle copies with offsets and both triangles), the gradients
// by central finite differences in float64. Errors: bad parameters, mismatched
// shapes, dtypes MXNet refuses.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "devices/tensor.h"
#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"
#include "tests/expect_contains.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace {

using testing::CheckOp;
using testing::ErrorOf;
using testing::MakeTensor;
using testing::OpCase;
using testing::RunOp;
using testing::Values;

struct GemmSpec {
  std::vector<int64_t> batch_before;  // axes before the row axis
  std::vector<int64_t> batch_after;   // axes between the row axis and the columns
  int64_t m = 2, n = 3, k = 4;
  bool ta = false, tb = false;
  double alpha = 1.0;
  std::optional<double> beta;  // set: _linalg_gemm
};

Shape Stored(const GemmSpec& s, int64_t rows, int64_t cols) {
  std::vector<int64_t> d = s.batch_before;
  d.push_back(rows);
  d.insert(d.end(), s.batch_after.begin(), s.batch_after.end());
  d.push_back(cols);
  return Shape(d);
}

int64_t Prod(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

std::string Flag(bool b) { return b ? "True" : "False"; }

OpCase GemmCase(const std::string& label, const GemmSpec& s) {
  OpCase c;
  c.name = label;
  c.op = s.beta ? "_linalg_gemm" : "_linalg_gemm2";
  c.attrs = {
      {"transpose_a", Flag(s.ta)}, {"transpose_b", Flag(s.tb)}, {"alpha", std::to_string(s.alpha)}};
  const int64_t axis = static_cast<int64_t>(s.batch_before.size());
  if (!s.batch_after.empty()) c.attrs["axis"] = std::to_string(axis);
  if (s.beta) c.attrs["beta"] = std::to_string(*s.beta);
  c.shapes = {s.ta ? Stored(s, s.k, s.m) : Stored(s, s.m, s.k),
              s.tb ? Stored(s, s.n, s.k) : Stored(s, s.k, s.n)};
  if (s.beta) c.shapes.push_back(Stored(s, s.m, s.n));
  c.reference = [s](const std::vector<Values>& in, const std::vector<Shape>&) {
    const int64_t outer = Prod(s.batch_before), mid = Prod(s.batch_after);
    const int64_t ar = s.ta ? s.k : s.m, ac = s.ta ? s.m : s.k;
    const int64_t br = s.tb ? s.n : s.k, bc = s.tb ? s.k : s.n;
    // Element (o, r, j, c) of a stored R x C operand.
    auto at = [&](const Values& v, int64_t rows, int64_t cols, int64_t o, int64_t r, int64_t j,
                  int64_t col) { return v[((o * rows + r) * mid + j) * cols + col]; };
    Values out(outer * s.m * mid * s.n);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < mid; ++j) {
        for (int64_t r = 0; r < s.m; ++r) {
          for (int64_t col = 0; col < s.n; ++col) {
            double acc = 0;
            for (int64_t q = 0; q < s.k; ++q) {
              const double a = s.ta ? at(in[0], ar, ac, o, q, j, r) : at(in[0], ar, ac, o, r, j, q);
              const double b =
                  s.tb ? at(in[1], br, bc, o, col, j, q) : at(in[1], br, bc, o, q, j, col);
              acc += a * b;
            }
            double v = s.alpha * acc;
            if (s.beta) v += *s.beta * at(in[2], s.m, s.n, o, r, j, col);
            out[((o * s.m + r) * mid + j) * s.n + col] = v;
          }
        }
      }
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(Linalg, Gemm2EveryTranspose) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      GemmSpec s;
      s.ta = ta;
      s.tb = tb;
      CheckOp(GemmCase("gemm2 " + Flag(ta) + Flag(tb), s));
      s.batch_before = {2, 3};
      s.alpha = -1.5;
      CheckOp(GemmCase("gemm2 batched " + Flag(ta) + Flag(tb), s));
    }
  }
}

TEST(Linalg, Gemm2RowAxis) {
  GemmSpec s;
  s.batch_before = {2};
  s.batch_after = {3};
  CheckOp(GemmCase("gemm2 axis 1", s));
  s.ta = true;
  s.tb = true;
  s.alpha = 0.5;
  s.batch_after = {2, 2};
  CheckOp(GemmCase("gemm2 axis 1 of 5 dims, transposed", s));
  s.batch_before = {};
  s.batch_after = {3};
  s.ta = false;
  CheckOp(GemmCase("gemm2 axis 0", s));
}

TEST(Linalg, GemmWithBeta) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      GemmSpec s;
      s.ta = ta;
      s.tb = tb;
      s.alpha = 2.0;
      s.beta = -0.5;
      s.batch_before = {2};
      CheckOp(GemmCase("gemm " + Flag(ta) + Flag(tb), s));
    }
  }
  GemmSpec s;
  s.beta = 1.0;
  s.batch_before = {2};
  s.batch_after = {2};
  s.tb = true;
  CheckOp(GemmCase("gemm axis 1", s));
  s.beta = 0.0;
  CheckOp(GemmCase("gemm beta 0", s));
}

OpCase SyrkCase(const std::vector<int64_t>& batch, int64_t rows, int64_t cols, bool transpose,
                double alpha) {
  OpCase c;
  c.op = "_linalg_syrk";
  c.name = std::string("syrk") + (transpose ? " transposed" : "");
  c.attrs = {{"transpose", Flag(transpose)}, {"alpha", std::to_string(alpha)}};
  std::vector<int64_t> dims = batch;
  dims.push_back(rows);
  dims.push_back(cols);
  c.shapes = {Shape(dims)};
  const int64_t count = Prod(batch), m = transpose ? cols : rows, k = transpose ? rows : cols;
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out(count * m * m);
    for (int64_t b = 0; b < count; ++b) {
      const double* a = in[0].data() + b * rows * cols;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < m; ++j) {
          double acc = 0;
          for (int64_t q = 0; q < k; ++q) {
            acc +=
                transpose ? a[q * cols + i] * a[q * cols + j] : a[i * cols + q] * a[j * cols + q];
          }
          out[(b * m + i) * m + j] = alpha * acc;
        }
      }
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(Linalg, Syrk) {
  for (bool transpose : {false, true}) {
    CheckOp(SyrkCase({}, 3, 4, transpose, 1.0));
    CheckOp(SyrkCase({2, 2}, 2, 3, transpose, -0.5));
  }
  Tensor v = MakeTensor(Shape{3}, Values(3, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("_linalg_syrk", {}, {v}, "s"); });
  EXPECT_CONTAINS(msg, "[3]");
  Tensor m = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_syrk", {{"alpha", "big"}}, {m}, "s"); });
  EXPECT_CONTAINS(msg, "alpha");
  EXPECT_CONTAINS(msg, "big");
  msg = ErrorOf([&] { RunOp("_linalg_syrk", {{"transpose_a", "1"}}, {m}, "s"); });
  EXPECT_CONTAINS(msg, "transpose_a");
}

OpCase SumLogDiagCase(const std::vector<int64_t>& batch, int64_t n) {
  OpCase c;
  c.op = "_linalg_sumlogdiag";
  c.name = "sumlogdiag " + std::to_string(batch.size()) + " batch axes";
  std::vector<int64_t> dims = batch;
  dims.push_back(n);
  dims.push_back(n);
  c.shapes = {Shape(dims)};
  // Positive entries (the diagonal's logarithms), away from zero.
  c.init = [](int, const Shape& s) {
    Values v(s.Size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5 + 0.37 * static_cast<double>(i % 7);
    return v;
  };
  const int64_t count = Prod(batch);
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out(count, 0.0);
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t i = 0; i < n; ++i) out[b] += std::log(in[0][(b * n + i) * n + i]);
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(Linalg, SumLogDiag) {
  CheckOp(SumLogDiagCase({}, 3));
  CheckOp(SumLogDiagCase({2, 3}, 2));
  CheckOp(SumLogDiagCase({0}, 2));
  Tensor rect = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("_linalg_sumlogdiag", {}, {rect}, "s"); });
  EXPECT_CONTAINS(msg, "square");
  EXPECT_CONTAINS(msg, "[2,3]");
  Tensor sq = MakeTensor(Shape{2, 2}, {1, 0, 0, 1}, DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_sumlogdiag", {{"offset", "1"}}, {sq}, "s"); });
  EXPECT_CONTAINS(msg, "offset");
  // One matrix gives (1,), as MXNet.
  std::vector<Tensor> out = RunOp("_linalg_sumlogdiag", {}, {sq}, "s");
  EXPECT_EQ(out[0].shape(), Shape{1});
  EXPECT_EQ(out[0].ToDoubles(), (std::vector<double>{0}));
}

TEST(Linalg, EmptyContractionIsBetaC) {
  GemmSpec s;
  s.k = 0;
  s.batch_before = {2};
  s.batch_after = {2};
  CheckOp(GemmCase("gemm2 k 0", s));
  s.beta = 3.0;
  CheckOp(GemmCase("gemm k 0", s));
}

TEST(Linalg, GemmBetaZeroIgnoresNan) {
  Tensor a = MakeTensor(Shape{1, 1}, {2}, DType::kFloat32);
  Tensor b = MakeTensor(Shape{1, 1}, {3}, DType::kFloat32);
  Tensor c = MakeTensor(Shape{1, 1}, {std::nan("")}, DType::kFloat32);
  std::vector<Tensor> out = RunOp("_linalg_gemm", {{"beta", "0"}}, {a, b, c}, "g");
  EXPECT_EQ(out[0].ToDoubles(), (std::vector<double>{6}));
}

// extractdiag of (batch..., n, n) or makediag of (batch..., n - |offset|).
OpCase DiagCase(bool extract, const std::vector<int64_t>& batch, int64_t n, int64_t offset) {
  OpCase c;
  c.op = extract ? "_linalg_extractdiag" : "_linalg_makediag";
  c.name = c.op + " offset " + std::to_string(offset);
  if (offset != 0) c.attrs["offset"] = std::to_string(offset);
  const int64_t o = offset < 0 ? -offset : offset;
  const int64_t len = n - o;
  std::vector<int64_t> dims = batch;
  dims.push_back(extract ? n : len);
  if (extract) dims.push_back(n);
  c.shapes = {Shape(dims)};
  const int64_t count = Prod(batch);
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out(extract ? count * len : count * n * n, 0.0);
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t j = 0; j < len; ++j) {
        const int64_t row = offset >= 0 ? j : j + o, col = offset >= 0 ? j + o : j;
        const int64_t at = (b * n + row) * n + col;
        if (extract) {
          out[b * len + j] = in[0][at];
        } else {
          out[at] = in[0][b * len + j];
        }
      }
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(Linalg, ExtractAndMakeDiag) {
  for (bool extract : {true, false}) {
    for (int64_t offset : {0, 1, -2}) {
      CheckOp(DiagCase(extract, {}, 4, offset));
      CheckOp(DiagCase(extract, {2, 3}, 3, offset));
    }
    CheckOp(DiagCase(extract, {0}, 3, 1));  // no matrices
  }
}

// extracttrian of (batch..., n, n) or maketrian of its packed triangles. The
// reference walks the matrix row by row and numbers the triangle's elements as
// MXNet packs them: a lower triangle by rows, an upper one by columns.
OpCase TrianCase(bool extract, const std::vector<int64_t>& batch, int64_t n, int64_t offset,
                 bool lower) {
  OpCase c;
  c.op = extract ? "_linalg_extracttrian" : "_linalg_maketrian";
  c.name = c.op + " offset " + std::to_string(offset) + (lower ? " lower" : " upper");
  c.attrs["offset"] = std::to_string(offset);
  c.attrs["lower"] = Flag(lower);
  const int64_t o = offset < 0 ? -offset : offset;
  const int64_t m = n - o, packed = m * (m + 1) / 2;
  const bool low = offset < 0 || (offset == 0 && lower);
  std::vector<int64_t> dims = batch;
  dims.push_back(extract ? n : packed);
  if (extract) dims.push_back(n);
  c.shapes = {Shape(dims)};
  const int64_t count = Prod(batch);
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out(extract ? count * packed : count * n * n, 0.0);
    for (int64_t b = 0; b < count; ++b) {
      for (int64_t row = 0; row < n; ++row) {
        for (int64_t col = 0; col < n; ++col) {
          // Lower: packed row row - o, entry col; upper: packed row col - o, entry row.
          const int64_t pr = low ? row - o : col - o, pc = low ? col : row;
          if (pr < 0 || pc > pr) continue;
          const int64_t at = (b * n + row) * n + col, p = b * packed + pr * (pr + 1) / 2 + pc;
          if (extract) {
            out[p] = in[0][at];
          } else {
            out[at] = in[0][p];
          }
        }
      }
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(Linalg, ExtractAndMakeTrian) {
  for (bool extract : {true, false}) {
    for (int64_t offset : {0, 1, -2}) {
      for (bool lower : {true, false}) {
        CheckOp(TrianCase(extract, {}, 4, offset, lower));
        CheckOp(TrianCase(extract, {2, 2}, 3, offset == -2 ? -1 : offset, lower));
      }
    }
    CheckOp(TrianCase(extract, {0}, 3, 0, true));  // no matrices
  }
}

TEST(Linalg, TrianErrors) {
  Tensor rect = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("_linalg_extracttrian", {}, {rect}, "t"); });
  EXPECT_CONTAINS(msg, "square");
  EXPECT_CONTAINS(msg, "[2,3]");
  Tensor sq = MakeTensor(Shape{3, 3}, Values(9, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_extracttrian", {{"offset", "3"}}, {sq}, "t"); });
  EXPECT_CONTAINS(msg, "offset 3");
  Tensor four = MakeTensor(Shape{2, 4}, Values(8, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_maketrian", {}, {four}, "t"); });
  EXPECT_CONTAINS(msg, "[2,4]");
  EXPECT_CONTAINS(msg, "packed triangle");
  msg = ErrorOf([&] { RunOp("_linalg_maketrian", {{"lower", "perhaps"}}, {four}, "t"); });
  EXPECT_CONTAINS(msg, "lower");
  EXPECT_CONTAINS(msg, "perhaps");
}

TEST(Linalg, DiagErrors) {
  Tensor rect = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("_linalg_extractdiag", {}, {rect}, "d"); });
  EXPECT_CONTAINS(msg, "square");
  EXPECT_CONTAINS(msg, "[2,3]");
  Tensor sq = MakeTensor(Shape{3, 3}, Values(9, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_extractdiag", {{"offset", "-3"}}, {sq}, "d"); });
  EXPECT_CONTAINS(msg, "offset -3");
  Tensor v = MakeTensor(Shape{3}, Values(3, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_extractdiag", {}, {v}, "d"); });
  EXPECT_CONTAINS(msg, "[3]");
  msg = ErrorOf([&] { RunOp("_linalg_makediag", {{"offset", "1.5"}}, {v}, "d"); });
  EXPECT_CONTAINS(msg, "offset");
  EXPECT_CONTAINS(msg, "1.5");
  msg = ErrorOf([&] { RunOp("_linalg_makediag", {{"lower", "1"}}, {v}, "d"); });
  EXPECT_CONTAINS(msg, "lower");
  Tensor i = MakeTensor(Shape{3}, Values(3, 1.0), DType::kInt32);
  msg = ErrorOf([&] { RunOp("_linalg_makediag", {}, {i}, "d"); });
  EXPECT_CONTAINS(msg, "int32");
}

TEST(Linalg, Errors) {
  Tensor a = MakeTensor(Shape{2, 2, 3}, Values(12, 1.0), DType::kFloat32);
  Tensor b = MakeTensor(Shape{2, 4, 5}, Values(40, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("_linalg_gemm2", {}, {a, b}, "g"); });
  EXPECT_CONTAINS(msg, "cannot be multiplied");
  EXPECT_CONTAINS(msg, "[2,2,3]");
  EXPECT_CONTAINS(msg, "[2,4,5]");
  Tensor b3 = MakeTensor(Shape{3, 3, 5}, Values(45, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_gemm2", {}, {a, b3}, "g"); });
  EXPECT_CONTAINS(msg, "batch axis 0");
  Tensor b2 = MakeTensor(Shape{3, 5}, Values(15, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_gemm2", {}, {a, b2}, "g"); });
  EXPECT_CONTAINS(msg, "input B");
  Tensor v = MakeTensor(Shape{3}, Values(3, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_gemm2", {}, {v, v}, "g"); });
  EXPECT_CONTAINS(msg, "at least 2 dims");
  Tensor ok = MakeTensor(Shape{2, 3, 2}, Values(12, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_gemm2", {{"axis", "-1"}}, {a, ok}, "g"); });
  EXPECT_CONTAINS(msg, "axis -1");
  msg = ErrorOf([&] { RunOp("_linalg_gemm2", {{"axis", "2"}}, {a, ok}, "g"); });
  EXPECT_CONTAINS(msg, "axis 2");
  msg = ErrorOf([&] { RunOp("_linalg_gemm2", {{"alpha", "x"}}, {a, ok}, "g"); });
  EXPECT_CONTAINS(msg, "alpha");
  msg = ErrorOf([&] { RunOp("_linalg_gemm2", {{"transpose_a", "maybe"}}, {a, ok}, "g"); });
  EXPECT_CONTAINS(msg, "transpose_a");
  EXPECT_CONTAINS(msg, "maybe");
  msg = ErrorOf([&] { RunOp("_linalg_gemm2", {{"beta", "1"}}, {a, ok}, "g"); });
  EXPECT_CONTAINS(msg, "beta");
  Tensor c = MakeTensor(Shape{2, 2, 3}, Values(12, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_gemm", {}, {a, ok, c}, "g"); });
  EXPECT_CONTAINS(msg, "input C");
  Tensor h = MakeTensor(Shape{2, 2}, Values(4, 1.0), DType::kFloat16);
  msg = ErrorOf([&] { RunOp("_linalg_gemm2", {}, {h, h}, "g"); });
  EXPECT_CONTAINS(msg, "float16");
}

}  // namespace
}  // namespace symx
