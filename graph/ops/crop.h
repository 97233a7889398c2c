// The legacy Crop op's parameters and offsets, shared by the schema
// (graph/ops/crop.cc) and the CPU kernel (devices/cpu/crop_kernels.cc).
#ifndef SYMX_GRAPH_OPS_CROP_H_
#define SYMX_GRAPH_OPS_CROP_H_

#include <cstdint>
#include <vector>

#include "graph/param.h"

namespace symx {

struct CropParam : OpParam {
  int64_t num_args = 1;                  // 1: crop to h_w; 2: crop to crop_like's H and W
  std::vector<int64_t> offset = {0, 0};  // (y, x) of the top-left corner
  std::vector<int64_t> h_w = {0, 0};     // output (H, W) when num_args == 1
  bool center_crop = false;              // offset = floor((in - out) / 2), ignoring `offset`
};

// The (y, x) offset of the crop window of size (h, w) in an input of size (H, W).
inline void CropOffset(const CropParam& p, int64_t H, int64_t W, int64_t h, int64_t w, int64_t* oy,
                       int64_t* ox) {
  if (p.center_crop) {
    *oy = (H - h) / 2;  // (H - h) >= 0 is checked by shape inference
    *ox = (W - w) / 2;
  } else {
    *oy = p.offset[0];
    *ox = p.offset[1];
  }
}

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_CROP_H_
