// Runs one UlpCase's operator through a bound executor over a set of inputs
// on one device and measures its error against the long double reference.
//
// Inputs: float16 and bfloat16 take all 65,536 bit patterns; float32 takes
// every bit pattern (Coverage::kFull, 2^32 inputs: minutes per function) or
// every `float32_stride`-th one (kSample, the CI's ~1M); float64 takes random
// bit patterns and uniform values in [-40, 40] (a fixed seed).
#ifndef SYMX_TOOLS_ULP_ULP_SWEEP_H_
#define SYMX_TOOLS_ULP_ULP_SWEEP_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "devices/context.h"
#include "graph/dtype.h"
#include "tools/ulp/ulp_cases.h"

namespace symx::ulp {

enum class Coverage { kSample, kFull };

struct SweepOptions {
  DType dtype = DType::kFloat32;
  Context ctx = Context::CPU(0);
  Coverage coverage = Coverage::kSample;
  uint64_t float32_stride = 4099;     // kSample: 1,047,807 float32 inputs
  int64_t float64_samples = 1 << 20;  // kSample; kFull takes 16 times as many
  int64_t chunk = 1 << 22;            // elements per Forward
};

struct SweepResult {
  int64_t tested = 0;
  long double max_ulp = 0;  // +inf when a special value was wrong
  double worst_input = 0;
  long double worst_got = 0, worst_want = 0;
  int64_t over_bound = 0;  // inputs whose error exceeds the stated bound
  double bound = 0;        // the stated bound; 0 when the dtype is not claimed
};

// Errors: the op refuses the dtype or device, or the bind fails.
absl::StatusOr<SweepResult> Sweep(const UlpCase& c, const SweepOptions& options);

}  // namespace symx::ulp

#endif  // SYMX_TOOLS_ULP_ULP_SWEEP_H_
