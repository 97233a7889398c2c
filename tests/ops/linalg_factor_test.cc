// Tests of the linalg family's factorizations and triangular products
// (graph/ops/linalg.cc): _linalg_potrf, _linalg_potri, _linalg_trmm,
// _linalg_trsm, _linalg_inverse, _linalg_det, _linalg_slogdet,
// _linalg_syevd and _linalg_gelqf.
//
// Conformance: forward against plain loops in float32 and float64 (batched
// and not, both triangles, transpose and rightside, alpha), gradients by
// central finite differences in float64. potrf reads one triangle of a
// symmetric input while MXNet's gradient is the symmetric one, so its check
// (and syevd's) perturbs symmetric pairs (CheckSymmetricGradient). Errors: a matrix that
// is not positive definite or is singular (naming the batch index), bad
// parameters and shapes, dtypes MXNet refuses.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/geometry/linalg_matrix.h"
#include "devices/tensor.h"
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

std::string Flag(bool b) { return b ? "True" : "False"; }

int64_t Prod(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

Shape Matrices(const std::vector<int64_t>& batch, int64_t rows, int64_t cols) {
  std::vector<int64_t> d = batch;
  d.push_back(rows);
  d.push_back(cols);
  return Shape(d);
}

// A deterministic pseudo-random value in [-1, 1) for element i of input k.
double Noise(int k, size_t i) {
  const double x = std::sin(12.9898 * static_cast<double>(i + 1) + 78.233 * (k + 1)) * 43758.5453;
  return 2.0 * (x - std::floor(x)) - 1.0;
}

// Well-conditioned n x n matrices: noise plus `diag` on the diagonal; with
// `lower`/`upper` the other triangle is zero, with `spd` M M^T + n I.
enum class Kind { kGeneral, kLower, kUpper, kSpd };
Values MakeMatrices(int k, const Shape& s, Kind kind, double diag = 2.5) {
  const int64_t n = s[s.ndim() - 1], count = s.Size() / (n * n);
  Values v(static_cast<size_t>(s.Size()));
  for (int64_t b = 0; b < count; ++b) {
    double* m = v.data() + b * n * n;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double x = 0.5 * Noise(k, static_cast<size_t>(b * n * n + i * n + j));
        if (i == j) x = diag + 0.3 * x;
        if ((kind == Kind::kLower && j > i) || (kind == Kind::kUpper && j < i)) x = 0;
        m[i * n + j] = x;
      }
    }
    if (kind == Kind::kSpd) {
      Values t(m, m + n * n);
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double acc = i == j ? static_cast<double>(n) : 0.0;
          for (int64_t q = 0; q < n; ++q) acc += t[i * n + q] * t[j * n + q];
          m[i * n + j] = acc;
        }
      }
    }
  }
  return v;
}

// The inverse of an n x n matrix by Gauss-Jordan with partial pivoting.
Values Invert(const double* a, int64_t n) {
  Values m(a, a + n * n), inv(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) inv[i * n + i] = 1;
  for (int64_t c = 0; c < n; ++c) {
    int64_t p = c;
    for (int64_t r = c + 1; r < n; ++r) {
      if (std::fabs(m[r * n + c]) > std::fabs(m[p * n + c])) p = r;
    }
    for (int64_t j = 0; j < n; ++j) {
      std::swap(m[c * n + j], m[p * n + j]);
      std::swap(inv[c * n + j], inv[p * n + j]);
    }
    const double d = m[c * n + c];
    for (int64_t j = 0; j < n; ++j) {
      m[c * n + j] /= d;
      inv[c * n + j] /= d;
    }
    for (int64_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = m[r * n + c];
      for (int64_t j = 0; j < n; ++j) {
        m[r * n + j] -= f * m[c * n + j];
        inv[r * n + j] -= f * inv[c * n + j];
      }
    }
  }
  return inv;
}

// The determinant by Gaussian elimination with partial pivoting.
double Determinant(const double* a, int64_t n) {
  Values m(a, a + n * n);
  double det = 1;
  for (int64_t c = 0; c < n; ++c) {
    int64_t p = c;
    for (int64_t r = c + 1; r < n; ++r) {
      if (std::fabs(m[r * n + c]) > std::fabs(m[p * n + c])) p = r;
    }
    if (p != c) {
      det = -det;
      for (int64_t j = 0; j < n; ++j) std::swap(m[c * n + j], m[p * n + j]);
    }
    det *= m[c * n + c];
    if (m[c * n + c] == 0) return 0;
    for (int64_t r = c + 1; r < n; ++r) {
      const double f = m[r * n + c] / m[c * n + c];
      for (int64_t j = c; j < n; ++j) m[r * n + j] -= f * m[c * n + j];
    }
  }
  return det;
}

