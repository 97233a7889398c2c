// Conformance tests for MXNet's fused RNN operator: every mode, several layers,
// both directions, state outputs. The reference is a plain-loop implementation
// of the recurrences (checked against a live MXNet 1.9.1 with the packed layout
// described in graph/ops/rnn.h); gradients for data, parameters, state and
// state_cell are checked by the harness against finite differences.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

double Sig(double x) { return 1 / (1 + std::exp(-x)); }

int Gates(const std::string& mode) { return mode == "lstm" ? 4 : mode == "gru" ? 3 : 1; }

int64_t ParamSize(const std::string& mode, int64_t layers, int64_t dirs, int64_t input,
                  int64_t hidden) {
  const int64_t gh = Gates(mode) * hidden;
  int64_t n = 0;
  for (int64_t l = 0; l < layers; ++l) {
    const int64_t in = l == 0 ? input : dirs * hidden;
    n += dirs * (gh * (in + hidden) + 2 * gh);
  }
  return n;
}

// out (T, N, dirs*H), hy and cy (layers*dirs, N, H).
std::vector<Values> RNNRef(const std::string& mode, int64_t layers, bool bidir, bool state_outputs,
                           const std::vector<Values>& in, const std::vector<Shape>& shapes) {
  const int64_t T = shapes[0][0], N = shapes[0][1], I = shapes[0][2], H = shapes[2][2];
  const int64_t D = bidir ? 2 : 1, G = Gates(mode), GH = G * H;
  const Values& w = in[1];
  const bool lstm = mode == "lstm";
  // Offsets: weights of every (layer, dir), then biases.
  std::vector<int64_t> wx_off, wh_off, bx_off, bh_off;
  int64_t off = 0;
  for (int64_t l = 0; l < layers; ++l) {
    const int64_t inw = l == 0 ? I : D * H;
    for (int64_t d = 0; d < D; ++d) {
      wx_off.push_back(off);
      off += GH * inw;
      wh_off.push_back(off);
      off += GH * H;
    }
  }
  for (int64_t k = 0; k < layers * D; ++k) {
    bx_off.push_back(off);
    off += GH;
    bh_off.push_back(off);
    off += GH;
  }
  EXPECT_EQ(off, static_cast<int64_t>(w.size()));
  Values x = in[0];
  int64_t inw = I;
  Values hy(layers * D * N * H), cy(layers * D * N * H);
  for (int64_t l = 0; l < layers; ++l) {
    Values y(T * N * D * H);
    for (int64_t d = 0; d < D; ++d) {
      const int64_t k = l * D + d;
      for (int64_t b = 0; b < N; ++b) {
        std::vector<double> h(H), c(H);
        for (int64_t j = 0; j < H; ++j) {
          h[j] = in[2][(k * N + b) * H + j];
          if (lstm) c[j] = in[3][(k * N + b) * H + j];
        }
        for (int64_t s = 0; s < T; ++s) {
          const int64_t t = d == 1 ? T - 1 - s : s;
          std::vector<double> gx(GH), gh(GH);
          for (int64_t g = 0; g < GH; ++g) {
            double ax = w[bx_off[k] + g], ah = w[bh_off[k] + g];
            for (int64_t i = 0; i < inw; ++i) {
              ax += w[wx_off[k] + g * inw + i] * x[(t * N + b) * inw + i];
            }
            for (int64_t i = 0; i < H; ++i) ah += w[wh_off[k] + g * H + i] * h[i];
            gx[g] = ax;
            gh[g] = ah;
          }
          std::vector<double> nh(H);
          for (int64_t j = 0; j < H; ++j) {
            if (lstm) {
              const double ig = Sig(gx[j] + gh[j]), fg = Sig(gx[H + j] + gh[H + j]);
              const double gg = std::tanh(gx[2 * H + j] + gh[2 * H + j]);
              const double og = Sig(gx[3 * H + j] + gh[3 * H + j]);
              c[j] = fg * c[j] + ig * gg;
              nh[j] = og * std::tanh(c[j]);
            } else if (mode == "gru") {
              const double r = Sig(gx[j] + gh[j]), z = Sig(gx[H + j] + gh[H + j]);
              const double n = std::tanh(gx[2 * H + j] + r * gh[2 * H + j]);
              nh[j] = (1 - z) * n + z * h[j];
            } else if (mode == "rnn_tanh") {
              nh[j] = std::tanh(gx[j] + gh[j]);
            } else {
              nh[j] = std::max(gx[j] + gh[j], 0.0);
            }
          }
          h = nh;
          for (int64_t j = 0; j < H; ++j) y[((t * N + b) * D + d) * H + j] = h[j];
        }
        for (int64_t j = 0; j < H; ++j) {
          hy[(k * N + b) * H + j] = h[j];
          cy[(k * N + b) * H + j] = c[j];
        }
      }
    }
    x = y;
    inw = D * H;
  }
  std::vector<Values> outs = {x};
  if (state_outputs) {
    outs.push_back(hy);
    if (lstm) outs.push_back(cy);
  }
  return outs;
}

