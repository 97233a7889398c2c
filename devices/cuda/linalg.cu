// The linalg family's factorizations and triangular products on the GPU: one
// thread per matrix running devices/geometry/linalg_matrix.h, the arithmetic
// the CPU kernels run (and the CPU tests check). Simple and exact rather than
// fast: a batch of large matrices wants cuSOLVER and cuBLAS's blocked routines.
#include <math.h>

#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/linalg_launch.h"
#include "devices/geometry/linalg_matrix.h"

namespace symx {
namespace cuda {
namespace {

constexpr int kMatrixThreads = 64;

unsigned Blocks(int64_t count) { return static_cast<unsigned>((count + kMatrixThreads - 1) / kMatrixThreads); }

__device__ inline int64_t MatrixIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

template <typename T>
__global__ void FactorKernel(LinalgFactor f, const T* in, T* out, int64_t count, int64_t n,
                             bool lower, int64_t* info) {
  const int64_t b = MatrixIndex();
  if (b >= count) return;
  const T* src = in + b * n * n;
  T* dst = out + b * n * n;
  if (src != dst) {
    for (int64_t i = 0; i < n * n; ++i) dst[i] = src[i];
  }
  info[b] = f == LinalgFactor::kPotrf ? linalg::Cholesky(dst, n, lower)
                                      : linalg::CholeskyInverse(dst, n, lower);
}

template <typename T>
__global__ void TriangKernel(LinalgTriangArgs args, const T* a, const T* b, T* c) {
  const int64_t i = MatrixIndex();
  if (i >= args.count) return;
  const int64_t nn = args.n * args.n, size = args.rows * args.cols;
  const T* src = b + i * size;
  T* dst = c + i * size;
  if (src != dst) {
    for (int64_t k = 0; k < size; ++k) dst[k] = src[k];
  }
  const linalg::TriangSpec spec{args.transpose, args.rightside, args.lower};
  if (args.solve) {
    linalg::TriangSolve(a + i * nn, args.n, spec, static_cast<T>(args.alpha), dst, args.rows,
                        args.cols);
  } else {
    linalg::TriangMultiply(a + i * nn, args.n, spec, static_cast<T>(args.alpha), dst, args.rows,
                           args.cols);
  }
}

template <typename T>
__global__ void TriangBackwardKernel(LinalgTriangArgs args, const T* g, const T* a, const T* x,
                                     T* da, T* db) {
  const int64_t i = MatrixIndex();
  if (i >= args.count) return;
  const int64_t nn = args.n * args.n, size = args.rows * args.cols;
  const linalg::TriangSpec spec{args.transpose, args.rightside, args.lower};
  const linalg::TriangDims d{args.n, args.rows, args.cols};
  const T alpha = static_cast<T>(args.alpha);
  if (args.solve) {
    linalg::TrsmBackward(g + i * size, a + i * nn, x + i * size, d, spec, alpha, da + i * nn,
                         db + i * size);
  } else {
    linalg::TrmmBackward(g + i * size, a + i * nn, x + i * size, d, spec, alpha, da + i * nn,
                         db + i * size);
  }
}

template <typename T>
__global__ void InverseKernel(const T* in, T* out, T* lu, int32_t* ipiv, int64_t count, int64_t n,
                              int64_t* info) {
  const int64_t b = MatrixIndex();
  if (b >= count) return;
  T* m = lu + b * n * n;
  for (int64_t i = 0; i < n * n; ++i) m[i] = in[b * n * n + i];
  info[b] = linalg::LuFactor(m, n, ipiv + b * n);
  if (info[b] == 0) linalg::LuInverse(m, ipiv + b * n, n, T(1), 1, n, out + b * n * n);
}

template <typename T>
__global__ void DetKernel(const T* in, T* v0, T* v1, T* lu, int32_t* ipiv, int64_t count,
                          int64_t n) {
  const int64_t b = MatrixIndex();
  if (b >= count) return;
  T* m = lu + b * n * n;
  for (int64_t i = 0; i < n * n; ++i) m[i] = in[b * n * n + i];
  linalg::LuFactor(m, n, ipiv + b * n);
  T sign, logabs;
  linalg::LuSignLogDet(m, ipiv + b * n, n, &sign, &logabs);
  if (v1 != nullptr) {
    v0[b] = sign;
    v1[b] = logabs;
  } else {
    v0[b] = sign * exp(logabs);
  }
}

template <typename T>
__global__ void BackwardKernel(LinalgGrad grad, const T* g, const T* x, const T* y, T* scratch,
                               int64_t count, int64_t n, bool lower, T* dx) {
  const int64_t b = MatrixIndex();
  if (b >= count) return;
  const int64_t nn = n * n;
  switch (grad) {
    case LinalgGrad::kPotrf:
      linalg::PotrfBackward(g + b * nn, x + b * nn, n, lower, dx + b * nn);
      break;
    case LinalgGrad::kPotri:
      linalg::PotriBackward(g + b * nn, x + b * nn, y + b * nn, n, lower, dx + b * nn);
      break;
    case LinalgGrad::kInverse:
      linalg::InverseBackward(g + b * nn, x + b * nn, n, scratch + b * nn, dx + b * nn);
      break;
  }
}

template <typename T>
__global__ void DetBackwardKernel(bool log, const T* g, const T* value, const T* lu,
                                  const int32_t* ipiv, int64_t count, int64_t n, T* da) {
  const int64_t b = MatrixIndex();
  if (b >= count) return;
  const int64_t nn = n * n;
  const bool singular = log ? value[b] == -static_cast<T>(INFINITY) : value[b] == T(0);
  if (singular) {
    for (int64_t i = 0; i < nn; ++i) da[b * nn + i] = T(0);
    return;
  }
  linalg::LuInverse(lu + b * nn, ipiv + b * n, n, log ? g[b] : g[b] * value[b], n, 1, da + b * nn);
}

template <typename T>
__global__ void GelqfKernel(const T* a, T* q, T* l, T* work, int64_t count, int64_t m, int64_t n) {
  const int64_t b = MatrixIndex();
  if (b >= count) return;
  linalg::LqFactor(a + b * m * n, m, n, q + b * m * n, l + b * m * m, work + b * (m * n + m));
}

template <typename T>
__global__ void SyevdKernel(const T* a, T* u, T* w, double* work, int64_t count, int64_t n) {
  const int64_t b = MatrixIndex();
  if (b >= count) return;
  T* ub = u + b * n * n;
  for (int64_t i = 0; i < n * n; ++i) ub[i] = a[b * n * n + i];
  linalg::SymmetricEigen(ub, n, w + b * n, work + b * 2 * n * n);
}

template <typename T>
__global__ void DecompositionBackwardKernel(bool eigen, const T* dx, const T* dy, const T* x,
                                            const T* y, T* tmp, int64_t count, int64_t m,
                                            int64_t n, T* da) {
  const int64_t b = MatrixIndex();
  if (b >= count) return;
  if (eigen) {
    linalg::EigenBackward(dx + b * n * n, dy + b * n, x + b * n * n, y + b * n, n, tmp + b * n * n,
                          da + b * n * n);
  } else {
    linalg::LqBackward(dx + b * m * n, dy + b * m * m, x + b * m * n, y + b * m * m, m, n,
                       tmp + b * m * m, da + b * m * n);
  }
}

}  // namespace

cudaError_t LaunchLinalgFactor(Elem t, LinalgFactor f, const void* in, void* out, int64_t count,
                               int64_t n, bool lower, int64_t* info, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    FactorKernel<T><<<Blocks(count), kMatrixThreads, 0, s>>>(f, static_cast<const T*>(in),
                                                       static_cast<T*>(out), count, n, lower, info);
  });
  return LastLaunchError();
}

