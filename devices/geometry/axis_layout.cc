#include "devices/geometry/axis_layout.h"

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/ops/norm.h"
#include "graph/ops/softmax.h"

namespace symx {

absl::StatusOr<AxisLayout> LayoutAlong(const KernelContext& ctx, const Shape& s, int64_t axis) {
  int ax = 0;
  absl::Status st = NormalizeAxis(axis, s.ndim(), "axis", &ax);
  if (!st.ok()) return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", st.message()));
  AxisLayout l;
  for (int d = 0; d < ax; ++d) l.outer *= s[d];
  l.n = s[ax];
  for (int d = ax + 1; d < s.ndim(); ++d) l.inner *= s[d];
  return l;
}

AxisLayout SoftmaxOutputLayout(const SoftmaxOutputParam& p, const Shape& s) {
  AxisLayout l;
  const int64_t size = s.Size();
  if (p.multi_output) {
    l.outer = s[0];
    l.n = s[1];
    l.inner = l.outer * l.n == 0 ? 0 : size / (l.outer * l.n);
  } else if (p.preserve_shape) {
    l.n = s[s.ndim() - 1];
    l.outer = l.n == 0 ? 0 : size / l.n;
  } else {
    l.outer = s[0];
    l.n = l.outer == 0 ? 0 : size / l.outer;
  }
  return l;
}

absl::StatusOr<AxisLayout> SoftmaxActivationLayout(const KernelContext& ctx, const Shape& s) {
  const bool channel = ctx.param<SoftmaxActivationParam>().channel;
  if (s.ndim() < (channel ? 3 : 2)) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": data ", s.ToString(), " needs at least ", channel ? 3 : 2,
                     " dims with mode=", channel ? "channel" : "instance"));
  }
  AxisLayout l;
  l.outer = s[0];
  if (channel) {
    l.n = s[1];
    for (int d = 2; d < s.ndim(); ++d) l.inner *= s[d];
  } else {
    for (int d = 1; d < s.ndim(); ++d) l.n *= s[d];
  }
  return l;
}

absl::StatusOr<AxisLayout> L2NormalizationLayout(const KernelContext& ctx, const Shape& s) {
  const std::string& mode = ctx.param<L2NormalizationParam>().mode;
  if (s.ndim() < (mode == "instance" ? 1 : 3)) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": data ", s.ToString(), " has too few dims for mode=", mode));
  }
  AxisLayout l;
  if (mode == "instance") {
    l.outer = s[0];
    for (int d = 1; d < s.ndim(); ++d) l.n *= s[d];
  } else if (mode == "channel") {
    l.outer = s[0];
    l.n = s[1];
    for (int d = 2; d < s.ndim(); ++d) l.inner *= s[d];
  } else {
    l.outer = s[0] * s[1];
    for (int d = 2; d < s.ndim(); ++d) l.n *= s[d];
  }
  return l;
}

absl::StatusOr<AxisLayout> GroupNormLayout(const KernelContext& ctx, const Shape& s, int64_t groups,
                                           int64_t* resolved_groups) {
  if (s.ndim() < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": data ", s.ToString(), " needs 3+ dims"));
  }
  const int64_t g = groups < 0 ? s[1] : groups;
  if (g <= 0 || s[1] % g != 0) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": data ", s.ToString(),
                                                   " channels not divisible into ", g, " groups"));
  }
  AxisLayout l;
  l.outer = s[0] * g;
  l.n = s[1] / g;
  for (int d = 2; d < s.ndim(); ++d) l.n *= s[d];
  *resolved_groups = g;
  return l;
}

double SoftmaxOutputScale(const SoftmaxOutputParam& p, const AxisLayout& l, int64_t entries,
                          int64_t valid_count) {
  double count = 1;
  if (p.normalization == "batch") {
    count = p.multi_output ? static_cast<double>(l.outer) : static_cast<double>(entries);
  } else if (p.normalization == "valid") {
    count = static_cast<double>(valid_count > 1 ? valid_count : 1);
  }
  double scale = p.grad_scale / count;
  if (p.multi_output && p.normalization != "valid" && l.inner > 0) {
    scale /= static_cast<double>(l.inner);
  }
  return scale;
}

double MakeLossScale(const MakeLossParam& p, const Shape& grad) {
  double scale = p.grad_scale;
  if (p.normalization == "batch") {
    int64_t rows = 1;
    for (int d = 0; d + 1 < grad.ndim(); ++d) rows *= grad[d];
    scale /= static_cast<double>(rows);
  }
  return scale;
}

double RegressionScale(const RegressionParam& p, const Shape& label) {
  const double num_output = static_cast<double>(label.Size()) / static_cast<double>(label[0]);
  return p.grad_scale / num_output;
}

}  // namespace symx
