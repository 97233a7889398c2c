// Where the scatter family's rows go (graph/ops/scatter.h), computed on the
// host from index values for the CPU and the GPU kernels alike, so both
// accept and refuse the same indices with the same errors. The GPU kernels
// read their (small) index arrays to the host for it (HostDoubles): one
// synchronization per call, as gather_nd's error check costs there.
#ifndef SYMX_DEVICES_GEOMETRY_SCATTER_PLAN_H_
#define SYMX_DEVICES_GEOMETRY_SCATTER_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "devices/kernel.h"
#include "graph/shape.h"

namespace symx {

// scatter_nd / _scatter_set_nd: indices of shape `index_shape` (M, Y...)
// into `target`: the row (in units of `slice` = prod(target[M:]) elements)
// each of the Y columns writes, gather_nd's rule (-n <= v <= n - 1, negative
// from the end). An error names the node, the value, the axis and the column.
absl::Status NdRows(const KernelContext& ctx, const Shape& target, const Shape& index_shape,
                    const std::vector<double>& values, std::vector<int64_t>* rows, int64_t* slice);

// _contrib_index_copy: each value truncated, in [0, n); an error names the
// node, the value and its position otherwise.
absl::Status AxisRows(const KernelContext& ctx, const std::vector<double>& values, int64_t n,
                      std::vector<int64_t>* rows);

// fill_element_0index / _onehot_encode: for each i whose truncated value
// column c lies in [0, m), the flat element i * m + c (in `cells`) and i (in
// `sources`); the others write nothing.
void RowColumnCells(const std::vector<double>& values, int64_t m, std::vector<int64_t>* cells,
                    std::vector<int64_t>* sources);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_SCATTER_PLAN_H_
