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
#include "graph/op.h"
#include "graph/ops/rnn.h"

namespace symx {
namespace cpu {
namespace {

// Sizes of one call, from the data shape and the attributes.
struct Dims {
  int64_t seq, batch, input, hidden, gates, dirs, layers;
  bool lstm, gru;
  int64_t rows() const { return seq * batch; }
  int64_t gh() const { return gates * hidden; }
  int64_t max_width() const { return std::max(input, dirs * hidden); }
};

Dims MakeDims(const RNNParam& p, const Shape& data) {
  Dims d;
  d.seq = data[0];
  d.batch = data[1];
  d.input = data[2];
  d.hidden = p.state_size;
  d.gates = p.gates();
  d.dirs = p.directions();
  d.layers = p.num_layers;
  d.lstm = p.lstm();
  d.gru = p.mode == RNNMode::kGru;
  return d;
}

// Workspace element counts: the forward's saved activations, then the
// backward's buffers.
int64_t ForwardElems(const Dims& d) {
  const int64_t per_cell = d.rows() * (d.gh() + d.hidden + (d.lstm || d.gru ? d.hidden : 0));
  return d.layers * d.dirs * per_cell + d.layers * d.rows() * d.dirs * d.hidden +
         d.batch * d.gh();
}
int64_t BackwardElems(const Dims& d, int64_t param_size) {
  return d.rows() * d.gh() + 2 * d.rows() * d.max_width() + d.batch * d.gh() +
         4 * d.batch * d.hidden + param_size + 2 * d.layers * d.dirs * d.batch * d.hidden;
}

size_t RNNWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                    const std::vector<Shape>& out, DType dtype) {
  if (!in[0].fully_known() || in[0].ndim() != 3) return 0;
  const RNNParam& p = Param<RNNParam>(attrs);
  const Dims d = MakeDims(p, in[0]);
  int64_t elems = ForwardElems(d);
  if (attrs.op != nullptr && attrs.op->is_backward()) {
    elems += BackwardElems(d, p.ParamSize(d.input));
  }
  return static_cast<size_t>(elems) * std::max<size_t>(DTypeSize(dtype), 1) + 64;
}

template <typename T>
inline T Sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

// Saved forward state of one (layer, direction).
template <typename T>
struct Cell {
  const T* wx;  // (gh, in)
  const T* wh;  // (gh, hidden)
  const T* bx;  // (gh)
  const T* bh;  // (gh)
  T* x;         // (rows, gh): gate activations after the forward
  T* h;         // (rows, hidden): hidden state after each step (in time order)
  T* c;         // (rows, hidden): lstm cell state after each step
  T* hn;        // (rows, hidden): gru W_hn h + b_hn at each step
};

template <typename T>
class RNNRunner {
 public:
  RNNRunner(const KernelContext& ctx, const RNNParam& p, bool backward)
      : ctx_(ctx), p_(p), d_(MakeDims(p, ctx.inputs[0].shape())) {
    T* ws = reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(ctx.workspace.raw_data()) + 63) &
                                 ~uintptr_t{63});
    const T* params = ctx.inputs[1].template data<T>();
    cells_.resize(d_.layers * d_.dirs);
    for (int64_t l = 0; l < d_.layers; ++l) {
      const int64_t in = p.LayerInput(l, d_.input);
      for (int64_t dir = 0; dir < d_.dirs; ++dir) {
        Cell<T>& c = cells_[l * d_.dirs + dir];
        c.wx = params + p.WeightOffset(l, dir, d_.input);
        c.wh = c.wx + d_.gh() * in;
        c.bx = params + p.BiasOffset(l, dir, d_.input);
        c.bh = c.bx + d_.gh();
        c.x = Take(&ws, d_.rows() * d_.gh());
        c.h = Take(&ws, d_.rows() * d_.hidden);
        c.c = d_.lstm ? Take(&ws, d_.rows() * d_.hidden) : nullptr;
        c.hn = d_.gru ? Take(&ws, d_.rows() * d_.hidden) : nullptr;
      }
    }
    for (int64_t l = 0; l < d_.layers; ++l) layer_out_.push_back(Take(&ws, d_.rows() * d_.dirs * d_.hidden));
    tmp_gh_ = Take(&ws, d_.batch * d_.gh());
    if (backward) {
      dgx_ = Take(&ws, d_.rows() * d_.gh());
      dy_ = Take(&ws, d_.rows() * d_.max_width());
      dx_ = Take(&ws, d_.rows() * d_.max_width());
      dgh_ = Take(&ws, d_.batch * d_.gh());
      dh_ = Take(&ws, d_.batch * d_.hidden);
      dc_ = Take(&ws, d_.batch * d_.hidden);
      dhp_ = Take(&ws, d_.batch * d_.hidden);
      dcp_ = Take(&ws, d_.batch * d_.hidden);
      dparams_ = Take(&ws, p.ParamSize(d_.input));
      dstate_ = Take(&ws, d_.layers * d_.dirs * d_.batch * d_.hidden);
      dcell_ = Take(&ws, d_.layers * d_.dirs * d_.batch * d_.hidden);
    }
  }

