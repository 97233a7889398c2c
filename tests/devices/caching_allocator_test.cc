// CachingAllocator over a fake backend: reuse, accounting, the cap, and the
// retry after emptying the cache when the device is out of memory.
#include "devices/caching_allocator.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using ::testing::HasSubstr;

// Host memory with a capacity, counting what it was asked for.
class FakeBackend : public CachingAllocator::Backend {
 public:
  explicit FakeBackend(size_t capacity) : capacity_(capacity) {}
  void* Malloc(size_t bytes) override {
    ++mallocs;
    if (held + bytes > capacity_) return nullptr;
    void* p = std::malloc(bytes);
    sizes[p] = bytes;
    held += bytes;
    return p;
  }
  void BeforeRelease() override { ++syncs; }
  void Free(void* ptr) override {
    ++frees;
    held -= sizes.at(ptr);
    sizes.erase(ptr);
    std::free(ptr);
  }
  int mallocs = 0, frees = 0, syncs = 0;
  size_t held = 0;
  std::map<void*, size_t> sizes;

 private:
  size_t capacity_;
};

struct Fixture {
  explicit Fixture(size_t capacity = size_t{1} << 30) {
    auto b = std::make_unique<FakeBackend>(capacity);
    backend = b.get();
    alloc = std::make_unique<CachingAllocator>(Context::GPU(0), std::move(b));
  }
  FakeBackend* backend;
  std::unique_ptr<CachingAllocator> alloc;
};

TEST(CachingAllocatorTest, AReleasedBlockServesTheNextRequestOfItsSize) {
  Fixture f;
  void* first = nullptr;
  {
    auto s = f.alloc->Allocate(1000);
    ASSERT_TRUE(s.ok()) << s.status();
    first = (*s)->data();
    EXPECT_EQ(f.alloc->bytes_in_use(), 1000u);
    EXPECT_EQ(f.alloc->reserved_bytes(), 1024u);
  }
  EXPECT_EQ(f.alloc->bytes_in_use(), 0u);
  EXPECT_EQ(f.alloc->cached_bytes(), 1024u);
  auto again = f.alloc->Allocate(900);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->data(), first);
  EXPECT_EQ(f.backend->mallocs, 1);
  EXPECT_EQ(f.alloc->cached_bytes(), 0u);
}

TEST(CachingAllocatorTest, ABigCachedBlockIsNotSpentOnASmallRequest) {
  Fixture f;
  { auto big = f.alloc->Allocate(1 << 20); }
  auto small = f.alloc->Allocate(1000);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(f.backend->mallocs, 2);
  EXPECT_EQ(f.alloc->cached_bytes(), size_t{1} << 20);
}

TEST(CachingAllocatorTest, ZeroBytesGetDistinctBlocks) {
  Fixture f;
  auto a = f.alloc->Allocate(0);
  auto b = f.alloc->Allocate(0);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->data(), (*b)->data());
  EXPECT_EQ(CachingAllocator::BlockSize(0), CachingAllocator::kGranule);
  EXPECT_EQ(CachingAllocator::BlockSize(513), 1024u);
}

TEST(CachingAllocatorTest, OutOfMemoryEmptiesTheCacheAndRetriesOnce) {
  Fixture f(4096);
  { auto a = f.alloc->Allocate(3000); }  // cached: 3072 bytes
  // 2048 does not fit beside the cached block, nor can the block serve it
  // (it would waste a third): the cache is emptied and the request retried.
  auto b = f.alloc->Allocate(2048);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(f.alloc->cached_bytes(), 0u);
  EXPECT_EQ(f.backend->frees, 1);
  EXPECT_EQ(f.alloc->reserved_bytes(), 2048u);
}

TEST(CachingAllocatorTest, StillOutOfMemoryIsAnErrorNamingTheDeviceAndBytes) {
  Fixture f(4096);
  auto held = f.alloc->Allocate(3000);
  ASSERT_TRUE(held.ok());
  auto b = f.alloc->Allocate(2048);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(b.status().message(), HasSubstr("gpu(0)"));
  EXPECT_THAT(b.status().message(), HasSubstr("2048 bytes"));
  EXPECT_EQ(f.alloc->bytes_in_use(), 3000u);
}

TEST(CachingAllocatorTest, TheLimitCapsReservedBytesCacheIncluded) {
  Fixture f;
  f.alloc->set_limit(8192);
  { auto a = f.alloc->Allocate(6000); }
  EXPECT_EQ(f.alloc->cached_bytes(), 6144u);
  // Reserving 4096 more would pass the cap: the cache goes first.
  auto b = f.alloc->Allocate(4096);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(f.alloc->reserved_bytes(), 4096u);
  // In-use bytes beyond the cap are refused by the allocator itself.
  auto c = f.alloc->Allocate(6000);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("limit of 8192 bytes"));
}

TEST(CachingAllocatorTest, PeakAndEmptyCacheAccounting) {
  Fixture f;
  {
    auto a = f.alloc->Allocate(4096);
    auto b = f.alloc->Allocate(4096);
  }
  EXPECT_EQ(f.alloc->peak_bytes(), 8192u);
  EXPECT_EQ(f.alloc->cached_bytes(), 8192u);
  f.alloc->EmptyCache();
  EXPECT_EQ(f.alloc->cached_bytes(), 0u);
  EXPECT_EQ(f.alloc->reserved_bytes(), 0u);
  EXPECT_EQ(f.backend->held, 0u);
  // The device was waited for once before the blocks went back, and an
  // empty cache waits for nothing.
  EXPECT_EQ(f.backend->syncs, 1);
  f.alloc->EmptyCache();
  EXPECT_EQ(f.backend->syncs, 1);
}

}  // namespace
}  // namespace symx