// A row-major n x n product.
Values Product(const Values& x, const Values& y, int64_t n) {
  Values out(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t q = 0; q < n; ++q) out[i * n + j] += x[i * n + q] * y[q * n + j];
    }
  }
  return out;
}

Values Transposed(const double* a, int64_t n) {
  Values t(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) t[j * n + i] = a[i * n + j];
  }
  return t;
}

// The triangle of `a` (the other one zeroed).
Values Triangle(const double* a, int64_t n, bool lower) {
  Values t(a, a + n * n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      if (lower ? j > i : j < i) t[i * n + j] = 0;
    }
  }
  return t;
}

// Cholesky-Crout of the `lower` (else upper) triangle of a symmetric matrix.
Values CholeskyOf(const double* a, int64_t n, bool lower) {
  Values s(static_cast<size_t>(n * n)), l(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const bool mine = lower ? j <= i : j >= i;
      s[i * n + j] = mine ? a[i * n + j] : a[j * n + i];
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    double d = s[j * n + j];
    for (int64_t q = 0; q < j; ++q) d -= l[j * n + q] * l[j * n + q];
    l[j * n + j] = std::sqrt(d);
    for (int64_t i = j + 1; i < n; ++i) {
      double x = s[i * n + j];
      for (int64_t q = 0; q < j; ++q) x -= l[i * n + q] * l[j * n + q];
      l[i * n + j] = x / l[j * n + j];
    }
  }
  return lower ? l : Transposed(l.data(), n);
}

// One square-matrix op of `batch` n x n matrices, the reference per matrix.
OpCase SquareCase(const std::string& op, const std::vector<int64_t>& batch, int64_t n, Kind kind,
                  std::function<Values(const double*, int64_t)> per_matrix, int64_t out_per = -1) {
  OpCase c;
  c.op = op;
  c.name = absl::StrCat(op, " ", batch.size(), " batch axes, n ", n);
  c.shapes = {Matrices(batch, n, n)};
  c.init = [kind](int k, const Shape& s) { return MakeMatrices(k, s, kind); };
  const int64_t count = Prod(batch);
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    std::vector<Values> outs;
    for (int64_t b = 0; b < count; ++b) {
      Values r = per_matrix(in[0].data() + b * n * n, n);
      const size_t per = out_per < 0 ? r.size() : static_cast<size_t>(out_per);
      if (outs.empty()) outs.resize(r.size() / per);
      for (size_t o = 0; o < outs.size(); ++o) {
        outs[o].insert(outs[o].end(), r.begin() + o * per, r.begin() + (o + 1) * per);
      }
    }
    return outs;
  };
  return c;
}

TEST(LinalgFactor, Potrf) {
  for (bool lower : {true, false}) {
    for (const std::vector<int64_t>& batch : {std::vector<int64_t>{}, {2, 3}}) {
      OpCase c =
          SquareCase("_linalg_potrf", batch, 4, Kind::kSpd,
                     [lower](const double* a, int64_t n) { return CholeskyOf(a, n, lower); });
      c.attrs["lower"] = Flag(lower);
      c.check_backward = false;  // a symmetric gradient: PotrfGradientIsSymmetric
      CheckOp(c);
    }
  }
  OpCase alias = SquareCase("linalg_potrf", {2}, 1, Kind::kSpd,
                            [](const double* a, int64_t) { return Values{std::sqrt(a[0])}; });
  alias.check_backward = false;
  CheckOp(alias);
}

// The gradient of `op` at `inputs` (float64) for head gradients `heads`
// (one per visible output), through the executor.
std::vector<Values> GradOf(const std::string& op, const AttrMap& attrs,
                           const std::vector<Shape>& shapes, const std::vector<Values>& inputs,
                           const std::vector<Values>& heads) {
  OpCall call(op);
  call.Name("op");
  for (const auto& [k, v] : attrs) call.Attr(k, v);
  std::map<std::string, Tensor> args, grads;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = absl::StrCat("x", i);
    call.Input(Symbol::Variable(name));
    args[name] = Tensor::FromVector(shapes[i], inputs[i], DType::kFloat64);
    grads[name] = ValueOrThrow(Tensor::Zeros(shapes[i], DType::kFloat64));
  }
  Symbol y = call.Build();
  BindOptions opt;
  auto exe = Executor::Bind(y, opt, ArrayArgs(args), ArrayArgs(grads), ArrayArgs());
  exe->Forward(true);
  std::vector<Tensor> head_tensors;
  for (size_t o = 0; o < heads.size(); ++o) {
    head_tensors.push_back(
        Tensor::FromVector(exe->outputs()[o].shape(), heads[o], DType::kFloat64));
  }
  exe->Backward(head_tensors);
  std::vector<Values> g;
  for (size_t i = 0; i < inputs.size(); ++i) {
    g.push_back(exe->grad_dict().at(absl::StrCat("x", i)).ToDoubles());
  }
  return g;
}

