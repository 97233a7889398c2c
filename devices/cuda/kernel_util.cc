#include "devices/cuda/kernel_util.h"

#include "absl/strings/str_cat.h"
#include "devices/cuda/cuda_status.h"
#include "devices/cuda/elemwise_launch.h"

namespace symx {
namespace cuda {

absl::StatusOr<CudaDevice*> StepDevice(const KernelContext& ctx) {
  auto* device = dynamic_cast<CudaDevice*>(ctx.device);
  if (device == nullptr) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": a CUDA kernel was given ",
                                            ctx.device != nullptr ? ctx.device->ctx().ToString()
                                                                  : std::string("no device")));
  }
  SYMX_RETURN_IF_ERROR(device->Activate());
  return device;
}

absl::StatusOr<Elem> FloatElem(const KernelContext& ctx, DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kBFloat16:
      return static_cast<Elem>(static_cast<int>(dtype));
    default:
      return UnsupportedDType(ctx, dtype);
  }
}

absl::StatusOr<Elem> Float32Or64Elem(const KernelContext& ctx, DType dtype) {
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) return UnsupportedDType(ctx, dtype);
  return static_cast<Elem>(static_cast<int>(dtype));
}

absl::StatusOr<char*> SortingWorkspaceOf(const KernelContext& ctx, size_t total, int64_t rows,
                                         int64_t n) {
  if (total == 0) {
    return Fail(ctx, absl::StrCat(rows, " x ", n, " sort keys exceed the GPU sort's int32 range"));
  }
  return WorkspaceOf(ctx, total);
}

absl::StatusOr<Elem> AnyElem(const KernelContext& ctx, DType dtype) {
  const Elem e = static_cast<Elem>(static_cast<int>(dtype));
  if (dtype == DType::kUnknown || !IsKnownElem(e)) return UnsupportedDType(ctx, dtype);
  return e;
}

absl::Status Launched(const KernelContext& ctx, cudaError_t e, const char* what) {
  if (e == cudaSuccess) return absl::OkStatus();
  absl::Status s = CudaStatus(e, ctx.device->ctx(), what);
  return absl::Status(s.code(), absl::StrCat(ctx.Where(), ": ", s.message()));
}

absl::Status CopyOnStream(const KernelContext& ctx, const Tensor& src, const Tensor& dst) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  if (src.read_raw_data() == dst.read_raw_data() || src.nbytes() == 0) return absl::OkStatus();
  if (src.nbytes() != dst.nbytes()) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": copying ", src.DebugString(),
                                            " into ", dst.DebugString()));
  }
  SYMX_CUDA_LAUNCH(ctx, cudaMemcpyAsync(dst.raw_data(), src.read_raw_data(), src.nbytes(),
                                        cudaMemcpyDeviceToDevice, device->stream()));
  return absl::OkStatus();
}

absl::StatusOr<char*> WorkspaceOf(const KernelContext& ctx, size_t bytes) {
  if (bytes == 0) return nullptr;
  if (!ctx.workspace.defined() || ctx.workspace.nbytes() < bytes) {
    return absl::InternalError(
        absl::StrCat(ctx.Where(), ": workspace of ", bytes, " bytes was not planned"));
  }
  return static_cast<char*>(ctx.workspace.raw_data());
}

absl::Status ResetFirstFlagged(CudaDevice* device, unsigned long long* flag) {
  return device->Memset(flag, 0xff, sizeof(*flag));
}

absl::StatusOr<int64_t> ReadFirstFlagged(CudaDevice* device, const unsigned long long* flag) {
  unsigned long long v = ~0ull;
  SYMX_RETURN_IF_ERROR(device->CopyToHost(flag, &v, sizeof(v)));
  return v == ~0ull ? -1 : static_cast<int64_t>(v);
}

absl::StatusOr<BroadcastDims> MakeBroadcastDims(const KernelContext& ctx, const Shape& a,
                                                const Shape& b, const Shape& out) {
  BroadcastDims d;
  d.ndim = out.ndim();
  if (d.ndim > kMaxDims) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": output ", out.ToString(),
                                                   " has more than ", kMaxDims,
                                                   " dims, the most the GPU kernel takes"));
  }
  // Right-aligned: input dim k - (out.ndim - in.ndim); size 1 (or absent)
  // dims repeat, so their stride is 0.
  auto strides = [&](const Shape& in, int64_t* s) {
    int64_t stride = 1;
    for (int k = d.ndim - 1; k >= 0; --k) {
      const int ik = k - (d.ndim - in.ndim());
      if (ik < 0 || in[ik] == 1) {
        s[k] = 0;
      } else {
        s[k] = stride;
      }
      if (ik >= 0) stride *= in[ik];
    }
  };
  for (int k = 0; k < d.ndim; ++k) d.out_dims[k] = out[k];
  strides(a, d.a_strides);
  strides(b, d.b_strides);
  return d;
}

}  // namespace cuda
}  // namespace symx
