// Registers the ops that join arrays along an axis or cut them apart: Concat (variadic),
// SliceChannel (equal split into several outputs) and slice_axis (one range of one axis),
// with their backward ops.
#include "graph/ops/concat.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

// A bound on argument and output counts, so a typo like num_args=1e9 is an error rather than
// a billion input names.
constexpr int64_t kMaxParts = 1 << 20;

bool DimKnown(int64_t d) { return d >= 0; }

std::vector<std::string> NumberedNames(absl::string_view prefix, int64_t n) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) names.push_back(absl::StrCat(prefix, i));
  return names;
}

// ----------------------------------------------------------------------------- Concat

absl::StatusOr<OpParamPtr> ParseConcat(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ConcatParam>();
  p->num_args = r.Int("num_args");
  p->dim = r.Int("dim", 1);
  if (p->num_args < 1 || p->num_args > kMaxParts) {
    r.Fail("num_args", absl::StrCat("must be in [1, ", kMaxParts, "]"));
  }
  return r.Finish(std::move(p));
}

int64_t ConcatCount(const NodeAttrs& attrs) {
  auto p = ParamsOf<ConcatParam>(attrs, ParseConcat);
  return p ? p->num_args : 0;
}

absl::Status InferConcat(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const auto& p = Param<ConcatParam>(attrs);
  auto arg = [](size_t i) { return absl::StrCat("input arg", i); };
  int ndim = -1;
  for (const Shape& s : *in) {
    if (s.ndim_known()) ndim = s.ndim();
  }
  if (ndim < 0) ndim = (*out)[0].ndim();
  if (ndim < 0) return absl::OkStatus();
  if (ndim == 0) return absl::InvalidArgumentError("Concat: 0-dim arrays cannot be concatenated");
  int axis = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.dim, ndim, "Concat: dim", &axis));

  // Every dim but the axis is common to all inputs and the output.
  Shape common = Shape::UnknownDims(ndim);
  auto merge = [&](const Shape& s, const std::string& what) -> absl::Status {
    if (!s.ndim_known()) return absl::OkStatus();
    Shape masked = s;
    if (s.ndim() == ndim) masked[axis] = kUnknownDim;
    Shape before = common;
    if (!MergeShape(&common, masked)) {
      before[axis] = s.ndim() == ndim ? s[axis] : kUnknownDim;
      return absl::InvalidArgumentError(absl::StrCat("Shape inconsistent for ", what,
                                                     ", Provided = ", s.ToString(),
                                                     ", inferred shape = ", before.ToString()));
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < in->size(); ++i) SYMX_RETURN_IF_ERROR(merge((*in)[i], arg(i)));
  SYMX_RETURN_IF_ERROR(merge((*out)[0], "output"));

  int64_t sum = 0;
  int unknown = 0;
  size_t unknown_at = 0;
  for (size_t i = 0; i < in->size(); ++i) {
    Shape s = common;
    if ((*in)[i].ndim_known()) s[axis] = (*in)[i][axis];
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, s, arg(i)));
    if (!DimKnown(s[axis])) {
      ++unknown;
      unknown_at = i;
    } else if (__builtin_add_overflow(sum, s[axis], &sum)) {
      return absl::InvalidArgumentError("Concat: the output's concat dim overflows");
    }
  }
  Shape o = common;
  o[axis] = unknown ? kUnknownDim : sum;
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, o, "output"));
  // The output's size along the axis settles a single input whose size there is unknown.
  const int64_t total = (*out)[0][axis];
  if (unknown == 1 && DimKnown(total)) {
    if (total < sum) {
      return absl::InvalidArgumentError(
          absl::StrCat("Concat: output ", (*out)[0].ToString(), " is smaller along dim ", axis,
                       " than the other inputs together (", sum, ")"));
    }
    Shape s = (*in)[unknown_at];
    s[axis] = total - sum;
    SYMX_RETURN_IF_ERROR(AssignShape(in, unknown_at, s, arg(unknown_at)));
  }
  return absl::OkStatus();
}

std::vector<NodeEntry> ConcatGradient(const NodePtr& node,
                                      const std::vector<NodeEntry>& out_grads) {
  if (!out_grads[0].node) return std::vector<NodeEntry>(node->inputs.size());
  return MakeBackwardNode("_backward_Concat", node, {out_grads[0]});
}