OpCase RNNCase(const std::string& mode, int64_t layers, bool bidir, bool state_outputs,
               int64_t T = 3, int64_t N = 2, int64_t I = 3, int64_t H = 4) {
  OpCase c;
  c.name = "RNN " + mode + " layers=" + std::to_string(layers) + (bidir ? " bidirectional" : "") +
           (state_outputs ? " state_outputs" : "") + " T=" + std::to_string(T);
  c.op = "RNN";
  c.attrs = {{"mode", mode},
             {"state_size", std::to_string(H)},
             {"num_layers", std::to_string(layers)},
             {"bidirectional", bidir ? "True" : "False"},
             {"state_outputs", state_outputs ? "True" : "False"}};
  const int64_t D = bidir ? 2 : 1;
  c.shapes = {Shape{T, N, I}, Shape{ParamSize(mode, layers, D, I, H)}, Shape{layers * D, N, H}};
  if (mode == "lstm") c.shapes.push_back(Shape{layers * D, N, H});
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    return RNNRef(mode, layers, bidir, state_outputs, in, shapes);
  };
  c.forward_tol32 = 1e-5;
  c.grad_tol = 1e-5;
  return c;
}

TEST(RnnConformance, Lstm) {
  CheckOp(RNNCase("lstm", 1, false, false));
  CheckOp(RNNCase("lstm", 1, false, true));
  CheckOp(RNNCase("lstm", 2, true, true, 4));
  CheckOp(RNNCase("lstm", 2, false, false));
}

TEST(RnnConformance, Gru) {
  CheckOp(RNNCase("gru", 1, false, true));
  CheckOp(RNNCase("gru", 2, true, true, 4));
  CheckOp(RNNCase("gru", 1, true, false));
}

TEST(RnnConformance, PlainRnn) {
  CheckOp(RNNCase("rnn_tanh", 1, false, true));
  CheckOp(RNNCase("rnn_tanh", 2, true, true));
  CheckOp(RNNCase("rnn_relu", 1, false, true));
  CheckOp(RNNCase("rnn_relu", 2, true, false, 4));
}

TEST(RnnConformance, OddSizes) {
  // One step, batch 1, input wider than the state, three layers.
  CheckOp(RNNCase("lstm", 3, true, true, 1, 1, 5, 2));
  CheckOp(RNNCase("gru", 1, false, true, 5, 3, 1, 3));
}

TEST(RnnConformance, Inference) {
  // Dropout between layers has no effect at inference.
  OpCase c = RNNCase("lstm", 2, false, true);
  c.name += " p=0.5 inference";
  c.attrs["p"] = "0.5";
  c.is_train = false;
  c.check_backward = false;
  CheckOp(c);
}

}  // namespace
}  // namespace testing

}  // namespace symx
