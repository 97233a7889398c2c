#include "devices/caching_allocator.h"

#include <utility>

namespace symx {

CachingAllocator::CachingAllocator(Context ctx, std::unique_ptr<Backend> backend)
    : Allocator(ctx), backend_(std::move(backend)) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mu_);
  EmptyCacheLocked();
}

size_t CachingAllocator::BlockSize(size_t bytes) {
  if (bytes == 0) return kGranule;
  return (bytes + kGranule - 1) / kGranule * kGranule;
}

size_t CachingAllocator::reserved_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reserved_;
}

size_t CachingAllocator::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cached_;
}

void CachingAllocator::EmptyCache() {
  std::lock_guard<std::mutex> lock(mu_);
  EmptyCacheLocked();
}

void CachingAllocator::EmptyCacheLocked() {
  if (free_.empty()) return;
  backend_->BeforeRelease();
  for (const auto& [size, ptr] : free_) {
    backend_->Free(ptr);
    blocks_.erase(ptr);
    reserved_ -= size;
  }
  free_.clear();
  cached_ = 0;
}

void* CachingAllocator::TakeCached(size_t want) {
  auto it = free_.lower_bound(want);
  if (it == free_.end() || !Fits(it->first, want)) return nullptr;
  void* ptr = it->second;
  cached_ -= it->first;
  free_.erase(it);
  return ptr;
}

void* CachingAllocator::RawAlloc(size_t bytes) {
  const size_t want = BlockSize(bytes);
  std::lock_guard<std::mutex> lock(mu_);
  if (void* ptr = TakeCached(want)) return ptr;
  // The limit caps what is reserved, cache included: make room first.
  const size_t cap = limit();
  if (cap != 0 && reserved_ + want > cap) EmptyCacheLocked();
  void* ptr = backend_->Malloc(want);
  if (ptr == nullptr && !free_.empty()) {
    // Cached blocks of the wrong sizes may be what stands in the way.
    EmptyCacheLocked();
    ptr = backend_->Malloc(want);
  }
  if (ptr == nullptr) return nullptr;
  blocks_.emplace(ptr, want);
  reserved_ += want;
  return ptr;
}

void CachingAllocator::RawFree(void* ptr, size_t) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end()) return;  // not ours: nothing to cache
  free_.emplace(it->second, ptr);
  cached_ += it->second;
}

}  // namespace symx