cudaError_t LaunchLinalgTriang(Elem t, const LinalgTriangArgs& args, const void* a, const void* b,
                               void* c, cudaStream_t s) {
  if (args.count == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    TriangKernel<T><<<Blocks(args.count), kMatrixThreads, 0, s>>>(args, static_cast<const T*>(a),
                                                            static_cast<const T*>(b),
                                                            static_cast<T*>(c));
  });
  return LastLaunchError();
}

cudaError_t LaunchLinalgTriangBackward(Elem t, const LinalgTriangArgs& args, const void* g,
                                       const void* a, const void* x, void* da, void* db,
                                       cudaStream_t s) {
  if (args.count == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    TriangBackwardKernel<T><<<Blocks(args.count), kMatrixThreads, 0, s>>>(
        args, static_cast<const T*>(g), static_cast<const T*>(a), static_cast<const T*>(x),
        static_cast<T*>(da), static_cast<T*>(db));
  });
  return LastLaunchError();
}

cudaError_t LaunchLinalgInverse(Elem t, const void* in, void* out, void* lu, int32_t* ipiv,
                                int64_t count, int64_t n, int64_t* info, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    InverseKernel<T><<<Blocks(count), kMatrixThreads, 0, s>>>(static_cast<const T*>(in),
                                                        static_cast<T*>(out), static_cast<T*>(lu),
                                                        ipiv, count, n, info);
  });
  return LastLaunchError();
}

