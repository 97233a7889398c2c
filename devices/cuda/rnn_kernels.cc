// CUDA kernels of the fused RNN operator and its gradient, in float32,
// float64, float16 and bfloat16 (the half types store activations and
// gradients in their dtype and compute each step in float). The algorithm is
// the CPU's (devices/cpu/rnn_kernels.cc) on the same workspace layout
// (devices/geometry/rnn_layout.h): per (layer, direction) one cuBLAS GEMM projects the
// whole sequence's inputs, then each step is one GEMM (the recurrent product)
// and one gate kernel (devices/cuda/rnn.cu); the backward recomputes the
// forward and backpropagates through time with GEMMs that accumulate the
// weight gradients in place. Everything is enqueued on the step's stream.
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "devices/cuda/cublas_gemm.h"
#include "devices/cuda/kernel_util.h"
#include "devices/geometry/rnn_layout.h"
#include "graph/op.h"
#include "graph/ops/rnn.h"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/rnn_launch.h"

namespace symx {
namespace cuda {
namespace {

// S only sizes the pointer arithmetic: a type as wide as the dtype (the
// buffers live on the device and are never dereferenced here).
template <typename S>
class RnnGpuRunner {
 public:
  RnnGpuRunner(const KernelContext& ctx, CudaDevice* device, Elem t, const RNNParam& p,
               bool backward)
      : ctx_(ctx),
        device_(device),
        t_(t),
        p_(p),
        d_(MakeRnnDims(p, ctx.inputs[0].shape())),
        kind_(RnnCellKindOf(p.mode)),
        b_(ctx.workspace.raw_data(), static_cast<const S*>(ctx.inputs[1].read_raw_data()), p, d_,
           backward) {}

  absl::Status Forward() {
    const S* data = In(0);
    const S* h0 = In(2);
    const S* c0 = d_.lstm ? In(3) : nullptr;
    const int64_t nh = d_.batch * d_.hidden;
    for (int64_t l = 0; l < d_.layers; ++l) {
      const S* in = l == 0 ? data : b_.layer_out[l - 1];
      const int64_t in_width = p_.LayerInput(l, d_.input);
      for (int64_t dir = 0; dir < d_.dirs; ++dir) {
        const int64_t k = l * d_.dirs + dir;
        const RnnCellBuffers<S>& c = b_.cells[k];
        SYMX_RETURN_IF_ERROR(
            ForwardCell(c, in, in_width, dir == 1, h0 + k * nh, c0 ? c0 + k * nh : nullptr));
        // Interleave into the layer's output (rows, dirs * hidden).
        SYMX_CUDA_LAUNCH(
            ctx_, cudaMemcpy2DAsync(b_.layer_out[l] + dir * d_.hidden, Bytes(d_.dirs * d_.hidden),
                                    c.h, Bytes(d_.hidden), Bytes(d_.hidden), d_.rows(),
                                    cudaMemcpyDeviceToDevice, device_->stream()));
      }
    }
    return absl::OkStatus();
  }

