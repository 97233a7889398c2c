// Conformance tests for FullyConnected, dot and batch_dot (forward against plain
// loops, backward against finite differences), and khatri_rao (forward; it has
// no gradient, as in MXNet).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

// C = op(A) op(B) for row-major A, B; op(A) is m x k (A stored k x m when ta),
// op(B) is k x n (B stored n x k when tb).
Values MatMul(const Values& a, const Values& b, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
              int64_t a_off = 0, int64_t b_off = 0) {
  Values c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) {
        double av = ta ? a[a_off + p * m + i] : a[a_off + i * k + p];
        double bv = tb ? b[b_off + j * k + p] : b[b_off + p * n + j];
        s += av * bv;
      }
      c[i * n + j] = s;
    }
  }
  return c;
}

// ---------------------------------------------------------------- FullyConnected

OpCase FcCase(const std::string& name, Shape data, int64_t hidden, bool flatten, bool no_bias,
              bool column_bias = false) {
  OpCase c;
  c.name = name;
  c.op = "FullyConnected";
  c.onednn = true;  // oneDNN's sgemm takes every float32 case
  c.attrs = {{"num_hidden", std::to_string(hidden)},
             {"flatten", flatten ? "True" : "False"},
             {"no_bias", no_bias ? "True" : "False"}};
  int64_t k = 1, rows = 1;
  if (flatten) {
    rows = data[0];
    for (int i = 1; i < data.ndim(); ++i) k *= data[i];
  } else {
    k = data[data.ndim() - 1];
    for (int i = 0; i + 1 < data.ndim(); ++i) rows *= data[i];
  }
  c.shapes = {data, Shape{hidden, k}};
  if (!no_bias) c.shapes.push_back(column_bias ? Shape{hidden, 1} : Shape{hidden});
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values y = MatMul(in[0], in[1], false, true, rows, hidden, k);
    if (!no_bias) {
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < hidden; ++j) y[i * hidden + j] += in[2][j];
      }
    }
    return std::vector<Values>{y};
  };
  return c;
}

TEST(DenseConformance, FullyConnected) {
  CheckOp(FcCase("FC 2-D", Shape{3, 4}, 5, true, false));
  CheckOp(FcCase("FC flatten 4-D", Shape{2, 3, 2, 2}, 3, true, false));
  CheckOp(FcCase("FC no flatten 3-D", Shape{2, 3, 4}, 5, false, false));
  CheckOp(FcCase("FC no_bias", Shape{4, 6}, 3, true, true));
  CheckOp(FcCase("FC batch 1", Shape{1, 3}, 2, true, false));
  CheckOp(FcCase("FC size-1 dims", Shape{2, 1, 3, 1}, 1, true, false));
  CheckOp(FcCase("FC column bias", Shape{3, 4}, 2, true, false, /*column_bias=*/true));
  CheckOp(FcCase("FC empty batch", Shape{0, 4}, 3, true, false));
  CheckOp(FcCase("FC empty no flatten", Shape{2, 0, 4}, 3, false, false));
}

TEST(DenseConformance, FullyConnectedLarge) {
  // Large enough for the parallel GEMM (row blocks); forward only.
  OpCase c = FcCase("FC 96x80x72", Shape{96, 80}, 72, true, false);
  c.check_backward = false;
  c.forward_tol32 = 1e-4;
  CheckOp(c);
  // Few rows, many outputs: column blocks.
  OpCase d = FcCase("FC 4x300x600", Shape{4, 300}, 600, true, false);
  d.check_backward = false;
  d.forward_tol32 = 1e-4;
  CheckOp(d);
}

// ---------------------------------------------------------------- dot

