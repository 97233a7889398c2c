// Launchers of the linalg CUDA kernels (devices/cuda/linalg.cu), declared in
// plain C++ for the kernel registrations (devices/cuda/launch.h says why and
// what every launcher returns). One thread per matrix runs
// devices/geometry/linalg_matrix.h, the CPU kernels' arithmetic; float32 and
// float64 only, as MXNet.
#ifndef SYMX_DEVICES_CUDA_LINALG_LAUNCH_H_
#define SYMX_DEVICES_CUDA_LINALG_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// The factorizations of `count` n x n matrices, `in` copied to `out` first.
enum class LinalgFactor : int {
  kPotrf = 0,  // Cholesky factor (lower or upper)
  kPotri = 1,  // inverse from a Cholesky factor
};
// info[b]: LAPACK's info of matrix b (0: fine).
cudaError_t LaunchLinalgFactor(Elem t, LinalgFactor f, const void* in, void* out, int64_t count,
                               int64_t n, bool lower, int64_t* info, cudaStream_t s);

// trmm's and trsm's dims and options (graph/ops/linalg.h's LinalgTriangParam).
struct LinalgTriangArgs {
  int64_t count = 0, n = 0, rows = 0, cols = 0;
  bool transpose = false, rightside = false, lower = true, solve = false;
  double alpha = 1.0;
};
// c = trmm(a, b) or trsm(a, b) (args.solve), per matrix.
cudaError_t LaunchLinalgTriang(Elem t, const LinalgTriangArgs& args, const void* a, const void* b,
                               void* c, cudaStream_t s);
// trmm's gradient (x = B) or trsm's (x = C): da, db.
cudaError_t LaunchLinalgTriangBackward(Elem t, const LinalgTriangArgs& args, const void* g,
                                       const void* a, const void* x, void* da, void* db,
                                       cudaStream_t s);

// inverse: `lu` (count n n values) and `ipiv` (count n) are scratch;
// info[b] as LaunchLinalgFactor's.
cudaError_t LaunchLinalgInverse(Elem t, const void* in, void* out, void* lu, int32_t* ipiv,
                                int64_t count, int64_t n, int64_t* info, cudaStream_t s);
// det (v1 null: v0 = det) or slogdet (v0 = sign, v1 = logabsdet), writing the
// LU factors and pivots (MXNet's hidden outputs).
cudaError_t LaunchLinalgDet(Elem t, const void* in, void* v0, void* v1, void* lu, int32_t* ipiv,
                            int64_t count, int64_t n, cudaStream_t s);

// The gradients of potrf (x = B, y unused), potri (x = B, y = A), inverse
// (x = A, y unused; `scratch` count n n values): one output, dx.
enum class LinalgGrad : int {
  kPotrf = 0,
  kPotri = 1,
  kInverse = 2,
};
cudaError_t LaunchLinalgBackward(Elem t, LinalgGrad grad, const void* g, const void* x,
                                 const void* y, void* scratch, int64_t count, int64_t n, bool lower,
                                 void* dx, cudaStream_t s);
// det's (log false: value = det) or slogdet's (value = logabsdet) gradient
// from the hidden LU factors and pivots.
cudaError_t LaunchLinalgDetBackward(Elem t, bool log, const void* g, const void* value,
                                    const void* lu, const int32_t* ipiv, int64_t count, int64_t n,
                                    void* da, cudaStream_t s);

// gelqf of `count` m x n matrices (m <= n): q, l; `work` holds
// count (m n + m) values.
cudaError_t LaunchLinalgGelqf(Elem t, const void* a, void* q, void* l, void* work, int64_t count,
                              int64_t m, int64_t n, cudaStream_t s);
// syevd of `count` n x n matrices: u, w; `work` holds count 2 n n doubles.
cudaError_t LaunchLinalgSyevd(Elem t, const void* a, void* u, void* w, double* work, int64_t count,
                              int64_t n, cudaStream_t s);
// gelqf's (eigen false: dx, dy, x, y = dQ, dL, Q, L; m x n) or syevd's
// (dU, dL, U, L; m = n) gradient; `tmp` holds count m m values.
cudaError_t LaunchLinalgDecompositionBackward(Elem t, bool eigen, const void* dx, const void* dy,
                                              const void* x, const void* y, void* tmp,
                                              int64_t count, int64_t m, int64_t n, void* da,
                                              cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_LINALG_LAUNCH_H_
