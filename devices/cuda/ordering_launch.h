// Launchers of the ordering CUDA kernels (devices/cuda/ordering.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_ORDERING_LAUNCH_H_
#define SYMX_DEVICES_CUDA_ORDERING_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// argmax/argmin over the middle axis: y[o, i] = the first position of the
// largest (smallest) value, a NaN winning (its first position), written as a
// value of the data's type.
cudaError_t LaunchArgExtreme(Elem t, const void* x, int64_t outer, int64_t len, int64_t inner,
                             bool max, void* y, cudaStream_t s);

// _np_cumsum along n of an (outer, n, inner) view, one thread per column
// summing in the CPU kernel's order and types (devices/cpu/ordering_kernels.cc):
// each element converted to the output type, half types through double and
// rounded at each step. The gradient sums from the end, in double.
cudaError_t LaunchCumsum(Elem in_t, const void* x, Elem out_t, void* y, int64_t outer, int64_t n,
                         int64_t inner, cudaStream_t s);
cudaError_t LaunchCumsumGrad(Elem og_t, const void* g, Elem grad_t, void* gx, int64_t outer,
                             int64_t n, int64_t inner, cudaStream_t s);

// sort/argsort/topk: every row (along n of an (outer, n, inner) view) sorted
// with CUB's segmented radix sort, which is stable: equal keys keep their
// order (MXNet's GPU order, not the CPU's std::sort). Radix order is the
// bits' order: -0 sorts before +0, and NaNs by their sign bit (positive NaNs
// after +inf, negative ones before -inf, ascending). The workspace holds the
// gathered rows, the sorted keys and positions, and CUB's scratch; after
// LaunchSortRows, `*keys` and `*positions` (int32, rows * n) point into it.
struct SortDims {
  int64_t outer = 0, n = 0, inner = 1;
};
// Bytes of workspace LaunchSortRows needs (0 when rows * n exceeds int32, the
// type is not sortable, or CUB cannot size its scratch).
size_t SortWorkspaceBytes(Elem t, const SortDims& d);
cudaError_t LaunchSortRows(Elem t, const void* x, const SortDims& d, bool ascending,
                           void* workspace, size_t workspace_bytes, const void** keys,
                           const int32_t** positions, cudaStream_t s);
// From the sorted rows, the first k of each row: values (null: not wanted),
// indices as values of `idx_t` (null: not wanted), or with `mask` a 1/0 mask
// of data's shape in `values` marking the top k.
cudaError_t LaunchTopKOutputs(Elem t, const void* keys, const int32_t* positions, const SortDims& d,
                              int64_t k, bool mask, void* values, Elem idx_t, void* indices,
                              cudaStream_t s);
// The gradient: gx zeroed, then g's (row, j < k) added at the position
// indices[row, j] names; positions outside [0, n) leave the first such
// element number in *first_bad (set to all ones beforehand).
cudaError_t LaunchTopKGrad(Elem t, const void* g, Elem idx_t, const void* indices,
                           const SortDims& d, int64_t k, void* gx, unsigned long long* first_bad,
                           cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_ORDERING_LAUNCH_H_
