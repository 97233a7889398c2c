// The layout family: ops that rearrange an array's elements or report its
// layout, as MXNet 1.9.1 defines them (checked against it).
//
// - reshape_like(lhs, rhs): lhs's elements with lhs dims [lhs_begin, lhs_end)
//   replaced by rhs dims [rhs_begin, rhs_end) (negative bounds count from the
//   end). Only rhs's shape is read; its gradient is zero, lhs's the output
//   gradient viewed back (reshape_like(ograd, lhs)). May run in place.
// - shape_array / size_array: the input's shape (ndim,) / element count (1,)
//   as int64. Not differentiable.
// - depth_to_space / space_to_depth: 4-D (N, C, H, W) data; depth_to_space
//   moves channel blocks into b x b spatial blocks, (N, C, H, W) ->
//   (N, C/b^2, H*b, W*b), the channel of out(n, c, h*b+i, w*b+j) being
//   (i*b + j) * C/b^2 + c; space_to_depth is its inverse. Each is the
//   other's gradient.
// - _split_v2: parts of one axis at boundaries (`indices`, part i from
//   indices[i] to the next boundary or the axis' end) or in `sections`
//   near-equal parts; squeeze_axis drops the axis from parts of length 1.
//   MXNet's split_v2 front passes indices starting at 0; elements before a
//   first boundary > 0 belong to no part and get a zero gradient
//   (_backward_split_v2).
// - im2col(data): (N, C, spatial...) -> (N, C * prod(kernel), L), column l
//   the l-th kernel position, zeros in the padding; col2im(data): the
//   columns summed back into (N, C, output_size...). Each is the other's
//   gradient (im2col's through _backward_im2col, which takes the image's
//   size from the input it is the gradient of). float types, as MXNet.
#include "graph/ops/layout.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/dtype.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

namespace {

std::string OptText(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : std::string("None");
}

// One side's [begin, end) for `ndim` dims, MXNet's way.
absl::Status Range(const char* side, int ndim, const std::optional<int64_t>& begin,
                   const std::optional<int64_t>& end, int64_t* b, int64_t* e) {
  *b = begin.value_or(0);
  if (*b < 0) *b += ndim;
  *e = end ? *end : ndim;
  if (*e < 0) *e += ndim;
  if (*b < 0 || *e > ndim || *b >= *e) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reshape_like: ", side, "_begin=", OptText(begin), ", ", side, "_end=", OptText(end),
        " is not a non-empty range of the ", ndim, " dims of ", side));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReshapeLikeShape(const ReshapeLikeParam& p, const Shape& lhs, const Shape& rhs,
                              Shape* out) {
  int64_t lb = 0, le = 0, rb = 0, re = 0;
  SYMX_RETURN_IF_ERROR(Range("lhs", lhs.ndim(), p.lhs_begin, p.lhs_end, &lb, &le));
  SYMX_RETURN_IF_ERROR(Range("rhs", rhs.ndim(), p.rhs_begin, p.rhs_end, &rb, &re));
  std::vector<int64_t> dims(lhs.dims().begin(), lhs.dims().begin() + lb);
  dims.insert(dims.end(), rhs.dims().begin() + rb, rhs.dims().begin() + re);
  dims.insert(dims.end(), lhs.dims().begin() + le, lhs.dims().end());
  Shape o(std::move(dims));
  if (lhs.fully_known() && o.fully_known() && lhs.Size() != o.Size()) {
    return absl::InvalidArgumentError(absl::StrCat("reshape_like: cannot reshape lhs ",
                                                   lhs.ToString(), " to ", o.ToString(), " (rhs ",
                                                   rhs.ToString(), "): the sizes differ"));
  }
  *out = std::move(o);
  return absl::OkStatus();
}

