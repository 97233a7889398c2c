// Helpers for op shape and dtype inference functions.
//
// Each assigns an inferred value into a slot, merging with what is already known,
// and returns an error naming the argument and both values on a conflict. The
// inference pass prefixes the node and op ("Error in operator fc1 (...)").
#ifndef SYMX_GRAPH_INFER_UTIL_H_
#define SYMX_GRAPH_INFER_UTIL_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/dtype.h"
#include "graph/shape.h"

namespace symx {

// Merges `inferred` into (*shapes)[index]. `what` names the slot ("input weight").
absl::Status AssignShape(std::vector<Shape>* shapes, size_t index, const Shape& inferred,
                         absl::string_view what);
absl::Status AssignType(std::vector<DType>* types, size_t index, DType inferred,
                        absl::string_view what);

// Error for an input whose shape the op cannot accept, e.g. the wrong ndim.
absl::Status ShapeError(absl::string_view what, const Shape& shape, absl::string_view expected);

// Shape inference for ops whose inputs and outputs all have one shape
// (elementwise ops): merges every known shape into all slots.
absl::Status InferSameShape(std::vector<Shape>* in, std::vector<Shape>* out);

// Normalizes a possibly negative axis for `ndim` dims; error names the axis.
absl::Status NormalizeAxis(int64_t axis, int ndim, absl::string_view what, int* out);

}  // namespace symx

#endif  // SYMX_GRAPH_INFER_UTIL_H_
