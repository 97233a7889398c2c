// Window parameters (kernel, stride, pad, dilate, layout) shared by the
// Convolution, Deconvolution and Pooling schemas: parsing with MXNet's defaults
// and the sliding-window output size, all overflow-safe.
#ifndef SYMX_GRAPH_OPS_WINDOW_H_
#define SYMX_GRAPH_OPS_WINDOW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {
namespace nn_internal {

// Largest kernel/stride/pad/dilate value accepted (window arithmetic cannot overflow).
int64_t MaxWindowValue();
std::vector<int64_t> ReadKernel(ParamReader* r, bool required);
std::vector<int64_t> ReadWindowTuple(ParamReader* r, absl::string_view key, size_t n, int64_t def,
                                     int64_t min_value);
std::string ReadLayout(ParamReader* r, size_t kernel_dims);
int LayoutSpatialDims(const std::string& layout);
absl::Status CheckWindowInputNdim(const Shape& shape, int ndim, absl::string_view what);
absl::StatusOr<int64_t> SlidingWindowOutput(int64_t x, int64_t window, int64_t pad, int64_t stride,
                                            bool ceil_mode, int dim, const Shape& data,
                                            absl::string_view op);
}  // namespace nn_internal

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_WINDOW_H_
