// CPU kernels of the fused RNN operator and its gradient (graph/ops/rnn.cc), in
// float32 and float64 (MXNet 1.9.1 has no float16 RNN on CPU). The input
// projections of a whole sequence are one GEMM per (layer, direction); the
// recurrent ones one GEMM per step. _backward_RNN recomputes the forward pass
// (keeping every gate activation in the workspace) and then backpropagates
// through time, layer by layer from the top.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/dense_kernels.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "devices/kernel.h"
#include "devices/geometry/rnn_cell.h"
#include "devices/geometry/rnn_layout.h"
#include "graph/op.h"
#include "graph/ops/rnn.h"

namespace symx {
namespace cpu {
namespace {

template <typename T>
class RNNRunner {
 public:
  RNNRunner(const KernelContext& ctx, const RNNParam& p, bool backward)
      : ctx_(ctx),
        p_(p),
        d_(MakeRnnDims(p, ctx.inputs[0].shape())),
        kind_(RnnCellKindOf(p.mode)),
        b_(ctx.workspace.raw_data(), ctx.inputs[1].template data<T>(), p, d_, backward) {}

  void Forward() {
    const T* data = ctx_.inputs[0].template data<T>();
    const T* h0 = ctx_.inputs[2].template data<T>();
    const T* c0 = d_.lstm ? ctx_.inputs[3].template data<T>() : nullptr;
    const int64_t nh = d_.batch * d_.hidden;
    for (int64_t l = 0; l < d_.layers; ++l) {
      const T* in = l == 0 ? data : b_.layer_out[l - 1];
      const int64_t in_width = p_.LayerInput(l, d_.input);
      for (int64_t dir = 0; dir < d_.dirs; ++dir) {
        const int64_t k = l * d_.dirs + dir;
        ForwardCell(b_.cells[k], in, in_width, dir == 1, h0 + k * nh, c0 ? c0 + k * nh : nullptr);
        // Interleave into the layer's output (rows, dirs * hidden).
        const RnnCellBuffers<T>& c = b_.cells[k];
        const int64_t width = d_.dirs * d_.hidden;
        for (int64_t r = 0; r < d_.rows(); ++r) {
          std::memcpy(b_.layer_out[l] + r * width + dir * d_.hidden, c.h + r * d_.hidden,
                      sizeof(T) * d_.hidden);
        }
      }
    }
  }

  // Writes the forward outputs.
  void WriteOutputs() const {
    const int64_t nh = d_.batch * d_.hidden;
    std::memcpy(ctx_.outputs[0].template data<T>(), b_.layer_out.back(),
                sizeof(T) * d_.rows() * d_.dirs * d_.hidden);
    for (size_t o = 1; o < ctx_.outputs.size(); ++o) {
      T* dst = ctx_.outputs[o].template data<T>();
      for (int64_t k = 0; k < d_.layers * d_.dirs; ++k) {
        const RnnCellBuffers<T>& c = b_.cells[k];
        const int64_t last = (k % d_.dirs == 1) ? 0 : d_.seq - 1;  // the last step processed
        std::memcpy(dst + k * nh, (o == 1 ? c.h : c.c) + last * nh, sizeof(T) * nh);
      }
    }
  }

