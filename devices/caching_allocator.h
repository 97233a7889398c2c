// CachingAllocator: an Allocator that keeps freed blocks for reuse.
//
// Getting memory from a GPU (cudaMalloc) costs far more than a kernel, and
// giving it back (cudaFree) waits for the whole device, so a GPU device keeps
// what tensors release and hands it out again. Reuse is stream-ordered: every
// piece of work of a device runs in order on its compute stream (the copies
// outside steps wait for it; devices/cuda/cuda_device.h), so a block released
// on the host while queued kernels still read it can serve the next request
// at once: whatever writes it is queued behind those readers.
//
// Accounting: bytes_in_use/peak_bytes/limit (Allocator's) count what tensors
// asked for; reserved_bytes counts what the backend handed out, in use or
// cached. When the backend is out of memory, or reserving would pass the
// limit, the cache is emptied and the request tried once more; failing again
// it is a ResourceExhausted error naming the device and the bytes.
//
// Thread safety: as any Allocator (devices/allocator.h): the cache is under
// mu_, which the backend's calls run under too.
#ifndef SYMX_DEVICES_CACHING_ALLOCATOR_H_
#define SYMX_DEVICES_CACHING_ALLOCATOR_H_

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "devices/allocator.h"

namespace symx {

class CachingAllocator : public Allocator {
 public:
  // Where the memory comes from (cudaMalloc/cudaFree for a GPU).
  class Backend {
   public:
    virtual ~Backend() = default;
    // Null when the device has no room.
    virtual void* Malloc(size_t bytes) = 0;
    virtual void Free(void* ptr) = 0;
    // Called before cached blocks go back through Free: work the device
    // still has queued may read them (a GPU waits for it here).
    virtual void BeforeRelease() {}
  };

  // Block sizes are multiples of this (and at least this), so that every
  // block is aligned for any vector access and a zero-byte tensor still gets
  // a distinct pointer.
  static constexpr size_t kGranule = 512;

  CachingAllocator(Context ctx, std::unique_ptr<Backend> backend);
  // Returns the cache to the backend. Every Storage from this allocator must
  // be gone by then (devices live for the process; tests release first).
  ~CachingAllocator() override;

  // Bytes held from the backend: in use plus cached.
  size_t reserved_bytes() const;
  // Bytes cached (free, waiting for reuse).
  size_t cached_bytes() const;
  // Returns every cached block to the backend.
  void EmptyCache();
  // The block size that serves a request of `bytes`.
  static size_t BlockSize(size_t bytes);

 protected:
  void* RawAlloc(size_t bytes) override;
  void RawFree(void* ptr, size_t bytes) override;

 private:
  // A cached block of `size` may serve a request of `want` bytes when it
  // wastes at most a quarter of it (a big block is not spent on a small
  // tensor while the big ones wait for fresh memory).
  static bool Fits(size_t size, size_t want) { return size >= want && size - want <= want / 4; }
  void* TakeCached(size_t want);  // under mu_
  void EmptyCacheLocked();        // under mu_

  std::unique_ptr<Backend> backend_;
  mutable std::mutex mu_;
  std::multimap<size_t, void*> free_ ABSL_GUARDED_BY(mu_);         // size -> block
  std::unordered_map<void*, size_t> blocks_ ABSL_GUARDED_BY(mu_);  // every block held: its size
  size_t reserved_ ABSL_GUARDED_BY(mu_) = 0;
  size_t cached_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace symx

#endif  // SYMX_DEVICES_CACHING_ALLOCATOR_H_
