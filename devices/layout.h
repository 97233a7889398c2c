// Channels-last storage (kernel.h): an (N, C, spatial...) value kept as
// (N, spatial..., C), the same bytes. Conversions for the paths that need the
// plain layout of such a value (monitor callbacks, reference fallbacks).
#ifndef SYMX_DEVICES_LAYOUT_H_
#define SYMX_DEVICES_LAYOUT_H_

#include <cstdint>
#include <cstring>

#include "graph/shape.h"

namespace symx {

// `plain_shape` is the (N, C, spatial...) shape; elements of `elem_bytes`.
// to_channels_last: src plain -> dst channels-last; else the reverse.
inline void ConvertChannelsLast(const void* src, void* dst, const Shape& plain_shape,
                                size_t elem_bytes, bool to_channels_last) {
  const int64_t n = plain_shape[0], c = plain_shape[1];
  int64_t spatial = 1;
  for (int i = 2; i < plain_shape.ndim(); ++i) spatial *= plain_shape[i];
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  for (int64_t b = 0; b < n; ++b) {
    const int64_t base = b * c * spatial;
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t x = 0; x < spatial; ++x) {
        const int64_t plain = base + ch * spatial + x, last = base + x * c + ch;
        const int64_t from = to_channels_last ? plain : last, to = to_channels_last ? last : plain;
        std::memcpy(d + to * elem_bytes, s + from * elem_bytes, elem_bytes);
      }
    }
  }
}

}  // namespace symx

#endif  // SYMX_DEVICES_LAYOUT_H_