// sum_k <y_k, h_k> over op(A)'s visible outputs.
double Loss(const std::string& op, const AttrMap& attrs, const Values& a, const Shape& s,
            const std::vector<Values>& heads) {
  std::vector<Tensor> out = RunOp(op, attrs, {MakeTensor(s, a, DType::kFloat64)});
  double l = 0;
  for (size_t o = 0; o < heads.size(); ++o) {
    const std::vector<double> y = out[o].ToDoubles();
    for (size_t i = 0; i < y.size(); ++i) l += y[i] * heads[o][i];
  }
  return l;
}

// potrf and syevd read one triangle of a symmetric input and MXNet's
// gradient is the symmetric one: perturbing the pair (i, j), (j, i) moves the
// loss by dA_ij + dA_ji.
void CheckSymmetricGradient(const std::string& op, const AttrMap& attrs, const Shape& s,
                            const Values& a, const std::vector<Values>& heads) {
  const Values g = GradOf(op, attrs, {s}, {a}, heads)[0];
  const int64_t n = s[s.ndim() - 1], count = s.Size() / (n * n);
  const double eps = 1e-6;
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        const int64_t ij = b * n * n + i * n + j, ji = b * n * n + j * n + i;
        EXPECT_NEAR(g[ij], g[ji], 1e-12) << op << " gradient not symmetric at " << ij;
        Values up = a, down = a;
        up[ij] += eps;
        down[ij] -= eps;
        if (ij != ji) {
          up[ji] += eps;
          down[ji] -= eps;
        }
        const double fd =
            (Loss(op, attrs, up, s, heads) - Loss(op, attrs, down, s, heads)) / (2 * eps);
        EXPECT_NEAR(fd, ij == ji ? g[ij] : g[ij] + g[ji], 1e-6) << op << " element " << ij;
      }
    }
  }
}

Values HeadFor(int k, int64_t size) {
  Values h(static_cast<size_t>(size));
  for (size_t i = 0; i < h.size(); ++i) h[i] = Noise(k, i);
  return h;
}

TEST(LinalgFactor, PotrfGradientIsSymmetric) {
  const Shape s{2, 3, 3};
  const Values a = MakeMatrices(0, s, Kind::kSpd);
  for (bool lower : {true, false}) {
    CheckSymmetricGradient("_linalg_potrf", {{"lower", Flag(lower)}}, s, a, {HeadFor(5, 18)});
  }
}

TEST(LinalgFactor, Potri) {
  for (bool lower : {true, false}) {
    OpCase c = SquareCase("_linalg_potri", {2}, 3, lower ? Kind::kLower : Kind::kUpper,
                          [lower](const double* a, int64_t n) {
                            const Values t = Triangle(a, n, lower);
                            const Values tt = Transposed(t.data(), n);
                            const Values m = lower ? Product(t, tt, n) : Product(tt, t, n);
                            return Invert(m.data(), n);
                          });
    c.attrs["lower"] = Flag(lower);
    CheckOp(c);
  }
  CheckOp(SquareCase("linalg_potri", {}, 4, Kind::kLower, [](const double* a, int64_t n) {
    const Values t = Triangle(a, n, true);
    const Values m = Product(t, Transposed(t.data(), n), n);
    return Invert(m.data(), n);
  }));
}

TEST(LinalgFactor, Inverse) {
  for (const std::string op : {"_linalg_inverse", "linalg_inverse", "_npi_inv"}) {
    CheckOp(SquareCase(op, {2, 2}, 3, Kind::kGeneral, Invert));
  }
  CheckOp(SquareCase("_linalg_inverse", {}, 5, Kind::kGeneral, Invert));
}

