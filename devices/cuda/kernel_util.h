// Shared pieces of the CUDA kernel registrations (devices/cuda/*_kernels.cc):
// the step's device made current, dtypes as launcher element types, and
// launch errors that name the node.
#ifndef SYMX_DEVICES_CUDA_KERNEL_UTIL_H_
#define SYMX_DEVICES_CUDA_KERNEL_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/launch.h"
#include "devices/kernel.h"
#include "devices/geometry/strided_view.h"  // StridesOf
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/ordering_launch.h"

namespace symx {
namespace cuda {

// The step's CUDA device, current on this thread.
absl::StatusOr<CudaDevice*> StepDevice(const KernelContext& ctx);
// Launcher type of a floating dtype (float32/64, float16, bfloat16), else the
// kernel's unsupported-dtype error.
absl::StatusOr<Elem> FloatElem(const KernelContext& ctx, DType dtype);
// Launcher type of float32 or float64 (kernels whose CPU twins have no half
// types), else the unsupported-dtype error.
absl::StatusOr<Elem> Float32Or64Elem(const KernelContext& ctx, DType dtype);
// Launcher type of any dtype the CUDA kernels store.
absl::StatusOr<Elem> AnyElem(const KernelContext& ctx, DType dtype);
// OK, or the launch's failure naming the node and the device.
absl::Status Launched(const KernelContext& ctx, cudaError_t e, const char* what);
// Byte copy on the step's stream (nothing when in place).
absl::Status CopyOnStream(const KernelContext& ctx, const Tensor& src, const Tensor& dst);
// float16 and bfloat16, whose gradients accumulate in float scratch.
inline bool IsHalf(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

// The step's workspace, at least `bytes` of it; an internal error naming the
// node when the plan gave less (a WorkspaceFn that disagrees with its kernel).
absl::StatusOr<char*> WorkspaceOf(const KernelContext& ctx, size_t bytes);
// Carves a workspace into 256-byte-aligned pieces, in order: Take(bytes)
// gives a piece's byte offset, total() the bytes they all need.
class WorkspacePieces {
 public:
  size_t Take(size_t bytes) {
    const size_t at = total_;
    total_ += (bytes + 255) / 256 * 256;
    return at;
  }
  // LaunchSortRows's piece for `d` keys of type `key`. When the sort cannot
  // take them, total() is 0 from then on (SortingWorkspaceOf's error).
  struct SortPiece {
    size_t offset = 0, bytes = 0;
  };
  SortPiece TakeSort(Elem key, const SortDims& d) {
    SortPiece p;
    p.bytes = SortWorkspaceBytes(key, d);
    unsortable_ = unsortable_ || p.bytes == 0;
    p.offset = Take(p.bytes);
    return p;
  }
  size_t total() const { return unsortable_ ? 0 : total_; }

 private:
  size_t total_ = 0;
  bool unsortable_ = false;
};

// The workspace of a kernel that sorts `rows` x `n` keys with LaunchSortRows:
// its `total` planned bytes, or an error naming the sizes when the sort
// cannot take them (the layout then sized itself 0).
absl::StatusOr<char*> SortingWorkspaceOf(const KernelContext& ctx, size_t total, int64_t rows,
                                         int64_t n);

// A device-side "first flagged element" (kernels atomicMin an element number
// into it; all ones means none): Reset before the launch, Read after it
// (waits for the device), giving the element or -1.
absl::Status ResetFirstFlagged(CudaDevice* device, unsigned long long* flag);
absl::StatusOr<int64_t> ReadFirstFlagged(CudaDevice* device, const unsigned long long* flag);

// Strides for out = f(a, b) with numpy broadcasting (shapes right-aligned);
// an error when the output has more than kMaxDims dims.
absl::StatusOr<BroadcastDims> MakeBroadcastDims(const KernelContext& ctx, const Shape& a,
                                                const Shape& b, const Shape& out);

}  // namespace cuda
}  // namespace symx

#define SYMX_CUDA_LAUNCH(ctx, call) SYMX_RETURN_IF_ERROR(::symx::cuda::Launched(ctx, (call), #call))

#endif  // SYMX_DEVICES_CUDA_KERNEL_UTIL_H_
