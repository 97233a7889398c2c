// Host transfers of pageable memory through pinned buffers.
//
// cudaMemcpy from pageable memory makes the driver stage it through its own
// pinned buffer, one piece at a time and without overlap. For large transfers
// the device stages them itself: two pinned chunks, so that copying one chunk
// between pageable and pinned memory on the host overlaps the DMA of the
// other. Memory that is already pinned (cudaHostAlloc'd or registered) and
// small transfers go directly. If pinned memory cannot be had, transfers go
// directly too: staging is a speed-up, never a new way to fail.
// SYMX_PINNED_STAGING=0 turns it off (to measure one against the other).
#ifndef SYMX_DEVICES_CUDA_PINNED_STAGING_H_
#define SYMX_DEVICES_CUDA_PINNED_STAGING_H_

#include <cuda_runtime.h>

#include <cstddef>

#include "absl/status/status.h"
#include "devices/context.h"

namespace symx {
namespace cuda {

class PinnedStaging {
 public:
  static constexpr size_t kChunkBytes = size_t{8} << 20;
  // Below this, the setup costs more than the overlap gains.
  static constexpr size_t kMinStagedBytes = size_t{1} << 20;

  // `enabled`: DeviceOptions::pinned_staging when the device was made.
  PinnedStaging(Context ctx, bool enabled) : ctx_(ctx), enabled_(enabled) {}
  ~PinnedStaging();
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;

  // Both enqueue on `stream` (which must be the caller's, used by nobody else
  // meanwhile) and return when the host side is done: ToDevice once `src`
  // may be reused (the last DMA may still be running: the caller orders or
  // waits for it), ToHost once `dst` holds the bytes.
  absl::Status ToDevice(cudaStream_t stream, void* dst, const void* src, size_t bytes);
  absl::Status ToHost(cudaStream_t stream, void* dst, const void* src, size_t bytes);

  bool enabled() const { return enabled_; }

 private:
  // Whether `bytes` at host address `p` go through the chunks.
  bool Stages(const void* p, size_t bytes);
  absl::Status StagedToDevice(cudaStream_t stream, void* dst, const void* src, size_t bytes);
  absl::Status StagedToHost(cudaStream_t stream, void* dst, const void* src, size_t bytes);
  bool Ready();  // allocates the chunks once; false if that failed
  void Release();

  Context ctx_;
  bool enabled_;
  bool tried_ = false;
  void* chunk_[2] = {nullptr, nullptr};
  cudaEvent_t done_[2] = {nullptr, nullptr};
};

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_PINNED_STAGING_H_
