// CTCLoss's host-side plan for every device: the shape and dtype checks, each
// sample's extended label read (and checked) from the label and length
// inputs, and the scratch the kernels need.
#ifndef SYMX_DEVICES_GEOMETRY_CTC_PLAN_H_
#define SYMX_DEVICES_GEOMETRY_CTC_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/kernel.h"

namespace symx {

// The sizes of one call: data (tmax, batch, alphabet), label (batch, lmax).
struct CtcDims {
  int64_t tmax = 0, batch = 0, alphabet = 0, lmax = 0;
  int64_t blank = 0;  // the blank's class
  int64_t max_symbols() const { return 2 * lmax + 1; }
};

// One sample: its steps T_b and extended label l' (blank, l1, blank, ...,
// blank). A label that cannot fit (L + repeats > T_b) is infeasible: loss 0
// and gradient 0, as MXNet.
struct CtcSample {
  int64_t steps = 0;
  std::vector<int64_t> sym;
  bool feasible = true;
};

// Checks the inputs' ranks and the outputs' dtypes (the data's).
absl::StatusOr<CtcDims> CheckCtcCall(const KernelContext& ctx);

// Every sample, from the label and length inputs wherever they live (a GPU's
// are copied to the host, after the work that writes them): lengths outside
// their range and labels that are not classes are errors naming the entry.
absl::StatusOr<std::vector<CtcSample>> ReadCtcSamples(const KernelContext& ctx, const CtcDims& d);

// The GPU kernel's sample table (devices/geometry/ctc_math.h's CtcMetaPerSample
// layout): per sample its steps, symbol count and feasibility, then per
// extended-label position its class, the next position of that class (-1:
// none) and whether it is the class's first.
std::vector<int64_t> CtcSampleTable(const CtcDims& d, const std::vector<CtcSample>& samples);

// Doubles of scratch per sample: log softmax (tmax * alphabet), alpha and
// beta (tmax * max_symbols each).
int64_t CtcScratchPerSample(const CtcDims& d);
// The dims from the input shapes (zeros when they are not 3-D and 2-D).
CtcDims CtcDimsOf(const std::vector<Shape>& in, bool blank_first);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_CTC_PLAN_H_
