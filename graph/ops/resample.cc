// The resample family: UpSampling, _contrib_BilinearResize2D and
// _contrib_AdaptiveAvgPooling2D, with their backward ops.
//
// Registers UpSampling (nearest-neighbour over any number of NCHW inputs, or bilinear with a
// learned depthwise kernel) and _backward_UpSampling.
//
// Facts checked against a live MXNet 1.9.1:
// - _contrib_AdaptiveAvgPooling2D: 4-D data; output_size () -> 1x1, (k,) -> kxk;
//   cell (i, j) averages rows [floor(i*H/h), ceil((i+1)*H/h)) and likewise columns
//   (the output may be larger than the input).
// - _contrib_BilinearResize2D: 4-D data; mode size (height/width, or both scales:
//   out = int(float(in) * scale), the sizes then ignored), like (second input
//   `like` gives H and W, zero gradient), odd_scale and to_{even,odd}_{down,up}
//   (see BilinearOutputDim in resample.h). Source coordinate of output index i:
//   align_corners (MXNet's default) i*(in-1)/(out-1), else
//   max((i+0.5)*in/out-0.5, 0); an output size of 1 always samples index 0.
// Head gradients on hidden or statistics outputs are ignored, as in MXNet.
#include "graph/ops/resample.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/ops/softmax.h"
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

namespace {

// ------------------------------------------------------------------ AdaptiveAvgPooling2D

absl::StatusOr<OpParamPtr> ParseAdaptiveAvgPooling2D(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<AdaptiveAvgPooling2DParam>();
  std::vector<int64_t> size = r.Tuple("output_size", {});
  if (size.size() > 2) {
    r.Fail("output_size", "must be (), (size,) or (height, width)");
  } else if (size.size() == 1) {
    p->out_h = p->out_w = size[0];
  } else if (size.size() == 2) {
    p->out_h = size[0];
    p->out_w = size[1];
  }
  if (p->out_h < 1 || p->out_w < 1) r.Fail("output_size", "sizes must be >= 1");
  return r.Finish(std::move(p));
}

absl::Status InferAdaptiveAvgPooling2DShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                            std::vector<Shape>* out) {
  const auto& p = Param<AdaptiveAvgPooling2DParam>(attrs);
  const Shape& d = (*in)[0];
  if (d.ndim_known() && d.ndim() != 4) {
    return ShapeError("input data", d, "4 dims (batch, channel, height, width)");
  }
  const Shape& o = (*out)[0];
  if (o.ndim_known() && o.ndim() != 4) return ShapeError("output", o, "4 dims");
  Shape nc = Shape::UnknownDims(4);
  for (const Shape* s : {&d, &o}) {
    if (!s->ndim_known()) continue;
    if (nc[0] == kUnknownDim) nc[0] = (*s)[0];
    if (nc[1] == kUnknownDim) nc[1] = (*s)[1];
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, nc, "input data"));
  nc[2] = p.out_h;
  nc[3] = p.out_w;
  return AssignShape(out, 0, nc, "output");
}

// "<backward_op>"(ograd) for input 0; a second (shape-only) input gets zero.
GradientFn SingleBackwardGradient(std::string backward_op) {
  return [backward_op](const NodePtr& node,
                       const std::vector<NodeEntry>& ograds) -> std::vector<NodeEntry> {
    std::vector<NodeEntry> grads(node->inputs.size());
    if (!ograds[0].node) return grads;
    grads[0] = MakeBackwardNode(backward_op, node, {ograds[0]})[0];
    return grads;
  };
}

// ------------------------------------------------------------------ BilinearResize2D

