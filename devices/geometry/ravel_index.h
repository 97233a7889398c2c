// MXNet's ravel_multi_index / unravel_index arithmetic on host values, shared
// by the CPU and GPU kernels (the GPU reads its indices back and uploads the
// results: the counts are small and the rules are sequential per column).
#ifndef SYMX_DEVICES_GEOMETRY_RAVEL_INDEX_H_
#define SYMX_DEVICES_GEOMETRY_RAVEL_INDEX_H_

#include <cmath>
#include <cstdint>
#include <vector>

namespace symx {

// The flat index of each of the n columns of `coords` ((shape.size(), n),
// row-major), truncated at each step as MXNet's integer accumulator does.
inline std::vector<double> RavelColumns(const std::vector<int64_t>& shape,
                                        const std::vector<double>& coords, int64_t n) {
  const int64_t k = static_cast<int64_t>(shape.size());
  std::vector<double> flat(n);
  for (int64_t i = 0; i < n; ++i) {
    double r = 0;
    for (int64_t j = 0; j < k; ++j)
      r = std::trunc(r * static_cast<double>(shape[j]) + coords[j * n + i]);
    flat[i] = r;
  }
  return flat;
}

// The coordinates ((shape.size(), n), row-major) of each flat index:
// remainders from the last dim, the first coordinate the quotient left
// (not wrapped), as MXNet's kernel.
inline std::vector<double> UnravelColumns(const std::vector<int64_t>& shape,
                                          const std::vector<double>& flat) {
  const int64_t k = static_cast<int64_t>(shape.size()), n = static_cast<int64_t>(flat.size());
  std::vector<double> coords(k * n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t idx = static_cast<int64_t>(flat[i]);
    for (int64_t j = k - 1; j > 0; --j) {
      const int64_t q = idx / shape[j];
      coords[j * n + i] = static_cast<double>(idx - q * shape[j]);
      idx = q;
    }
    coords[i] = static_cast<double>(idx);
  }
  return coords;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_RAVEL_INDEX_H_
