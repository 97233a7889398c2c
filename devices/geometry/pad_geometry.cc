#include "devices/geometry/pad_geometry.h"

#include "absl/strings/str_cat.h"

namespace symx {

PadKind PadKindOf(PadMode mode) {
  switch (mode) {
    case PadMode::kEdge:
      return PadKind::kEdge;
    case PadMode::kReflect:
      return PadKind::kReflect;
    default:
      return PadKind::kConstant;
  }
}

absl::Status CheckPadShapes(const KernelContext& ctx, const Shape& in, const Shape& out) {
  const auto& p = ctx.param<PadParam>();
  const int n = in.ndim();
  if (out.ndim() != n || static_cast<int>(p.pad_width.size()) != 2 * n) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": pad_width does not fit ",
                                                   in.ToString(), " -> ", out.ToString()));
  }
  for (int d = 0; d < n; ++d) {
    const int64_t before = p.pad_width[2 * d], len = in[d];
    if (out[d] != len + before + p.pad_width[2 * d + 1]) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": output ", out.ToString(),
                                                     " does not match input ", in.ToString(),
                                                     " padded"));
    }
    if (len == 0 && out[d] > 0 && p.mode != PadMode::kConstant) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": cannot pad an empty axis ", d, " by edge or reflection"));
    }
  }
  return absl::OkStatus();
}

}  // namespace symx