  void Backward() {
    const KernelContext& ctx = ctx_;
    const int nin = d_.lstm ? 4 : 3;  // forward inputs
    const int og = nin;               // first head gradient
    const T* g_out = ctx.inputs[og].template data<T>();
    const T* g_hy = ctx.inputs[og + 1].template data<T>();
    const T* g_cy = d_.lstm ? ctx.inputs[og + 2].template data<T>() : nullptr;
    const T* data = ctx.inputs[0].template data<T>();
    const T* h0 = ctx.inputs[2].template data<T>();
    const T* c0 = d_.lstm ? ctx.inputs[3].template data<T>() : nullptr;
    const T* params = ctx.inputs[1].template data<T>();
    const int64_t nh = d_.batch * d_.hidden;
    const int64_t psize = p_.ParamSize(d_.input);
    std::fill(b_.dparams, b_.dparams + psize, T(0));
    // b_.dy: the gradient of the current layer's output.
    std::memcpy(b_.dy, g_out, sizeof(T) * d_.rows() * d_.dirs * d_.hidden);
    for (int64_t l = d_.layers - 1; l >= 0; --l) {
      const T* in = l == 0 ? data : b_.layer_out[l - 1];
      const int64_t in_width = p_.LayerInput(l, d_.input);
      std::fill(b_.dx, b_.dx + d_.rows() * in_width, T(0));
      for (int64_t dir = 0; dir < d_.dirs; ++dir) {
        const int64_t k = l * d_.dirs + dir;
        const RnnCellBuffers<T>& c = b_.cells[k];
        const RnnCellGrads<T> g = CellGrads(c, params, b_.dparams);
        std::memcpy(b_.dh, g_hy + k * nh, sizeof(T) * nh);
        if (d_.lstm) std::memcpy(b_.dc, g_cy + k * nh, sizeof(T) * nh);
        const bool reverse = dir == 1;
        for (int64_t s = d_.seq - 1; s >= 0; --s) {
          const int64_t t = reverse ? d_.seq - 1 - s : s;       // step s of this direction
          const bool first = s == 0;
          const int64_t tp = reverse ? t + 1 : t - 1;           // the previous step's time
          const T* hprev = first ? h0 + k * nh : c.h + tp * nh;
          const T* cprev = d_.lstm ? (first ? c0 + k * nh : c.c + tp * nh) : nullptr;
          // dh += the output's gradient at t.
          const int64_t width = d_.dirs * d_.hidden;
          for (int64_t b = 0; b < d_.batch; ++b) {
            const T* src = b_.dy + (t * d_.batch + b) * width + dir * d_.hidden;
            for (int64_t j = 0; j < d_.hidden; ++j) b_.dh[b * d_.hidden + j] += src[j];
          }
          StepBackward(c, t, hprev, cprev);
          // dh_prev = dGh W_h (+ the direct path, already in b_.dhp).
          Gemm<T>(ctx, true, false, false, d_.batch, d_.hidden, d_.gh(),
                  b_.dgh + t * d_.batch * d_.gh(), d_.gh(), c.wh, d_.hidden, b_.dhp, d_.hidden,
                  true);
          std::swap(b_.dh, b_.dhp);
          if (d_.lstm) std::swap(b_.dc, b_.dcp);
        }
        // dWh += dGh^T h_prev over every step, dbh += dGh's column sums.
        const RnnRecurrentPairs pairs = RecurrentPairs(d_, reverse);
        if (pairs.steps > 0) {
          Gemm<T>(ctx, true, true, false, d_.gh(), d_.hidden, pairs.steps * d_.batch,
                  b_.dgh + pairs.grad_row * d_.gh(), d_.gh(), c.h + pairs.state_row * d_.hidden,
                  d_.hidden, g.wh, d_.hidden, true);
        }
        Gemm<T>(ctx, true, true, false, d_.gh(), d_.hidden, d_.batch,
                b_.dgh + pairs.first_row * d_.gh(), d_.gh(), h0 + k * nh, d_.hidden, g.wh,
                d_.hidden, true);
        for (int64_t r = 0; r < d_.rows(); ++r) {
          for (int64_t j = 0; j < d_.gh(); ++j) g.bh[j] += b_.dgh[r * d_.gh() + j];
        }
        std::memcpy(b_.dstate + k * nh, b_.dh, sizeof(T) * nh);
        if (d_.lstm) std::memcpy(b_.dcell + k * nh, b_.dc, sizeof(T) * nh);
        // Input projections over the whole sequence.
        Gemm<T>(ctx, true, true, false, d_.gh(), in_width, d_.rows(), b_.dgx, d_.gh(), in, in_width,
                g.wx, in_width, true);
        for (int64_t r = 0; r < d_.rows(); ++r) {
          for (int64_t j = 0; j < d_.gh(); ++j) g.bx[j] += b_.dgx[r * d_.gh() + j];
        }
        Gemm<T>(ctx, true, false, false, d_.rows(), in_width, d_.gh(), b_.dgx, d_.gh(), c.wx,
                in_width, b_.dx, in_width, true);
      }
      std::swap(b_.dx, b_.dy);
    }
    for (int i = 0; i < nin && i < static_cast<int>(ctx.outputs.size()); ++i) {
      if (!OutputWanted(ctx.req, i) || !ctx.outputs[i].defined()) continue;
      const auto [grad, n] = b_.Gradient(i, p_, d_);
      std::memcpy(ctx.outputs[i].template data<T>(), grad, sizeof(T) * n);
    }
  }