TEST(LinalgFactor, DetAndSlogdet) {
  auto det = [](const double* a, int64_t n) { return Values{Determinant(a, n)}; };
  auto slogdet = [](const double* a, int64_t n) {
    const double d = Determinant(a, n);
    return Values{d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0), std::log(std::fabs(d))};
  };
  for (const std::vector<int64_t>& batch : {std::vector<int64_t>{}, {2, 3}}) {
    CheckOp(SquareCase("_linalg_det", batch, 3, Kind::kGeneral, det));
    CheckOp(SquareCase("_linalg_slogdet", batch, 3, Kind::kGeneral, slogdet, 1));
  }
  // Negative determinants too (a diagonal around -2.5 in odd sizes).
  OpCase neg = SquareCase("linalg_det", {4}, 3, Kind::kGeneral, det);
  neg.init = [](int k, const Shape& s) { return MakeMatrices(k, s, Kind::kGeneral, -2.5); };
  CheckOp(neg);
  OpCase negl = SquareCase("_npi_slogdet", {4}, 3, Kind::kGeneral, slogdet, 1);
  negl.init = neg.init;
  CheckOp(negl);
  CheckOp(SquareCase("_npi_det", {2}, 1, Kind::kGeneral, det));
}

TEST(LinalgFactor, SingularDeterminantHasZeroGradient) {
  // The second matrix is singular: det 0 (its sign from the pivots, -0 here
  // as MXNet), logabsdet -inf, and a zero gradient, as MXNet.
  const Shape s{2, 2, 2};
  const Values a = {1, 2, 3, 4, 1, 2, 2, 4};
  std::vector<Tensor> d = RunOp("_linalg_det", {}, {MakeTensor(s, a, DType::kFloat64)});
  EXPECT_EQ(d[0].ToDoubles(), (std::vector<double>{-2, 0}));
  EXPECT_TRUE(std::signbit(d[0].ToDoubles()[1]));
  std::vector<Tensor> l = RunOp("_linalg_slogdet", {}, {MakeTensor(s, a, DType::kFloat64)});
  EXPECT_EQ(l[0].ToDoubles()[0], -1);
  EXPECT_EQ(l[1].ToDoubles()[1], -INFINITY);
  const Values g = GradOf("_linalg_det", {}, {s}, {a}, {{1, 1}})[0];
  EXPECT_EQ(g, (Values{4, -3, -2, 1, 0, 0, 0, 0}));  // det A^-T: the cofactors
}

// trmm or trsm of A (batch, n, n) and B (batch, rows, cols).
OpCase TriangCase(bool solve, const std::vector<int64_t>& batch, int64_t n, int64_t other,
                  bool transpose, bool rightside, bool lower, double alpha) {
  OpCase c;
  c.op = solve ? "_linalg_trsm" : "_linalg_trmm";
  c.name = absl::StrCat(c.op, " transpose ", transpose, " rightside ", rightside, " lower ", lower,
                        " alpha ", alpha);
  c.attrs = {{"transpose", Flag(transpose)},
             {"rightside", Flag(rightside)},
             {"lower", Flag(lower)},
             {"alpha", absl::StrCat(alpha)}};
  const int64_t rows = rightside ? other : n, cols = rightside ? n : other;
  c.shapes = {Matrices(batch, n, n), Matrices(batch, rows, cols)};
  // The other triangle holds noise, which neither op may read.
  c.init = [](int k, const Shape& s) {
    if (k == 0) return MakeMatrices(k, s, Kind::kGeneral);
    Values v(static_cast<size_t>(s.Size()));
    for (size_t i = 0; i < v.size(); ++i) v[i] = Noise(k, i);
    return v;
  };
  const int64_t count = Prod(batch);
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out;
    for (int64_t b = 0; b < count; ++b) {
      Values op = Triangle(in[0].data() + b * n * n, n, lower);
      if (transpose) op = Transposed(op.data(), n);
      if (solve) op = Invert(op.data(), n);
      const double* x = in[1].data() + b * rows * cols;
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          double acc = 0;
          for (int64_t q = 0; q < n; ++q) {
            acc += rightside ? x[i * cols + q] * op[q * n + j] : op[i * n + q] * x[q * cols + j];
          }
          out.push_back(alpha * acc);
        }
      }
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(LinalgFactor, TrmmAndTrsm) {
  for (bool solve : {false, true}) {
    for (bool transpose : {false, true}) {
      for (bool rightside : {false, true}) {
        for (bool lower : {true, false}) {
          CheckOp(TriangCase(solve, {}, 3, 2, transpose, rightside, lower, 1.0));
          CheckOp(TriangCase(solve, {2, 2}, 3, 4, transpose, rightside, lower, -1.5));
        }
      }
    }
  }
  OpCase alias = TriangCase(false, {2}, 2, 3, false, false, true, 2.0);
  alias.op = "linalg_trmm";
  CheckOp(alias);
  alias = TriangCase(true, {2}, 2, 3, false, true, false, 0.5);
  alias.op = "linalg_trsm";
  CheckOp(alias);
}

