// Storage and Allocator: raw device memory with byte accounting.
//
// Every byte a device holds comes from its Allocator, which counts bytes in use
// and the high-water mark, so the executor and `symx bench` can report memory
// per device and tests can assert that planning reused memory.
//
// Thread safety: an Allocator is shared by every executor and thread that
// uses its device; Allocate, the counters and set_limit may be called from
// any thread at once (the counters are atomics; a subclass's RawAlloc/RawFree
// must be thread-safe too). A Storage may be released from any thread.
#ifndef SYMX_DEVICES_ALLOCATOR_H_
#define SYMX_DEVICES_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "devices/context.h"

namespace symx {

class Allocator;

// A block of device memory. Freed (and un-counted) when the last reference
// goes; tensors and views hold it through shared_ptr.
class Storage {
 public:
  Storage(void* data, size_t bytes, Context ctx, Allocator* owner)
      : data_(data), bytes_(bytes), ctx_(ctx), owner_(owner) {}
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  const Context& ctx() const { return ctx_; }

  // How many times a writable pointer into this block was handed out
  // (Tensor::raw_data/data): what a kernel derives from the contents (oneDNN's
  // converted weights) stays valid while this count does not change.
  uint64_t writes() const { return writes_.load(std::memory_order_acquire); }
  void NoteWrite() const { writes_.fetch_add(1, std::memory_order_acq_rel); }

 private:
  mutable std::atomic<uint64_t> writes_{0};
  void* data_;
  size_t bytes_;
  Context ctx_;
  Allocator* owner_;
};

class Allocator {
 public:
  // Alignment of every block: enough for AVX-512 loads and cache lines.
  static constexpr size_t kAlignment = 64;

  explicit Allocator(Context ctx) : ctx_(ctx) {}
  virtual ~Allocator() = default;

  // A new block of at least `bytes` (zero-size requests get a valid, empty
  // block). ResourceExhausted, naming the device and the sizes, when the
  // device's limit or the system's memory would be exceeded.
  absl::StatusOr<std::shared_ptr<Storage>> Allocate(size_t bytes);

  const Context& ctx() const { return ctx_; }
  size_t bytes_in_use() const { return in_use_.load(); }
  size_t peak_bytes() const { return peak_.load(); }
  // Starts a new high-water mark at the current usage.
  void ResetPeak() { peak_.store(in_use_.load()); }
  // 0 = no limit. Lets tests and users cap a device's memory.
  void set_limit(size_t bytes) { limit_.store(bytes); }
  size_t limit() const { return limit_.load(); }

 protected:
  virtual void* RawAlloc(size_t bytes);
  virtual void RawFree(void* ptr, size_t bytes);

 private:
  friend class Storage;
  void Release(void* ptr, size_t bytes);

  Context ctx_;
  std::atomic<size_t> in_use_{0};
  std::atomic<size_t> peak_{0};
  std::atomic<size_t> limit_{0};
};

}  // namespace symx

#endif  // SYMX_DEVICES_ALLOCATOR_H_
