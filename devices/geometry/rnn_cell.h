// One (batch row, hidden unit) of a fused RNN step, forward and backward,
// written once for the CPU kernels (devices/cpu/rnn_kernels.cc) and the CUDA
// ones (devices/cuda/rnn.cu), so both devices run the same recurrences.
//
// A row holds the gates of one batch entry: lstm i, f, g, o; gru r, z, n;
// a plain rnn its one gate, each `H` wide. T is the storage type, C the type
// the math runs in (float for the GPU's float16/bfloat16, else T).
#ifndef SYMX_DEVICES_GEOMETRY_RNN_CELL_H_
#define SYMX_DEVICES_GEOMETRY_RNN_CELL_H_

#include <math.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "devices/host_device.h"
#include "devices/stable_math.h"

namespace symx {

// graph/ops/rnn.h's RNNMode, as a number nvcc can see (rnn_layout.cc checks
// the two agree).
enum RnnCellKind : int { kRnnCellRelu = 0, kRnnCellTanh = 1, kRnnCellLstm = 2, kRnnCellGru = 3 };

// Gates per cell: lstm 4, gru 3, plain rnn 1 (RNNParam::gates()).
SYMX_HOST_DEVICE inline int64_t RnnGates(int kind) {
  return kind == kRnnCellLstm ? 4 : kind == kRnnCellGru ? 3 : 1;
}

// The gates' logistic: the one formula of every sigmoid (stable_math.h).
template <typename C>
SYMX_HOST_DEVICE inline C RnnSigmoid(C x) {
  return StableSigmoid(x);
}

// The gates' tanh. On the host, in a wider type and rounded once (0.5 ulp;
// glibc's tanhf and tanh are up to 2 ulp off, which the gates measured:
// tools/ulp's RNN_tanh_gate); on the GPU CUDA's tanh (2 ulp in float).
template <typename C>
SYMX_HOST_DEVICE inline C RnnTanh(C x) {
#ifdef __CUDA_ARCH__
  return tanh(x);
#else
  using W = std::conditional_t<std::is_same_v<C, float>, double, long double>;
  return static_cast<C>(std::tanh(static_cast<W>(x)));
#endif
}

// A gate's pre-activation: the stored product plus, when the caller did not
// fold it into the product, its bias.
template <typename T, typename C>
SYMX_HOST_DEVICE inline C RnnPre(const T* row, const T* bias, int64_t k) {
  return bias == nullptr ? C(row[k]) : C(row[k]) + C(bias[k]);
}

// Step forward of unit j. x: the row's input-side pre-activations (x Wx^T,
// plus bx unless passed here), overwritten with the gate activations; g: the
// recurrent ones (h_prev Wh^T, plus bh unless passed here); hp, cp: the
// previous hidden and cell state. Writes h (and the lstm cell c, the gru
// W_hn h_prev + b_hn into hn).
template <typename T, typename C = T>
SYMX_HOST_DEVICE inline void RnnCellForward(int kind, int64_t H, int64_t j, T* x, const T* bx,
                                            const T* g, const T* bh, T hp, T cp, T* c, T* hn,
                                            T* h) {
  switch (kind) {
    case kRnnCellLstm: {
      const C i = RnnSigmoid(RnnPre<T, C>(x, bx, j) + RnnPre<T, C>(g, bh, j));
      const C f = RnnSigmoid(RnnPre<T, C>(x, bx, H + j) + RnnPre<T, C>(g, bh, H + j));
      const C gg = RnnTanh(RnnPre<T, C>(x, bx, 2 * H + j) + RnnPre<T, C>(g, bh, 2 * H + j));
      const C o = RnnSigmoid(RnnPre<T, C>(x, bx, 3 * H + j) + RnnPre<T, C>(g, bh, 3 * H + j));
      x[j] = T(i), x[H + j] = T(f), x[2 * H + j] = T(gg), x[3 * H + j] = T(o);
      const C cn = f * C(cp) + i * gg;
      *c = T(cn);
      *h = T(o * RnnTanh(cn));
      break;
    }
    case kRnnCellGru: {
      const C r = RnnSigmoid(RnnPre<T, C>(x, bx, j) + RnnPre<T, C>(g, bh, j));
      const C z = RnnSigmoid(RnnPre<T, C>(x, bx, H + j) + RnnPre<T, C>(g, bh, H + j));
      const C hnv = RnnPre<T, C>(g, bh, 2 * H + j);
      *hn = T(hnv);
      const C n = RnnTanh(RnnPre<T, C>(x, bx, 2 * H + j) + r * hnv);
      x[j] = T(r), x[H + j] = T(z), x[2 * H + j] = T(n);
      *h = T((C(1) - z) * n + z * C(hp));
      break;
    }
    case kRnnCellTanh: {
      const C a = RnnTanh(RnnPre<T, C>(x, bx, j) + RnnPre<T, C>(g, bh, j));
      *h = x[j] = T(a);
      break;
    }
    default: {
      const C v = RnnPre<T, C>(x, bx, j) + RnnPre<T, C>(g, bh, j);
      *h = x[j] = T(v < C(0) ? C(0) : v);  // std::max(v, 0): NaN stays NaN
      break;
    }
  }
}

// Step backward of unit j from dh (the hidden state's whole gradient at this
// step) and, for lstm, dc: the pre-activation gradients into gx (input side)
// and gh (recurrent side), and the direct parts of the previous step's
// gradients into dhp (and dcp). x: the saved gate activations; c, cp: the
// cell state at this and the previous step; hn: the gru's saved W_hn h + b_hn;
// hp: the previous hidden state.
template <typename T, typename C = T>
SYMX_HOST_DEVICE inline void RnnCellBackward(int kind, int64_t H, int64_t j, const T* x, T c, T cp,
                                             T hn, T hp, C dh, C dc, T* gx, T* gh, T* dhp, T* dcp) {
  switch (kind) {
    case kRnnCellLstm: {
      const C i = C(x[j]), f = C(x[H + j]), g = C(x[2 * H + j]), o = C(x[3 * H + j]);
      const C tc = RnnTanh(C(c));
      const C dct = dc + dh * o * (C(1) - tc * tc);
      gh[j] = gx[j] = T(dct * g * i * (C(1) - i));
      gh[H + j] = gx[H + j] = T(dct * C(cp) * f * (C(1) - f));
      gh[2 * H + j] = gx[2 * H + j] = T(dct * i * (C(1) - g * g));
      gh[3 * H + j] = gx[3 * H + j] = T(dh * tc * o * (C(1) - o));
      *dcp = T(dct * f);
      *dhp = T(C(0));
      break;
    }
    case kRnnCellGru: {
      const C r = C(x[j]), z = C(x[H + j]), n = C(x[2 * H + j]);
      const C dn = dh * (C(1) - z) * (C(1) - n * n);
      const C dz = dh * (C(hp) - n) * z * (C(1) - z);
      const C dr = dn * C(hn) * r * (C(1) - r);
      gx[j] = gh[j] = T(dr);
      gx[H + j] = gh[H + j] = T(dz);
      gx[2 * H + j] = T(dn);
      gh[2 * H + j] = T(dn * r);
      *dhp = T(dh * z);
      break;
    }
    case kRnnCellTanh: {
      const C a = C(x[j]);
      gh[j] = gx[j] = T(dh * (C(1) - a * a));
      *dhp = T(C(0));
      break;
    }
    default:
      gh[j] = gx[j] = C(x[j]) > C(0) ? T(dh) : T(C(0));
      *dhp = T(C(0));
      break;
  }
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_RNN_CELL_H_