absl::Status SplitV2Bounds(const SplitV2Param& p, int64_t len, std::vector<int64_t>* begins,
                           std::vector<int64_t>* ends) {
  const int64_t n = p.num_outputs();
  begins->assign(n, 0);
  ends->assign(n, 0);
  if (p.sections > 0) {
    const int64_t small = len / p.sections, longer = len % p.sections;
    int64_t at = 0;
    for (int64_t i = 0; i < n; ++i) {
      (*begins)[i] = at;
      at += small + (i < longer ? 1 : 0);
      (*ends)[i] = at;
    }
    return absl::OkStatus();
  }
  for (int64_t i = 0; i < n; ++i) {
    (*begins)[i] = p.indices[i];
    (*ends)[i] = i + 1 < n ? p.indices[i + 1] : len;
    if ((*begins)[i] < 0 || (*begins)[i] > (*ends)[i] || (*ends)[i] > len) {
      return absl::InvalidArgumentError(absl::StrCat(
          "_split_v2: indices (", absl::StrJoin(p.indices, ", "), ") do not split an axis of ", len,
          ": part ", i, " would be [", (*begins)[i], ", ", (*ends)[i], ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status SlidingPositions(const SlidingParam& p, const std::vector<int64_t>& image,
                              std::vector<int64_t>* positions) {
  positions->clear();
  for (size_t i = 0; i < p.kernel.size(); ++i) {
    const int64_t padded = image[i] + 2 * p.pad[i];
    const int64_t span = p.dilate[i] * (p.kernel[i] - 1) + 1;
    if (span > padded) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the kernel (", p.kernel[i], " dilated by ", p.dilate[i], ") exceeds spatial dim ", i,
          " of the image (", image[i], " padded by ", p.pad[i], " on each side)"));
    }
    positions->push_back((padded - span) / p.stride[i] + 1);
  }
  return absl::OkStatus();
}

namespace {

// ----------------------------------------------------------------------------- reshape_like

absl::StatusOr<OpParamPtr> ParseReshapeLike(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ReshapeLikeParam>();
  p->lhs_begin = r.OptionalInt("lhs_begin");
  p->lhs_end = r.OptionalInt("lhs_end");
  p->rhs_begin = r.OptionalInt("rhs_begin");
  p->rhs_end = r.OptionalInt("rhs_end");
  return r.Finish(std::move(p));
}

absl::Status ReshapeLikeInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                   std::vector<Shape>* out) {
  const Shape& lhs = (*in)[0];
  const Shape& rhs = (*in)[1];
  if (!lhs.ndim_known() || !rhs.ndim_known()) return absl::OkStatus();
  Shape o;
  SYMX_RETURN_IF_ERROR(ReshapeLikeShape(Param<ReshapeLikeParam>(attrs), lhs, rhs, &o));
  return AssignShape(out, 0, o, "output");
}

// The output is lhs's dtype; rhs keeps its own (only its shape is read).
absl::Status ReshapeLikeInferType(const NodeAttrs&, std::vector<DType>* in,
                                  std::vector<DType>* out) {
  if ((*in)[0] != DType::kUnknown) return AssignType(out, 0, (*in)[0], "output");
  if ((*out)[0] != DType::kUnknown) return AssignType(in, 0, (*out)[0], "input lhs");
  return absl::OkStatus();
}

std::vector<NodeEntry> ReshapeLikeGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}, NodeEntry{}};
  return {
      MakeInternalEntry("reshape_like", node->attrs.name + "_backward", {og[0], node->inputs[0]}),
      NodeEntry{}};
}

SYMX_REGISTER_OP("reshape_like")
    .Describe(
        "lhs's elements with lhs dims [lhs_begin, lhs_end) replaced by rhs dims [rhs_begin, "
        "rhs_end) (all of them by default).")
    .SetParse(ParseReshapeLike)
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(ReshapeLikeInferShape)
    .SetInferType(ReshapeLikeInferType)
    .SetInplace({{0, 0}})
    .SetGradient(ReshapeLikeGradient);

// ----------------------------------------------------------------------------- shape_array,
// size_array

absl::Status ShapeArrayInferShape(const NodeAttrs&, std::vector<Shape>* in,
                                  std::vector<Shape>* out) {
  if (!(*in)[0].ndim_known()) return absl::OkStatus();
  return AssignShape(out, 0, Shape{(*in)[0].ndim()}, "output");
}

absl::Status SizeArrayInferShape(const NodeAttrs&, std::vector<Shape>*, std::vector<Shape>* out) {
  return AssignShape(out, 0, Shape{1}, "output");
}

absl::Status Int64Output(const NodeAttrs&, std::vector<DType>*, std::vector<DType>* out) {
  return AssignType(out, 0, DType::kInt64, "output");
}

SYMX_REGISTER_OP("shape_array")
    .Describe("The input's shape as a 1-D int64 array.")
    .SetInputNames({"data"})
    .SetInferShape(ShapeArrayInferShape)
    .SetInferType(Int64Output)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("size_array")
    .Describe("The input's number of elements as a (1,) int64 array.")
    .SetInputNames({"data"})
    .SetInferShape(SizeArrayInferShape)
    .SetInferType(Int64Output)
    .SetNonDifferentiable();

