// Copies between a contiguous array and a strided view of another
// (devices/geometry/strided_view.h), for the CPU kernels of the layout and
// scatter families. Elements move as unsigned integers of the dtype's width,
// so every dtype is served.
#ifndef SYMX_DEVICES_CPU_STRIDED_COPY_H_
#define SYMX_DEVICES_CPU_STRIDED_COPY_H_

#include <cstdint>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/geometry/strided_view.h"

namespace symx {
namespace cpu {

// A row (the innermost dim) at a time, parallel over rows. gather:
// contiguous[i] = strided[pos(i)]; else strided[pos(i)] = contiguous[i]
// (the view's positions must then be distinct).
template <typename E>
void StridedCopyRows(const KernelContext& ctx, StridedView v, E* strided, E* contiguous,
                     bool gather) {
  const int64_t total = v.size();
  if (total == 0) return;
  v.Simplify();
  const int n = static_cast<int>(v.dims.size());
  const int64_t inner = v.dims[n - 1], inner_step = v.steps[n - 1];
  const int64_t rows = total / inner;
  ParallelFor(ctx, rows, static_cast<double>(inner) + n, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t pos = v.offset, rest = row;
      for (int d = n - 2; d >= 0; --d) {
        pos += (rest % v.dims[d]) * v.steps[d];
        rest /= v.dims[d];
      }
      E* c = contiguous + row * inner;
      E* s = strided + pos;
      if (inner_step == 1) {
        std::memcpy(gather ? c : s, gather ? s : c, static_cast<size_t>(inner) * sizeof(E));
      } else if (gather) {
        for (int64_t j = 0; j < inner; ++j) c[j] = s[j * inner_step];
      } else {
        for (int64_t j = 0; j < inner; ++j) s[j * inner_step] = c[j];
      }
    }
  });
}

// gather: `contig` = strided[v]; else strided[v] = `contig`. Errors name the
// node when the dtypes differ or `contig` does not have the view's size.
inline absl::Status CopyThroughView(const KernelContext& ctx, const StridedView& v,
                                    const Tensor& strided, const Tensor& contig, bool gather) {
  if (strided.dtype() != contig.dtype() || contig.size() != v.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", contig.DebugString(),
                                                   " does not fit a view of ",
                                                   strided.DebugString()));
  }
  // A gather only reads the strided side.
  void* s = gather ? const_cast<void*>(strided.read_raw_data()) : strided.raw_data();
  void* c = gather ? contig.raw_data() : const_cast<void*>(contig.read_raw_data());
  switch (DTypeSize(strided.dtype())) {
    case 1:
      StridedCopyRows(ctx, v, static_cast<uint8_t*>(s), static_cast<uint8_t*>(c), gather);
      return absl::OkStatus();
    case 2:
      StridedCopyRows(ctx, v, static_cast<uint16_t*>(s), static_cast<uint16_t*>(c), gather);
      return absl::OkStatus();
    case 4:
      StridedCopyRows(ctx, v, static_cast<uint32_t*>(s), static_cast<uint32_t*>(c), gather);
      return absl::OkStatus();
    case 8:
      StridedCopyRows(ctx, v, static_cast<uint64_t*>(s), static_cast<uint64_t*>(c), gather);
      return absl::OkStatus();
    default:
      return UnsupportedDType(ctx, strided.dtype());
  }
}

// strided[v] = the element stored in the first DTypeSize(dtype) bytes of
// `bits` (a value already in the dtype, memcpy'd there), at every position.
inline absl::Status FillThroughView(const KernelContext& ctx, StridedView v, const Tensor& strided,
                                    uint64_t bits) {
  if (v.size() == 0) return absl::OkStatus();
  v.Simplify();
  const int n = static_cast<int>(v.dims.size());
  const int64_t inner = v.dims[n - 1], step = v.steps[n - 1], rows = v.size() / inner;
  const size_t width = DTypeSize(strided.dtype());
  if (width == 0 || width > sizeof(bits)) return UnsupportedDType(ctx, strided.dtype());
  char* base = static_cast<char*>(strided.raw_data());
  ParallelFor(ctx, rows, static_cast<double>(inner) + n, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t pos = v.offset, rest = row;
      for (int d = n - 2; d >= 0; --d) {
        pos += (rest % v.dims[d]) * v.steps[d];
        rest /= v.dims[d];
      }
      for (int64_t j = 0; j < inner; ++j) {
        std::memcpy(base + static_cast<size_t>(pos + j * step) * width, &bits, width);
      }
    }
  });
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_STRIDED_COPY_H_
