#include "devices/ctc_plan.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "devices/tensor.h"
#include "graph/ops/ctc_loss.h"

namespace symx {
CtcDims CtcDimsOf(const std::vector<Shape>& in, bool blank_first) {
  CtcDims d;
  if (in.size() < 2 || in[0].ndim() != 3 || in[1].ndim() != 2) return d;
  d.tmax = in[0][0];
  d.batch = in[0][1];
  d.alphabet = in[0][2];
  d.lmax = in[1][1];
  d.blank = blank_first ? 0 : d.alphabet - 1;
  return d;
}

int64_t CtcScratchPerSample(const CtcDims& d) {
  return d.tmax * d.alphabet + 2 * d.tmax * d.max_symbols();
}

absl::StatusOr<CtcDims> CheckCtcCall(const KernelContext& ctx) {
  const auto& p = ctx.param<CTCLossParam>();
  const Tensor& data = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  if (data.shape().ndim() != 3 || label.shape().ndim() != 2) {
    return Fail(ctx, absl::StrCat("data ", data.DebugString(), " must be 3-D and label ",
                                  label.DebugString(), " 2-D"));
  }
  for (size_t o = 0; o < 2 && o < ctx.outputs.size(); ++o) {
    if (ctx.outputs[o].dtype() != data.dtype()) {
      return UnsupportedDType(ctx, ctx.outputs[o].dtype());
    }
  }
  return CtcDimsOf({data.shape(), label.shape()}, p.blank_first);
}

absl::StatusOr<std::vector<CtcSample>> ReadCtcSamples(const KernelContext& ctx,
                                                      const CtcDims& d) {
  const auto& p = ctx.param<CTCLossParam>();
  SYMX_ASSIGN_OR_RETURN(std::vector<double> label, HostDoubles(ctx.inputs[1]));
  std::vector<double> data_lengths, label_lengths;
  int next = 2;
  if (p.use_data_lengths) {
    SYMX_ASSIGN_OR_RETURN(data_lengths, HostDoubles(ctx.inputs[next++]));
  }
  if (p.use_label_lengths) {
    SYMX_ASSIGN_OR_RETURN(label_lengths, HostDoubles(ctx.inputs[next]));
  }
  const double pad = p.blank_first ? 0 : -1;
  const int64_t lo = p.blank_first ? 1 : 0, hi = p.blank_first ? d.alphabet - 1 : d.alphabet - 2;
  std::vector<CtcSample> samples(d.batch);
  for (int64_t b = 0; b < d.batch; ++b) {
    CtcSample& s = samples[b];
    s.steps = d.tmax;
    if (p.use_data_lengths) {
      const double v = b < static_cast<int64_t>(data_lengths.size()) ? data_lengths[b] : -1;
      if (!(v >= 0 && v <= static_cast<double>(d.tmax))) {
        return Fail(ctx,
                    absl::StrCat("data_lengths[", b, "] = ", v, " is outside [0, ", d.tmax, "]"));
      }
      s.steps = static_cast<int64_t>(v);
    }
    int64_t len = d.lmax;
    if (p.use_label_lengths) {
      const double v = b < static_cast<int64_t>(label_lengths.size()) ? label_lengths[b] : -1;
      if (!(v >= 0 && v <= static_cast<double>(d.lmax))) {
        return Fail(ctx, absl::StrCat("label_lengths[", b, "] = ", v, " is outside [0, ", d.lmax,
                                      "]"));
      }
      len = static_cast<int64_t>(v);
    }
    s.sym.push_back(d.blank);
    for (int64_t j = 0; j < len; ++j) {
      const double v = label[b * d.lmax + j];
      if (!p.use_label_lengths && v == pad) break;
      const int64_t k = static_cast<int64_t>(std::llround(v));
      if (k < lo || k > hi || static_cast<double>(k) != v) {
        return Fail(ctx, absl::StrCat("label[", b, ", ", j, "] = ", v, " is not a class in [",
                                      lo, ", ", hi, "] (blank_label=",
                                      p.blank_first ? "first" : "last", ")"));
      }
      s.sym.push_back(k);
      s.sym.push_back(d.blank);
    }
    const int64_t labels = static_cast<int64_t>(s.sym.size()) / 2;
    int64_t repeats = 0;
    for (int64_t j = 1; j < labels; ++j) repeats += s.sym[2 * j + 1] == s.sym[2 * j - 1];
    s.feasible = labels + repeats <= s.steps;
  }
  return samples;
}

}  // namespace symx