// ----------------------------------------------------------------------------- depth_to_space,
// space_to_depth

absl::StatusOr<OpParamPtr> ParseBlockSize(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BlockSizeParam>();
  p->block_size = r.Int("block_size");
  if (p->block_size < 1) r.Fail("block_size", "must be a positive integer");
  return r.Finish(std::move(p));
}

// (N, C, H, W) with every dim known and nonzero, else an error naming `op`.
absl::Status CheckBlockInput(const char* op, const Shape& s) {
  if (s.ndim() != 4) return ShapeError(absl::StrCat(op, " input data"), s, "4 dims (N, C, H, W)");
  for (int d = 0; d < 4; ++d) {
    if (s[d] == 0) {
      return ShapeError(absl::StrCat(op, " input data"), s, "no dim of size 0");
    }
  }
  return absl::OkStatus();
}

absl::Status DepthToSpaceInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                    std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(CheckBlockInput("depth_to_space", s));
  const int64_t b = Param<BlockSizeParam>(attrs).block_size;
  Shape o = Shape::UnknownDims(4);
  o[0] = s[0];
  if (s.dim_known(1)) {
    if (s[1] % (b * b) != 0) {
      return ShapeError("depth_to_space input data", s,
                        absl::StrCat("a channel count divisible by block_size^2 = ", b * b));
    }
    o[1] = s[1] / (b * b);
  }
  if (s.dim_known(2)) o[2] = s[2] * b;
  if (s.dim_known(3)) o[3] = s[3] * b;
  return AssignShape(out, 0, o, "output");
}

absl::Status SpaceToDepthInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                    std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(CheckBlockInput("space_to_depth", s));
  const int64_t b = Param<BlockSizeParam>(attrs).block_size;
  Shape o = Shape::UnknownDims(4);
  o[0] = s[0];
  if (s.dim_known(1)) o[1] = s[1] * b * b;
  for (int d = 2; d < 4; ++d) {
    if (!s.dim_known(d)) continue;
    if (s[d] % b != 0) {
      return ShapeError("space_to_depth input data", s,
                        absl::StrCat("H and W divisible by block_size = ", b));
    }
    o[d] = s[d] / b;
  }
  return AssignShape(out, 0, o, "output");
}

absl::Status SameTypeOneInput(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  if ((*in)[0] != DType::kUnknown) return AssignType(out, 0, (*in)[0], "output");
  if ((*out)[0] != DType::kUnknown) return AssignType(in, 0, (*out)[0], "input data");
  return absl::OkStatus();
}

// Each op's gradient is the other op on the output gradient, same block size.
GradientFn BlockGradient(const char* inverse) {
  return [inverse](const NodePtr& node, const std::vector<NodeEntry>& og) {
    if (!og[0].node) return std::vector<NodeEntry>{NodeEntry{}};
    return std::vector<NodeEntry>{
        MakeInternalEntry(inverse, node->attrs.name + "_backward", {og[0]}, node->attrs.dict)};
  };
}

SYMX_REGISTER_OP("depth_to_space")
    .Describe(
        "Moves b*b channel blocks of 4-D data into b x b spatial blocks: (N, C, H, W) -> "
        "(N, C/b^2, H*b, W*b).")
    .SetParse(ParseBlockSize)
    .SetInputNames({"data"})
    .SetInferShape(DepthToSpaceInferShape)
    .SetInferType(SameTypeOneInput)
    .SetGradient(BlockGradient("space_to_depth"));

SYMX_REGISTER_OP("space_to_depth")
    .Describe(
        "Moves b x b spatial blocks of 4-D data into channels: (N, C, H, W) -> (N, C*b^2, H/b, "
        "W/b); the inverse of depth_to_space.")
    .SetParse(ParseBlockSize)
    .SetInputNames({"data"})
    .SetInferShape(SpaceToDepthInferShape)
    .SetInferType(SameTypeOneInput)
    .SetGradient(BlockGradient("depth_to_space"));

// ----------------------------------------------------------------------------- _split_v2

// Parts beyond this are a typo, not a model (SliceChannel's bound).
constexpr int64_t kMaxSplitParts = 1 << 16;

