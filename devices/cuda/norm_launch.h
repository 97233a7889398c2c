// Launchers of the norm CUDA kernels (devices/cuda/norm.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_NORM_LAUNCH_H_
#define SYMX_DEVICES_CUDA_NORM_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// BatchNorm over the channels of an (outer, channels, inner) view, with
// MXNet's semantics (devices/cpu/norm_kernels.cc): batch statistics when
// batch_stats (the moving ones updated with `momentum`), else the moving
// ones; mean/var receive the statistics used. Backward: null outputs are
// not wanted.
struct BatchNormDims {
  int64_t outer = 1, channels = 1, inner = 1;
};
cudaError_t LaunchBatchNormForward(Elem t, const void* x, const void* gamma, const void* beta,
                                   void* moving_mean, void* moving_var, void* y, void* mean,
                                   void* var, const BatchNormDims& d, double eps, double momentum,
                                   bool fix_gamma, bool batch_stats, cudaStream_t s);
// _contrib_SyncBatchNorm over a job's replicas (devices/geometry/
// sync_batch_norm.h), in double per channel of the view, one block per
// channel: with dy null, sums[c] = sum x (center null) or sum (x -
// center[c])^2; with dy, sums[c] = sum dy and sums[channels + c] = sum dy (x -
// center[c]). center and sums are device doubles.
cudaError_t LaunchChannelSums(Elem t, const void* x, const void* dy, const double* center,
                              const BatchNormDims& d, double* sums, cudaStream_t s);
// out = coef[c] u + coef[channels + c] v + coef[2 channels + c] per element
// of channel c (v null: no middle term), computed in double; coef on the device.
cudaError_t LaunchChannelCombine(Elem t, const void* u, const void* v, const double* coef,
                                 const BatchNormDims& d, void* out, cudaStream_t s);
cudaError_t LaunchBatchNormBackward(Elem t, const void* dy, const void* x, const void* gamma,
                                    const void* mean, const void* var, void* dx, void* dgamma,
                                    void* dbeta, const BatchNormDims& d, double eps, bool fix_gamma,
                                    bool batch_stats, cudaStream_t s);

// Normalizations over the columns of an (outer, n, inner) view, one block
// per column, two-pass statistics in the compute type (the CPU kernels,
// devices/cpu/norm_kernels.cc, state the semantics):
// - kLayer (LayerNorm): gamma/beta per position k along n; stat1 = mean,
//   stat2 = sqrt(var + eps).
// - kGroupStd (GroupNorm) / kGroupVar (InstanceNorm): columns are (batch,
//   group) pairs, gamma/beta per column % groups; stat1 = mean, stat2 = std or
//   var.
// - kL2 (L2Normalization): y = x / sqrt(sum x^2 + eps); stat1 = that norm;
//   its backward reads the output y in place of x.
// Backward: null outputs are not wanted.
enum class ColumnNormFn { kLayer, kGroupStd, kGroupVar, kL2 };
struct ColumnNormDims {
  int64_t columns = 0, n = 0, inner = 1, groups = 1;
};
cudaError_t LaunchColumnNormForward(ColumnNormFn f, Elem t, const void* x, const void* gamma,
                                    const void* beta, void* y, void* stat1, void* stat2,
                                    const ColumnNormDims& d, double eps, cudaStream_t s);
cudaError_t LaunchColumnNormBackward(ColumnNormFn f, Elem t, const void* dy, const void* x,
                                     const void* gamma, const void* stat1, const void* stat2,
                                     void* dx, void* dgamma, void* dbeta, const ColumnNormDims& d,
                                     double eps, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_NORM_LAUNCH_H_