TEST(LinalgFactor, NotPositiveDefiniteNamesTheMatrix) {
  const Shape s{3, 2, 2};
  const Values a = {4, 1, 1, 4.25, 4, 1, 1, 4, 1, 2, 2, 1};  // the last is indefinite
  for (const char* op : {"_linalg_potrf", "linalg_potrf"}) {
    std::string msg = ErrorOf([&] { RunOp(op, {}, {MakeTensor(s, a, DType::kFloat32)}, "chol"); });
    EXPECT_CONTAINS(msg, "chol");
    EXPECT_CONTAINS(msg, "matrix 2 of input A [3,2,2]");
    EXPECT_CONTAINS(msg, "not symmetric positive definite");
    EXPECT_CONTAINS(msg, "order 2");
  }
  std::vector<Tensor> ok =
      RunOp("_linalg_potrf", {}, {MakeTensor(Shape{2, 2}, {4, 1, 1, 4.25}, DType::kFloat32)});
  EXPECT_EQ(ok[0].ToDoubles(), (std::vector<double>{2, 0, 0.5, 2}));
}

TEST(LinalgFactor, SingularInputsNameTheMatrix) {
  const Shape s{2, 2, 2};
  const Values a = {1, 4, 2, 3, 1, 2, 2, 4};
  std::string msg =
      ErrorOf([&] { RunOp("_linalg_inverse", {}, {MakeTensor(s, a, DType::kFloat64)}, "inv"); });
  EXPECT_CONTAINS(msg, "inv");
  EXPECT_CONTAINS(msg, "matrix 1 of input A [2,2,2]");
  EXPECT_CONTAINS(msg, "singular");
  const Values f = {2, 0, 1, 2, 0, 0, 1, 2};
  msg = ErrorOf([&] { RunOp("_linalg_potri", {}, {MakeTensor(s, f, DType::kFloat64)}, "pi"); });
  EXPECT_CONTAINS(msg, "matrix 1 of input A [2,2,2]");
  EXPECT_CONTAINS(msg, "diagonal element 0 is zero");
  std::vector<Tensor> inv =
      RunOp("_linalg_inverse", {}, {MakeTensor(Shape{2, 2}, {1, 4, 2, 3}, DType::kFloat64)});
  const std::vector<double> got = inv[0].ToDoubles();
  const std::vector<double> want = {-0.6, 0.8, 0.4, -0.2};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(got[i], want[i], 1e-15);
}

