// The CUDA device: gpu(N) backed by a CUDA GPU (built with --config=cuda).
//
// Each device has a compute stream, on which its kernels are enqueued in plan
// order with no host synchronization between them, and a copy stream for
// transfers to and from the host, ordered against the compute stream by
// events. Its memory comes from a CachingAllocator over cudaMalloc; its
// cuBLAS and cuDNN handles are bound to the compute stream.
//
// gpu(N) exists when the machine has more than N CUDA devices. For tests of
// multi-GPU placement on a one-GPU machine, DeviceOptions::logical_gpus = K
// (SYMX_LOGICAL_GPUS=K at the edges) offers gpu(0) .. gpu(K-1) over the
// physical devices round-robin: each logical device has
// its own streams, handles and memory pool, as a real one would.
//
// Thread safety: as any Device (devices/device.h). Host copies may come from
// several threads (they take turns on the copy stream, under copy_mu_); the
// cuBLAS/cuDNN handles are made once under handles_mu_ and then used by the
// device's kernels, which run one at a time.
#ifndef SYMX_DEVICES_CUDA_CUDA_DEVICE_H_
#define SYMX_DEVICES_CUDA_CUDA_DEVICE_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <memory>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "devices/caching_allocator.h"
#include "devices/cuda/pinned_staging.h"
#include "devices/device.h"

namespace symx {
namespace cuda {

class CudaDevice : public Device {
 public:
  // The device for `ctx` (a gpu context), or NotFound naming it.
  static absl::StatusOr<std::unique_ptr<Device>> Create(const Context& ctx);
  ~CudaDevice() override;

  int num_threads() const override { return 1; }
  bool host_memory() const override { return false; }
  absl::Status CopyToHost(const void* src, void* host_dst, size_t bytes) override;
  absl::Status CopyFromHost(const void* host_src, void* dst, size_t bytes) override;
  absl::Status CopyFromDevice(Device& src_device, const void* src, void* dst,
                              size_t bytes) override;
  absl::Status Memset(void* dst, int byte, size_t bytes) override;
  absl::Status Synchronize() override;

  // The physical CUDA device ordinal.
  int ordinal() const { return ordinal_; }
  cudaStream_t stream() const { return stream_; }
  // Makes this device current on the calling thread (CUDA's current device is
  // per thread; every entry point that launches work calls this first).
  absl::Status Activate() const;
  // Handles bound to the compute stream, made on first use.
  absl::StatusOr<cublasHandle_t> cublas();
  absl::StatusOr<cudnnHandle_t> cudnn();
  CachingAllocator& caching_allocator() { return *caching_; }

 private:
  CudaDevice(Context ctx, int ordinal, std::unique_ptr<CachingAllocator> allocator);
  absl::Status Init();
  // `waiter` waits (on the device) for everything enqueued on `signaller` so far.
  absl::Status StreamWaits(cudaStream_t waiter, cudaStream_t signaller);

  int ordinal_;
  CachingAllocator* caching_;  // owned by Device
  cudaStream_t stream_ = nullptr;
  cudaStream_t copy_stream_ = nullptr;
  std::mutex handles_mu_;
  cublasHandle_t cublas_ ABSL_GUARDED_BY(handles_mu_) = nullptr;
  cudnnHandle_t cudnn_ ABSL_GUARDED_BY(handles_mu_) = nullptr;
  // Host copies use the copy stream (and the staging chunks) one at a time.
  std::mutex copy_mu_;
  PinnedStaging staging_ ABSL_GUARDED_BY(copy_mu_);
};

// CUDA devices this process can use (0 when none or no driver), and the
// logical gpu(N) count (DeviceOptions::logical_gpus, else the physical count).
int NumPhysicalGpus();
int NumLogicalGpus();

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_CUDA_DEVICE_H_
