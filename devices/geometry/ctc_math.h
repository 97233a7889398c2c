// CTCLoss's recurrences, written once for the CPU kernel
// (devices/cpu/ctc_kernels.cc) and the CUDA one (devices/cuda/ctc.cu), in
// log space and double precision on both. `sym` is a sample's extended label
// l' = (blank, l1, blank, l2, ..., blank) of S = 2L + 1 symbols.
#ifndef SYMX_DEVICES_GEOMETRY_CTC_MATH_H_
#define SYMX_DEVICES_GEOMETRY_CTC_MATH_H_

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

SYMX_HOST_DEVICE inline double CtcNegInf() { return -HUGE_VAL; }

// int64 entries per sample of the GPU kernel's sample table: steps, symbols,
// feasible, then the extended label, each position's next position with the
// same class (-1: none) and whether it is its class's first, each max_symbols.
SYMX_HOST_DEVICE inline int64_t CtcMetaPerSample(int64_t max_symbols) {
  return 3 + 3 * max_symbols;
}

// log(exp(a) + exp(b)) without overflow.
SYMX_HOST_DEVICE inline double CtcLogAdd(double a, double b) {
  if (a == CtcNegInf()) return b;
  if (b == CtcNegInf()) return a;
  const double m = a > b ? a : b;
  return m + log1p(exp(-fabs(a - b)));
}

// May a path skip from s - 2 to s (l'_s a label differing from l'_{s-2})?
SYMX_HOST_DEVICE inline bool CtcSkip(const int64_t* sym, int64_t s) {
  return s >= 2 && (s & 1) && sym[s] != sym[s - 2];
}

// log alpha_t(s) from the previous step's row `prev` (S entries) and this
// step's log softmax `ly` (one entry per class).
SYMX_HOST_DEVICE inline double CtcAlpha(const double* prev, const int64_t* sym, int64_t s,
                                        const double* ly) {
  double v = prev[s];
  if (s >= 1) v = CtcLogAdd(v, prev[s - 1]);
  if (CtcSkip(sym, s)) v = CtcLogAdd(v, prev[s - 2]);
  return v == CtcNegInf() ? CtcNegInf() : v + ly[sym[s]];
}

// log beta_t(s) (y_t excluded) from the next step's row `next` and that
// step's log softmax `ly_next`.
SYMX_HOST_DEVICE inline double CtcBeta(const double* next, const int64_t* sym, int64_t S, int64_t s,
                                       const double* ly_next) {
  double v = next[s] + ly_next[sym[s]];
  if (s + 1 < S) v = CtcLogAdd(v, next[s + 1] + ly_next[sym[s + 1]]);
  if (s + 2 < S && CtcSkip(sym, s + 2)) v = CtcLogAdd(v, next[s + 2] + ly_next[sym[s + 2]]);
  return v;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_CTC_MATH_H_