TEST(LinalgFactor, ShapeAndParameterErrors) {
  Tensor rect = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  for (const char* op :
       {"_linalg_potrf", "_linalg_potri", "_linalg_inverse", "_linalg_det", "_linalg_slogdet"}) {
    std::string msg = ErrorOf([&] { RunOp(op, {}, {rect}, "m"); });
    EXPECT_CONTAINS(msg, "square");
    EXPECT_CONTAINS(msg, "[2,3]");
  }
  Tensor v = MakeTensor(Shape{3}, Values(3, 1.0), DType::kFloat32);
  EXPECT_CONTAINS(ErrorOf([&] { RunOp("_linalg_det", {}, {v}, "m"); }), "[3]");
  Tensor sq = MakeTensor(Shape{2, 2}, {1, 0, 0, 1}, DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("_linalg_potrf", {{"lower", "sometimes"}}, {sq}, "m"); });
  EXPECT_CONTAINS(msg, "lower");
  EXPECT_CONTAINS(msg, "sometimes");
  msg = ErrorOf([&] { RunOp("_linalg_inverse", {{"lower", "1"}}, {sq}, "m"); });
  EXPECT_CONTAINS(msg, "lower");
  msg = ErrorOf([&] { RunOp("_linalg_det", {{"offset", "1"}}, {sq}, "m"); });
  EXPECT_CONTAINS(msg, "offset");
  Tensor b = MakeTensor(Shape{3, 2}, Values(6, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_trmm", {}, {sq, b}, "t"); });
  EXPECT_CONTAINS(msg, "cannot be multiplied");
  EXPECT_CONTAINS(msg, "[3,2]");
  EXPECT_NO_THROW(RunOp("_linalg_trsm", {{"rightside", "1"}}, {sq, b}, "t"));
  msg = ErrorOf([&] { RunOp("_linalg_trsm", {}, {rect, b}, "t"); });
  EXPECT_CONTAINS(msg, "square");
  Tensor b3 = MakeTensor(Shape{1, 2, 2}, Values(4, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_linalg_trsm", {}, {sq, b3}, "t"); });
  EXPECT_CONTAINS(msg, "input B");
  msg = ErrorOf([&] { RunOp("_linalg_trmm", {{"alpha", "much"}}, {sq, sq}, "t"); });
  EXPECT_CONTAINS(msg, "alpha");
  EXPECT_CONTAINS(msg, "much");
  msg = ErrorOf([&] { RunOp("_linalg_trsm", {{"rightside", "left"}}, {sq, sq}, "t"); });
  EXPECT_CONTAINS(msg, "rightside");
  msg = ErrorOf([&] { RunOp("_linalg_trsm", {{"transpose_a", "1"}}, {sq, sq}, "t"); });
  EXPECT_CONTAINS(msg, "transpose_a");
}

TEST(LinalgFactor, FloatOnly) {
  for (DType t : {DType::kFloat16, DType::kInt32}) {
    Tensor sq = MakeTensor(Shape{2, 2}, {2, 0, 0, 2}, t);
    for (const char* op :
         {"_linalg_potrf", "_linalg_potri", "_linalg_inverse", "_linalg_det", "_linalg_slogdet"}) {
      std::string msg = ErrorOf([&] { RunOp(op, {}, {sq}, "m"); });
      EXPECT_CONTAINS(msg, t == DType::kFloat16 ? "float16" : "int32");
    }
    for (const char* op : {"_linalg_trmm", "_linalg_trsm"}) {
      std::string msg = ErrorOf([&] { RunOp(op, {}, {sq, sq}, "m"); });
      EXPECT_CONTAINS(msg, t == DType::kFloat16 ? "float16" : "int32");
    }
  }
}

// Eigenvalues ascending and eigenvectors as rows (signed as MXNet) by
// classical Jacobi (the largest off-diagonal element first).
Values EigenOf(const double* a, int64_t n) {
  Values m(static_cast<size_t>(n * n)), v(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    v[i * n + i] = 1;
    for (int64_t j = 0; j < n; ++j) m[i * n + j] = i >= j ? a[i * n + j] : a[j * n + i];
  }
  for (int iter = 0; iter < 1000 && n > 1; ++iter) {
    int64_t p = 0, q = 1;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) {
        if (std::fabs(m[i * n + j]) > std::fabs(m[p * n + q])) p = i, q = j;
      }
    }
    if (std::fabs(m[p * n + q]) < 1e-300) break;
    const double phi = 0.5 * std::atan2(2 * m[p * n + q], m[q * n + q] - m[p * n + p]);
    const double c = std::cos(phi), sn = std::sin(phi);
    for (int64_t k = 0; k < n; ++k) {
      const double kp = m[k * n + p], kq = m[k * n + q];
      m[k * n + p] = c * kp - sn * kq;
      m[k * n + q] = sn * kp + c * kq;
    }
    for (int64_t k = 0; k < n; ++k) {
      const double pk = m[p * n + k], qk = m[q * n + k];
      m[p * n + k] = c * pk - sn * qk;
      m[q * n + k] = sn * pk + c * qk;
    }
    for (int64_t k = 0; k < n; ++k) {
      const double kp = v[k * n + p], kq = v[k * n + q];
      v[k * n + p] = c * kp - sn * kq;
      v[k * n + q] = sn * kp + c * kq;
    }
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](int64_t x, int64_t y) { return m[x * n + x] < m[y * n + y]; });
  Values u, w;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t col = order[r];
    int64_t big = 0;
    for (int64_t k = 1; k < n; ++k) {
      if (std::fabs(v[k * n + col]) > std::fabs(v[big * n + col])) big = k;
    }
    const double sign = v[big * n + col] < 0 ? -1 : 1;
    for (int64_t k = 0; k < n; ++k) u.push_back(sign * v[k * n + col]);
    w.push_back(m[col * n + col]);
  }
  u.insert(u.end(), w.begin(), w.end());
  return u;
}

