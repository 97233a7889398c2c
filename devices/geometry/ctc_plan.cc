#include "devices/geometry/ctc_plan.h"

#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "devices/geometry/ctc_math.h"
#include "devices/tensor.h"
#include "graph/ops/ctc.h"

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

std::vector<int64_t> CtcSampleTable(const CtcDims& d, const std::vector<CtcSample>& samples) {
  const int64_t smax = d.max_symbols(), per = CtcMetaPerSample(smax);
  std::vector<int64_t> meta(static_cast<size_t>(d.batch * per), 0);
  for (int64_t b = 0; b < d.batch; ++b) {
    const CtcSample& smp = samples[b];
    int64_t* m = meta.data() + b * per;
    const int64_t S = static_cast<int64_t>(smp.sym.size());
    m[0] = smp.steps;
    m[1] = S;
    m[2] = smp.feasible ? 1 : 0;
    int64_t* sym = m + 3;
    int64_t* next = sym + smax;
    int64_t* first = next + smax;
    // From the end: each position's next of its class is the last one seen.
    absl::flat_hash_map<int64_t, int64_t> later;
    for (int64_t s = S - 1; s >= 0; --s) {
      sym[s] = smp.sym[s];
      auto it = later.find(sym[s]);
      next[s] = it == later.end() ? -1 : it->second;
      later[sym[s]] = s;
    }
    for (int64_t s = 0; s < S; ++s) first[s] = later.at(sym[s]) == s ? 1 : 0;
  }
  return meta;
}

absl::StatusOr<CtcDims> CheckCtcCall(const KernelContext& ctx) {
  const auto& p = ctx.param<CTCLossParam>();
  const Tensor& data = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  if (data.shape().ndim() != 3 || label.shape().ndim() != 2) {
    return Fail(ctx, absl::StrCat("data ", data.DebugString(), " must be 3-D and label ",
                                  label.DebugString(), " 2-D"));
  }
  if (data.shape()[2] < 1) {
    return Fail(ctx, absl::StrCat("data ", data.DebugString(),
                                  " has no classes (the alphabet holds the blank)"));
  }
  for (size_t o = 0; o < 2 && o < ctx.outputs.size(); ++o) {
    if (ctx.outputs[o].dtype() != data.dtype()) {
      return UnsupportedDType(ctx, ctx.outputs[o].dtype());
    }
  }
  return CtcDimsOf({data.shape(), label.shape()}, p.blank_first);
}

absl::StatusOr<std::vector<CtcSample>> ReadCtcSamples(const KernelContext& ctx, const CtcDims& d) {
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
        return Fail(ctx,
                    absl::StrCat("label_lengths[", b, "] = ", v, " is outside [0, ", d.lmax, "]"));
      }
      len = static_cast<int64_t>(v);
    }
    s.sym.push_back(d.blank);
    for (int64_t j = 0; j < len; ++j) {
      const double v = label[b * d.lmax + j];
      if (!p.use_label_lengths && v == pad) break;
      const int64_t k = static_cast<int64_t>(std::llround(v));
      if (k < lo || k > hi || static_cast<double>(k) != v) {
        return Fail(
            ctx, absl::StrCat("label[", b, ", ", j, "] = ", v, " is not a class in [", lo, ", ", hi,
                              "] (blank_label=", p.blank_first ? "first" : "last", ")"));
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
