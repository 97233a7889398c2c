// The statistics family: _histogram (MXNet's mx.nd.histogram underneath) and
// _contrib_hawkesll (the log likelihood of marked Hawkes processes).
//
// Facts checked against a live MXNet 1.9.1:
// - bin_cnt and range come together (bin_cnt bins over range, one input:
//   data) or not at all (input 1, bins, holds the edges). Output 0 holds the
//   int64 counts, output 1 the edges in data's dtype: range split evenly (each
//   edge computed in double, then cast to the dtype) or a copy of bins.
// - data of any shape is counted flat; values outside [first edge, last edge]
//   and NaNs are not counted; the last bin includes its right edge.
// - A range with equal ends becomes [lo - 0.5, hi + 0.5].
// - It has no gradient (MXNet registers none); symx lets none flow through it.
//
// _contrib_hawkesll (src/operator/contrib/hawkes_ll-inl.h), checked against
// MXNet 1.9.1:
// - Inputs lda (N, K), alpha (K), beta (K), state (N, K), lags (N, T), marks
//   (N, T), valid_length (N), max_time (N); outputs the log likelihood (N) and
//   the state at max_time (N, K). marks is int32 in MXNet; symx also takes
//   float32/64 and the other integer dtypes (truncated).
// - Sample i walks its events j < valid_length[i] (a float: 2.5 takes 3).
// - The gradient is MXNet's: lda, alpha and beta get d ll / d x times ll's head
//   gradient; the head gradient of out_state is not propagated and state,
//   lags, marks, valid_length and max_time get zero (MXNet leaves state's
//   unwritten and refuses to differentiate the others; docs/numerics.md,
//   erratum 22).
// - A mark outside [0, K) or a valid_length above T is an error naming the
//   sample (MXNet reads out of bounds).
#include "graph/ops/statistics.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseHistogram(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<HistogramParam>();
  const std::optional<int64_t> cnt = r.OptionalInt("bin_cnt");
  // range is "None" or a pair; a missing one is MXNet's None.
  std::vector<double> range;
  if (r.String("range", "None") != "None") range = r.FloatTuple("range");
  if (cnt.has_value() != !range.empty()) {
    r.Fail(cnt ? "range" : "bin_cnt", "bin_cnt and range must be given together, or neither");
  } else if (cnt) {
    p->uniform = true;
    p->bin_cnt = *cnt;
    if (*cnt < 1) r.Fail("bin_cnt", absl::StrCat("must be >= 1, got ", *cnt));
    if (range.size() != 2) {
      r.Fail("range", absl::StrCat("expected 2 values (lo, hi), got ", range.size()));
    } else if (!std::isfinite(range[0]) || !std::isfinite(range[1])) {
      r.Fail("range", "must be finite");
    } else if (range[0] > range[1]) {
      r.Fail("range", absl::StrCat("lo (", range[0], ") must not exceed hi (", range[1], ")"));
    } else {
      p->lo = range[0];
      p->hi = range[1];
      if (p->lo == p->hi) {
        p->lo -= 0.5;
        p->hi += 0.5;
      }
    }
  }
  return r.Finish(std::move(p));
}

const HistogramParam& HistParam(const NodeAttrs& attrs) { return Param<HistogramParam>(attrs); }

std::vector<std::string> HistogramInputs(const NodeAttrs& attrs) {
  if (HistParam(attrs).uniform) return {"data"};
  return {"data", "bins"};
}

absl::Status HistogramShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const HistogramParam& p = HistParam(attrs);
  if (p.uniform) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape{p.bin_cnt}, "histogram"));
    return AssignShape(out, 1, Shape{p.bin_cnt + 1}, "bin edges");
  }
  Shape bins = (*in)[1];
  if (!bins.ndim_known() && (*out)[1].ndim_known()) bins = (*out)[1];
  if (!bins.ndim_known()) return absl::OkStatus();
  if (bins.ndim() != 1 || (bins[0] != kUnknownDim && bins[0] < 2)) {
    return ShapeError("bins", bins, "1 dim with at least 2 edges");
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, bins, "bins"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 1, bins, "bin edges"));
  if (bins[0] == kUnknownDim) return absl::OkStatus();
  return AssignShape(out, 0, Shape{bins[0] - 1}, "histogram");
}

absl::Status HistogramType(const NodeAttrs& attrs, std::vector<DType>* in,
                           std::vector<DType>* out) {
  DType t = (*in)[0];
  if (t == DType::kUnknown && in->size() > 1) t = (*in)[1];
  if (t == DType::kUnknown) t = (*out)[1];
  SYMX_RETURN_IF_ERROR(AssignType(out, 0, DType::kInt64, "histogram"));
  if (t == DType::kUnknown) return absl::OkStatus();
  switch (t) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("_histogram: data of dtype ", DTypeName(t),
                       " is not supported (float16/32/64, uint8, int8, int32, int64)"));
  }
  for (size_t i = 0; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignType(in, i, t, i == 0 ? "data" : "bins"));
  }
  return AssignType(out, 1, t, "bin edges");
}

SYMX_REGISTER_OP("_histogram")
    .Describe(
        "Counts of data's values (flattened) per bin: bin_cnt equal bins over range, or the "
        "edges in bins; outputs the int64 counts and the edges.")
    .SetParse(ParseHistogram)
    .SetInputNames(HistogramInputs)
    .SetOutputNames({"output0", "output1"})
    .SetInferShape(HistogramShape)
    .SetInferType(HistogramType)
    .SetNonDifferentiable();

