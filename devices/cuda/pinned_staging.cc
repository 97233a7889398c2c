#include "devices/cuda/pinned_staging.h"

#include <algorithm>
#include <cstring>

#include "devices/cuda/cuda_status.h"
#include "graph/error.h"

namespace symx {
namespace cuda {

PinnedStaging::~PinnedStaging() { Release(); }

void PinnedStaging::Release() {
  for (int b = 0; b < 2; ++b) {
    if (done_[b] != nullptr) cudaEventDestroy(done_[b]);
    if (chunk_[b] != nullptr) cudaFreeHost(chunk_[b]);
    done_[b] = nullptr;
    chunk_[b] = nullptr;
  }
}

bool PinnedStaging::Ready() {
  if (!tried_) {
    tried_ = true;
    bool ok = true;
    for (int b = 0; b < 2 && ok; ++b) {
      ok = cudaHostAlloc(&chunk_[b], kChunkBytes, cudaHostAllocDefault) == cudaSuccess &&
           cudaEventCreateWithFlags(&done_[b], cudaEventDisableTiming) == cudaSuccess;
    }
    if (!ok) {
      cudaGetLastError();  // the failure is not the next kernel's
      Release();
    }
  }
  return chunk_[1] != nullptr && done_[1] != nullptr;
}

bool PinnedStaging::Stages(const void* p, size_t bytes) {
  if (bytes < kMinStagedBytes || !enabled_) return false;
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  // Pinned or managed memory the DMA engine reaches directly.
  if (attr.type != cudaMemoryTypeUnregistered) return false;
  return Ready();
}

absl::Status PinnedStaging::ToDevice(cudaStream_t stream, void* dst, const void* src,
                                     size_t bytes) {
  absl::Status s = StagedToDevice(stream, dst, src, bytes);
  if (!s.ok()) cudaStreamSynchronize(stream);
  return s;
}

absl::Status PinnedStaging::StagedToDevice(cudaStream_t stream, void* dst, const void* src,
                                           size_t bytes) {
  if (!Stages(src, bytes)) {
    SYMX_CUDA_RETURN_IF_ERROR(ctx_,
                              cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
    return absl::OkStatus();
  }
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  for (size_t off = 0, i = 0; off < bytes; off += kChunkBytes, ++i) {
    const int b = static_cast<int>(i % 2);
    const size_t n = std::min(kChunkBytes, bytes - off);
    // The chunk's previous DMA (two chunks ago) must have read it.
    if (i >= 2) SYMX_CUDA_RETURN_IF_ERROR(ctx_, cudaEventSynchronize(done_[b]));
    std::memcpy(chunk_[b], from + off, n);
    SYMX_CUDA_RETURN_IF_ERROR(
        ctx_, cudaMemcpyAsync(to + off, chunk_[b], n, cudaMemcpyHostToDevice, stream));
    SYMX_CUDA_RETURN_IF_ERROR(ctx_, cudaEventRecord(done_[b], stream));
  }
  // The chunks are reused by the next transfer, which waits for them above
  // only from its third chunk on: finish here.
  SYMX_CUDA_RETURN_IF_ERROR(ctx_, cudaStreamSynchronize(stream));
  return absl::OkStatus();
}

absl::Status PinnedStaging::ToHost(cudaStream_t stream, void* dst, const void* src, size_t bytes) {
  absl::Status s = StagedToHost(stream, dst, src, bytes);
  // A copy may still be reading or filling a chunk: none may be reused
  // before it is done.
  if (!s.ok()) cudaStreamSynchronize(stream);
  return s;
}

absl::Status PinnedStaging::StagedToHost(cudaStream_t stream, void* dst, const void* src,
                                         size_t bytes) {
  if (!Stages(dst, bytes)) {
    SYMX_CUDA_RETURN_IF_ERROR(ctx_,
                              cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    SYMX_CUDA_RETURN_IF_ERROR(ctx_, cudaStreamSynchronize(stream));
    return absl::OkStatus();
  }
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  const size_t chunks = (bytes + kChunkBytes - 1) / kChunkBytes;
  auto enqueue = [&](size_t i) -> absl::Status {
    const int b = static_cast<int>(i % 2);
    const size_t off = i * kChunkBytes;
    SYMX_CUDA_RETURN_IF_ERROR(ctx_, cudaMemcpyAsync(chunk_[b], from + off,
                                                    std::min(kChunkBytes, bytes - off),
                                                    cudaMemcpyDeviceToHost, stream));
    SYMX_CUDA_RETURN_IF_ERROR(ctx_, cudaEventRecord(done_[b], stream));
    return absl::OkStatus();
  };
  SYMX_RETURN_IF_ERROR(enqueue(0));
  for (size_t i = 0; i < chunks; ++i) {
    // Chunk i+1 lands in the other buffer, whose chunk i-1 was read out.
    if (i + 1 < chunks) SYMX_RETURN_IF_ERROR(enqueue(i + 1));
    const int b = static_cast<int>(i % 2);
    SYMX_CUDA_RETURN_IF_ERROR(ctx_, cudaEventSynchronize(done_[b]));
    const size_t off = i * kChunkBytes;
    std::memcpy(to + off, chunk_[b], std::min(kChunkBytes, bytes - off));
  }
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace symx
