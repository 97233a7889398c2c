// _contrib_hawkesll's per-sample recursions (graph/ops/statistics.cc), for
// host and device code: one sample's events walked in order with the
// memoryless exponential state, in the compute type C (the data's dtype).
// Marks and lengths are validated by the caller; `mark` and `lags` point at
// the sample's row, `mu` and `state_in` at its K intensities and states.
#ifndef SYMX_DEVICES_GEOMETRY_HAWKES_H_
#define SYMX_DEVICES_GEOMETRY_HAWKES_H_

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

// Events taken from a row: index j < valid_length (a fractional length
// counts its partial event, as MXNet's comparison of j with a float does).
SYMX_HOST_DEVICE inline int64_t HawkesEvents(double valid_length, int64_t t_len) {
  int64_t n = 0;
  while (n < t_len && static_cast<double>(n) < valid_length) ++n;
  return n;
}

// Forward: the log likelihood over (0, max_time], with `state` (K) the
// sample's state, updated in place to its value at max_time; `last` (K) is
// scratch.
template <typename C, typename Mark>
SYMX_HOST_DEVICE inline C HawkesLogLikelihood(const C* mu, const C* alpha, const C* beta,
                                              const C* lags, const Mark* marks, int64_t events,
                                              C max_time, int64_t k_len, C* state, C* last) {
  for (int64_t k = 0; k < k_len; ++k) last[k] = C(0);
  C ll = C(0), t = C(0);
  for (int64_t j = 0; j < events; ++j) {
    const int64_t c = static_cast<int64_t>(marks[j]);
    t += lags[j];
    const C d = t - last[c];
    const C ed = exp(-beta[c] * d);
    const C lda = mu[c] + alpha[c] * beta[c] * state[c] * ed;
    const C comp = mu[c] * d + alpha[c] * state[c] * (C(1) - ed);
    ll += log(lda) - comp;
    state[c] = C(1) + state[c] * ed;
    last[c] = t;
  }
  // The compensator of each process from its last event to max_time.
  C rest = C(0);
  for (int64_t k = 0; k < k_len; ++k) {
    const C d = max_time - last[k];
    const C ed = exp(-beta[k] * d);
    rest += mu[k] * d + alpha[k] * state[k] * (C(1) - ed);
    state[k] = ed * state[k];
  }
  return ll - rest;
}

// Backward of the log likelihood alone (MXNet's rule: the gradient reaching
// the output state is not propagated): g times d ll / d mu, d alpha, d beta
// for this sample, into mu_g, alpha_g, beta_g (K each). `phi`, `phig`, `last`
// (K each) are scratch; phi starts as the input state.
template <typename C, typename Mark>
SYMX_HOST_DEVICE inline void HawkesLogLikelihoodGrad(const C* mu, const C* alpha, const C* beta,
                                                     const C* lags, const Mark* marks,
                                                     int64_t events, C max_time, int64_t k_len, C g,
                                                     C* phi, C* phig, C* last, C* mu_g, C* alpha_g,
                                                     C* beta_g) {
  for (int64_t k = 0; k < k_len; ++k) {
    last[k] = phig[k] = mu_g[k] = alpha_g[k] = beta_g[k] = C(0);
  }
  C t = C(0);
  for (int64_t j = 0; j < events; ++j) {
    const int64_t c = static_cast<int64_t>(marks[j]);
    t += lags[j];
    const C d = t - last[c];
    const C ed = exp(-beta[c] * d);
    const C lda = mu[c] + alpha[c] * beta[c] * phi[c] * ed;
    mu_g[c] += C(1) / lda - d;
    alpha_g[c] += (beta[c] * phi[c] * ed) / lda - phi[c] * (C(1) - ed);
    beta_g[c] += alpha[c] * ed * (phi[c] * (C(1) - beta[c] * d) + beta[c] * phig[c]) / lda -
                 alpha[c] * (phig[c] * (C(1) - ed) + phi[c] * d * ed);
    phig[c] = ed * (-d * phi[c] + phig[c]);
    phi[c] = C(1) + phi[c] * ed;
    last[c] = t;
  }
  for (int64_t k = 0; k < k_len; ++k) {
    const C d = max_time - last[k];
    const C ed = exp(-beta[k] * d);
    mu_g[k] = g * (mu_g[k] - d);
    alpha_g[k] = g * (alpha_g[k] - phi[k] * (C(1) - ed));
    beta_g[k] = g * (beta_g[k] - alpha[k] * (phig[k] * (C(1) - ed) + phi[k] * d * ed));
  }
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_HAWKES_H_