// Symmetric matrices with well-separated eigenvalues: Q diag(1, 3, 5, ...) Q^T
// with Q from Gram-Schmidt of noise.
Values SeparatedSymmetric(int k, const Shape& s) {
  const int64_t n = s[s.ndim() - 1], count = s.Size() / (n * n);
  Values out;
  for (int64_t b = 0; b < count; ++b) {
    Values q(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n * n; ++i) q[i] = Noise(k, static_cast<size_t>(b * n * n + i));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < i; ++j) {
        double d = 0;
        for (int64_t c = 0; c < n; ++c) d += q[i * n + c] * q[j * n + c];
        for (int64_t c = 0; c < n; ++c) q[i * n + c] -= d * q[j * n + c];
      }
      double norm = 0;
      for (int64_t c = 0; c < n; ++c) norm += q[i * n + c] * q[i * n + c];
      for (int64_t c = 0; c < n; ++c) q[i * n + c] /= std::sqrt(norm);
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t c = 0; c < n; ++c) acc += q[c * n + i] * (1.0 + 2.0 * c) * q[c * n + j];
        out.push_back(acc);
      }
    }
  }
  return out;
}

TEST(LinalgFactor, Syevd) {
  for (const std::vector<int64_t>& batch : {std::vector<int64_t>{}, {2, 2}}) {
    OpCase c = SquareCase("_linalg_syevd", batch, 4, Kind::kGeneral, EigenOf, 16);
    c.init = SeparatedSymmetric;
    // The eigenvalues are per matrix (n values), the vectors n x n.
    c.reference = [batch](const std::vector<Values>& in, const std::vector<Shape>&) {
      std::vector<Values> outs(2);
      for (int64_t b = 0; b < Prod(batch); ++b) {
        const Values r = EigenOf(in[0].data() + b * 16, 4);
        outs[0].insert(outs[0].end(), r.begin(), r.begin() + 16);
        outs[1].insert(outs[1].end(), r.begin() + 16, r.end());
      }
      return outs;
    };
    c.check_backward = false;  // symmetric: below
    c.forward_tol32 = 1e-4;
    CheckOp(c);
  }
  const Shape s{2, 3, 3};
  CheckSymmetricGradient("_linalg_syevd", {}, s, SeparatedSymmetric(3, s),
                         {HeadFor(6, 18), HeadFor(7, 6)});
}

// L and Q of the LQ factorization by Householder reflections of the rows,
// beta = -sign(alpha) |x| as LAPACK.
Values LqOf(const double* a, int64_t m, int64_t n) {
  Values r(a, a + m * n), q(static_cast<size_t>(m * n), 0.0);
  std::vector<Values> vs;
  std::vector<double> taus;
  for (int64_t i = 0; i < m; ++i) {
    Values v(static_cast<size_t>(n), 0.0);
    double norm2 = 0;
    for (int64_t j = i; j < n; ++j) norm2 += r[i * n + j] * r[i * n + j];
    const double alpha = r[i * n + i];
    const double beta = alpha >= 0 ? -std::sqrt(norm2) : std::sqrt(norm2);
    double tau = 0;
    if (norm2 > alpha * alpha) {
      v[i] = 1;
      for (int64_t j = i + 1; j < n; ++j) v[j] = r[i * n + j] / (alpha - beta);
      tau = (beta - alpha) / beta;
    }
    for (int64_t k = i; k < m; ++k) {  // r = r H
      double d = 0;
      for (int64_t j = 0; j < n; ++j) d += r[k * n + j] * v[j];
      for (int64_t j = 0; j < n; ++j) r[k * n + j] -= tau * d * v[j];
    }
    vs.push_back(v);
    taus.push_back(tau);
  }
  for (int64_t i = 0; i < m; ++i) q[i * n + i] = 1;
  for (int64_t i = m - 1; i >= 0; --i) {
    for (int64_t k = 0; k < m; ++k) {
      double d = 0;
      for (int64_t j = 0; j < n; ++j) d += q[k * n + j] * vs[i][j];
      for (int64_t j = 0; j < n; ++j) q[k * n + j] -= taus[i] * d * vs[i][j];
    }
  }
  Values out = q;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < m; ++j) out.push_back(j <= i ? r[i * n + j] : 0.0);
  }
  return out;
}

