// The fused RNN's per-step gate kernels on the GPU: one thread per (batch
// row, hidden unit), running devices/geometry/rnn_cell.h's math, the one the CPU runs.
// The matrix products around them are cuBLAS GEMMs (devices/cuda/rnn_kernels.cc).
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/rnn_launch.h"
#include "devices/geometry/rnn_cell.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__device__ __forceinline__ T At(const T* p, int64_t i) {
  return p == nullptr ? T(Acc<T>(0)) : p[i];
}

template <typename T>
__global__ void RnnStepForwardKernel(int kind, int64_t batch, int64_t hidden, T* x, const T* bx,
                                     const T* g, const T* bh, const T* hp, const T* cp, T* c, T* hn,
                                     T* h) {
  const int64_t gh = RnnGates(kind) * hidden;
  SYMX_GRID_STRIDE(u, batch * hidden) {
    const int64_t b = u / hidden, j = u - b * hidden;
    RnnCellForward<T, Acc<T>>(kind, hidden, j, x + b * gh, bx, g + b * gh, bh, hp[u], At(cp, u),
                              c == nullptr ? nullptr : c + u, hn == nullptr ? nullptr : hn + u,
                              h + u);
  }
}

template <typename T>
__global__ void RnnStepBackwardKernel(int kind, int64_t batch, int64_t hidden, const T* x,
                                      const T* c, const T* cp, const T* hn, const T* hp,
                                      const T* dh, const T* dy, int64_t dy_stride, const T* dc,
                                      T* gx, T* gh, T* dhp, T* dcp) {
  const int64_t width = RnnGates(kind) * hidden;
  SYMX_GRID_STRIDE(u, batch * hidden) {
    const int64_t b = u / hidden, j = u - b * hidden;
    // The carried gradient plus the output's at this step, summed in T as
    // the CPU does.
    const T dh_total = T(Acc<T>(dh[u]) + Acc<T>(dy[b * dy_stride + j]));
    RnnCellBackward<T, Acc<T>>(kind, hidden, j, x + b * width, At(c, u), At(cp, u), At(hn, u),
                               hp[u], Acc<T>(dh_total), Acc<T>(At(dc, u)), gx + b * width,
                               gh + b * width, dhp + u, dcp == nullptr ? nullptr : dcp + u);
  }
}

}  // namespace

cudaError_t LaunchRnnStepForward(int kind, Elem t, int64_t batch, int64_t hidden, void* x,
                                 const void* bx, const void* g, const void* bh, const void* hp,
                                 const void* cp, void* c, void* hn, void* h, cudaStream_t s) {
  const int64_t n = batch * hidden;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    RnnStepForwardKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        kind, batch, hidden, static_cast<T*>(x), static_cast<const T*>(bx),
        static_cast<const T*>(g), static_cast<const T*>(bh), static_cast<const T*>(hp),
        static_cast<const T*>(cp), static_cast<T*>(c), static_cast<T*>(hn), static_cast<T*>(h));
  });
  return LastLaunchError();
}

cudaError_t LaunchRnnStepBackward(int kind, Elem t, int64_t batch, int64_t hidden, const void* x,
                                  const void* c, const void* cp, const void* hn, const void* hp,
                                  const void* dh, const void* dy, int64_t dy_stride, const void* dc,
                                  void* gx, void* gh, void* dhp, void* dcp, cudaStream_t s) {
  const int64_t n = batch * hidden;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    RnnStepBackwardKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        kind, batch, hidden, static_cast<const T*>(x), static_cast<const T*>(c),
        static_cast<const T*>(cp), static_cast<const T*>(hn), static_cast<const T*>(hp),
        static_cast<const T*>(dh), static_cast<const T*>(dy), dy_stride, static_cast<const T*>(dc),
        static_cast<T*>(gx), static_cast<T*>(gh), static_cast<T*>(dhp), static_cast<T*>(dcp));
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
