#include "devices/cuda/cuda_device.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "devices/cuda/cuda_status.h"
#include "devices/engine_options.h"
#include "graph/error.h"

namespace symx {
namespace cuda {
namespace {

// cudaMalloc/cudaFree on one physical device.
class CudaBackend : public CachingAllocator::Backend {
 public:
  explicit CudaBackend(int ordinal) : ordinal_(ordinal) {}
  void* Malloc(size_t bytes) override {
    void* ptr = nullptr;
    if (cudaSetDevice(ordinal_) != cudaSuccess || cudaMalloc(&ptr, bytes) != cudaSuccess) {
      cudaGetLastError();  // out of memory is not sticky: clear it
      return nullptr;
    }
    return ptr;
  }
  void Free(void* ptr) override {
    cudaSetDevice(ordinal_);
    cudaFree(ptr);
  }
  // Queued kernels may still read cached blocks (reuse is stream-ordered);
  // they must be done before the memory goes back to the driver.
  void BeforeRelease() override {
    cudaSetDevice(ordinal_);
    cudaDeviceSynchronize();
  }

 private:
  int ordinal_;
};

// A CUDA event for one ordering point, destroyed when done.
class ScopedEvent {
 public:
  ScopedEvent() = default;
  ~ScopedEvent() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  absl::Status Create(const Context& ctx) {
    SYMX_CUDA_RETURN_IF_ERROR(ctx, cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
    return absl::OkStatus();
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace

int NumPhysicalGpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

namespace {

// The gpu(N) count over `physical` devices: DeviceOptions::logical_gpus,
// else physical.
int LogicalGpus(int physical) {
  if (physical == 0) return 0;
  const int logical = GetDeviceOptions().logical_gpus;
  return logical > 0 ? logical : physical;
}

}  // namespace

int NumLogicalGpus() { return LogicalGpus(NumPhysicalGpus()); }

absl::StatusOr<std::unique_ptr<Device>> CudaDevice::Create(const Context& ctx) {
  int physical = 0;
  cudaError_t e = cudaGetDeviceCount(&physical);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return absl::NotFoundError(absl::StrCat("device ", ctx.ToString(),
                                            " does not exist: this machine has no usable CUDA "
                                            "device (cudaGetDeviceCount: ",
                                            cudaGetErrorString(e), ")"));
  }
  const int logical = LogicalGpus(physical);
  if (ctx.id < 0 || ctx.id >= logical) {
    return absl::NotFoundError(
        absl::StrCat("device ", ctx.ToString(), " does not exist: this machine offers ", logical,
                     " GPU", logical == 1 ? "" : "s",
                     logical > 0 ? absl::StrCat(" (gpu(0) .. gpu(", logical - 1, "))") : ""));
  }
  const int ordinal = ctx.id % physical;
  auto allocator =
      std::make_unique<CachingAllocator>(ctx, std::make_unique<CudaBackend>(ordinal));
  std::unique_ptr<CudaDevice> device(new CudaDevice(ctx, ordinal, std::move(allocator)));
  SYMX_RETURN_IF_ERROR(device->Init());
  return std::unique_ptr<Device>(std::move(device));
}

CudaDevice::CudaDevice(Context ctx, int ordinal, std::unique_ptr<CachingAllocator> allocator)
    : Device(ctx, std::move(allocator)),
      ordinal_(ordinal),
      caching_(static_cast<CachingAllocator*>(&this->allocator())),
      staging_(ctx, GetDeviceOptions().pinned_staging) {}

absl::Status CudaDevice::Init() {
  SYMX_RETURN_IF_ERROR(Activate());
  SYMX_CUDA_RETURN_IF_ERROR(ctx(), cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  SYMX_CUDA_RETURN_IF_ERROR(ctx(),
                            cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
  return absl::OkStatus();
}

CudaDevice::~CudaDevice() {
  // Devices live for the process; at exit the driver may already be gone,
  // so failures here are ignored.
  cudaSetDevice(ordinal_);
  if (cudnn_ != nullptr) cudnnDestroy(cudnn_);
  if (cublas_ != nullptr) cublasDestroy(cublas_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
  if (copy_stream_ != nullptr) cudaStreamDestroy(copy_stream_);
}

absl::Status CudaDevice::Activate() const {
  SYMX_CUDA_RETURN_IF_ERROR(ctx(), cudaSetDevice(ordinal_));
  return absl::OkStatus();
}

absl::StatusOr<cublasHandle_t> CudaDevice::cublas() {
  std::lock_guard<std::mutex> lock(handles_mu_);
  if (cublas_ == nullptr) {
    SYMX_RETURN_IF_ERROR(Activate());
    cublasHandle_t h = nullptr;
    SYMX_CUBLAS_RETURN_IF_ERROR(ctx(), cublasCreate(&h));
    cublasStatus_t s = cublasSetStream(h, stream_);
    if (s != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(h);
      return CublasStatus(s, ctx(), "cublasSetStream");
    }
    cublas_ = h;
  }
  return cublas_;
}

absl::StatusOr<cudnnHandle_t> CudaDevice::cudnn() {
  std::lock_guard<std::mutex> lock(handles_mu_);
  if (cudnn_ == nullptr) {
    SYMX_RETURN_IF_ERROR(Activate());
    cudnnHandle_t h = nullptr;
    SYMX_CUDNN_RETURN_IF_ERROR(ctx(), cudnnCreate(&h));
    cudnnStatus_t s = cudnnSetStream(h, stream_);
    if (s != CUDNN_STATUS_SUCCESS) {
      cudnnDestroy(h);
      return CudnnStatus(s, ctx(), "cudnnSetStream");
    }
    cudnn_ = h;
  }
  return cudnn_;
}

absl::Status CudaDevice::StreamWaits(cudaStream_t waiter, cudaStream_t signaller) {
  ScopedEvent event;
  SYMX_RETURN_IF_ERROR(event.Create(ctx()));
  SYMX_CUDA_RETURN_IF_ERROR(ctx(), cudaEventRecord(event.get(), signaller));
  SYMX_CUDA_RETURN_IF_ERROR(ctx(), cudaStreamWaitEvent(waiter, event.get(), 0));
  return absl::OkStatus();
}

// Host transfers run on the copy stream after the compute stream's queued
// work (which may still read or write the same memory), and the compute
// stream's later work waits for them. Each returns once the host buffer is
// no longer needed: the transfer has finished.
absl::Status CudaDevice::CopyToHost(const void* src, void* host_dst, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(copy_mu_);
  SYMX_RETURN_IF_ERROR(Activate());
  SYMX_RETURN_IF_ERROR(StreamWaits(copy_stream_, stream_));
  return staging_.ToHost(copy_stream_, host_dst, src, bytes);
}

absl::Status CudaDevice::CopyFromHost(const void* host_src, void* dst, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(copy_mu_);
  SYMX_RETURN_IF_ERROR(Activate());
  SYMX_RETURN_IF_ERROR(StreamWaits(copy_stream_, stream_));
  SYMX_RETURN_IF_ERROR(staging_.ToDevice(copy_stream_, dst, host_src, bytes));
  SYMX_RETURN_IF_ERROR(StreamWaits(stream_, copy_stream_));
  // The caller may free or reuse host_src on return.
  SYMX_CUDA_RETURN_IF_ERROR(ctx(), cudaStreamSynchronize(copy_stream_));
  return absl::OkStatus();
}

// Device to device runs on this (the destination's) compute stream, after
// the source device's queued work; the source's later work waits for it.
absl::Status CudaDevice::CopyFromDevice(Device& src_device, const void* src, void* dst,
                                        size_t bytes) {
  if (src_device.host_memory()) return CopyFromHost(src, dst, bytes);
  auto* from = dynamic_cast<CudaDevice*>(&src_device);
  if (from == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("cannot copy from ", src_device.ctx().ToString(),
                                                   " to ", ctx().ToString(),
                                                   ": not a CUDA device"));
  }
  if (bytes == 0) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(Activate());
  if (from != this) {
    // An event must be created on the device whose stream records it; any
    // device's stream may wait for it.
    ScopedEvent ready;
    SYMX_RETURN_IF_ERROR(from->Activate());
    SYMX_RETURN_IF_ERROR(ready.Create(from->ctx()));
    SYMX_CUDA_RETURN_IF_ERROR(from->ctx(), cudaEventRecord(ready.get(), from->stream_));
    SYMX_RETURN_IF_ERROR(Activate());
    SYMX_CUDA_RETURN_IF_ERROR(ctx(), cudaStreamWaitEvent(stream_, ready.get(), 0));
  }
  if (from->ordinal_ == ordinal_) {
    SYMX_CUDA_RETURN_IF_ERROR(
        ctx(), cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
  } else {
    SYMX_CUDA_RETURN_IF_ERROR(
        ctx(), cudaMemcpyPeerAsync(dst, ordinal_, src, from->ordinal_, bytes, stream_));
  }
  if (from != this) {
    ScopedEvent done;
    SYMX_RETURN_IF_ERROR(done.Create(ctx()));
    SYMX_CUDA_RETURN_IF_ERROR(ctx(), cudaEventRecord(done.get(), stream_));
    SYMX_RETURN_IF_ERROR(from->Activate());
    SYMX_CUDA_RETURN_IF_ERROR(from->ctx(), cudaStreamWaitEvent(from->stream_, done.get(), 0));
    SYMX_RETURN_IF_ERROR(Activate());
  }
  return absl::OkStatus();
}

absl::Status CudaDevice::Memset(void* dst, int byte, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(Activate());
  SYMX_CUDA_RETURN_IF_ERROR(ctx(), cudaMemsetAsync(dst, byte, bytes, stream_));
  return absl::OkStatus();
}

absl::Status CudaDevice::Synchronize() {
  SYMX_RETURN_IF_ERROR(Activate());
  SYMX_CUDA_RETURN_IF_ERROR(ctx(), cudaStreamSynchronize(stream_));
  return absl::OkStatus();
}

namespace {
const bool registered = RegisterDeviceFactory(DeviceType::kGPU, CudaDevice::Create);
}  // namespace

}  // namespace cuda
}  // namespace symx