TEST(LinalgFactor, Gelqf) {
  for (const auto& [batch, m, n] : std::vector<std::tuple<std::vector<int64_t>, int64_t, int64_t>>{
           {{}, 3, 5}, {{2}, 3, 3}, {{2, 2}, 2, 4}}) {
    OpCase c;
    c.op = "_linalg_gelqf";
    c.name = absl::StrCat("gelqf ", m, " x ", n);
    c.shapes = {Matrices(batch, m, n)};
    const int64_t count = Prod(batch);
    c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
      std::vector<Values> outs(2);
      for (int64_t b = 0; b < count; ++b) {
        const Values r = LqOf(in[0].data() + b * m * n, m, n);
        outs[0].insert(outs[0].end(), r.begin(), r.begin() + m * n);
        outs[1].insert(outs[1].end(), r.begin() + m * n, r.end());
      }
      return outs;
    };
    c.forward_tol32 = 1e-4;
    CheckOp(c);
  }
  OpCase alias;
  alias.op = "linalg_gelqf";
  alias.shapes = {Shape{2, 2}};
  alias.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
    const Values r = LqOf(in[0].data(), 2, 2);
    return std::vector<Values>{Values(r.begin(), r.begin() + 4), Values(r.begin() + 4, r.end())};
  };
  CheckOp(alias);
  Tensor tall = MakeTensor(Shape{3, 2}, Values(6, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("_linalg_gelqf", {}, {tall}, "lq"); });
  EXPECT_CONTAINS(msg, "[3,2]");
  EXPECT_CONTAINS(msg, "m <= n");
  Tensor rect = MakeTensor(Shape{2, 3}, Values(6, 1.0), DType::kFloat32);
  EXPECT_CONTAINS(ErrorOf([&] { RunOp("_linalg_syevd", {}, {rect}, "e"); }), "square");
  Tensor h = MakeTensor(Shape{2, 2}, {1, 0, 0, 1}, DType::kFloat16);
  EXPECT_CONTAINS(ErrorOf([&] { RunOp("_linalg_syevd", {}, {h}, "e"); }), "float16");
  EXPECT_CONTAINS(ErrorOf([&] { RunOp("_linalg_gelqf", {}, {h}, "e"); }), "float16");
}

// The CPU runs potrf, trmm, trsm and potrf's gradient through Eigen; the GPU
// runs linalg_matrix.h's loops, checked here against the CPU kernels.
TEST(LinalgFactor, GpuLoopsMatchTheCpuKernels) {
  const int64_t n = 5;
  const Shape sq{n, n};
  const Values spd = MakeMatrices(1, sq, Kind::kSpd);
  const Values head = HeadFor(2, n * n);
  for (bool lower : {true, false}) {
    const AttrMap attrs = {{"lower", Flag(lower)}};
    Values mine = spd;
    ASSERT_EQ(linalg::Cholesky(mine.data(), n, lower), 0);
    const std::vector<double> cpu =
        RunOp("_linalg_potrf", attrs, {MakeTensor(sq, spd, DType::kFloat64)})[0].ToDoubles();
    for (size_t i = 0; i < cpu.size(); ++i) EXPECT_NEAR(mine[i], cpu[i], 1e-12) << i;
    Values da(static_cast<size_t>(n * n));
    linalg::PotrfBackward(head.data(), mine.data(), n, lower, da.data());
    const Values g = GradOf("_linalg_potrf", attrs, {sq}, {spd}, {head})[0];
    for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(da[i], g[i], 1e-12) << i;
  }
  const Values a = MakeMatrices(3, sq, Kind::kGeneral);
  for (bool solve : {false, true}) {
    for (int bits = 0; bits < 8; ++bits) {
      const linalg::TriangSpec spec{(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
      const int64_t rows = spec.rightside ? 3 : n, cols = spec.rightside ? n : 3;
      const Values b = HeadFor(4, rows * cols);
      Values mine = b;
      if (solve) {
        linalg::TriangSolve(a.data(), n, spec, -0.5, mine.data(), rows, cols);
      } else {
        linalg::TriangMultiply(a.data(), n, spec, -0.5, mine.data(), rows, cols);
      }
      const AttrMap attrs = {{"transpose", Flag(spec.transpose)},
                             {"rightside", Flag(spec.rightside)},
                             {"lower", Flag(spec.lower)},
                             {"alpha", "-0.5"}};
      const std::vector<double> cpu = RunOp(solve ? "_linalg_trsm" : "_linalg_trmm", attrs,
                                            {MakeTensor(sq, a, DType::kFloat64),
                                             MakeTensor(Shape{rows, cols}, b, DType::kFloat64)})[0]
                                          .ToDoubles();
      for (size_t i = 0; i < cpu.size(); ++i) {
        EXPECT_NEAR(mine[i], cpu[i], 1e-12) << "solve " << solve << " variant " << bits;
      }
    }
  }
}

}  // namespace
}  // namespace symx