cudaError_t LaunchLinalgDet(Elem t, const void* in, void* v0, void* v1, void* lu, int32_t* ipiv,
                            int64_t count, int64_t n, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    DetKernel<T><<<Blocks(count), kMatrixThreads, 0, s>>>(static_cast<const T*>(in), static_cast<T*>(v0),
                                                    static_cast<T*>(v1), static_cast<T*>(lu), ipiv,
                                                    count, n);
  });
  return LastLaunchError();
}

cudaError_t LaunchLinalgBackward(Elem t, LinalgGrad grad, const void* g, const void* x,
                                 const void* y, void* scratch, int64_t count, int64_t n,
                                 bool lower, void* dx, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    BackwardKernel<T><<<Blocks(count), kMatrixThreads, 0, s>>>(
        grad, static_cast<const T*>(g), static_cast<const T*>(x), static_cast<const T*>(y),
        static_cast<T*>(scratch), count, n, lower, static_cast<T*>(dx));
  });
  return LastLaunchError();
}

cudaError_t LaunchLinalgDetBackward(Elem t, bool log, const void* g, const void* value,
                                    const void* lu, const int32_t* ipiv, int64_t count, int64_t n,
                                    void* da, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    DetBackwardKernel<T><<<Blocks(count), kMatrixThreads, 0, s>>>(
        log, static_cast<const T*>(g), static_cast<const T*>(value), static_cast<const T*>(lu),
        ipiv, count, n, static_cast<T*>(da));
  });
  return LastLaunchError();
}

cudaError_t LaunchLinalgGelqf(Elem t, const void* a, void* q, void* l, void* work, int64_t count,
                              int64_t m, int64_t n, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    GelqfKernel<T><<<Blocks(count), kMatrixThreads, 0, s>>>(static_cast<const T*>(a), static_cast<T*>(q),
                                                      static_cast<T*>(l), static_cast<T*>(work),
                                                      count, m, n);
  });
  return LastLaunchError();
}

cudaError_t LaunchLinalgSyevd(Elem t, const void* a, void* u, void* w, double* work, int64_t count,
                              int64_t n, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    SyevdKernel<T><<<Blocks(count), kMatrixThreads, 0, s>>>(static_cast<const T*>(a), static_cast<T*>(u),
                                                      static_cast<T*>(w), work, count, n);
  });
  return LastLaunchError();
}

cudaError_t LaunchLinalgDecompositionBackward(Elem t, bool eigen, const void* dx, const void* dy,
                                              const void* x, const void* y, void* tmp,
                                              int64_t count, int64_t m, int64_t n, void* da,
                                              cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    DecompositionBackwardKernel<T><<<Blocks(count), kMatrixThreads, 0, s>>>(
        eigen, static_cast<const T*>(dx), static_cast<const T*>(dy), static_cast<const T*>(x),
        static_cast<const T*>(y), static_cast<T*>(tmp), count, m, n, static_cast<T*>(da));
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
