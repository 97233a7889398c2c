#include "devices/geometry/random_operands.h"

#include "absl/strings/str_cat.h"

namespace symx {

size_t SampleWorkspace(const NodeAttrs&, const std::vector<Shape>& in_shapes,
                       const std::vector<Shape>&, DType) {
  return in_shapes.empty() ? 0 : in_shapes.size() * in_shapes[0].Size() * sizeof(double);
}

absl::StatusOr<int64_t> SampleParamCount(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  const int64_t params = ctx.inputs[0].size();
  for (const Tensor& in : ctx.inputs) {
    if (in.size() != params) {
      return Fail(ctx, absl::StrCat("parameter arrays ", ctx.inputs[0].DebugString(), " and ",
                                    in.DebugString(), " differ in size"));
    }
  }
  if (out.size() == 0) return 0;
  if (params == 0 || out.size() % params != 0) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " does not fit parameters ",
                                  ctx.inputs[0].DebugString()));
  }
  if (ctx.workspace.nbytes() < ctx.inputs.size() * params * sizeof(double)) {
    return Fail(ctx, "workspace too small for the parameter arrays");
  }
  return params;
}

absl::StatusOr<PdfDims> PdfOperandDims(const KernelContext& ctx, const Tensor& sample,
                                       const std::vector<const Tensor*>& params, const Tensor& out,
                                       bool dirichlet) {
  PdfDims d;
  const Tensor& p0 = *params[0];
  for (const Tensor* p : params) {
    if (p->size() != p0.size()) return Fail(ctx, "the parameter arrays differ in size");
  }
  d.k = dirichlet ? (p0.shape().ndim() > 0 ? p0.shape()[p0.shape().ndim() - 1] : 0) : 1;
  if (d.k <= 0) return Fail(ctx, "no components");
  d.dists = p0.size() / d.k;
  if (d.dists == 0 || out.size() % d.dists != 0 || sample.size() != out.size() * d.k) {
    return Fail(ctx, absl::StrCat("samples ", sample.DebugString(), " do not fit parameters ",
                                  p0.DebugString(), " and output ", out.DebugString()));
  }
  d.block = out.size() / d.dists;
  return d;
}

}  // namespace symx
