// _image_resize's parameters (mx.nd.image.resize), shared by the schema
// (graph/ops/image_resize.cc) and the kernels.
#ifndef SYMX_GRAPH_OPS_IMAGE_RESIZE_H_
#define SYMX_GRAPH_OPS_IMAGE_RESIZE_H_

#include <cstdint>
#include <vector>

#include "graph/param.h"

namespace symx {

// `size` is (width, height), or one value: both edges, or with keep_ratio the
// short edge. `interp` is OpenCV's code (0 nearest, 1 linear, 2 cubic, 3 area,
// 4 lanczos4).
struct ImageResizeParam : OpParam {
  std::vector<int64_t> size;
  bool keep_ratio = false;
  int interp = 1;
};

// The output (height, width) of an (h, w) image, with MXNet's integer
// arithmetic for keep_ratio (the long edge is h * size / w, truncated).
void ImageResizeOutSize(const ImageResizeParam& p, int64_t h, int64_t w, int64_t* out_h,
                        int64_t* out_w);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_IMAGE_RESIZE_H_