OpCase DotCase(const std::string& name, Shape lhs, Shape rhs, bool ta, bool tb) {
  OpCase c;
  c.name = name;
  c.op = "dot";
  c.onednn = true;  // oneDNN's sgemm takes every float32 case
  c.attrs = {{"transpose_a", ta ? "True" : "False"}, {"transpose_b", tb ? "True" : "False"}};
  c.shapes = {lhs, rhs};
  const int lc = ta ? 0 : lhs.ndim() - 1;
  const int rc = tb ? rhs.ndim() - 1 : 0;
  int64_t m = 1, n = 1;
  for (int i = 0; i < lhs.ndim(); ++i) {
    if (i != lc) m *= lhs[i];
  }
  for (int i = 0; i < rhs.ndim(); ++i) {
    if (i != rc) n *= rhs[i];
  }
  const int64_t k = lhs[lc];
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{MatMul(in[0], in[1], ta, tb, m, n, k)};
  };
  return c;
}

TEST(DenseConformance, Dot) {
  CheckOp(DotCase("dot 2-D", Shape{3, 4}, Shape{4, 5}, false, false));
  CheckOp(DotCase("dot transpose_a", Shape{4, 3}, Shape{4, 5}, true, false));
  CheckOp(DotCase("dot transpose_b", Shape{3, 4}, Shape{5, 4}, false, true));
  CheckOp(DotCase("dot transpose both", Shape{4, 3}, Shape{5, 4}, true, true));
  CheckOp(DotCase("dot vector vector", Shape{4}, Shape{4}, false, false));
  CheckOp(DotCase("dot vector matrix", Shape{4}, Shape{4, 3}, false, false));
  CheckOp(DotCase("dot matrix vector", Shape{3, 4}, Shape{4}, false, false));
  CheckOp(DotCase("dot vector matrix^T", Shape{4}, Shape{3, 4}, false, true));
  CheckOp(DotCase("dot 3-D x 2-D", Shape{2, 3, 4}, Shape{4, 5}, false, false));
  CheckOp(DotCase("dot 2-D x 3-D", Shape{2, 3}, Shape{3, 2, 2}, false, false));
  CheckOp(DotCase("dot 3-D transpose_a", Shape{4, 2, 3}, Shape{4, 5}, true, false));
  CheckOp(DotCase("dot 3-D transpose_b", Shape{3, 4}, Shape{5, 2, 4}, false, true));
  CheckOp(DotCase("dot size-1", Shape{1, 4}, Shape{4, 1}, false, false));
  CheckOp(DotCase("dot empty rows", Shape{0, 4}, Shape{4, 3}, false, false));
  CheckOp(DotCase("dot empty contraction", Shape{3, 0}, Shape{0, 2}, false, false));
}

TEST(DenseConformance, DotLarge) {
  OpCase c = DotCase("dot 70x90x80 transpose_a", Shape{90, 70}, Shape{90, 80}, true, false);
  c.check_backward = false;
  c.forward_tol32 = 1e-4;
  CheckOp(c);
}

// ---------------------------------------------------------------- batch_dot

