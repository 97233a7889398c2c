// Parameters of the creation ops (_zeros, _ones, _full, _arange, _eye, _linspace,
// _contrib_arange_like, _zeros_without_dtype), shared by the schemas
// (graph/ops/init.cc) and the CPU kernels (devices/cpu/init_kernels.cc).
#ifndef SYMX_GRAPH_OPS_INIT_H_
#define SYMX_GRAPH_OPS_INIT_H_

#include <cstdint>
#include <optional>

#include "graph/dtype.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

// _zeros, _ones and _full. `shape` is in MXNet's legacy form as written (0 = a dim to be
// inferred from how the output is used; an empty or absent shape = wholly unknown), already
// converted to symx's Shape. `ctx` is accepted and ignored: the executor places the node.
struct InitParam : OpParam {
  Shape shape;
  DType dtype = DType::kFloat32;
  double value = 0.0;  // _full only (0 for _zeros, 1 for _ones)
};

struct ArangeParam : OpParam {
  double start = 0.0;
  std::optional<double> stop;
  double step = 1.0;
  int64_t repeat = 1;
  bool infer_range = false;  // the length comes from how the output is used
  DType dtype = DType::kFloat32;
};

// _eye: an N x M (M = 0: N) matrix with ones on diagonal k.
struct EyeParam : OpParam {
  int64_t N = 0, M = 0, k = 0;
  DType dtype = DType::kFloat32;
};

// _linspace: num values from start to stop (stop excluded unless endpoint).
struct LinspaceParam : OpParam {
  double start = 0, stop = 0;
  int64_t num = 0;
  bool endpoint = true;
  DType dtype = DType::kFloat32;
};

// _contrib_arange_like: _arange's values over the input's shape, or over
// its `axis` alone; the input's dtype.
struct ArangeLikeParam : OpParam {
  double start = 0.0, step = 1.0;
  int64_t repeat = 1;
  std::optional<int64_t> axis;
};

// The number of elements of _arange without infer_range: ceil((stop - start) / step) * repeat,
// start/stop as MXNet resolves them (stop=None: the range [0, start)).
int64_t ArangeLength(const ArangeParam& p);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_INIT_H_
