// The (outer, n, inner) views that softmax, its relatives and the loss heads
// work along: one definition for every device's kernels.
#ifndef SYMX_DEVICES_GEOMETRY_AXIS_LAYOUT_H_
#define SYMX_DEVICES_GEOMETRY_AXIS_LAYOUT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "devices/kernel.h"
#include "graph/ops/loss.h"
#include "graph/ops/ordering.h"

namespace symx {

// A tensor as (outer, n, inner), n along the axis (or axes) in question, is
// graph/ops/ordering.h's AxisLayout (MakeAxisLayout there takes an axis
// already checked; LayoutAlong checks it).

// Along `axis` (negative counts from the end); an axis out of range is an
// error naming the node.
absl::StatusOr<AxisLayout> LayoutAlong(const KernelContext& ctx, const Shape& s, int64_t axis);

// SoftmaxOutput's classes: axis 1 with multi_output (data (N, C, ...)), the
// last axis with preserve_shape, otherwise the data seen as (N, size / N).
AxisLayout SoftmaxOutputLayout(const SoftmaxOutputParam& p, const Shape& s);

// SoftmaxActivation's rows: mode=instance (N, rest), mode=channel (N, C, rest);
// too few dims for the mode is an error naming the node.
absl::StatusOr<AxisLayout> SoftmaxActivationLayout(const KernelContext& ctx, const Shape& s);

// L2Normalization's columns: mode=instance (N, rest, 1), channel (N, C, rest),
// spatial (N*C, rest, 1); too few dims for the mode is an error naming the node.
absl::StatusOr<AxisLayout> L2NormalizationLayout(const KernelContext& ctx, const Shape& s);

// InstanceNorm's and GroupNorm's groups: the data (N, C, ...) as columns of
// (N*G, M, 1), G = `groups` (C when negative: InstanceNorm) and M the elements
// of one group; gamma/beta and the statistics are per column's group (column
// % G). Fewer than 3 dims, or C not divisible by G, is an error naming the node.
absl::StatusOr<AxisLayout> GroupNormLayout(const KernelContext& ctx, const Shape& s, int64_t groups,
                                           int64_t* resolved_groups);

// The loss heads' gradient scales (MXNet 1.x), shared by every device:
// - SoftmaxOutput with class labels: grad_scale over the batch count
//   (normalization=batch), over the spatial size with multi_output (unless
//   valid); normalization=valid further divides by the count of labels that
//   are not ignore_label, which the kernel counts (`valid_count`, >= 1).
double SoftmaxOutputScale(const SoftmaxOutputParam& p, const AxisLayout& l, int64_t entries,
                          int64_t valid_count);
// - MakeLoss: grad_scale, over the rows of the data seen as 2-D (all dims but
//   the last) with normalization=batch (valid is divided by the kernel).
double MakeLossScale(const MakeLossParam& p, const Shape& grad);
// - The regression outputs: grad_scale over the label's values per sample.
double RegressionScale(const RegressionParam& p, const Shape& label);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_AXIS_LAYOUT_H_