  void Forward() {
    const T* data = ctx_.inputs[0].template data<T>();
    const T* h0 = ctx_.inputs[2].template data<T>();
    const T* c0 = d_.lstm ? ctx_.inputs[3].template data<T>() : nullptr;
    const int64_t nh = d_.batch * d_.hidden;
    for (int64_t l = 0; l < d_.layers; ++l) {
      const T* in = l == 0 ? data : layer_out_[l - 1];
      const int64_t in_width = p_.LayerInput(l, d_.input);
      for (int64_t dir = 0; dir < d_.dirs; ++dir) {
        const int64_t k = l * d_.dirs + dir;
        ForwardCell(cells_[k], in, in_width, dir == 1, h0 + k * nh, c0 ? c0 + k * nh : nullptr);
        // Interleave into the layer's output (rows, dirs * hidden).
        const Cell<T>& c = cells_[k];
        const int64_t width = d_.dirs * d_.hidden;
        for (int64_t r = 0; r < d_.rows(); ++r) {
          std::memcpy(layer_out_[l] + r * width + dir * d_.hidden, c.h + r * d_.hidden,
                      sizeof(T) * d_.hidden);
        }
      }
    }
  }

  // Writes the forward outputs.
  void WriteOutputs() const {
    const int64_t nh = d_.batch * d_.hidden;
    std::memcpy(ctx_.outputs[0].template data<T>(), layer_out_.back(),
                sizeof(T) * d_.rows() * d_.dirs * d_.hidden);
    for (size_t o = 1; o < ctx_.outputs.size(); ++o) {
      T* dst = ctx_.outputs[o].template data<T>();
      for (int64_t k = 0; k < d_.layers * d_.dirs; ++k) {
        const Cell<T>& c = cells_[k];
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
    std::fill(dparams_, dparams_ + psize, T(0));
    // dy_: the gradient of the current layer's output.
    std::memcpy(dy_, g_out, sizeof(T) * d_.rows() * d_.dirs * d_.hidden);
    for (int64_t l = d_.layers - 1; l >= 0; --l) {
      const T* in = l == 0 ? data : layer_out_[l - 1];
      const int64_t in_width = p_.LayerInput(l, d_.input);
      std::fill(dx_, dx_ + d_.rows() * in_width, T(0));
      for (int64_t dir = 0; dir < d_.dirs; ++dir) {
        const int64_t k = l * d_.dirs + dir;
        const Cell<T>& c = cells_[k];
        T* dwx = dparams_ + (c.wx - params);
        T* dwh = dparams_ + (c.wh - params);
        T* dbx = dparams_ + (c.bx - params);
        T* dbh = dparams_ + (c.bh - params);
        std::memcpy(dh_, g_hy + k * nh, sizeof(T) * nh);
        if (d_.lstm) std::memcpy(dc_, g_cy + k * nh, sizeof(T) * nh);
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
            const T* src = dy_ + (t * d_.batch + b) * width + dir * d_.hidden;
            for (int64_t j = 0; j < d_.hidden; ++j) dh_[b * d_.hidden + j] += src[j];
          }
          StepBackward(c, t, hprev, cprev);
          // dh_prev = dGh W_h (+ the direct path, already in dhp_); dWh += dGh^T hprev.
          Gemm<T>(ctx, true, false, false, d_.batch, d_.hidden, d_.gh(), dgh_, d_.gh(), c.wh,
                  d_.hidden, dhp_, d_.hidden, true);
          Gemm<T>(ctx, true, true, false, d_.gh(), d_.hidden, d_.batch, dgh_, d_.gh(), hprev,
                  d_.hidden, dwh, d_.hidden, true);
          for (int64_t b = 0; b < d_.batch; ++b) {
            for (int64_t j = 0; j < d_.gh(); ++j) dbh[j] += dgh_[b * d_.gh() + j];
          }
          std::swap(dh_, dhp_);
          if (d_.lstm) std::swap(dc_, dcp_);
        }
        std::memcpy(dstate_ + k * nh, dh_, sizeof(T) * nh);
        if (d_.lstm) std::memcpy(dcell_ + k * nh, dc_, sizeof(T) * nh);
        // Input projections over the whole sequence.
        Gemm<T>(ctx, true, true, false, d_.gh(), in_width, d_.rows(), dgx_, d_.gh(), in, in_width,
                dwx, in_width, true);
        for (int64_t r = 0; r < d_.rows(); ++r) {
          for (int64_t j = 0; j < d_.gh(); ++j) dbx[j] += dgx_[r * d_.gh() + j];
        }
        Gemm<T>(ctx, true, false, false, d_.rows(), in_width, d_.gh(), dgx_, d_.gh(), c.wx,
                in_width, dx_, in_width, true);
      }
      std::swap(dx_, dy_);
    }
    // dy_ now holds the data's gradient.
    const T* grads[4] = {dy_, dparams_, dstate_, dcell_};
    const int64_t sizes[4] = {d_.rows() * d_.input, psize, d_.layers * d_.dirs * nh,
                              d_.layers * d_.dirs * nh};
    for (int i = 0; i < nin && i < static_cast<int>(ctx.outputs.size()); ++i) {
      if (!OutputWanted(ctx.req, i) || !ctx.outputs[i].defined()) continue;
      std::memcpy(ctx.outputs[i].template data<T>(), grads[i], sizeof(T) * sizes[i]);
    }
  }

