// The amp family: amp_cast and amp_multicast, the casts MXNet 1.9.1's
// automatic mixed precision inserts, with their backward ops.
//
// Both touch only the float types AMP trades between (float32, float16,
// bfloat16): any other input keeps its dtype and passes through unchanged.
// amp_cast casts such an input to `dtype`; amp_multicast casts its float
// inputs to float32 if any input or output is float32, else to input 0's
// type (cast_narrow: to float16 if any is float16, else bfloat16 if any is,
// else float32; where both occur the later input decides, as MXNet's loop
// does). The gradient of each is the head gradient cast back to the input's
// dtype (`_backward_amp_cast`, `_backward_amp_multicast`).
#include "graph/ops/amp.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

bool IsAmpFloat(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16;
}

absl::StatusOr<OpParamPtr> ParseAmpCast(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<AmpCastParam>();
  p->dtype = r.Dtype("dtype");
  return r.Finish(std::move(p));
}

absl::Status AmpCastType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const DType t = (*in)[0];
  if (t == DType::kUnknown) return absl::OkStatus();
  return AssignType(out, 0, IsAmpFloat(t) ? Param<AmpCastParam>(attrs).dtype : t, "output");
}

// MXNet sets no upper bound; this one keeps a malformed count from listing
// millions of inputs.
constexpr int64_t kMaxMultiCast = 1024;

absl::StatusOr<OpParamPtr> ParseAmpMultiCast(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<AmpMultiCastParam>();
  p->num_outputs = r.Int("num_outputs");
  if (p->num_outputs < 1 || p->num_outputs > kMaxMultiCast) {
    r.Fail("num_outputs", absl::StrCat("must be in [1, ", kMaxMultiCast, "]"));
  }
  p->cast_narrow = r.Bool("cast_narrow", false);
  return r.Finish(std::move(p));
}

int64_t MultiCastCount(const NodeAttrs& attrs) {
  auto p = ParamsOf<AmpMultiCastParam>(attrs, ParseAmpMultiCast);
  return p ? p->num_outputs : 0;
}

std::vector<std::string> Numbered(const std::string& prefix, int64_t n) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) names.push_back(absl::StrCat(prefix, i));
  return names;
}

absl::Status AmpMultiCastShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  for (size_t i = 0; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, i, (*in)[i], absl::StrCat("output ", i)));
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, (*out)[i], absl::StrCat("input data", i)));
  }
  return absl::OkStatus();
}

absl::Status AmpMultiCastType(const NodeAttrs& attrs, std::vector<DType>* in,
                              std::vector<DType>* out) {
  const bool narrow = Param<AmpMultiCastParam>(attrs).cast_narrow;
  DType target = narrow ? DType::kFloat32 : (*in)[0];
  for (size_t i = 0; i < in->size(); ++i) {
    const DType a = (*in)[i], b = (*out)[i];
    if (!narrow && (a == DType::kFloat32 || b == DType::kFloat32)) {
      target = DType::kFloat32;
    } else if (narrow && (a == DType::kFloat16 || b == DType::kFloat16)) {
      target = DType::kFloat16;
    } else if (narrow && (a == DType::kBFloat16 || b == DType::kBFloat16)) {
      target = DType::kBFloat16;
    }
  }
  for (size_t i = 0; i < in->size(); ++i) {
    const DType a = (*in)[i];
    if (a == DType::kUnknown) continue;
    const DType o = IsAmpFloat(a) ? target : a;
    if (o == DType::kUnknown) continue;
    SYMX_RETURN_IF_ERROR(AssignType(out, i, o, absl::StrCat("output ", i)));
  }
  return absl::OkStatus();
}

std::vector<NodeEntry> CastBackGradient(const std::string& backward_op, const NodePtr& n,
                                        const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> grads = FillZeroGrads(n, og);
  bool any = false;
  for (const NodeEntry& g : og) any = any || g.node != nullptr;
  if (!any) return ZeroGradient(n, og);
  return MakeBackwardNode(backward_op, n, std::move(grads));
}

SYMX_REGISTER_OP("amp_cast")
    .Describe("Casts a float32, float16 or bfloat16 input to `dtype`; other dtypes pass through.")
    .SetParse(ParseAmpCast)
    .SetInputNames({"data"})
    .SetInferShape([](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
      return InferSameShape(in, out);
    })
    .SetInferType(AmpCastType)
    .SetGradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return CastBackGradient("_backward_amp_cast", n, og);
    });

SYMX_REGISTER_OP("amp_multicast")
    .Describe(
        "Casts the float inputs of num_outputs arrays to their widest float type (cast_narrow: "
        "the narrowest); other dtypes pass through.")
    .SetParse(ParseAmpMultiCast)
    .SetVariadic("num_outputs")
    .SetInputNames([](const NodeAttrs& attrs) { return Numbered("data", MultiCastCount(attrs)); })
    .SetOutputNames([](const NodeAttrs& attrs) {
      return Numbered("output", MultiCastCount(attrs));
    })
    .SetInferShape(AmpMultiCastShape)
    .SetInferType(AmpMultiCastType)
    .SetGradient([](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return CastBackGradient("_backward_amp_multicast", n, og);
    });

[[maybe_unused]] const bool kBackwardRegistered = [] {
  RegisterBackwardOp("_backward_amp_cast", ParseAmpCast, {"grad"}, [](const NodeAttrs&) {
    return 1;
  }).Describe("Gradient of amp_cast: the head gradient cast back to the input's dtype.");
  RegisterBackwardOp(
      "_backward_amp_multicast", ParseAmpMultiCast,
      [](const NodeAttrs& attrs) { return Numbered("grad_", MultiCastCount(attrs)); },
      [](const NodeAttrs& attrs) { return static_cast<int>(MultiCastCount(attrs)); })
      .Describe("Gradient of amp_multicast: each head gradient cast back to its input's dtype.");
  return true;
}();

}  // namespace
}  // namespace symx
