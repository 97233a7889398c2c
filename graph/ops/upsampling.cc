// Registers UpSampling (nearest-neighbour over any number of NCHW inputs, or bilinear with a
// learned depthwise kernel) and _backward_UpSampling.
#include "graph/ops/upsampling.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {
namespace {

// Keeps scale * size and the kernel size far from int64 limits.
constexpr int64_t kMaxScale = int64_t{1} << 20;
constexpr int64_t kMaxArgs = 1 << 16;

absl::StatusOr<OpParamPtr> ParseUpSampling(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<UpSamplingParam>();
  p->scale = r.Int("scale");
  if (p->scale < 1 || p->scale > kMaxScale) {
    r.Fail("scale", absl::StrCat("must be in [1, ", kMaxScale, "]"));
    p->scale = 1;
  }
  p->num_filter = r.Int("num_filter", 0);
  if (p->num_filter < 0) r.Fail("num_filter", "must be >= 0");
  p->sample_type = r.Enum("sample_type", {"nearest", "bilinear"});
  p->multi_input_mode = r.Enum("multi_input_mode", {"concat", "sum"}, "concat");
  p->num_args = r.Int("num_args");
  if (p->num_args < 1 || p->num_args > kMaxArgs) {
    r.Fail("num_args", absl::StrCat("must be in [1, ", kMaxArgs, "]"));
    p->num_args = 1;
  } else if (p->bilinear() && p->num_args > 2) {
    // The front end counts positional inputs: data alone, or data and weight.
    r.Fail("num_args", "bilinear upsampling takes one data input (plus its weight)");
  }
  p->workspace = r.Int("workspace", 512);
  if (p->workspace < 0 || p->workspace > 8192) r.Fail("workspace", "must be in [0, 8192] (MB)");
  return r.Finish(std::move(p));
}

std::vector<std::string> UpSamplingInputNames(const NodeAttrs& attrs) {
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  if (p.bilinear()) return {"data", "weight"};
  std::vector<std::string> names;
  for (int64_t i = 0; i < p.num_args; ++i) names.push_back(absl::StrCat("arg", i));
  return names;
}

int64_t Scaled(int64_t x, int64_t scale) {
  int64_t y;
  return x == kUnknownDim || __builtin_mul_overflow(x, scale, &y) ? kUnknownDim : y;
}

absl::Status CheckNCHW(const Shape& s, const std::string& what) {
  if (s.ndim_known() && s.ndim() != 4) {
    return ShapeError(what, s, "4 dims (batch, channel, height, width)");
  }
  return absl::OkStatus();
}

absl::Status InferBilinear(const UpSamplingParam& p, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(CheckNCHW((*in)[0], "input data"));
  SYMX_RETURN_IF_ERROR(CheckNCHW((*out)[0], "output"));
  // Only unknown data dims are filled, so that conflicts are reported on the other slots.
  Shape from_back = (*in)[0].ndim_known() ? (*in)[0] : Shape::UnknownDims(4);
  if ((*in)[1].ndim() == 4 && from_back[1] == kUnknownDim) from_back[1] = (*in)[1][0];
  if ((*out)[0].ndim_known()) {
    for (int d : {0, 1}) {
      if (from_back[d] == kUnknownDim) from_back[d] = (*out)[0][d];
    }
  }
  if ((*in)[0].ndim_known() || (*out)[0].ndim_known() || (*in)[1].ndim_known()) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, from_back, "input data"));
  }
  const Shape data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  const int64_t c = data[1];
  if (c != kUnknownDim && c != p.num_filter) {
    return absl::InvalidArgumentError(
        absl::StrCat("UpSampling: bilinear needs num_filter equal to the data's channels (", c,
                     "), got num_filter ", p.num_filter, " for data ", data.ToString()));
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{c, 1, p.kernel(), p.kernel()}, "input weight"));
  return AssignShape(out, 0, Shape{data[0], c, Scaled(data[2], p.scale), Scaled(data[3], p.scale)},
                     "output");
}

// Backward for nearest: the batch goes to every input, the output size to the first input
// when it divides, the channels when they are not split among concatenated inputs. Only
// unknown dims are filled, so that conflicts are reported on the output.
absl::Status FillNearestFromOutput(const UpSamplingParam& p, std::vector<Shape>* in,
                                   const Shape& o) {
  if (!o.ndim_known()) return absl::OkStatus();
  const size_t n = in->size();
  const bool sum = p.multi_input_mode == "sum";
  for (size_t i = 0; i < n; ++i) {
    Shape from_out = (*in)[i].ndim_known() ? (*in)[i] : Shape::UnknownDims(4);
    auto fill = [&](int d, int64_t v) {
      if (from_out[d] == kUnknownDim) from_out[d] = v;
    };
    fill(0, o[0]);
    if (sum || n == 1) fill(1, o[1]);
    if (i == 0) {
      for (int d : {2, 3}) {
        if (o[d] != kUnknownDim && o[d] % p.scale == 0) fill(d, o[d] / p.scale);
      }
    }
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, from_out, absl::StrCat("input arg", i)));
  }
  return absl::OkStatus();
}