absl::StatusOr<OpParamPtr> ParseSplitV2(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SplitV2Param>();
  p->indices = r.Tuple("indices");
  p->axis = r.Int("axis", 1);
  p->squeeze_axis = r.Bool("squeeze_axis", false);
  p->sections = r.Int("sections", 0);
  if (p->sections < 0 || p->sections > kMaxSplitParts) {
    r.Fail("sections", absl::StrCat("must be in [0, ", kMaxSplitParts, "] (0: split at indices)"));
  } else if (p->sections == 0 &&
             (p->indices.empty() || static_cast<int64_t>(p->indices.size()) > kMaxSplitParts)) {
    r.Fail("indices",
           absl::StrCat("must hold 1 to ", kMaxSplitParts, " boundaries when sections is 0"));
  }
  return r.Finish(std::move(p));
}

int64_t SplitV2Count(const NodeAttrs& attrs) {
  auto p = ParamsOf<SplitV2Param>(attrs, ParseSplitV2);
  return p ? p->num_outputs() : 0;
}

std::vector<std::string> Numbered(const char* prefix, int64_t n) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) names.push_back(absl::StrCat(prefix, i));
  return names;
}

absl::Status SplitV2InferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out) {
  const auto& p = Param<SplitV2Param>(attrs);
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  int ax = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, data.ndim(), "_split_v2: axis", &ax));
  Shape part = data;
  std::vector<int64_t> begins, ends;
  const bool len_known = data.dim_known(ax);
  if (len_known) SYMX_RETURN_IF_ERROR(SplitV2Bounds(p, data[ax], &begins, &ends));
  for (int64_t i = 0; i < p.num_outputs(); ++i) {
    part[ax] = len_known ? ends[i] - begins[i] : kUnknownDim;
    Shape o = part;
    if (p.squeeze_axis) {
      if (len_known && part[ax] != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("_split_v2: squeeze_axis=True needs parts of length 1 along axis ", ax,
                         ", but part ", i, " of input ", data.ToString(), " has ", part[ax]));
      }
      std::vector<int64_t> dims = part.dims();
      dims.erase(dims.begin() + ax);
      o = Shape(std::move(dims));
    }
    SYMX_RETURN_IF_ERROR(AssignShape(out, i, o, absl::StrCat("output", i)));
  }
  return absl::OkStatus();
}

absl::Status SplitV2InferType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = (*in)[0];
  for (DType o : *out) {
    if (t == DType::kUnknown) t = o;
  }
  if (t == DType::kUnknown) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(AssignType(in, 0, t, "input data"));
  for (size_t i = 0; i < out->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignType(out, i, t, absl::StrCat("output", i)));
  }
  return absl::OkStatus();
}

std::vector<NodeEntry> SplitV2Gradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  bool any = false;
  for (const NodeEntry& g : og) any = any || g.node != nullptr;
  if (!any) return {NodeEntry{}};
  return MakeBackwardNode("_backward_split_v2", node, FillZeroGrads(node, og));
}

SYMX_REGISTER_OP("_split_v2")
    .Describe(
        "Splits one axis at the boundaries `indices` (part i from indices[i] to the next) or "
        "into `sections` near-equal parts; squeeze_axis drops the axis from length-1 parts.")
    .SetParse(ParseSplitV2)
    .SetInputNames({"data"})
    .SetOutputNames([](const NodeAttrs& attrs) { return Numbered("output", SplitV2Count(attrs)); })
    .SetInferShape(SplitV2InferShape)
    .SetInferType(SplitV2InferType)
    .SetGradient(SplitV2Gradient);

