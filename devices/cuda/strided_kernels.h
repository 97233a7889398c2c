// Helpers of the CUDA kernels that move data as strided copies
// (devices/cuda/strided.cu), shared by the shape, tensor and crop families.
#ifndef SYMX_DEVICES_CUDA_STRIDED_KERNELS_H_
#define SYMX_DEVICES_CUDA_STRIDED_KERNELS_H_

#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/geometry/strided_view.h"
#include "graph/infer_util.h"
#include "graph/ops/shape.h"
#include "graph/ops/tensor.h"
#include "devices/cuda/strided_launch.h"

namespace symx {
namespace cuda {

inline absl::Status WithWhere(const KernelContext& ctx, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(ctx.Where(), ": ", s.message()));
}

inline absl::StatusOr<int> Axis(const KernelContext& ctx, int64_t axis, int ndim,
                                const char* what) {
  int out = 0;
  absl::Status s = NormalizeAxis(axis, ndim, what, &out);
  if (!s.ok()) return WithWhere(ctx, s);
  return out;
}

inline absl::Status Copy(const KernelContext& ctx, const void* src, void* dst, const StridedDims& d,
                         int64_t n, DType dtype) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  if (d.ndim > kMaxDims) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": more than ", kMaxDims, " dims on the GPU"));
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchStridedCopy(DTypeSize(dtype), src, dst, d, n, device->stream()));
  return absl::OkStatus();
}

// Parts laid along `axis` of `whole` (viewed as (outer, total, inner)), part
// k taking lens[k] from offset sum(lens[:k]). join: parts -> whole; else
// whole -> parts. Undefined or unwanted parts are skipped.
inline absl::Status CutAlong(const KernelContext& ctx, bool join, const Tensor& whole, int axis,
                             const std::vector<Tensor>& parts, const std::vector<int64_t>& lens,
                             const std::vector<bool>& wanted) {
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < axis; ++k) outer *= whole.shape()[k];
  for (int k = axis + 1; k < whole.shape().ndim(); ++k) inner *= whole.shape()[k];
  const int64_t total = whole.shape()[axis];
  const size_t elem = DTypeSize(whole.dtype());
  int64_t offset = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const int64_t len = lens[i];
    const Tensor& part = parts[i];
    if (part.defined() && part.size() != outer * len * inner) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": part ", part.DebugString(),
                                                     " does not fit axis ", axis, " of ",
                                                     whole.DebugString()));
    }
    if (part.defined() && wanted[i] && part.size() > 0) {
      StridedDims d;
      d.ndim = 3;
      d.dims[0] = outer;
      d.dims[1] = len;
      d.dims[2] = inner;
      const int64_t whole_st[3] = {total * inner, inner, 1};
      const int64_t part_st[3] = {len * inner, inner, 1};
      for (int k = 0; k < 3; ++k) {
        d.src_strides[k] = join ? part_st[k] : whole_st[k];
        d.dst_strides[k] = join ? whole_st[k] : part_st[k];
      }
      // Only a join writes the whole (reading it must not count as a write).
      void* base = join ? whole.raw_data() : const_cast<void*>(whole.read_raw_data());
      char* w = static_cast<char*>(base) + static_cast<size_t>(offset * inner) * elem;
      if (join) {
        SYMX_RETURN_IF_ERROR(Copy(ctx, part.read_raw_data(), w, d, part.size(), whole.dtype()));
      } else {
        SYMX_RETURN_IF_ERROR(Copy(ctx, w, part.raw_data(), d, part.size(), whole.dtype()));
      }
    }
    offset += len;
  }
  return absl::OkStatus();
}

inline std::vector<bool> AllWanted(size_t n) { return std::vector<bool>(n, true); }

inline std::vector<bool> OutputsWanted(const KernelContext& ctx) {
  std::vector<bool> w(ctx.outputs.size());
  for (size_t j = 0; j < w.size(); ++j) w[j] = OutputWanted(ctx.req, j);
  return w;
}

// Appends a (dim, src stride, dst stride) triple; errors past kMaxDims.
inline absl::Status Push(const KernelContext& ctx, StridedDims* d, int64_t dim, int64_t src,
                         int64_t dst) {
  if (d->ndim == kMaxDims) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": the copy needs more than ",
                                                   kMaxDims, " dims, the most the GPU takes"));
  }
  d->dims[d->ndim] = dim;
  d->src_strides[d->ndim] = src;
  d->dst_strides[d->ndim] = dst;
  ++d->ndim;
  return absl::OkStatus();
}

// A copy through a shared strided view (devices/geometry/strided_view.h): gather,
// contig = strided[view]; else strided[view] = contig, the strided side zeroed
// first with `zero_first` (scatters into gradients).
inline absl::Status CopyView(const KernelContext& ctx, StridedView v, const Tensor& strided,
                             const Tensor& contig, bool gather, bool zero_first = false) {
  if (strided.dtype() != contig.dtype() || contig.size() != v.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", contig.DebugString(),
                                                   " does not fit a view of ",
                                                   strided.DebugString()));
  }
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  if (zero_first) SYMX_RETURN_IF_ERROR(device->Memset(strided.raw_data(), 0, strided.nbytes()));
  if (v.size() == 0) return absl::OkStatus();
  v.Simplify();
  StridedDims d;
  for (size_t k = 0; k < v.dims.size(); ++k) {
    SYMX_RETURN_IF_ERROR(Push(ctx, &d, v.dims[k], 0, 0));
    (gather ? d.src_strides : d.dst_strides)[k] = v.steps[k];
  }
  int64_t stride = 1;
  for (int k = d.ndim - 1; k >= 0; --k) {
    (gather ? d.dst_strides : d.src_strides)[k] = stride;
    stride *= d.dims[k];
  }
  const size_t elem = DTypeSize(strided.dtype());
  if (gather) {
    const char* src = static_cast<const char*>(strided.read_raw_data()) + v.offset * elem;
    return Copy(ctx, src, contig.raw_data(), d, contig.size(), strided.dtype());
  }
  char* dst = static_cast<char*>(strided.raw_data()) + v.offset * elem;
  return Copy(ctx, contig.read_raw_data(), dst, d, contig.size(), strided.dtype());
}

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_STRIDED_KERNELS_H_
