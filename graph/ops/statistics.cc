// The statistics family: _histogram (MXNet's mx.nd.histogram underneath).
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

}  // namespace
}  // namespace symx
