#include "devices/geometry/strided_view.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/ops/crop.h"
#include "graph/ops/image.h"
#include "graph/ops/tensor.h"

namespace symx {

std::vector<int64_t> StridesOf(const Shape& s) {
  std::vector<int64_t> st(s.ndim());
  int64_t acc = 1;
  for (int d = s.ndim() - 1; d >= 0; --d) {
    st[d] = acc;
    acc *= s[d];
  }
  return st;
}

int64_t StridedView::size() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

void StridedView::Simplify() {
  std::vector<int64_t> nd, ns;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 1) continue;
    if (!nd.empty() && ns.back() == steps[i] * dims[i]) {
      nd.back() *= dims[i];
      ns.back() = steps[i];
    } else {
      nd.push_back(dims[i]);
      ns.push_back(steps[i]);
    }
  }
  if (nd.empty()) {
    nd.push_back(1);
    ns.push_back(0);
  }
  dims = std::move(nd);
  steps = std::move(ns);
}

absl::Status FrontView(const KernelContext& ctx, const Shape& whole, const Shape& part,
                       StridedView* v) {
  if (whole.ndim() != part.ndim()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": ", part.ToString(), " is not a part of ", whole.ToString()));
  }
  const std::vector<int64_t> st = StridesOf(whole);
  for (int d = 0; d < whole.ndim(); ++d) {
    if (part[d] > whole[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": ", part.ToString(), " is not a part of ", whole.ToString()));
    }
    v->dims.push_back(part[d]);
    v->steps.push_back(st[d]);
  }
  return absl::OkStatus();
}

absl::Status DiagView(const KernelContext& ctx, const Shape& mat, const Shape& vec,
                      StridedView* v) {
  const auto& p = ctx.param<DiagParam>();
  if (vec.ndim() == 1 && mat.ndim() == 2 && mat[0] == mat[1] &&
      mat[0] == vec[0] + (p.k < 0 ? -p.k : p.k)) {
    // A 1-D input placed on diagonal k of a square matrix.
    const int64_t m = mat[0];
    v->dims = {vec[0]};
    v->steps = {m + 1};
    v->offset = p.k >= 0 ? p.k : -p.k * m;
    return absl::OkStatus();
  }
  Shape want;
  absl::Status s = DiagOutputShape(p, mat, &want);
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat(ctx.Where(), ": ", s.message()));
  if (want != vec) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": ", vec.ToString(), " is not a diagonal of ", mat.ToString()));
  }
  const int n = mat.ndim();
  int a1 = 0, a2 = 0;
  (void)NormalizeAxis(p.axis1, n, "axis1", &a1);
  (void)NormalizeAxis(p.axis2, n, "axis2", &a2);
  const std::vector<int64_t> st = StridesOf(mat);
  for (int d = 0; d < n; ++d) {
    if (d == a1 || d == a2) continue;
    v->dims.push_back(mat[d]);
    v->steps.push_back(st[d]);
  }
  v->dims.push_back(vec[vec.ndim() - 1]);
  v->steps.push_back(st[a1] + st[a2]);
  v->offset = p.k >= 0 ? p.k * st[a2] : -p.k * st[a1];
  return absl::OkStatus();
}

absl::Status CropView(const KernelContext& ctx, const Shape& big, const Shape& small,
                      StridedView* v) {
  const Shape& B = big;
  const Shape& S = small;
  if (B.ndim() != 4 || S.ndim() != 4 || B[0] != S[0] || B[1] != S[1] || S[2] > B[2] ||
      S[3] > B[3]) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": cannot crop ", S.ToString(), " out of ", B.ToString()));
  }
  int64_t oy = 0, ox = 0;
  CropOffset(ctx.param<CropParam>(), B[2], B[3], S[2], S[3], &oy, &ox);
  if (oy < 0 || ox < 0 || oy + S[2] > B[2] || ox + S[3] > B[3]) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": offset (", oy, ", ", ox,
                                                   ") puts the ", S[2], "x", S[3],
                                                   " window outside ", B.ToString()));
  }
  v->dims = {S[0], S[1], S[2], S[3]};
  v->steps = StridesOf(B);
  v->offset = oy * B[3] + ox;
  return absl::OkStatus();
}

StridedView FlipView(const Shape& shape, int axis) {
  StridedView v;
  v.dims = shape.dims();
  v.steps = StridesOf(shape);
  if (shape[axis] > 0) v.offset = (shape[axis] - 1) * v.steps[axis];
  v.steps[axis] = -v.steps[axis];
  return v;
}

absl::Status ImageCropView(const KernelContext& ctx, const Shape& big, const Shape& small,
                           StridedView* v) {
  const auto& p = ctx.param<ImageCropParam>();
  const int n = big.ndim();
  bool fits = (n == 3 || n == 4) && small.ndim() == n && small[n - 3] == p.height &&
              small[n - 2] == p.width && small[n - 1] == big[n - 1] &&
              p.y + p.height <= big[n - 3] && p.x + p.width <= big[n - 2];
  if (n == 4) fits = fits && small[0] == big[0];
  if (!fits) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": cannot crop ", small.ToString(),
                                                   " at (y ", p.y, ", x ", p.x, ") out of ",
                                                   big.ToString()));
  }
  v->dims = small.dims();
  v->steps = StridesOf(big);
  v->offset = p.y * v->steps[n - 3] + p.x * v->steps[n - 2];
  return absl::OkStatus();
}

}  // namespace symx
