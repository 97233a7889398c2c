// Launchers of the loss CUDA kernels (devices/cuda/loss.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_LOSS_LAUNCH_H_
#define SYMX_DEVICES_CUDA_LOSS_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// SoftmaxOutput's gradient for class-index labels over (outer, classes,
// inner): gx = (y - target) * scale, target = 1 - smooth_alpha for the label's
// class and smooth_alpha / (classes - 1) for the others; positions whose
// label is `ignore` get 0 when use_ignore. With valid_normalization the scale
// is further divided by the count of labels (of `entries`) that are not
// `ignore` (at least 1), counted on the device into `workspace` (8 bytes).
struct SoftmaxOutputGradArgs {
  int64_t outer = 0, classes = 0, inner = 0;
  int64_t entries = 0;
  double scale = 1;
  double smooth_alpha = 0;
  int64_t ignore = 0;
  bool use_ignore = false;
  bool valid_normalization = false;
};
cudaError_t LaunchSoftmaxOutputGrad(Elem t, const void* y, const void* label,
                                    const SoftmaxOutputGradArgs& a, void* workspace, void* gx,
                                    cudaStream_t s);

// y[0, n) = value / max(1, count of x[i] > thresh), the count taken on the
// device into `workspace` (8 bytes): MakeLoss's normalization=valid.
cudaError_t LaunchFillDividedByCountAbove(Elem t, const void* x, int64_t n, double thresh,
                                          double value, void* workspace, void* y, cudaStream_t s);

// SVMOutput's gradient over rows x cols scores y with one class label per
// row (devices/cpu/loss_kernels.cc states the L1/L2 rules).
struct SvmGradArgs {
  int64_t rows = 0, cols = 0;
  double margin = 1, reg = 1;
  bool linear = false;
};
cudaError_t LaunchSvmGrad(Elem t, const void* y, const void* label, const SvmGradArgs& a, void* gx,
                          cudaStream_t s);

// softmax_cross_entropy over rows x cols: out[0] = sum over rows of
// -log(max(softmax(row)[label], 1e-8)) (row losses in `row_loss`, rows
// doubles, summed in row order); the gradient gx = g[0] (softmax - onehot).
// A label outside [0, cols) marks its row in `bad_row` (atomicMin; reset to
// all ones before).
cudaError_t LaunchSoftmaxCrossEntropy(Elem t, const void* x, const void* label, int64_t rows,
                                      int64_t cols, double* row_loss, unsigned long long* bad_row,
                                      void* out, cudaStream_t s);
cudaError_t LaunchSoftmaxCrossEntropyGrad(Elem t, const void* g, const void* x, const void* label,
                                          int64_t rows, int64_t cols, unsigned long long* bad_row,
                                          void* gx, cudaStream_t s);

// IdentityAttachKLSparseReg's backward over data (outer, channels, inner):
// avg[c] = momentum avg[c] + (1 - momentum) mean of channel c, then
// gx = g + penalty (-target / avg[c] + (1 - target) / (1 - avg[c])).
struct KlSparseArgs {
  int64_t outer = 0, channels = 0, inner = 0;
  double target = 0, penalty = 0, momentum = 0;
};
cudaError_t LaunchKlSparseRegGrad(Elem t, const void* g, const void* x, void* avg,
                                  const KlSparseArgs& a, void* gx, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_LOSS_LAUNCH_H_