  absl::Status WriteOutputs() {
    const int64_t nh = d_.batch * d_.hidden;
    SYMX_RETURN_IF_ERROR(
        Copy(ctx_.outputs[0].raw_data(), b_.layer_out.back(), d_.rows() * d_.dirs * d_.hidden));
    for (size_t o = 1; o < ctx_.outputs.size(); ++o) {
      S* dst = static_cast<S*>(ctx_.outputs[o].raw_data());
      for (int64_t k = 0; k < d_.layers * d_.dirs; ++k) {
        const RnnCellBuffers<S>& c = b_.cells[k];
        const int64_t last = (k % d_.dirs == 1) ? 0 : d_.seq - 1;  // the last step processed
        SYMX_RETURN_IF_ERROR(Copy(dst + k * nh, (o == 1 ? c.h : c.c) + last * nh, nh));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Backward() {
    const int nin = d_.lstm ? 4 : 3;  // forward inputs; the head gradients follow
    const S* g_out = In(nin);
    const S* g_hy = In(nin + 1);
    const S* g_cy = d_.lstm ? In(nin + 2) : nullptr;
    const S* data = In(0);
    const S* h0 = In(2);
    const S* c0 = d_.lstm ? In(3) : nullptr;
    const S* params = In(1);
    const int64_t nh = d_.batch * d_.hidden, H = d_.hidden, GH = d_.gh(), N = d_.batch;
    const int64_t psize = p_.ParamSize(d_.input);
    SYMX_RETURN_IF_ERROR(Zero(b_.dparams, psize));
    // dy: the gradient of the current layer's output.
    SYMX_RETURN_IF_ERROR(Copy(b_.dy, g_out, d_.rows() * d_.dirs * d_.hidden));
    for (int64_t l = d_.layers - 1; l >= 0; --l) {
      const S* in = l == 0 ? data : b_.layer_out[l - 1];
      const int64_t in_width = p_.LayerInput(l, d_.input);
      SYMX_RETURN_IF_ERROR(Zero(b_.dx, d_.rows() * in_width));
      for (int64_t dir = 0; dir < d_.dirs; ++dir) {
        const int64_t k = l * d_.dirs + dir;
        const RnnCellBuffers<S>& c = b_.cells[k];
        const RnnCellGrads<S> g = CellGrads(c, params, b_.dparams);
        SYMX_RETURN_IF_ERROR(Copy(b_.dh, g_hy + k * nh, nh));
        if (d_.lstm) SYMX_RETURN_IF_ERROR(Copy(b_.dc, g_cy + k * nh, nh));
        const bool reverse = dir == 1;
        const int64_t width = d_.dirs * d_.hidden;
        for (int64_t s = d_.seq - 1; s >= 0; --s) {
          const int64_t t = reverse ? d_.seq - 1 - s : s;  // step s of this direction
          const bool first = s == 0;
          const int64_t tp = reverse ? t + 1 : t - 1;  // the previous step's time
          const S* hprev = first ? h0 + k * nh : c.h + tp * nh;
          const S* cprev = d_.lstm ? (first ? c0 + k * nh : c.c + tp * nh) : nullptr;
          SYMX_CUDA_LAUNCH(
              ctx_,
              LaunchRnnStepBackward(
                  kind_, t_, N, H, c.x + t * N * GH, c.c ? c.c + t * nh : nullptr, cprev,
                  c.hn ? c.hn + t * nh : nullptr, hprev, b_.dh, b_.dy + t * N * width + dir * H,
                  width, d_.lstm ? b_.dc : nullptr, b_.dgx + t * N * GH, b_.dgh + t * N * GH,
                  b_.dhp, d_.lstm ? b_.dcp : nullptr, device_->stream()));
          // dh_prev += dGh Wh.
          SYMX_RETURN_IF_ERROR(Gemm(ctx_, device_, t_, false, false, N, H, GH, b_.dgh + t * N * GH,
                                    GH, c.wh, H, b_.dhp, H, 1, 1));
          std::swap(b_.dh, b_.dhp);
          if (d_.lstm) std::swap(b_.dc, b_.dcp);
        }
        // dWh += dGh^T h_prev over every step (two GEMMs), dbh += dGh's column
        // sums: accumulated once, not per step (fewer launches, and half
        // types round the sum once).
        const RnnRecurrentPairs pairs = RecurrentPairs(d_, reverse);
        if (pairs.steps > 0) {
          SYMX_RETURN_IF_ERROR(Gemm(ctx_, device_, t_, true, false, GH, H, pairs.steps * N,
                                    b_.dgh + pairs.grad_row * GH, GH, c.h + pairs.state_row * H, H,
                                    g.wh, H, 1, 1));
        }
        SYMX_RETURN_IF_ERROR(Gemm(ctx_, device_, t_, true, false, GH, H, N,
                                  b_.dgh + pairs.first_row * GH, GH, h0 + k * nh, H, g.wh, H, 1,
                                  1));
        SYMX_CUDA_LAUNCH(
            ctx_, LaunchColumnSums(t_, b_.dgh, d_.rows(), GH, 1.0, true, g.bh, device_->stream()));
        SYMX_RETURN_IF_ERROR(Copy(b_.dstate + k * nh, b_.dh, nh));
        if (d_.lstm) SYMX_RETURN_IF_ERROR(Copy(b_.dcell + k * nh, b_.dc, nh));
        // Input projections over the whole sequence.
        SYMX_RETURN_IF_ERROR(Gemm(ctx_, device_, t_, true, false, GH, in_width, d_.rows(), b_.dgx,
                                  GH, in, in_width, g.wx, in_width, 1, 1));
        SYMX_CUDA_LAUNCH(
            ctx_, LaunchColumnSums(t_, b_.dgx, d_.rows(), GH, 1.0, true, g.bx, device_->stream()));
        SYMX_RETURN_IF_ERROR(Gemm(ctx_, device_, t_, false, false, d_.rows(), in_width, GH, b_.dgx,
                                  GH, c.wx, in_width, b_.dx, in_width, 1, 1));
      }
      std::swap(b_.dx, b_.dy);
    }
    for (int i = 0; i < nin && i < static_cast<int>(ctx_.outputs.size()); ++i) {
      if (!OutputWanted(ctx_.req, i) || !ctx_.outputs[i].defined()) continue;
      const auto [grad, n] = b_.Gradient(i, p_, d_);
      SYMX_RETURN_IF_ERROR(Copy(ctx_.outputs[i].raw_data(), grad, n));
    }
    return absl::OkStatus();
  }

 private:
  const S* In(int i) const { return static_cast<const S*>(ctx_.inputs[i].read_raw_data()); }
  static size_t Bytes(int64_t n) { return static_cast<size_t>(n) * sizeof(S); }

  absl::Status Copy(void* dst, const void* src, int64_t n) {
    if (n == 0 || dst == src) return absl::OkStatus();
    SYMX_CUDA_LAUNCH(
        ctx_, cudaMemcpyAsync(dst, src, Bytes(n), cudaMemcpyDeviceToDevice, device_->stream()));
    return absl::OkStatus();
  }
  absl::Status Zero(void* dst, int64_t n) {
    if (n == 0) return absl::OkStatus();
    SYMX_CUDA_LAUNCH(ctx_, cudaMemsetAsync(dst, 0, Bytes(n), device_->stream()));
    return absl::OkStatus();
  }

  absl::Status ForwardCell(const RnnCellBuffers<S>& c, const S* in, int64_t in_width, bool reverse,
                           const S* h0, const S* c0) {
    const int64_t H = d_.hidden, GH = d_.gh(), N = d_.batch, nh = N * H;
    // x = in Wx^T for every step (the gate kernel adds bx).
    SYMX_RETURN_IF_ERROR(Gemm(ctx_, device_, t_, false, true, d_.rows(), GH, in_width, in, in_width,
                              c.wx, in_width, c.x, GH, 1, 0));
    for (int64_t s = 0; s < d_.seq; ++s) {
      const int64_t t = reverse ? d_.seq - 1 - s : s;
      const int64_t tp = reverse ? t + 1 : t - 1;
      const S* hprev = s == 0 ? h0 : c.h + tp * nh;
      const S* cprev = d_.lstm ? (s == 0 ? c0 : c.c + tp * nh) : nullptr;
      SYMX_RETURN_IF_ERROR(
          Gemm(ctx_, device_, t_, false, true, N, GH, H, hprev, H, c.wh, H, b_.tmp_gh, GH, 1, 0));
      SYMX_CUDA_LAUNCH(ctx_, LaunchRnnStepForward(
                                 kind_, t_, N, H, c.x + t * N * GH, c.bx, b_.tmp_gh, c.bh, hprev,
                                 cprev, c.c ? c.c + t * nh : nullptr,
                                 c.hn ? c.hn + t * nh : nullptr, c.h + t * nh, device_->stream()));
    }
    return absl::OkStatus();
  }

  const KernelContext& ctx_;
  CudaDevice* device_;
  Elem t_;
  const RNNParam& p_;
  RnnDims d_;
  int kind_;
  RnnBuffers<S> b_;
};

// Runs body with S as wide as the dtype.
template <typename Body>
absl::Status WithStorage(DType dtype, Body body) {
  switch (DTypeSize(dtype)) {
    case 2:
      return body(uint16_t{});
    case 4:
      return body(float{});
    default:
      return body(double{});
  }
}

// With no steps the states pass straight through (forward) and every
// gradient but the states' is zero (backward).
absl::Status EmptySequence(const KernelContext& ctx, CudaDevice* device, const RNNParam& p,
                           bool backward) {
  if (!backward) {
    for (size_t o = 1; o < ctx.outputs.size(); ++o) {
      SYMX_RETURN_IF_ERROR(CopyOnStream(ctx, ctx.inputs[1 + o], ctx.outputs[o]));
    }
    return absl::OkStatus();
  }
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    if (OutputWanted(ctx.req, i) && ctx.outputs[i].defined()) {
      SYMX_RETURN_IF_ERROR(device->Memset(ctx.outputs[i].raw_data(), 0, ctx.outputs[i].nbytes()));
    }
  }
  const int og = p.lstm() ? 4 : 3;
  for (int s = 0; s < (p.lstm() ? 2 : 1); ++s) {
    if (OutputWanted(ctx.req, 2 + s) && ctx.outputs[2 + s].defined()) {
      SYMX_RETURN_IF_ERROR(CopyOnStream(ctx, ctx.inputs[og + 1 + s], ctx.outputs[2 + s]));
    }
  }
  return absl::OkStatus();
}

template <bool kBackward>
absl::Status RnnRun(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const RNNParam& p = ctx.param<RNNParam>();
  SYMX_RETURN_IF_ERROR(CheckRnnCall(ctx, p, kBackward || ctx.is_train));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[0].dtype()));
  const Shape& ds = ctx.inputs[0].shape();
  if (ds[0] == 0 || ds[1] == 0) return EmptySequence(ctx, device, p, kBackward);
  return WithStorage(ctx.inputs[0].dtype(), [&](auto storage) -> absl::Status {
    using S = decltype(storage);
    RnnGpuRunner<S> run(ctx, device, t, p, kBackward);
    SYMX_RETURN_IF_ERROR(run.Forward());
    return kBackward ? run.Backward() : run.WriteOutputs();
  });
}

}  // namespace

SYMX_REGISTER_KERNEL("RNN", kGPU, .fn = RnnRun<false>, .workspace = RnnWorkspace);
SYMX_REGISTER_KERNEL("_backward_RNN", kGPU, .fn = RnnRun<true>, .workspace = RnnWorkspace);

}  // namespace cuda
}  // namespace symx
