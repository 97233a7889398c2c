// im2col / col2im's map between an image (C, spatial...) and its columns
// (C * prod(kernel), L), plain C++ that nvcc compiles into the GPU kernels
// too, so both devices place every element alike. Column row c * K + k holds
// kernel offset k (row-major over the kernel dims) of channel c; column l is
// the l-th output position (row-major over the output's spatial dims), as
// MXNet's (Caffe's) im2col lays them out.
#ifndef SYMX_DEVICES_GEOMETRY_IM2COL_MAP_H_
#define SYMX_DEVICES_GEOMETRY_IM2COL_MAP_H_

#include <stdint.h>

#include "devices/host_device.h"

namespace symx {

struct Im2colDims {
  int nsp = 0;  // spatial dims, 1 to 3
  int64_t image[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilate[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  int64_t channels = 0;
  int64_t kernel_size = 1;  // K = prod(kernel)
  int64_t columns = 1;      // L = prod(out)
  int64_t image_size = 1;   // prod(image)
};

// The image position (flat over its spatial dims) that kernel offset k of
// output position l reads, or -1 in the padding.
SYMX_HOST_DEVICE inline int64_t Im2colSource(const Im2colDims& d, int64_t k, int64_t l) {
  int64_t pos = 0;
  for (int i = 0; i < d.nsp; ++i) {
    int64_t kr = 1, lr = 1;
    for (int j = i + 1; j < d.nsp; ++j) {
      kr *= d.kernel[j];
      lr *= d.out[j];
    }
    const int64_t ki = (k / kr) % d.kernel[i], oi = (l / lr) % d.out[i];
    const int64_t at = oi * d.stride[i] - d.pad[i] + ki * d.dilate[i];
    if (at < 0 || at >= d.image[i]) return -1;
    pos = pos * d.image[i] + at;
  }
  return pos;
}

// For image position p: the output position whose kernel offset k reads it,
// or -1 when none does.
SYMX_HOST_DEVICE inline int64_t Col2imColumn(const Im2colDims& d, int64_t p, int64_t k) {
  int64_t l = 0;
  for (int i = 0; i < d.nsp; ++i) {
    int64_t kr = 1, pr = 1;
    for (int j = i + 1; j < d.nsp; ++j) {
      kr *= d.kernel[j];
      pr *= d.image[j];
    }
    const int64_t ki = (k / kr) % d.kernel[i], pi = (p / pr) % d.image[i];
    const int64_t num = pi + d.pad[i] - ki * d.dilate[i];
    if (num < 0 || num % d.stride[i] != 0) return -1;
    const int64_t oi = num / d.stride[i];
    if (oi >= d.out[i]) return -1;
    l = l * d.out[i] + oi;
  }
  return l;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_IM2COL_MAP_H_
