// Comparison and logic ops: _equal, _not_equal, _greater, _greater_equal,
// _lesser, _lesser_equal, _logical_and, _logical_or, _logical_xor on arrays
// of one shape, their "_scalar" forms, the broadcast_* forms, and
// logical_not.
//
// As in MXNet 1.9.1's legacy ops, the output keeps the input dtype and holds
// 0 or 1 (float and integer dtypes alike), both operands must share a dtype,
// and the gradient is zero for every input (MXNet's MakeZeroGradNodes).
// Scalar forms take MXNet's `scalar` (default 1) and `is_int` (default true,
// recorded only); the kernel compares against the scalar converted to the
// array's dtype, as MXNet does (int32 x == 2.5 compares with 2).
//
// _contrib_allclose reduces a comparison to one uint8 value (a 0-dim array,
// as MXNet's): 1 when every |a - b| <= atol + rtol |b|, NaNs matching only
// with equal_nan. MXNet registers no gradient for it; here it has none.
//
// The broadcast shape rule is numpy's, as in graph/ops/binary.cc; that
// file's inference function is file-local, so a copy of it lives here (a
// candidate for graph/ops/op_helpers.h). Its mismatch error names the op.
#include "graph/ops/compare.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/elemwise.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

absl::Status SameShapeFn(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

// ---------------------------------------------------------------------------
// Registration.

struct Family {
  const char* name;          // "equal"
  const char* legacy;        // "_Equal"
  const char* scalar_alias;  // "_EqualScalar"
  const char* what;          // "lhs == rhs"
};

void RegisterFamily(const Family& f) {
  OpRegistry::Global()
      .Register(absl::StrCat("_", f.name))
      .Describe(absl::StrCat(f.what, " elementwise for arrays of one shape (1 or 0)."))
      .AddAlias(f.legacy)
      .SetInputNames({"lhs", "rhs"})
      .SetInferShape(SameShapeFn)
      .SetInplace({{0, 0}, {1, 0}})
      .SetGradient(ZeroGradient);
  OpRegistry::Global()
      .Register(absl::StrCat("_", f.name, "_scalar"))
      .Describe(absl::StrCat(f.what, " elementwise with rhs the `scalar` attribute (1 or 0)."))
      .AddAlias(f.scalar_alias)
      .SetParse(ParseScalarParam)
      .SetInputNames({"data"})
      .SetInferShape(SameShapeFn)
      .SetInplace({{0, 0}})
      .SetGradient(ZeroGradient);
  OpRegistry::Global()
      .Register(absl::StrCat("broadcast_", f.name))
      .Describe(absl::StrCat(f.what, " elementwise with numpy broadcasting (1 or 0)."))
      .SetInputNames({"lhs", "rhs"})
      .SetInferShape(InferBroadcastShape)
      .SetInplace({{0, 0}, {1, 0}})
      .SetGradient(ZeroGradient);
}

[[maybe_unused]] const bool kRegistered = [] {
  const Family families[] = {
      {"equal", "_Equal", "_EqualScalar", "lhs == rhs"},
      {"not_equal", "_Not_Equal", "_NotEqualScalar", "lhs != rhs"},
      {"greater", "_Greater", "_GreaterScalar", "lhs > rhs"},
      {"greater_equal", "_Greater_Equal", "_GreaterEqualScalar", "lhs >= rhs"},
      {"lesser", "_Lesser", "_LesserScalar", "lhs < rhs"},
      {"lesser_equal", "_Lesser_Equal", "_LesserEqualScalar", "lhs <= rhs"},
      {"logical_and", "_Logical_And", "_LogicalAndScalar", "lhs && rhs"},
      {"logical_or", "_Logical_Or", "_LogicalOrScalar", "lhs || rhs"},
      {"logical_xor", "_Logical_Xor", "_LogicalXorScalar", "(lhs != 0) != (rhs != 0)"},
  };
  for (const Family& f : families) RegisterFamily(f);
  return true;
}();

SYMX_REGISTER_OP("logical_not")
    .Describe("1 where data is 0, else 0 (NaN counts as non-zero); keeps the dtype.")
    .SetInputNames({"data"})
    .SetInferShape(SameShapeFn)
    .SetInplace({{0, 0}})
    .SetGradient(ZeroGradient);

absl::StatusOr<OpParamPtr> ParseAllClose(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<AllCloseParam>();
  p->rtol = static_cast<float>(r.Float("rtol", 1e-5));
  p->atol = static_cast<float>(r.Float("atol", 1e-8));
  p->equal_nan = r.Bool("equal_nan", true);
  return r.Finish(std::move(p));
}

absl::Status AllCloseShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape merged = (*in)[0];
  if (!MergeShape(&merged, (*in)[1])) {
    return absl::InvalidArgumentError(absl::StrCat("_contrib_allclose: a of shape ",
                                                   (*in)[0].ToString(), " and b of shape ",
                                                   (*in)[1].ToString(), " differ"));
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, merged, "input a"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, merged, "input b"));
  return AssignShape(out, 0, Shape(std::vector<int64_t>{}), "output");
}

absl::Status AllCloseType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  const DType t = (*in)[0] != DType::kUnknown ? (*in)[0] : (*in)[1];
  if (t != DType::kUnknown) {
    SYMX_RETURN_IF_ERROR(AssignType(in, 0, t, "input a"));
    SYMX_RETURN_IF_ERROR(AssignType(in, 1, t, "input b"));
  }
  return AssignType(out, 0, DType::kUint8, "output");
}

SYMX_REGISTER_OP("_contrib_allclose")
    .Describe(
        "1 (uint8, 0-dim) when every |a - b| <= atol + rtol |b| (NaNs equal with equal_nan), "
        "else 0.")
    .SetParse(ParseAllClose)
    .SetInputNames({"a", "b"})
    .SetInferShape(AllCloseShape)
    .SetInferType(AllCloseType)
    .SetNonDifferentiable();

}  // namespace
}  // namespace symx