OpCase BatchDotCase(const std::string& name, Shape lhs, Shape rhs, bool ta, bool tb) {
  OpCase c;
  c.name = name;
  c.op = "batch_dot";
  c.onednn = true;  // oneDNN's sgemm takes every float32 case
  c.attrs = {{"transpose_a", ta ? "True" : "False"}, {"transpose_b", tb ? "True" : "False"}};
  c.shapes = {lhs, rhs};
  const int64_t batch = lhs[0];
  const int64_t m = ta ? lhs[2] : lhs[1], k = ta ? lhs[1] : lhs[2];
  const int64_t n = tb ? rhs[1] : rhs[2];
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out;
    for (int64_t b = 0; b < batch; ++b) {
      Values part = MatMul(in[0], in[1], ta, tb, m, n, k, b * m * k, b * k * n);
      out.insert(out.end(), part.begin(), part.end());
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(DenseConformance, BatchDot) {
  CheckOp(BatchDotCase("batch_dot", Shape{2, 3, 4}, Shape{2, 4, 5}, false, false));
  CheckOp(BatchDotCase("batch_dot transpose_a", Shape{2, 4, 3}, Shape{2, 4, 5}, true, false));
  CheckOp(BatchDotCase("batch_dot transpose_b", Shape{2, 3, 4}, Shape{2, 5, 4}, false, true));
  CheckOp(BatchDotCase("batch_dot transpose both", Shape{3, 4, 3}, Shape{3, 5, 4}, true, true));
  CheckOp(BatchDotCase("batch_dot batch 1", Shape{1, 2, 3}, Shape{1, 3, 2}, false, false));
  CheckOp(BatchDotCase("batch_dot size-1 dims", Shape{2, 1, 3}, Shape{2, 3, 1}, false, false));
  CheckOp(BatchDotCase("batch_dot empty batch", Shape{0, 2, 3}, Shape{0, 3, 2}, false, false));
}

TEST(DenseConformance, BatchDotLarge) {
  // Per-batch products large enough for the parallel GEMM, and many small ones.
  OpCase c =
      BatchDotCase("batch_dot 2x128x96x128", Shape{2, 128, 96}, Shape{2, 96, 128}, false, false);
  c.check_backward = false;
  c.forward_tol32 = 1e-4;
  CheckOp(c);
  OpCase d = BatchDotCase("batch_dot 64x8x8x8", Shape{64, 8, 8}, Shape{64, 8, 8}, false, true);
  d.check_backward = false;
  CheckOp(d);
}

// ---------------------------------------------------------------- khatri_rao

OpCase KhatriRaoCase(std::vector<Shape> shapes) {
  OpCase c;
  c.op = "khatri_rao";
  c.name = absl::StrCat("khatri_rao of ", shapes.size());
  c.attrs = {{"num_args", std::to_string(shapes.size())}};
  c.shapes = shapes;
  c.check_backward = false;  // non-differentiable, as MXNet's
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const int64_t cols = s[0][1];
    int64_t rows = 1;
    for (const Shape& x : s) rows *= x[0];
    Values out(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < cols; ++k) {
        int64_t rest = r;
        double v = 1;
        for (size_t j = s.size(); j-- > 0;) {
          v *= in[j][(rest % s[j][0]) * cols + k];
          rest /= s[j][0];
        }
        out[r * cols + k] = v;
      }
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(DenseConformance, KhatriRao) {
  CheckOp(KhatriRaoCase({Shape{2, 3}}));
  CheckOp(KhatriRaoCase({Shape{2, 3}, Shape{4, 3}}));
  CheckOp(KhatriRaoCase({Shape{2, 2}, Shape{1, 2}, Shape{3, 2}}));
  CheckOp(KhatriRaoCase({Shape{3, 4}, Shape{0, 4}}));
  CheckOp(KhatriRaoCase({Shape{300, 5}, Shape{40, 5}, Shape{2, 5}}));
}

TEST(DenseConformance, KhatriRaoErrors) {
  auto run = [](AttrMap attrs, std::vector<Shape> shapes) {
    return ErrorOf([&] {
      std::vector<Tensor> in;
      for (const Shape& s : shapes) {
        in.push_back(MakeTensor(s, Values(NumElements(s), 1.0), DType::kFloat32));
      }
      RunOp("khatri_rao", attrs, in, "kr");
    });
  };
  std::string msg = run({{"num_args", "2"}}, {Shape{2, 3}, Shape{2, 4}});
  EXPECT_CONTAINS(msg, "[2,4]");
  EXPECT_CONTAINS(msg, "columns");
  msg = run({{"num_args", "1"}}, {Shape{2, 3, 1}});
  EXPECT_CONTAINS(msg, "[2,3,1]");
  msg = run({{"num_args", "0"}}, {});
  EXPECT_CONTAINS(msg, "num_args");
}

}  // namespace
}  // namespace testing

}  // namespace symx
