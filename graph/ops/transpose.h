// transpose's parameters, shared by the schema and the kernel.
#ifndef SYMX_GRAPH_OPS_TRANSPOSE_H_
#define SYMX_GRAPH_OPS_TRANSPOSE_H_

#include <cstdint>
#include <vector>

#include "graph/param.h"

namespace symx {

struct TransposeParam : OpParam {
  std::vector<int64_t> axes;  // normalized to non-negative; empty = reverse
};

// The permutation for an `n`-dim input: output dim i is input dim perm[i].
std::vector<int> TransposePermutation(const TransposeParam& p, int n);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_TRANSPOSE_H_
