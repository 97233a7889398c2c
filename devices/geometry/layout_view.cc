#include "devices/geometry/layout_view.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace symx {
namespace {

absl::Status CheckBlocks(const KernelContext& ctx, const Shape& in, int64_t block, bool to_space) {
  bool ok = in.ndim() == 4 && block > 0;
  if (ok && to_space) ok = in[1] % (block * block) == 0;
  if (ok && !to_space) ok = in[2] % block == 0 && in[3] % block == 0;
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input ", in.ToString(),
                                                 " cannot be rearranged in blocks of ", block));
}

}  // namespace

absl::Status DepthToSpaceView(const KernelContext& ctx, const Shape& in, int64_t b,
                              StridedView* v) {
  SYMX_RETURN_IF_ERROR(CheckBlocks(ctx, in, b, true));
  const int64_t c = in[1] / (b * b), h = in[2], w = in[3];
  // out(n, c, h, i, w, j) = in(n, (i*b + j)*c' + c, h, w).
  v->dims = {in[0], c, h, b, w, b};
  v->steps = {in[1] * h * w, h * w, w, b * c * h * w, 1, c * h * w};
  v->offset = 0;
  return absl::OkStatus();
}

absl::Status SpaceToDepthView(const KernelContext& ctx, const Shape& in, int64_t b,
                              StridedView* v) {
  SYMX_RETURN_IF_ERROR(CheckBlocks(ctx, in, b, false));
  const int64_t c = in[1], h = in[2], w = in[3];
  // out(n, i, j, c, h', w') = in(n, c, h'*b + i, w'*b + j).
  v->dims = {in[0], b, b, c, h / b, w / b};
  v->steps = {c * h * w, w, 1, h * w, b * w, b};
  v->offset = 0;
  return absl::OkStatus();
}

StridedView AxisRangeView(const Shape& whole, int axis, int64_t begin, int64_t end) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= whole[d];
  for (int d = axis + 1; d < whole.ndim(); ++d) inner *= whole[d];
  StridedView v;
  v.dims = {outer, end - begin, inner};
  v.steps = {whole[axis] * inner, inner, 1};
  v.offset = begin * inner;
  return v;
}

absl::Status SliceParamView(const KernelContext& ctx, const SliceParam& p, const Shape& whole,
                            StridedView* v) {
  if (static_cast<int>(p.begin.size()) > whole.ndim()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": begin has ", p.begin.size(),
                                                   " entries for input ", whole.ToString()));
  }
  const std::vector<SliceRange> ranges = ResolveSliceAll(p, whole);
  const std::vector<int64_t> st = StridesOf(whole);
  *v = StridedView{};
  for (int d = 0; d < whole.ndim(); ++d) {
    v->dims.push_back(ranges[d].count);
    v->steps.push_back(ranges[d].step * st[d]);
    v->offset += ranges[d].begin * st[d];
  }
  return absl::OkStatus();
}

absl::Status MakeIm2colDims(const KernelContext& ctx, const SlidingParam& p, const Shape& image,
                            const Shape& cols, Im2colDims* d) {
  const int n = static_cast<int>(p.kernel.size());
  *d = Im2colDims{};
  std::vector<int64_t> positions;
  bool fits = n >= 1 && n <= 3 && image.ndim() == n + 2 && cols.ndim() == 3;
  if (fits) {
    fits = SlidingPositions(p, std::vector<int64_t>(image.dims().begin() + 2, image.dims().end()),
                            &positions)
               .ok();
  }
  if (fits) {
    d->nsp = n;
    d->channels = image[1];
    for (int i = 0; i < n; ++i) {
      d->image[i] = image[i + 2];
      d->out[i] = positions[i];
      d->kernel[i] = p.kernel[i];
      d->stride[i] = p.stride[i];
      d->dilate[i] = p.dilate[i];
      d->pad[i] = p.pad[i];
      d->kernel_size *= p.kernel[i];
      d->columns *= positions[i];
      d->image_size *= image[i + 2];
    }
    fits = cols[0] == image[0] && cols[1] == image[1] * d->kernel_size && cols[2] == d->columns;
  }
  if (fits) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": columns ", cols.ToString(),
                                                 " do not fit image ", image.ToString(),
                                                 " for this kernel"));
}

}  // namespace symx
