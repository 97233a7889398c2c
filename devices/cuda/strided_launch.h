// Launchers of the strided CUDA kernels (devices/cuda/strided.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_STRIDED_LAUNCH_H_
#define SYMX_DEVICES_CUDA_STRIDED_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/launch.h"
#include "devices/cuda/reduce_launch.h"

namespace symx {
namespace cuda {

// A strided view for data movement: out element i (row-major over `dims`)
// moves between src[i . src_strides] and dst[i . dst_strides] (element
// strides; 0 repeats, negative walks backwards from the base pointer).
struct StridedDims {
  int ndim = 0;
  int64_t dims[kMaxDims] = {};
  int64_t src_strides[kMaxDims] = {};
  int64_t dst_strides[kMaxDims] = {};
};
// dst[.] = src[.] for elements of `elem_bytes` (1, 2, 4 or 8) bytes, any dtype.
cudaError_t LaunchStridedCopy(size_t elem_bytes, const void* src, void* dst, const StridedDims& d,
                              int64_t n, cudaStream_t s);

// y[j] = reduce over the reduced index space of x[kept(j) + reduced(r)]:
// output j walks `kept` (row-major, contiguous y), each output reduces over
// `reduced`; src strides only are used. Sum is scaled by `scale`; an empty
// reduced space gives the reduction's identity (0 for sum, -inf for max).
cudaError_t LaunchReduceStrided(ReduceFn f, Elem t, const void* x, const StridedDims& kept,
                                const StridedDims& reduced, double scale, void* y, int64_t outputs,
                                cudaStream_t s);

// The per-element gradient terms of out = f(a, b) with broadcasting, over the
// full output shape (strides of a and b as in BroadcastDims): for the lhs
// (`rhs` false) or the rhs. MXNet's rules: max/min route the gradient to the
// lhs where a >= b (max) / a <= b (min), else to the rhs.
cudaError_t LaunchBroadcastGradTerms(BinaryFn f, bool rhs, Elem t, const void* g, const void* a,
                                     const void* b, const BroadcastDims& d, void* out, int64_t n,
                                     cudaStream_t s);

// The gradients of the reductions that read their input and output:
// dx[i] = g[r(i)] * F(x[i], y[r(i)]), where r(i) = i . y_strides (the reduced
// output's strides, 0 on reduced axes) over `d` (dst strides unused), and F is
// MXNet's: x == y (kEqual: max, min), y / x (kProd), 0 at NaN else 1
// (kNanSum), 0 at NaN else y / x (kNanProd), sign(x) (kNorm1), x / y (kNorm2).
enum class ReduceGradFn { kEqual, kProd, kNanSum, kNanProd, kNorm1, kNorm2 };
cudaError_t LaunchReduceGrad(ReduceGradFn f, Elem t, const void* x, const void* y, const void* g,
                             const StridedDims& d, void* dx, int64_t n, cudaStream_t s);

// moments' variance: y[j] = scale * sum over r of (x[kept(j) + reduced(r)] - mean[j])^2,
// with `kept` and `reduced` as in LaunchReduceStrided.
cudaError_t LaunchVarianceStrided(Elem t, const void* x, const void* mean, const StridedDims& kept,
                                  const StridedDims& reduced, double scale, void* y,
                                  int64_t outputs, cudaStream_t s);

// moments' gradient: dx[i] = (gm[r(i)] + gv[r(i)] * 2 (x[i] - mean[r(i)])) * inv_n,
// r(i) as in LaunchReduceGrad.
cudaError_t LaunchMomentsGrad(Elem t, const void* gm, const void* gv, const void* x,
                              const void* mean, const StridedDims& d, double inv_n, void* dx,
                              int64_t n, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_STRIDED_LAUNCH_H_
