// Helpers shared by the reduction kernels and the kernels that broadcast a
// reduced-shape tensor back over a full one (reduce backward, Dropout with
// `axes`): a "broadcast plan" that drops size-1 dims and merges neighbouring
// dims of the same kind, so that Eigen sees the fewest dims possible, a
// dispatcher from a runtime rank to a compile-time one, and walks over the
// full tensor element by element or row by row (innermost group).
//
// Include only from devices/cpu/*_kernels.cc (it pulls in Eigen's Tensor).
#ifndef SYMX_DEVICES_CPU_REDUCE_KERNELS_H_
#define SYMX_DEVICES_CPU_REDUCE_KERNELS_H_

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "devices/cpu/kernel_util.h"

namespace symx {
namespace cpu {

// A full shape against a "small" one that has either the same dim or 1 at each
// axis (`reduced[i]` says which). Dims of size 1 are dropped and runs of dims of
// the same kind merged, so `dims` alternates between kept and reduced groups.
struct BroadcastPlan {
  std::vector<int64_t> dims;  // merged dims of the full shape (each > 1 when sizes > 0)
  std::vector<bool> reduced;  // whether the small shape has 1 in that group
  int64_t full_size = 1;      // elements of the full shape
  int64_t small_size = 1;     // elements of the small shape
  bool any_reduced() const {
    for (bool r : reduced) {
      if (r) return true;
    }
    return false;
  }
};

inline BroadcastPlan MakeBroadcastPlan(const std::vector<int64_t>& full,
                                       const std::vector<bool>& reduced) {
  BroadcastPlan p;
  for (size_t i = 0; i < full.size(); ++i) {
    p.full_size *= full[i];
    if (!reduced[i]) p.small_size *= full[i];
  }
  for (size_t i = 0; i < full.size(); ++i) {
    if (full[i] == 1) continue;
    if (!p.dims.empty() && p.reduced.back() == reduced[i]) {
      p.dims.back() *= full[i];
    } else {
      p.dims.push_back(full[i]);
      p.reduced.push_back(reduced[i]);
    }
  }
  return p;
}

// The largest merged rank the Eigen paths are instantiated for; plans with more
// groups (an alternating pattern over more than 5 dims) take a plain loop.
inline constexpr int kMaxEigenRank = 5;

// Calls fn(std::integral_constant<int, N>{}) for N == n in [1, kMaxEigenRank];
// false when n is out of that range.
template <typename Fn>
bool DispatchRank(int n, Fn&& fn) {
  switch (n) {
    case 1:
      fn(std::integral_constant<int, 1>{});
      return true;
    case 2:
      fn(std::integral_constant<int, 2>{});
      return true;
    case 3:
      fn(std::integral_constant<int, 3>{});
      return true;
    case 4:
      fn(std::integral_constant<int, 4>{});
      return true;
    case 5:
      fn(std::integral_constant<int, 5>{});
      return true;
    default:
      return false;
  }
}

// Calls fn(i, j) for every full index i with j its position in the small
// tensor, in parallel chunks (the fallback for plans beyond kMaxEigenRank).
template <typename Fn>
void ForEachBroadcast(const KernelContext& ctx, const BroadcastPlan& p, Fn&& fn) {
  const int n = static_cast<int>(p.dims.size());
  // Small-tensor strides per merged dim (0 where reduced).
  std::vector<int64_t> small_stride(n, 0);
  int64_t s = 1;
  for (int d = n - 1; d >= 0; --d) {
    if (!p.reduced[d]) {
      small_stride[d] = s;
      s *= p.dims[d];
    }
  }
  ParallelFor(ctx, p.full_size, 2.0 * n, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> idx(n, 0);
    int64_t rest = begin, j = 0;
    for (int d = n - 1; d >= 0; --d) {
      idx[d] = rest % p.dims[d];
      rest /= p.dims[d];
      j += idx[d] * small_stride[d];
    }
    for (int64_t i = begin; i < end; ++i) {
      fn(i, j);
      for (int d = n - 1; d >= 0; --d) {
        j += small_stride[d];
        if (++idx[d] < p.dims[d]) break;
        j -= small_stride[d] * p.dims[d];
        idx[d] = 0;
      }
    }
  });
}

// Walks the full tensor as rows of its innermost merged group, in parallel:
// fn(full_offset, small_offset, len, inner_reduced) for each row, where the
// row is full[full_offset, full_offset + len) and meets the small tensor at
// small[small_offset, small_offset + len) when the innermost group is kept, or
// at the single element small[small_offset] when it is reduced. Rows are long
// and contiguous, so per-row work vectorizes whatever the rank.
template <typename Fn>
void ForEachBroadcastRow(const KernelContext& ctx, const BroadcastPlan& p, double cost_per_elem,
                         Fn&& fn) {
  if (p.full_size == 0) return;
  const int n = static_cast<int>(p.dims.size());
  if (n == 0) {
    fn(int64_t{0}, int64_t{0}, int64_t{1}, false);
    return;
  }
  const int64_t len = p.dims[n - 1];
  const bool inner_reduced = p.reduced[n - 1];
  // Small strides of the outer groups (0 where reduced).
  std::vector<int64_t> stride(n - 1, 0);
  int64_t s = inner_reduced ? 1 : len;
  int64_t rows = 1;
  for (int d = n - 2; d >= 0; --d) {
    rows *= p.dims[d];
    if (!p.reduced[d]) {
      stride[d] = s;
      s *= p.dims[d];
    }
  }
  ParallelFor(ctx, rows, cost_per_elem * static_cast<double>(len), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      int64_t rest = r, off = 0;
      for (int d = n - 2; d >= 0; --d) {
        off += (rest % p.dims[d]) * stride[d];
        rest /= p.dims[d];
      }
      fn(r * len, off, len, inner_reduced);
    }
  });
}

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_REDUCE_KERNELS_H_
