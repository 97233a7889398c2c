// Embedding's parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_EMBEDDING_H_
#define SYMX_GRAPH_OPS_EMBEDDING_H_

#include <cstdint>

#include "graph/dtype.h"
#include "graph/param.h"

namespace symx {

struct EmbeddingParam : OpParam {
  int64_t input_dim = 0;
  int64_t output_dim = 0;
  DType dtype = DType::kFloat32;
  bool sparse_grad = false;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_EMBEDDING_H_
