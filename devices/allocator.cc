#include "devices/allocator.h"

#include <cstdlib>
#include <new>

#include "absl/strings/str_cat.h"

namespace symx {

Storage::~Storage() {
  if (owner_ != nullptr) owner_->Release(data_, bytes_);
}

absl::StatusOr<std::shared_ptr<Storage>> Allocator::Allocate(size_t bytes) {
  size_t limit = limit_.load();
  size_t now = in_use_.load();
  if (bytes > (size_t{1} << 62)) {
    return absl::ResourceExhaustedError(absl::StrCat("out of memory on ", ctx_.ToString(),
                                                     ": a request of ", bytes,
                                                     " bytes is beyond any device"));
  }
  if (limit != 0 && (bytes > limit || now > limit - bytes)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("out of memory on ", ctx_.ToString(), ": allocating ", bytes, " bytes with ",
                     now, " in use would exceed the device limit of ", limit, " bytes"));
  }
  void* ptr = RawAlloc(bytes);
  if (ptr == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat("out of memory on ", ctx_.ToString(),
                                                     ": allocating ", bytes, " bytes with ", now,
                                                     " already in use failed"));
  }
  size_t after = in_use_.fetch_add(bytes) + bytes;
  size_t peak = peak_.load();
  while (after > peak && !peak_.compare_exchange_weak(peak, after)) {
  }
  return std::make_shared<Storage>(ptr, bytes, ctx_, this);
}

void Allocator::Release(void* ptr, size_t bytes) {
  RawFree(ptr, bytes);
  in_use_.fetch_sub(bytes);
}

void* Allocator::RawAlloc(size_t bytes) {
  // aligned_alloc needs a size that is a multiple of the alignment; a
  // zero-size block still gets a unique pointer.
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0) rounded = kAlignment;
  return std::aligned_alloc(kAlignment, rounded);
}

void Allocator::RawFree(void* ptr, size_t) { std::free(ptr); }

}  // namespace symx
