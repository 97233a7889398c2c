// Dynamic loss scaling for float16 training (MXNet AMP's LossScaler rule):
// the loss gradient is multiplied by `scale` so small gradients survive
// float16, and the optimizer divides it out again (rescale_grad / scale).
// After each backward:
//   - a non-finite gradient anywhere: skip the update, halve the scale (not
//     below min_scale), start counting again;
//   - otherwise apply it; after `window` such steps in a row, double the
//     scale (not above max_scale).
// bfloat16 has float32's exponent range and needs no scaling.
#ifndef SYMX_TRAIN_LOSS_SCALER_H_
#define SYMX_TRAIN_LOSS_SCALER_H_

#include <cstdint>
#include <map>
#include <string>

#include "devices/tensor.h"

namespace symx::train {

struct LossScalerOptions {
  double initial_scale = 65536.0;  // 2^16, MXNet's and PyTorch's start
  double max_scale = 16777216.0;   // 2^24
  double min_scale = 1.0;
  int64_t window = 2000;
};

class LossScaler {
 public:
  // Throws symx::Error for a scale that is not a positive power of two
  // within [min_scale, max_scale] or a window below 1 (powers of two keep
  // scaling and unscaling exact).
  explicit LossScaler(const LossScalerOptions& options);

  // The scale the next backward uses.
  double scale() const { return scale_; }
  // After a backward with that scale: whether its gradients are to be
  // applied (`finite`), adjusting the scale for the next one.
  bool Update(bool finite);
  int64_t skipped() const { return skipped_; }

 private:
  LossScalerOptions options_;
  double scale_;
  int64_t good_ = 0;  // finite steps since the scale last changed
  int64_t skipped_ = 0;
};

// Whether every element of `t` (any float dtype, any device) is finite;
// integers always are. A non-host tensor is copied to the host to look.
bool AllFinite(const Tensor& t);
// The same over the defined tensors of a map.
bool AllFinite(const std::map<std::string, Tensor>& tensors);

}  // namespace symx::train

#endif  // SYMX_TRAIN_LOSS_SCALER_H_