absl::StatusOr<OpParamPtr> ParseBilinearResize2D(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BilinearResize2DParam>();
  p->height = r.Int("height", 1);
  p->width = r.Int("width", 1);
  p->scale_height = r.OptionalFloat("scale_height");
  p->scale_width = r.OptionalFloat("scale_width");
  p->mode = r.Enum(
      "mode",
      {"like", "odd_scale", "size", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up"},
      "size");
  p->align_corners = r.Bool("align_corners", true);
  if (p->mode == "odd_scale" && !p->scale_height && !p->scale_width) {
    r.Fail("mode", "mode=odd_scale needs scale_height and scale_width");
  }
  if (p->height < 1) r.Fail("height", "must be >= 1");
  if (p->width < 1) r.Fail("width", "must be >= 1");
  if (p->scale_height.has_value() != p->scale_width.has_value()) {
    r.Fail(p->scale_height ? "scale_width" : "scale_height",
           "scale_height and scale_width must be given together");
  }
  for (const auto& [key, v] :
       {std::pair<const char*, std::optional<double>>{"scale_height", p->scale_height},
        {"scale_width", p->scale_width}}) {
    if (v && !(*v > 0 && std::isfinite(*v))) r.Fail(key, "must be a finite number > 0");
  }
  return r.Finish(std::move(p));
}

bool BilinearLike(const NodeAttrs& attrs) {
  if (attrs.parsed) return Param<BilinearResize2DParam>(attrs).like();
  auto it = attrs.dict.find("mode");
  return it != attrs.dict.end() && it->second == "like";
}

absl::Status InferBilinearResize2DShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                        std::vector<Shape>* out) {
  const auto& p = Param<BilinearResize2DParam>(attrs);
  const Shape& d = (*in)[0];
  if (d.ndim_known() && d.ndim() != 4) {
    return ShapeError("input data", d, "4 dims (batch, channel, height, width)");
  }
  if (p.like() && (*in)[1].ndim_known() && (*in)[1].ndim() != 4) {
    return ShapeError("input like", (*in)[1], "4 dims (batch, channel, height, width)");
  }
  const Shape& o = (*out)[0];
  if (o.ndim_known() && o.ndim() != 4) return ShapeError("output", o, "4 dims");
  Shape nc = Shape::UnknownDims(4);
  for (const Shape* s : {&d, &o}) {
    if (!s->ndim_known()) continue;
    if (nc[0] == kUnknownDim) nc[0] = (*s)[0];
    if (nc[1] == kUnknownDim) nc[1] = (*s)[1];
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, nc, "input data"));
  const Shape& data = (*in)[0];
  if (p.like()) {
    if ((*in)[1].ndim_known()) {
      nc[2] = (*in)[1][2];
      nc[3] = (*in)[1][3];
    }
  } else if (p.mode == "size" && !p.scale_height) {
    nc[2] = p.height;
    nc[3] = p.width;
  } else if (data[2] != kUnknownDim && data[3] != kUnknownDim) {
    nc[2] = BilinearOutputDim(p, data[2], p.height, p.scale_height);
    nc[3] = BilinearOutputDim(p, data[3], p.width, p.scale_width);
    if (nc[2] < 1 || nc[3] < 1) {
      std::string scales;
      if (p.scale_height) {
        scales = absl::StrCat(" with scales (", *p.scale_height, ", ", *p.scale_width, ")");
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "_contrib_BilinearResize2D: mode=", p.mode, scales, " gives an empty output (", nc[2],
          ", ", nc[3], ") for input data ", data.ToString()));
    }
  }
  return AssignShape(out, 0, nc, "output");
}

}  // namespace

SYMX_REGISTER_OP("_contrib_AdaptiveAvgPooling2D")
    .Describe(
        "Average pooling of 4-D data to a fixed (height, width): output cell (i, j) averages "
        "rows [floor(i*H/h), ceil((i+1)*H/h)) and the same for columns.")
    .SetParse(ParseAdaptiveAvgPooling2D)
    .SetInferShape(InferAdaptiveAvgPooling2DShape)
    .SetGradient(SingleBackwardGradient("_backward_contrib_AdaptiveAvgPooling2D"));

static Op& symx_backward_adaptive_avg_pooling_registration =
    RegisterBackwardOp("_backward_contrib_AdaptiveAvgPooling2D", ParseAdaptiveAvgPooling2D,
                       {"ograd"}, [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of _contrib_AdaptiveAvgPooling2D: ograd spread over each cell.");

SYMX_REGISTER_OP("_contrib_BilinearResize2D")
    .Describe(
        "Bilinear resize of 4-D data to (height, width), to the input size times the scales, "
        "to the second input's height and width (mode=like), or to a size derived from the "
        "input's (odd_scale, to_even_down/up, to_odd_down/up); align_corners as MXNet.")
    .SetParse(ParseBilinearResize2D)
    .SetInputNames([](const NodeAttrs& attrs) {
      return BilinearLike(attrs) ? std::vector<std::string>{"data", "like"}
                                 : std::vector<std::string>{"data"};
    })
    .SetInferShape(InferBilinearResize2DShape)
    .SetInferType([](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
      SYMX_RETURN_IF_ERROR(AssignType(out, 0, (*in)[0], "output"));
      SYMX_RETURN_IF_ERROR(AssignType(in, 0, (*out)[0], "input data"));
      if (in->size() > 1 && (*in)[1] == DType::kUnknown) (*in)[1] = (*in)[0];
      return absl::OkStatus();
    })
    .SetGradient(SingleBackwardGradient("_backward_contrib_BilinearResize2D"));

static Op& symx_backward_bilinear_resize_registration =
    RegisterBackwardOp("_backward_contrib_BilinearResize2D", ParseBilinearResize2D, {"ograd"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of _contrib_BilinearResize2D for data (like gets zero).");

}  // namespace symx