 private:
  static T* Take(T** ws, int64_t n) {
    T* out = *ws;
    *ws += n;
    return out;
  }

  void ForwardCell(const Cell<T>& c, const T* in, int64_t in_width, bool reverse, const T* h0,
                   const T* c0) {
    const int64_t H = d_.hidden, GH = d_.gh(), N = d_.batch, nh = N * H;
    // x = in Wx^T + bx for every step.
    Gemm<T>(ctx_, true, false, true, d_.rows(), GH, in_width, in, in_width, c.wx, in_width, c.x,
            GH, false, c.bx);
    for (int64_t s = 0; s < d_.seq; ++s) {
      const int64_t t = reverse ? d_.seq - 1 - s : s;
      const int64_t tp = reverse ? t + 1 : t - 1;
      const T* hprev = s == 0 ? h0 : c.h + tp * nh;
      const T* cprev = d_.lstm ? (s == 0 ? c0 : c.c + tp * nh) : nullptr;
      Gemm<T>(ctx_, true, false, true, N, GH, H, hprev, H, c.wh, H, tmp_gh_, GH, false, c.bh);
      T* x = c.x + t * N * GH;
      T* h = c.h + t * nh;
      for (int64_t b = 0; b < N; ++b) {
        T* xb = x + b * GH;
        const T* gb = tmp_gh_ + b * GH;
        T* hb = h + b * H;
        const T* hpb = hprev + b * H;
        switch (p_.mode) {
          case RNNMode::kLstm: {
            T* cb = c.c + t * nh + b * H;
            const T* cpb = cprev + b * H;
            for (int64_t j = 0; j < H; ++j) {
              const T i = Sigmoid(xb[j] + gb[j]);
              const T f = Sigmoid(xb[H + j] + gb[H + j]);
              const T g = std::tanh(xb[2 * H + j] + gb[2 * H + j]);
              const T o = Sigmoid(xb[3 * H + j] + gb[3 * H + j]);
              xb[j] = i, xb[H + j] = f, xb[2 * H + j] = g, xb[3 * H + j] = o;
              cb[j] = f * cpb[j] + i * g;
              hb[j] = o * std::tanh(cb[j]);
            }
            break;
          }
          case RNNMode::kGru: {
            T* hnb = c.hn + t * nh + b * H;
            for (int64_t j = 0; j < H; ++j) {
              const T r = Sigmoid(xb[j] + gb[j]);
              const T z = Sigmoid(xb[H + j] + gb[H + j]);
              hnb[j] = gb[2 * H + j];
              const T n = std::tanh(xb[2 * H + j] + r * hnb[j]);
              xb[j] = r, xb[H + j] = z, xb[2 * H + j] = n;
              hb[j] = (T(1) - z) * n + z * hpb[j];
            }
            break;
          }
          case RNNMode::kRnnTanh:
            for (int64_t j = 0; j < H; ++j) hb[j] = xb[j] = std::tanh(xb[j] + gb[j]);
            break;
          case RNNMode::kRnnRelu:
            for (int64_t j = 0; j < H; ++j) hb[j] = xb[j] = std::max(xb[j] + gb[j], T(0));
            break;
        }
      }
    }
  }