// ----------------------------------------------------------------------------- SliceChannel

absl::StatusOr<OpParamPtr> ParseSliceChannel(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SliceChannelParam>();
  p->num_outputs = r.Int("num_outputs");
  p->axis = r.Int("axis", 1);
  p->squeeze_axis = r.Bool("squeeze_axis", false);
  if (p->num_outputs < 1 || p->num_outputs > kMaxParts) {
    r.Fail("num_outputs", absl::StrCat("must be in [1, ", kMaxParts, "]"));
  }
  return r.Finish(std::move(p));
}

int64_t SliceCount(const NodeAttrs& attrs) {
  auto p = ParamsOf<SliceChannelParam>(attrs, ParseSliceChannel);
  return p ? p->num_outputs : 0;
}

absl::Status InferSliceChannel(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out) {
  const auto& p = Param<SliceChannelParam>(attrs);
  const int64_t k = p.num_outputs;
  // All outputs share one shape.
  Shape o;
  for (size_t i = 0; i < out->size(); ++i) {
    if (!MergeShape(&o, (*out)[i])) {
      return absl::InvalidArgumentError(absl::StrCat("Shape inconsistent for output ", i,
                                                     ", Provided = ", (*out)[i].ToString(),
                                                     ", inferred shape = ", o.ToString()));
    }
  }
  // Backward: the input is an output widened k times along the axis (or with it restored).
  if (o.ndim_known()) {
    const int n = p.squeeze_axis ? o.ndim() + 1 : o.ndim();
    int ax = 0;
    SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, n, "SliceChannel: axis", &ax));
    Shape back = o;
    if (p.squeeze_axis) {
      std::vector<int64_t> dims = o.dims();
      dims.insert(dims.begin() + ax, k);
      back = Shape(std::move(dims));
    } else if (DimKnown(o[ax]) && __builtin_mul_overflow(o[ax], k, &back[ax])) {
      return absl::InvalidArgumentError("SliceChannel: input size along the axis overflows");
    }
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, back, "input data"));
  }
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  int ax = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, data.ndim(), "SliceChannel: axis", &ax));
  Shape part = data;
  const int64_t d = data[ax];
  if (DimKnown(d)) {
    if (d % k != 0) {
      return absl::InvalidArgumentError(absl::StrCat("SliceChannel: cannot split axis ", ax,
                                                     " of input ", data.ToString(), " into ", k,
                                                     " equal parts (num_outputs=", k, ")"));
    }
    if (p.squeeze_axis && d != k) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SliceChannel: squeeze_axis=True needs the split axis size to equal num_outputs, but "
          "axis ",
          ax, " of input ", data.ToString(), " has size ", d, " and num_outputs=", k));
    }
    part[ax] = d / k;
  }
  if (p.squeeze_axis) {
    std::vector<int64_t> dims = part.dims();
    dims.erase(dims.begin() + ax);
    part = Shape(std::move(dims));
    // Each part is 1 wide along the squeezed axis, so the input has exactly k there.
    if (!DimKnown(d)) {
      Shape filled = data;
      filled[ax] = k;
      SYMX_RETURN_IF_ERROR(AssignShape(in, 0, filled, "input data"));
    }
  }
  for (size_t i = 0; i < out->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, i, part, absl::StrCat("output", i)));
  }
  return absl::OkStatus();
}

std::vector<NodeEntry> SliceChannelGradient(const NodePtr& node,
                                            const std::vector<NodeEntry>& out_grads) {
  bool any = false;
  for (const NodeEntry& g : out_grads) any = any || g.node != nullptr;
  if (!any) return {NodeEntry{}};
  return MakeBackwardNode("_backward_SliceChannel", node, FillZeroGrads(node, out_grads));
}

// ----------------------------------------------------------------------------- slice_axis

