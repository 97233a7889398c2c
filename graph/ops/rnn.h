// Parameters of MXNet's fused RNN operator (graph/ops/rnn.cc), shared by the
// schema and the CPU kernels (devices/cpu/rnn_kernels.cc), and the packed
// parameter layout both rely on.
#ifndef SYMX_GRAPH_OPS_RNN_H_
#define SYMX_GRAPH_OPS_RNN_H_

#include <cstdint>

#include "graph/param.h"

namespace symx {

enum class RNNMode { kRnnRelu, kRnnTanh, kLstm, kGru };

struct RNNParam : OpParam {
  int64_t state_size = 0;
  int64_t num_layers = 0;
  bool bidirectional = false;
  RNNMode mode = RNNMode::kLstm;
  double p = 0;  // dropout between layers
  bool state_outputs = false;

  int64_t directions() const { return bidirectional ? 2 : 1; }
  bool lstm() const { return mode == RNNMode::kLstm; }
  // Gates per cell: lstm 4 (i, f, g, o), gru 3 (r, z, n), plain rnn 1.
  int64_t gates() const { return mode == RNNMode::kLstm ? 4 : mode == RNNMode::kGru ? 3 : 1; }
  // Input width of layer `l` for data of `input_size` features.
  int64_t LayerInput(int64_t l, int64_t input_size) const {
    return l == 0 ? input_size : directions() * state_size;
  }
  // Length of the packed parameter vector (MXNet's layout): first every
  // (layer, direction)'s weights, i2h (gates*H, in) then h2h (gates*H, H);
  // then every (layer, direction)'s biases, i2h (gates*H) then h2h (gates*H).
  int64_t ParamSize(int64_t input_size) const {
    const int64_t gh = gates() * state_size;
    int64_t n = 0;
    for (int64_t l = 0; l < num_layers; ++l) {
      n += directions() * (gh * (LayerInput(l, input_size) + state_size) + 2 * gh);
    }
    return n;
  }
  // Offset of the weights of (layer, direction) in the packed vector (i2h; h2h
  // follows it) and of its biases.
  int64_t WeightOffset(int64_t l, int64_t d, int64_t input_size) const {
    const int64_t gh = gates() * state_size;
    int64_t off = 0;
    for (int64_t i = 0; i < l; ++i) {
      off += directions() * gh * (LayerInput(i, input_size) + state_size);
    }
    return off + d * gh * (LayerInput(l, input_size) + state_size);
  }
  int64_t BiasOffset(int64_t l, int64_t d, int64_t input_size) const {
    return WeightOffset(num_layers, 0, input_size) +
           (l * directions() + d) * 2 * gates() * state_size;
  }
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_RNN_H_
