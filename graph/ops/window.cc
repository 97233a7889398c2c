// Window-parameter helpers shared by Convolution, Deconvolution and Pooling.
#include "graph/ops/window.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"

namespace symx {
namespace nn_internal {
namespace {

// Window parameters are capped so that window arithmetic on int64 dims cannot overflow
// (MXNet stores them as 32-bit values too).
constexpr int64_t kMaxWindowValue = std::numeric_limits<int32_t>::max();

const char* const kSpatialNames[] = {"width", "height, width", "depth, height, width"};

}  // namespace

int64_t MaxWindowValue() { return kMaxWindowValue; }

std::vector<int64_t> ReadKernel(ParamReader* r, bool required) {
  std::vector<int64_t> kernel = required ? r->Tuple("kernel") : r->Tuple("kernel", {});
  if (kernel.empty() && !required) return kernel;
  if (kernel.empty() || kernel.size() > 3) {
    r->Fail("kernel", "expected 1 to 3 values: (w,), (h, w) or (d, h, w)");
    return {};
  }
  for (int64_t k : kernel) {
    if (k < 1 || k > kMaxWindowValue) {
      r->Fail("kernel", absl::StrCat("each value must be in [1, ", kMaxWindowValue, "]"));
      return {};
    }
  }
  return kernel;
}

std::vector<int64_t> ReadWindowTuple(ParamReader* r, absl::string_view key, size_t n, int64_t def,
                                     int64_t min_value) {
  const std::vector<int64_t> fallback(n, def);
  // MXNet treats an empty tuple like an absent one: one default value per kernel dim.
  std::vector<int64_t> v = r->Tuple(key, {});
  if (v.empty()) return fallback;
  if (v.size() != n) {
    r->Fail(key, absl::StrCat("expected ", n, " value", n == 1 ? "" : "s",
                              ", one per kernel dimension"));
    return fallback;
  }
  for (int64_t x : v) {
    if (x < min_value || x > kMaxWindowValue) {
      r->Fail(key, absl::StrCat("each value must be in [", min_value, ", ", kMaxWindowValue, "]"));
      return fallback;
    }
  }
  return v;
}

int LayoutSpatialDims(const std::string& layout) {
  return layout == "None" ? 0 : static_cast<int>(layout.size()) - 2;
}

std::string ReadLayout(ParamReader* r, size_t kernel_dims) {
  std::string layout =
      r->Enum("layout", {"None", "NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"}, "None");
  if (layout == "NWC" || layout == "NHWC" || layout == "NDHWC") {
    r->Fail("layout",
            "channel-last layouts are not supported; use NCW, NCHW or NCDHW (the default)");
    return "None";
  }
  int dims = LayoutSpatialDims(layout);
  if (dims > 0 && kernel_dims > 0 && dims != static_cast<int>(kernel_dims)) {
    r->Fail("layout", absl::StrCat(layout, " does not match a ", kernel_dims, "-D kernel"));
  }
  return layout;
}

absl::Status CheckWindowInputNdim(const Shape& shape, int ndim, absl::string_view what) {
  if (!shape.ndim_known() || shape.ndim() == ndim) return absl::OkStatus();
  if (ndim < 3 || ndim > 5) {
    return ShapeError(what, shape, "3 to 5 dims (batch, channel, spatial...)");
  }
  return ShapeError(what, shape,
                    absl::StrCat(ndim, " dims (batch, channel, ", kSpatialNames[ndim - 3], ")"));
}

absl::StatusOr<int64_t> SlidingWindowOutput(int64_t x, int64_t window, int64_t pad, int64_t stride,
                                            bool ceil_mode, int dim, const Shape& data,
                                            absl::string_view op) {
  absl::int128 padded = absl::int128(x) + 2 * absl::int128(pad);
  if (padded < window) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": kernel size ", window, " (after dilation) exceeds the padded input size ",
        static_cast<int64_t>(padded), " in spatial dim ", dim, " of data ", data.ToString()));
  }
  absl::int128 span = padded - window;
  absl::int128 result = (ceil_mode ? (span + stride - 1) : span) / stride + 1;
  if (result > std::numeric_limits<int64_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": output size in spatial dim ", dim,
                                                   " is too large for data ", data.ToString()));
  }
  return static_cast<int64_t>(result);
}

}  // namespace nn_internal

}  // namespace symx
