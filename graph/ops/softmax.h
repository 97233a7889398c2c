// Parameters of the softmax family (graph/ops/softmax.cc), shared by the
// schema and the kernels.
#ifndef SYMX_GRAPH_OPS_SOFTMAX_H_
#define SYMX_GRAPH_OPS_SOFTMAX_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/dtype.h"
#include "graph/node.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

struct SoftmaxParam : OpParam {
  int64_t axis = -1;
  std::optional<double> temperature;
  std::optional<DType> dtype;  // the output's type when given
  bool use_length = false;
};

// The schema pieces of softmax, log_softmax and softmin (graph/ops/softmax.cc):
// one parameter set (use_length=True is rejected), the shape kept with the
// axis checked (errors name the node's op), an optional output dtype, and in
// place only when the dtype does not change.
absl::StatusOr<OpParamPtr> ParseSoftmax(const AttrMap& attrs);
absl::Status InferSoftmaxShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out);
absl::Status InferSoftmaxType(const NodeAttrs& attrs, std::vector<DType>* in,
                              std::vector<DType>* out);
std::vector<std::pair<int, int>> SoftmaxInplace(const NodeAttrs& attrs);

struct SoftmaxActivationParam : OpParam {
  bool channel = false;  // mode=channel (softmax over axis 1); else mode=instance
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_SOFTMAX_H_