absl::StatusOr<OpParamPtr> ParseSliceAxis(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SliceAxisParam>();
  p->axis = r.Int("axis");
  p->begin = r.Int("begin");
  // end is required, though its value may be None.
  if (attrs.count("end")) {
    p->end = r.OptionalInt("end");
  } else {
    r.Int("end");
  }
  // Where both count from the same side the range can be checked now.
  if (p->end && (p->begin >= 0) == (*p->end >= 0) && *p->end <= p->begin) {
    r.Fail("end", absl::StrCat("the range [", p->begin, ", ", *p->end, ") is empty"));
  }
  return r.Finish(std::move(p));
}

absl::Status InferSliceAxis(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const auto& p = Param<SliceAxisParam>(attrs);
  // Backward first: every dim but the sliced one is the output's.
  const Shape& o = (*out)[0];
  if (o.ndim_known()) {
    int ax = 0;
    SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, o.ndim(), "slice_axis: axis", &ax));
    Shape back = o;
    back[ax] = kUnknownDim;
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, back, "input data"));
  }
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  int ax = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, data.ndim(), "slice_axis: axis", &ax));
  Shape sliced = data;
  const int64_t d = data[ax];
  if (DimKnown(d)) {
    int64_t b = p.begin < 0 ? p.begin + d : p.begin;
    int64_t e = !p.end ? d : (*p.end < 0 ? *p.end + d : *p.end);
    if (b < 0 || e > d || b >= e) {
      return absl::InvalidArgumentError(absl::StrCat(
          "slice_axis: begin=", p.begin, ", end=", p.end ? absl::StrCat(*p.end) : "None",
          " select an empty or out-of-range part of axis ", ax, " (size ", d, ") of input ",
          data.ToString()));
    }
    sliced[ax] = e - b;
  } else {
    sliced[ax] = p.begin >= 0 && p.end && *p.end >= 0 ? *p.end - p.begin : kUnknownDim;
  }
  return AssignShape(out, 0, sliced, "output");
}

std::vector<NodeEntry> SliceAxisGradient(const NodePtr& node,
                                         const std::vector<NodeEntry>& out_grads) {
  if (!out_grads[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_slice_axis", node, {out_grads[0]});
}

}  // namespace

SYMX_REGISTER_OP("Concat")
    .Describe("Joins num_args arrays along `dim`; all other dims must agree.")
    .AddAlias("concat")
    .SetParse(ParseConcat)
    .SetVariadic("num_args")
    .SetInputNames([](const NodeAttrs& attrs) { return NumberedNames("arg", ConcatCount(attrs)); })
    .SetInferShape(InferConcat)
    .SetGradient(ConcatGradient);

static Op& symx_backward_concat_registration =
    RegisterBackwardOp("_backward_Concat", ParseConcat, {"ograd"}, [](const NodeAttrs& attrs) {
      return static_cast<int>(ConcatCount(attrs));
    }).Describe("Gradient of Concat: ograd cut back into one piece per input.");

SYMX_REGISTER_OP("SliceChannel")
    .Describe(
        "Splits the input into num_outputs equal parts along `axis`; squeeze_axis=True drops "
        "that axis (its size must then equal num_outputs).")
    .AddAlias("split")
    .SetParse(ParseSliceChannel)
    .SetOutputNames([](const NodeAttrs& attrs) {
      return NumberedNames("output", SliceCount(attrs));
    })
    .SetInferShape(InferSliceChannel)
    .SetGradient(SliceChannelGradient);

static Op& symx_backward_slice_channel_registration =
    RegisterBackwardOp(
        "_backward_SliceChannel", ParseSliceChannel,
        [](const NodeAttrs& attrs) { return NumberedNames("ograd", SliceCount(attrs)); },
        [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of SliceChannel: the output gradients joined along the axis.");

SYMX_REGISTER_OP("slice_axis")
    .Describe(
        "Takes [begin, end) of one axis; negative bounds count from the end, end=None means "
        "the axis' end.")
    .SetParse(ParseSliceAxis)
    .SetInferShape(InferSliceAxis)
    .SetGradient(SliceAxisGradient);

static Op& symx_backward_slice_axis_registration =
    RegisterBackwardOp("_backward_slice_axis", ParseSliceAxis, {"ograd"}, [](const NodeAttrs&) {
      return 1;
    }).Describe("Gradient of slice_axis: ograd placed in zeros of the input's shape.");

}  // namespace symx