Op& backward_split_v2_registration =
    RegisterBackwardOp(
        "_backward_split_v2", ParseSplitV2,
        [](const NodeAttrs& attrs) { return Numbered("ograd", SplitV2Count(attrs)); },
        [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of _split_v2: the output gradients placed back along the axis.");

// ----------------------------------------------------------------------------- im2col, col2im

absl::StatusOr<OpParamPtr> ParseSlidingImpl(const AttrMap& attrs, bool col2im) {
  ParamReader r(attrs);
  auto p = std::make_shared<SlidingParam>();
  p->kernel = r.Tuple("kernel");
  const size_t n = p->kernel.size();
  if (n < 1 || n > 3) r.Fail("kernel", "must have 1 to 3 dims: (w,), (h, w) or (d, h, w)");
  auto read = [&](const char* key, int64_t def, int64_t least, std::vector<int64_t>* out) {
    *out = r.Tuple(key, {});
    if (out->empty()) out->assign(n, def);
    if (out->size() != n) {
      r.Fail(key, absl::StrCat("must have as many dims as kernel (", n, ")"));
      out->assign(n, def);
    }
    for (int64_t v : *out) {
      if (v < least) {
        r.Fail(key, absl::StrCat("entries must be >= ", least));
        break;
      }
    }
  };
  for (int64_t k : p->kernel) {
    if (k < 1) r.Fail("kernel", "entries must be >= 1");
  }
  read("stride", 1, 1, &p->stride);
  read("dilate", 1, 1, &p->dilate);
  read("pad", 0, 0, &p->pad);
  if (col2im) {
    p->output_size = r.Tuple("output_size");
    if (p->output_size.size() != n) {
      r.Fail("output_size", absl::StrCat("must have as many dims as kernel (", n, ")"));
    }
    for (int64_t v : p->output_size) {
      if (v < 1) r.Fail("output_size", "entries must be >= 1");
    }
  }
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseIm2col(const AttrMap& attrs) {
  return ParseSlidingImpl(attrs, false);
}

absl::StatusOr<OpParamPtr> ParseCol2im(const AttrMap& attrs) {
  return ParseSlidingImpl(attrs, true);
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t d : v) n *= d;
  return n;
}

absl::Status Im2colInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  const auto& p = Param<SlidingParam>(attrs);
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  const int n = static_cast<int>(p.kernel.size());
  if (data.ndim() != n + 2) {
    return ShapeError("input data", data,
                      absl::StrCat(n + 2, " dims (N, C, and one per kernel dim)"));
  }
  if (!data.fully_known()) return absl::OkStatus();
  std::vector<int64_t> positions;
  absl::Status s = SlidingPositions(
      p, std::vector<int64_t>(data.dims().begin() + 2, data.dims().end()), &positions);
  if (!s.ok())
    return absl::InvalidArgumentError(
        absl::StrCat("input data ", data.ToString(), ": ", s.message()));
  return AssignShape(out, 0, Shape{data[0], data[1] * Product(p.kernel), Product(positions)},
                     "output");
}

absl::Status Col2imInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  const auto& p = Param<SlidingParam>(attrs);
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  if (data.ndim() != 3) return ShapeError("input data", data, "3 dims (N, C * prod(kernel), L)");
  if (!data.fully_known()) return absl::OkStatus();
  std::vector<int64_t> positions;
  absl::Status s = SlidingPositions(p, p.output_size, &positions);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("output_size: ", s.message()));
  const int64_t k = Product(p.kernel);
  if (data[1] % k != 0 || data[2] != Product(positions)) {
    return ShapeError(
        "input data", data,
        absl::StrCat("(N, C * ", k, ", ", Product(positions), ") for this kernel and output_size"));
  }
  std::vector<int64_t> dims = {data[0], data[1] / k};
  dims.insert(dims.end(), p.output_size.begin(), p.output_size.end());
  return AssignShape(out, 0, Shape(dims), "output");
}

std::vector<NodeEntry> Im2colGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_im2col", node, {og[0]});
}

// col2im's gradient is im2col of the output gradient (same kernel geometry).
std::vector<NodeEntry> Col2imGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}};
  AttrMap attrs = node->attrs.dict;
  attrs.erase("output_size");
  return {MakeInternalEntry("im2col", node->attrs.name + "_backward", {og[0]}, attrs)};
}

SYMX_REGISTER_OP("im2col")
    .Describe(
        "Sliding kernel blocks of (N, C, spatial...) data as columns: (N, C * prod(kernel), "
        "number of kernel positions).")
    .SetParse(ParseIm2col)
    .SetInputNames({"data"})
    .SetInferShape(Im2colInferShape)
    .SetInferType(SameTypeOneInput)
    .SetGradient(Im2colGradient);

Op& backward_im2col_registration =
    RegisterBackwardOp("_backward_im2col", ParseIm2col, {"ograd"}, [](const NodeAttrs&) {
      return 1;
    }).Describe("Gradient of im2col: the columns summed back into the image (col2im).");

SYMX_REGISTER_OP("col2im")
    .Describe(
        "Sums (N, C * prod(kernel), L) columns back into (N, C, output_size...) images; "
        "im2col's gradient.")
    .SetParse(ParseCol2im)
    .SetInputNames({"data"})
    .SetInferShape(Col2imInferShape)
    .SetInferType(SameTypeOneInput)
    .SetGradient(Col2imGradient);

}  // namespace
}  // namespace symx