constexpr const char* kHawkesInputs[] = {"lda",  "alpha", "beta",         "state",
                                         "lags", "marks", "valid_length", "max_time"};

absl::Status HawkesShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  // N from lda, state, lags, marks, valid_length, max_time; K from lda, alpha,
  // beta, state; T from lags, marks.
  int64_t n = kUnknownDim, k = kUnknownDim, t = kUnknownDim;
  const int ndims[] = {2, 1, 1, 2, 2, 2, 1, 1};
  // Which of (N, K, T) each dim of each input is: 0 N, 1 K, 2 T.
  const std::vector<std::vector<int>> roles = {{0, 1}, {1}, {1}, {0, 1}, {0, 2}, {0, 2}, {0}, {0}};
  int64_t* sizes[] = {&n, &k, &t};
  const char* names[] = {"N (samples)", "K (processes)", "T (events)"};
  for (size_t i = 0; i < 8; ++i) {
    const Shape& s = (*in)[i];
    if (!s.ndim_known()) continue;
    if (s.ndim() != ndims[i]) {
      return ShapeError(kHawkesInputs[i], s,
                        absl::StrCat(ndims[i],
                                     " dims (_contrib_hawkesll: lda (N, K), alpha (K), "
                                     "beta (K), state (N, K), lags (N, T), marks (N, "
                                     "T), valid_length (N), max_time (N))"));
    }
    for (size_t d = 0; d < roles[i].size(); ++d) {
      int64_t& size = *sizes[roles[i][d]];
      if (s[d] == kUnknownDim) continue;
      if (size != kUnknownDim && size != s[d]) {
        return absl::InvalidArgumentError(
            absl::StrCat("_contrib_hawkesll: ", kHawkesInputs[i], " of shape ", s.ToString(),
                         " disagrees on ", names[roles[i][d]], " = ", size, " (lda ",
                         (*in)[0].ToString(), ", lags ", (*in)[4].ToString(), ")"));
      }
      size = s[d];
    }
  }
  for (size_t i = 0; i < 8; ++i) {
    Shape s = Shape::UnknownDims(ndims[i]);
    for (size_t d = 0; d < roles[i].size(); ++d) s[d] = *sizes[roles[i][d]];
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, s, kHawkesInputs[i]));
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape{n}, "log likelihood"));
  return AssignShape(out, 1, Shape{n, k}, "out_state");
}

absl::Status HawkesType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = DType::kUnknown;
  for (size_t i = 0; i < in->size() && t == DType::kUnknown; ++i) {
    if (i != 5) t = (*in)[i];
  }
  if (t == DType::kUnknown) t = (*out)[0] != DType::kUnknown ? (*out)[0] : (*out)[1];
  if ((*in)[5] == DType::kUnknown) SYMX_RETURN_IF_ERROR(AssignType(in, 5, DType::kInt32, "marks"));
  if ((*in)[5] == DType::kBool || (*in)[5] == DType::kBFloat16 || (*in)[5] == DType::kFloat16) {
    return absl::InvalidArgumentError(absl::StrCat("_contrib_hawkesll: marks of dtype ",
                                                   DTypeName((*in)[5]), " are not supported"));
  }
  if (t == DType::kUnknown) return absl::OkStatus();
  if (t != DType::kFloat32 && t != DType::kFloat64) {
    return absl::InvalidArgumentError(absl::StrCat("_contrib_hawkesll: dtype ", DTypeName(t),
                                                   " is not supported (float32, float64)"));
  }
  for (size_t i = 0; i < in->size(); ++i) {
    if (i != 5) SYMX_RETURN_IF_ERROR(AssignType(in, i, t, kHawkesInputs[i]));
  }
  SYMX_RETURN_IF_ERROR(AssignType(out, 0, t, "log likelihood"));
  return AssignType(out, 1, t, "out_state");
}

std::vector<NodeEntry> HawkesGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> grads(8);
  if (og[0].node) {
    std::vector<NodeEntry> inputs = {og[0]};
    for (const NodeEntry& e : node->inputs) inputs.push_back(e);
    std::vector<NodeEntry> g = MakeBackwardNode("_backward_contrib_hawkesll", node, inputs);
    for (int i = 0; i < 3; ++i) grads[i] = g[i];
  }
  for (int i = 0; i < 8; ++i) {
    if (!grads[i].node) {
      grads[i] = MakeZerosLike(node->inputs[i], node->name() + "_" + kHawkesInputs[i]);
    }
  }
  return grads;
}

SYMX_REGISTER_OP("_contrib_hawkesll")
    .Describe(
        "Log likelihood of N samples of K marked Hawkes processes with exponential kernels over "
        "(0, max_time], and each sample's state at max_time.")
    .SetParse(ParseNoParams)
    .SetInputNames({"lda", "alpha", "beta", "state", "lags", "marks", "valid_length", "max_time"})
    .SetOutputNames({"output", "out_state"})
    .SetInferShape(HawkesShape)
    .SetInferType(HawkesType)
    .SetGradient(HawkesGradient);

// Inputs: ll's head gradient, then the forward inputs. Outputs: the gradients
// of lda, alpha and beta.
Op& backward_hawkes_registration = RegisterBackwardOp(
    "_backward_contrib_hawkesll", ParseNoParams,
    {"ograd", "lda", "alpha", "beta", "state", "lags", "marks", "valid_length", "max_time"},
    [](const NodeAttrs&) { return 3; });

}  // namespace
}  // namespace symx
