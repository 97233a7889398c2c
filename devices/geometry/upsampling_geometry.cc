#include "devices/geometry/upsampling_geometry.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace symx {

absl::StatusOr<Nchw> AsNchw(const KernelContext& ctx, const Tensor& t, const char* what) {
  if (t.shape().ndim() != 4) {
    return Fail(ctx, absl::StrCat(what, " ", t.DebugString(), " is not 4-D (NCHW)"));
  }
  return Nchw{t.shape()[0], t.shape()[1], t.shape()[2], t.shape()[3]};
}

// Checks nearest-mode shapes: input k is (N, C_k, h_k, w_k) with h_k, w_k
// dividing the output's; channels concatenated or summed into the output's.
absl::Status CheckNearest(const KernelContext& ctx, const std::vector<Tensor>& ins, const Nchw& o,
                          bool sum) {
  int64_t channels = 0;
  for (const Tensor& t : ins) {
    SYMX_ASSIGN_OR_RETURN(Nchw s, AsNchw(ctx, t, "input"));
    if (s.n != o.n || s.h <= 0 || s.w <= 0 || o.h % s.h != 0 || o.w % s.w != 0 ||
        (sum && s.c != o.c)) {
      return Fail(ctx, absl::StrCat("input ", t.DebugString(), " cannot be upsampled into output (",
                                    o.n, ", ", o.c, ", ", o.h, ", ", o.w, ")"));
    }
    channels += s.c;
  }
  if (!sum && channels != o.c) {
    return Fail(ctx, absl::StrCat("inputs have ", channels, " channels in all, output ", o.c));
  }
  return absl::OkStatus();
}

absl::StatusOr<BilinearGeometry> Bilinear(const KernelContext& ctx, const UpSamplingParam& p,
                                          const Tensor& data, const Tensor& weight,
                                          const Tensor& out) {
  BilinearGeometry g;
  SYMX_ASSIGN_OR_RETURN(g.in, AsNchw(ctx, data, "data"));
  SYMX_ASSIGN_OR_RETURN(g.out, AsNchw(ctx, out, "output"));
  g.k = p.kernel();
  g.stride = p.scale;
  g.pad = p.pad();
  const Shape& ws = weight.shape();
  if (ws.ndim() != 4 || ws[0] != g.in.c || ws[1] != 1 || ws[2] != g.k || ws[3] != g.k) {
    return Fail(ctx, absl::StrCat("weight ", weight.DebugString(), " should be (", g.in.c, ", 1, ",
                                  g.k, ", ", g.k, ")"));
  }
  if (g.out.n != g.in.n || g.out.c != g.in.c || g.out.h != g.in.h * p.scale ||
      g.out.w != g.in.w * p.scale) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " is not data ", data.DebugString(),
                                  " upsampled by ", p.scale));
  }
  return g;
}

}  // namespace symx
