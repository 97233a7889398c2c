// Launchers of the indexing CUDA kernels (devices/cuda/indexing.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_INDEXING_LAUNCH_H_
#define SYMX_DEVICES_CUDA_INDEXING_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// Embedding: out row i = weight row clip(trunc(idx[i]), 0, rows - 1) (NaN and
// negatives read row 0), `dim` values per row; indices of any known type.
cudaError_t LaunchEmbedding(Elem idx_t, const void* idx, int64_t n, Elem t, const void* weight,
                            int64_t rows, int64_t dim, void* out, cudaStream_t s);
// The weight gradient: each ograd row added into its index's row (atomic
// adds: the order of the sums is not fixed). float16/bfloat16 accumulate in
// `scratch` (rows * dim float32 values), rounded once at the end.
cudaError_t LaunchEmbeddingGrad(Elem idx_t, const void* idx, int64_t n, Elem t, const void* ograd,
                                int64_t rows, int64_t dim, void* grad_weight, void* scratch,
                                cudaStream_t s);

// Index positions (devices/geometry/index_position.h) for pick, take and gather_nd,
// into `pos` (count int64s). Values the mode rejects (take's raise, any
// gather_nd value out of range) leave -1 there and the smallest such element
// number in `*first_bad`, which the caller sets to all ones beforehand.
enum class IndexPosMode { kClip, kWrap, kRaise };
cudaError_t LaunchIndexPositions(Elem idx_t, const void* idx, int64_t count, int64_t n,
                                 IndexPosMode mode, int64_t* pos, unsigned long long* first_bad,
                                 cudaStream_t s);
// gather_nd: column y of the (m, count) indices gives the row-major offset,
// in slices, of the coordinates it names in dims[0..m).
cudaError_t LaunchGatherNdOffsets(Elem idx_t, const void* idx, int64_t count, int m,
                                  const int64_t* dims, int64_t* pos, unsigned long long* first_bad,
                                  cudaStream_t s);
// y[(o * m + i) * inner + r] = x[(o * n + pos[i]) * inner + r] (take; gather_nd
// with outer 1), for elements of `elem_bytes` bytes.
cudaError_t LaunchGatherRows(size_t elem_bytes, const void* x, const int64_t* pos, int64_t outer,
                             int64_t n, int64_t m, int64_t inner, void* y, cudaStream_t s);
// Its gradient: grad (outer, n, inner) zeroed, then each row of g added into
// row pos[i] (atomic adds: the order of the sums is not fixed). float16 and
// bfloat16 accumulate in `scratch` (outer * n * inner floats).
cudaError_t LaunchScatterAddRows(Elem t, const void* g, const int64_t* pos, int64_t outer,
                                 int64_t n, int64_t m, int64_t inner, void* grad, void* scratch,
                                 cudaStream_t s);
// pick: y[i] = x[(o * n + pos[i]) * inner + r] with i = o * inner + r; its
// gradient (`scatter`) zeroes grad and writes g[i] there (distinct places).
cudaError_t LaunchPick(size_t elem_bytes, const void* x, const int64_t* pos, int64_t outer,
                       int64_t n, int64_t inner, void* y, bool scatter, cudaStream_t s);
// one_hot: out row i is `off` but for column OneHotColumn(idx[i], depth),
// `on`; on/off are the output dtype's bit patterns, elem_bytes wide.
cudaError_t LaunchOneHot(Elem idx_t, const void* idx, int64_t count, int64_t depth,
                         size_t elem_bytes, uint64_t on, uint64_t off, void* out, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_INDEXING_LAUNCH_H_