 private:
  void ForwardCell(const RnnCellBuffers<T>& c, const T* in, int64_t in_width, bool reverse,
                   const T* h0, const T* c0) {
    const int64_t H = d_.hidden, GH = d_.gh(), N = d_.batch, nh = N * H;
    // x = in Wx^T + bx for every step.
    Gemm<T>(ctx_, true, false, true, d_.rows(), GH, in_width, in, in_width, c.wx, in_width, c.x,
            GH, false, c.bx);
    for (int64_t s = 0; s < d_.seq; ++s) {
      const int64_t t = reverse ? d_.seq - 1 - s : s;
      const int64_t tp = reverse ? t + 1 : t - 1;
      const T* hprev = s == 0 ? h0 : c.h + tp * nh;
      const T* cprev = d_.lstm ? (s == 0 ? c0 : c.c + tp * nh) : nullptr;
      Gemm<T>(ctx_, true, false, true, N, GH, H, hprev, H, c.wh, H, b_.tmp_gh, GH, false, c.bh);
      for (int64_t b = 0; b < N; ++b) {
        const int64_t row = t * N + b;
        for (int64_t j = 0; j < H; ++j) {
          const int64_t u = b * H + j;
          RnnCellForward<T>(kind_, H, j, c.x + row * GH, nullptr, b_.tmp_gh + b * GH, nullptr,
                            hprev[u], cprev ? cprev[u] : T(0), c.c ? c.c + t * nh + u : nullptr,
                            c.hn ? c.hn + t * nh + u : nullptr, c.h + t * nh + u);
        }
      }
    }
  }

  // From dh (and dc) at time t: the pre-activation gradients into dgx[t]
  // (input side) and dgh (recurrent side), and the direct parts of the previous
  // step's gradients into dhp (and dcp).
  void StepBackward(const RnnCellBuffers<T>& c, int64_t t, const T* hprev, const T* cprev) {
    const int64_t H = d_.hidden, GH = d_.gh(), N = d_.batch, nh = N * H;
    for (int64_t b = 0; b < N; ++b) {
      const int64_t row = t * N + b;
      for (int64_t j = 0; j < H; ++j) {
        const int64_t u = b * H + j;
        RnnCellBackward<T>(kind_, H, j, c.x + row * GH, c.c ? c.c[t * nh + u] : T(0),
                           cprev ? cprev[u] : T(0), c.hn ? c.hn[t * nh + u] : T(0), hprev[u],
                           b_.dh[u], d_.lstm ? b_.dc[u] : T(0), b_.dgx + row * GH,
                           b_.dgh + row * GH, b_.dhp + u, d_.lstm ? b_.dcp + u : nullptr);
      }
    }
  }

  const KernelContext& ctx_;
  const RNNParam& p_;
  RnnDims d_;
  int kind_;
  RnnBuffers<T> b_;
};

absl::Status RNNForward(const KernelContext& ctx) {
  const RNNParam& p = ctx.param<RNNParam>();
  SYMX_RETURN_IF_ERROR(CheckRnnCall(ctx, p, ctx.is_train));
  const Shape& ds = ctx.inputs[0].shape();
  if (ds[0] == 0 || ds[1] == 0) {
    for (size_t o = 1; o < ctx.outputs.size(); ++o) {
      SYMX_RETURN_IF_ERROR(CopyTensor(ctx.inputs[1 + o], ctx.outputs[o]));
    }
    return absl::OkStatus();
  }
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, {
    RNNRunner<T> run(ctx, p, false);
    run.Forward();
    run.WriteOutputs();
  });
  return absl::OkStatus();
}

absl::Status RNNBackward(const KernelContext& ctx) {
  const RNNParam& p = ctx.param<RNNParam>();
  SYMX_RETURN_IF_ERROR(CheckRnnCall(ctx, p, true));
  const Shape& ds = ctx.inputs[0].shape();
  if (ds[0] == 0 || ds[1] == 0) {
    for (size_t i = 0; i < ctx.outputs.size(); ++i) {
      if (OutputWanted(ctx.req, i) && ctx.outputs[i].defined()) ctx.outputs[i].Fill(0);
    }
    // With no steps the states pass straight through.
    const int og = p.lstm() ? 4 : 3;
    for (int s = 0; s < (p.lstm() ? 2 : 1); ++s) {
      if (OutputWanted(ctx.req, 2 + s) && ctx.outputs[2 + s].defined()) {
        SYMX_RETURN_IF_ERROR(CopyTensor(ctx.inputs[og + 1 + s], ctx.outputs[2 + s]));
      }
    }
    return absl::OkStatus();
  }
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, {
    RNNRunner<T> run(ctx, p, true);
    run.Forward();
    run.Backward();
  });
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("RNN", kCPU, .fn = RNNForward, .workspace = RnnWorkspace);
SYMX_REGISTER_KERNEL("_backward_RNN", kCPU, .fn = RNNBackward, .workspace = RnnWorkspace);

}  // namespace cpu
}  // namespace symx
