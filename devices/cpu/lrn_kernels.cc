// CPU kernels for LRN and its backward (schema in graph/ops/lrn.cc):
// tmp_norm = knorm + alpha / nsize * the sum of x^2 over the nsize channels
// centred on x's, out = x * tmp_norm^-beta. oneDNN runs the cases it has a
// real kernel for (devices/cpu/onednn_lrn.h); these plain loops, in double
// through ToDouble / FromDouble so one template serves float32, float64 and
// float16, run the rest.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "graph/ops/lrn.h"
#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/onednn.h"
#include "devices/cpu/onednn_lrn.h"
#endif

namespace symx {
namespace cpu {
namespace {

struct LrnView {
  int64_t batch = 0, channels = 0, spatial = 0;
};

absl::StatusOr<LrnView> LrnViewOf(const KernelContext& ctx, const Shape& s) {
  if (s.ndim() != 4) return Fail(ctx, absl::StrCat("data ", s.ToString(), " must have 4 dims"));
  return LrnView{s[0], s[1], s[2] * s[3]};
}

// tmp_norm = knorm + alpha / nsize * sum_{|c' - c| <= nsize / 2} x[c']^2; y = x * tmp^-beta.
template <typename T>
void LrnFwd(const KernelContext& ctx, const LrnView& v, const LRNParam& p, const T* x, T* y,
            T* tmp) {
  const int64_t C = v.channels, S = v.spatial, half = p.nsize / 2;
  const double a = p.alpha / static_cast<double>(p.nsize);
  ParallelFor(ctx, v.batch * S, static_cast<double>(C * (p.nsize + 4)),
              [&](int64_t u0, int64_t u1) {
                for (int64_t u = u0; u < u1; ++u) {
                  const int64_t base = (u / S) * C * S + u % S;
                  for (int64_t c = 0; c < C; ++c) {
                    double s = 0;
                    for (int64_t k = std::max<int64_t>(0, c - half);
                         k <= std::min<int64_t>(C - 1, c + half); ++k) {
                      const double xv = ToDouble(x[base + k * S]);
                      s += xv * xv;
                    }
                    const double t = p.knorm + a * s;
                    tmp[base + c * S] = FromDouble<T>(t);
                    y[base + c * S] = FromDouble<T>(ToDouble(x[base + c * S]) * std::pow(t, -p.beta));
                  }
                }
              });
}

// gx_j = g_j t_j^-beta - 2 beta alpha / nsize x_j sum_{i near j} g_i x_i t_i^(-beta-1).
template <typename T>
void LrnBwd(const KernelContext& ctx, const LrnView& v, const LRNParam& p, const T* g, const T* x,
            const T* tmp, T* gx) {
  const int64_t C = v.channels, S = v.spatial, half = p.nsize / 2;
  const double k2 = 2.0 * p.beta * p.alpha / static_cast<double>(p.nsize);
  ParallelFor(ctx, v.batch * S, static_cast<double>(C * (p.nsize + 8)),
              [&](int64_t u0, int64_t u1) {
                for (int64_t u = u0; u < u1; ++u) {
                  const int64_t base = (u / S) * C * S + u % S;
                  for (int64_t j = 0; j < C; ++j) {
                    double s = 0;
                    for (int64_t i = std::max<int64_t>(0, j - half);
                         i <= std::min<int64_t>(C - 1, j + half); ++i) {
                      const int64_t at = base + i * S;
                      s += ToDouble(g[at]) * ToDouble(x[at]) *
                           std::pow(ToDouble(tmp[at]), -p.beta - 1.0);
                    }
                    const int64_t at = base + j * S;
                    gx[at] = FromDouble<T>(ToDouble(g[at]) * std::pow(ToDouble(tmp[at]), -p.beta) -
                                           k2 * ToDouble(x[at]) * s);
                  }
                }
              });
}

#ifdef SYMX_WITH_ONEDNN
// tmp_norm alone (the oneDNN step wrote the output): per (sample, channel) row
// of the spatial positions, knorm + alpha / nsize * the window's sum of squares.
void LrnNormRows(const KernelContext& ctx, const LrnView& v, const LRNParam& p, const float* x,
                 float* tmp) {
  const int64_t C = v.channels, S = v.spatial, half = p.nsize / 2;
  const float a = static_cast<float>(p.alpha / static_cast<double>(p.nsize));
  const float k = static_cast<float>(p.knorm);
  ParallelFor(ctx, v.batch * C, static_cast<double>(S * (2 * half + 3)),
              [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / C, c = r % C;
      using Row = Eigen::Array<float, Eigen::Dynamic, 1>;
      Eigen::Map<Row> out(tmp + r * S, S);
      out.setZero();
      for (int64_t j = std::max<int64_t>(0, c - half); j <= std::min<int64_t>(C - 1, c + half);
           ++j) {
        out += Eigen::Map<const Row>(x + (b * C + j) * S, S).square();
      }
      out = out * a + k;
    }
  });
}
#endif

absl::Status LRNForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(LrnView v, LrnViewOf(ctx, x.shape()));
  for (const Tensor& t : ctx.outputs) {
    SYMX_RETURN_IF_ERROR(CheckSize(ctx, t, x.size(), "output"));
    if (t.dtype() != x.dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  const auto& p = ctx.param<LRNParam>();
#ifdef SYMX_WITH_ONEDNN
  if (ctx.state != nullptr) {
    SYMX_RETURN_IF_ERROR(RunOnednnStep(ctx));
    LrnNormRows(ctx, v, p, x.read_data<float>(), ctx.outputs[1].data<float>());
    return absl::OkStatus();
  }
#endif
  SYMX_FLOAT_STORAGE_SWITCH(
      ctx, x.dtype(), T,
      LrnFwd<T>(ctx, v, p, x.data<T>(), ctx.outputs[0].data<T>(), ctx.outputs[1].data<T>()));
  return absl::OkStatus();
}

absl::Status LRNBackward(const KernelContext& ctx) {
  const Tensor& gx = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(LrnView v, LrnViewOf(ctx, gx.shape()));
  for (const Tensor& t : ctx.inputs) {
    SYMX_RETURN_IF_ERROR(CheckSize(ctx, t, gx.size(), "input"));
    if (t.dtype() != gx.dtype()) return UnsupportedDType(ctx, t.dtype());
  }
#ifdef SYMX_WITH_ONEDNN
  if (ctx.state != nullptr) return RunOnednnStep(ctx);
#endif
  const auto& p = ctx.param<LRNParam>();
  SYMX_FLOAT_STORAGE_SWITCH(ctx, gx.dtype(), T,
                   LrnBwd<T>(ctx, v, p, ctx.inputs[0].data<T>(), ctx.inputs[1].data<T>(),
                             ctx.inputs[2].data<T>(), gx.data<T>()));
  return absl::OkStatus();
}

#ifdef SYMX_WITH_ONEDNN
absl::Status PrepareLrn(KernelContext* ctx, size_t* bytes) {
  return PrepareOnednnLrn(ctx, false, bytes);
}
absl::Status PrepareLrnBackward(KernelContext* ctx, size_t* bytes) {
  return PrepareOnednnLrn(ctx, true, bytes);
}
#else
constexpr PrepareFn PrepareLrn = nullptr;
constexpr PrepareFn PrepareLrnBackward = nullptr;
#endif

SYMX_REGISTER_KERNEL("LRN", kCPU, .fn = LRNForward, .prepare = PrepareLrn);
SYMX_REGISTER_KERNEL("_backward_LRN", kCPU, .fn = LRNBackward, .prepare = PrepareLrnBackward);

}  // namespace
}  // namespace cpu
}  // namespace symx