// Nearest: every input is repeated up to the first input's size times `scale`; the results
// are concatenated or summed along channels.
absl::Status InferNearest(const UpSamplingParam& p, std::vector<Shape>* in,
                          std::vector<Shape>* out) {
  const size_t n = in->size();
  for (size_t i = 0; i < n; ++i) {
    SYMX_RETURN_IF_ERROR(CheckNCHW((*in)[i], absl::StrCat("input arg", i)));
  }
  SYMX_RETURN_IF_ERROR(CheckNCHW((*out)[0], "output"));
  const bool sum = p.multi_input_mode == "sum";
  SYMX_RETURN_IF_ERROR(FillNearestFromOutput(p, in, (*out)[0]));
  const Shape& first = (*in)[0];
  if (!first.ndim_known()) return absl::OkStatus();

  Shape result = Shape::UnknownDims(4);
  result[0] = first[0];
  result[1] = first[1];
  result[2] = Scaled(first[2], p.scale);
  result[3] = Scaled(first[3], p.scale);
  for (size_t i = 1; i < n; ++i) {
    const Shape& s = (*in)[i];
    const std::string what = absl::StrCat("input arg", i);
    if (!s.ndim_known()) {
      if (!sum) result[1] = kUnknownDim;
      continue;
    }
    if (result[0] != kUnknownDim && s[0] != kUnknownDim && s[0] != result[0]) {
      return ShapeError(what, s, absl::StrCat("batch size ", result[0], " like input arg0"));
    }
    for (int d : {2, 3}) {
      if (result[d] != kUnknownDim && s[d] != kUnknownDim && (s[d] < 1 || result[d] % s[d])) {
        return ShapeError(
            what, s, absl::StrCat("a size dividing the output size ", result[d], " in dim ", d));
      }
    }
    if (sum) {
      if (result[1] == kUnknownDim) {
        result[1] = s[1];
      } else if (s[1] != kUnknownDim && s[1] != result[1]) {
        return ShapeError(what, s, absl::StrCat(result[1], " channels like input arg0 (mode sum)"));
      }
    } else if (result[1] == kUnknownDim || s[1] == kUnknownDim ||
               __builtin_add_overflow(result[1], s[1], &result[1])) {
      result[1] = kUnknownDim;
    }
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, result, "output"));
  // What the output now knows (the batch) reaches the other inputs in this same pass.
  return FillNearestFromOutput(p, in, (*out)[0]);
}

absl::Status UpSamplingInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                  std::vector<Shape>* out) {
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  return p.bilinear() ? InferBilinear(p, in, out) : InferNearest(p, in, out);
}

std::vector<NodeEntry> UpSamplingGradient(const NodePtr& node,
                                          const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  std::vector<NodeEntry> inputs = {ograds[0]};
  if (Param<UpSamplingParam>(node->attrs).bilinear()) {
    inputs.push_back(node->inputs[0]);
    inputs.push_back(node->inputs[1]);
  }
  return MakeBackwardNode("_backward_UpSampling", node, std::move(inputs));
}

SYMX_REGISTER_OP("UpSampling")
    .Describe(
        "Upsamples NCHW inputs by an integer scale: nearest-neighbour (several inputs, "
        "concatenated or summed along channels) or bilinear (a learned kernel).")
    .SetParse(ParseUpSampling)
    .SetVariadic("num_args")
    .SetInputNames(UpSamplingInputNames)
    .SetInferShape(UpSamplingInferShape)
    .SetGradient(UpSamplingGradient);

Op& backward_upsampling_registration = RegisterBackwardOp(
    "_backward_UpSampling", ParseUpSampling,
    [](const NodeAttrs& attrs) {
      if (Param<UpSamplingParam>(attrs).bilinear()) {
        return std::vector<std::string>{"ograd", "data", "weight"};
      }
      return std::vector<std::string>{"ograd"};
    },
    [](const NodeAttrs& attrs) {
      const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
      return p.bilinear() ? 2 : static_cast<int>(p.num_args);
    });

}  // namespace
}  // namespace symx