  // From dh_ (and dc_) at time t: the pre-activation gradients into dgx_[t]
  // (input side) and dgh_ (recurrent side), and the direct parts of the previous
  // step's gradients into dhp_ (and dcp_).
  void StepBackward(const Cell<T>& c, int64_t t, const T* hprev, const T* cprev) {
    const int64_t H = d_.hidden, GH = d_.gh(), N = d_.batch, nh = N * H;
    for (int64_t b = 0; b < N; ++b) {
      const T* xb = c.x + (t * N + b) * GH;
      T* gx = dgx_ + (t * N + b) * GH;
      T* gh = dgh_ + b * GH;
      const T* dh = dh_ + b * H;
      T* dhp = dhp_ + b * H;
      switch (p_.mode) {
        case RNNMode::kLstm: {
          const T* cb = c.c + t * nh + b * H;
          const T* cpb = cprev + b * H;
          T* dc = dc_ + b * H;
          T* dcp = dcp_ + b * H;
          for (int64_t j = 0; j < H; ++j) {
            const T i = xb[j], f = xb[H + j], g = xb[2 * H + j], o = xb[3 * H + j];
            const T tc = std::tanh(cb[j]);
            const T dct = dc[j] + dh[j] * o * (T(1) - tc * tc);
            gx[j] = dct * g * i * (T(1) - i);
            gx[H + j] = dct * cpb[j] * f * (T(1) - f);
            gx[2 * H + j] = dct * i * (T(1) - g * g);
            gx[3 * H + j] = dh[j] * tc * o * (T(1) - o);
            dcp[j] = dct * f;
            dhp[j] = 0;
          }
          std::memcpy(gh, gx, sizeof(T) * GH);
          break;
        }
        case RNNMode::kGru: {
          const T* hnb = c.hn + t * nh + b * H;
          const T* hpb = hprev + b * H;
          for (int64_t j = 0; j < H; ++j) {
            const T r = xb[j], z = xb[H + j], n = xb[2 * H + j];
            const T dn = dh[j] * (T(1) - z) * (T(1) - n * n);
            const T dz = dh[j] * (hpb[j] - n) * z * (T(1) - z);
            const T dr = dn * hnb[j] * r * (T(1) - r);
            gx[j] = gh[j] = dr;
            gx[H + j] = gh[H + j] = dz;
            gx[2 * H + j] = dn;
            gh[2 * H + j] = dn * r;
            dhp[j] = dh[j] * z;
          }
          break;
        }
        case RNNMode::kRnnTanh:
          for (int64_t j = 0; j < H; ++j) {
            gh[j] = gx[j] = dh[j] * (T(1) - xb[j] * xb[j]);
            dhp[j] = 0;
          }
          break;
        case RNNMode::kRnnRelu:
          for (int64_t j = 0; j < H; ++j) {
            gh[j] = gx[j] = xb[j] > T(0) ? dh[j] : T(0);
            dhp[j] = 0;
          }
          break;
      }
    }
  }

  const KernelContext& ctx_;
  const RNNParam& p_;
  Dims d_;
  std::vector<Cell<T>> cells_;
  std::vector<T*> layer_out_;
  T* tmp_gh_ = nullptr;
  T *dgx_ = nullptr, *dy_ = nullptr, *dx_ = nullptr, *dgh_ = nullptr;
  T *dh_ = nullptr, *dc_ = nullptr, *dhp_ = nullptr, *dcp_ = nullptr;
  T *dparams_ = nullptr, *dstate_ = nullptr, *dcell_ = nullptr;
};

absl::Status CheckRNN(const KernelContext& ctx, const RNNParam& p, bool train) {
  const DType dt = ctx.inputs[0].dtype();
  for (const Tensor& t : ctx.inputs) {
    if (t.dtype() != dt) return UnsupportedDType(ctx, t.dtype());
  }
  if (train && p.p > 0 && p.num_layers > 1) {
    return absl::UnimplementedError(absl::StrCat(
        ctx.Where(), ": dropout between layers (p=", p.p,
        ") in training is not supported by symx; use p=0 or inference"));
  }
  if (ctx.workspace.nbytes() <
      RNNWorkspace(*ctx.attrs, {ctx.inputs[0].shape()}, {}, dt)) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": workspace too small"));
  }
  return absl::OkStatus();
}

absl::Status RNNForward(const KernelContext& ctx) {
  const RNNParam& p = ctx.param<RNNParam>();
  SYMX_RETURN_IF_ERROR(CheckRNN(ctx, p, ctx.is_train));
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
  SYMX_RETURN_IF_ERROR(CheckRNN(ctx, p, true));
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

SYMX_REGISTER_KERNEL("RNN", kCPU, RNNForward, RNNWorkspace);
SYMX_REGISTER_KERNEL("_backward_RNN", kCPU, RNNBackward, RNNWorkspace);

}  // namespace cpu
}  // namespace symx
