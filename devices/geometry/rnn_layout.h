// The fused RNN kernels' shared plan (CPU: devices/cpu/rnn_kernels.cc, GPU:
// devices/cuda/rnn_kernels.cc): the sizes of one call, the workspace both
// devices carve the same way (saved activations, then the backward's
// buffers), and the checks every call makes.
#ifndef SYMX_DEVICES_GEOMETRY_RNN_LAYOUT_H_
#define SYMX_DEVICES_GEOMETRY_RNN_LAYOUT_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "devices/kernel.h"
#include "graph/ops/rnn.h"

namespace symx {

// Sizes of one call, from the data shape (seq, batch, input) and the attributes.
struct RnnDims {
  int64_t seq, batch, input, hidden, gates, dirs, layers;
  bool lstm, gru;
  int64_t rows() const { return seq * batch; }
  int64_t gh() const { return gates * hidden; }
  int64_t max_width() const { return std::max(input, dirs * hidden); }
};
RnnDims MakeRnnDims(const RNNParam& p, const Shape& data);

// graph/ops/rnn.h's mode as devices/geometry/rnn_cell.h numbers it.
int RnnCellKindOf(RNNMode mode);

// Workspace bytes of RNN (the forward's saved activations) and _backward_RNN
// (those again, as it recomputes the forward, and its own buffers), in the
// data's dtype: the WorkspaceFn of both devices.
size_t RnnWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                    const std::vector<Shape>& out, DType dtype);

// One dtype for every input, no training dropout between layers (symx does
// not implement it), and a workspace as planned.
absl::Status CheckRnnCall(const KernelContext& ctx, const RNNParam& p, bool train);

// The recurrent weight gradient pairs each step's dGh rows with the hidden
// state it read: h0 for the direction's first step (rows from first_row),
// and for the other `steps` steps the state stored one step earlier, which
// in time order is one contiguous block: dGh rows from grad_row against h
// rows from state_row (forward: times 1.. against 0..; reverse: times
// 0..seq-2 against 1..). Rows count (time, batch) pairs.
struct RnnRecurrentPairs {
  int64_t first_row = 0, steps = 0, grad_row = 0, state_row = 0;
};
RnnRecurrentPairs RecurrentPairs(const RnnDims& d, bool reverse);

// Saved forward state of one (layer, direction), and its weights.
template <typename T>
struct RnnCellBuffers {
  const T* wx;  // (gh, in)
  const T* wh;  // (gh, hidden)
  const T* bx;  // (gh)
  const T* bh;  // (gh)
  T* x;         // (rows, gh): gate activations after the forward
  T* h;         // (rows, hidden): hidden state after each step (in time order)
  T* c;         // (rows, hidden): lstm cell state after each step
  T* hn;        // (rows, hidden): gru W_hn h + b_hn at each step
};

// One cell's parameter gradients inside the packed gradient `dparams`, at
// the offsets its weights have inside `params`.
template <typename T>
struct RnnCellGrads {
  T *wx, *wh, *bx, *bh;
};
template <typename T>
RnnCellGrads<T> CellGrads(const RnnCellBuffers<T>& c, const T* params, T* dparams) {
  return {dparams + (c.wx - params), dparams + (c.wh - params), dparams + (c.bx - params),
          dparams + (c.bh - params)};
}

// The workspace carved into named buffers (device pointers on a GPU: only
// their addresses are computed here), 64-byte aligned.
template <typename T>
struct RnnBuffers {
  std::vector<RnnCellBuffers<T>> cells;  // layer * dirs + dir
  std::vector<T*> layer_out;             // per layer (rows, dirs * hidden)
  T* tmp_gh = nullptr;                   // (batch, gh): one step's recurrent product
  // Backward only.
  // dgx, dgh: every step's input- and recurrent-side pre-activation
  // gradients (rows, gh), so the weight gradients are one GEMM each.
  T *dgx = nullptr, *dy = nullptr, *dx = nullptr, *dgh = nullptr;
  T *dh = nullptr, *dc = nullptr, *dhp = nullptr, *dcp = nullptr;
  T *dparams = nullptr, *dstate = nullptr, *dcell = nullptr;

  // After the backward (dy holds the data's gradient): the gradient of
  // forward input i (data, parameters, state, state_cell) and its elements.
  std::pair<const T*, int64_t> Gradient(int i, const RNNParam& p, const RnnDims& d) const {
    const int64_t states = d.layers * d.dirs * d.batch * d.hidden;
    switch (i) {
      case 0:
        return {dy, d.rows() * d.input};
      case 1:
        return {dparams, p.ParamSize(d.input)};
      case 2:
        return {dstate, states};
      default:
        return {dcell, states};
    }
  }

  RnnBuffers(void* workspace, const T* params, const RNNParam& p, const RnnDims& d, bool backward) {
    T* ws = reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(workspace) + 63) & ~uintptr_t{63});
    auto take = [&ws](int64_t n) {
      T* out = ws;
      ws += n;
      return out;
    };
    cells.resize(d.layers * d.dirs);
    for (int64_t l = 0; l < d.layers; ++l) {
      const int64_t in = p.LayerInput(l, d.input);
      for (int64_t dir = 0; dir < d.dirs; ++dir) {
        RnnCellBuffers<T>& c = cells[l * d.dirs + dir];
        c.wx = params + p.WeightOffset(l, dir, d.input);
        c.wh = c.wx + d.gh() * in;
        c.bx = params + p.BiasOffset(l, dir, d.input);
        c.bh = c.bx + d.gh();
        c.x = take(d.rows() * d.gh());
        c.h = take(d.rows() * d.hidden);
        c.c = d.lstm ? take(d.rows() * d.hidden) : nullptr;
        c.hn = d.gru ? take(d.rows() * d.hidden) : nullptr;
      }
    }
    for (int64_t l = 0; l < d.layers; ++l) layer_out.push_back(take(d.rows() * d.dirs * d.hidden));
    tmp_gh = take(d.batch * d.gh());
    if (!backward) return;
    dgx = take(d.rows() * d.gh());
    dy = take(d.rows() * d.max_width());
    dx = take(d.rows() * d.max_width());
    dgh = take(d.rows() * d.gh());
    dh = take(d.batch * d.hidden);
    dc = take(d.batch * d.hidden);
    dhp = take(d.batch * d.hidden);
    dcp = take(d.batch * d.hidden);
    dparams = take(p.ParamSize(d.input));
    dstate = take(d.layers * d.dirs * d.batch * d.hidden);
    dcell = take(d.layers * d.dirs * d.batch * d.hidden);
  }
};

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_RNN_LAYOUT_H_
