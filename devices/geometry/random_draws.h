// The random family's generator and distributions (graph/ops/random.cc),
// written once for the CPU kernels and (compiled by nvcc) the GPU kernels.
//
// Randomness is counter-based: Philox4x32-10 (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11) maps a 64-bit key and a 128-bit counter
// to four 32-bit words, with no state between calls. A kernel call takes one
// key from its device's generator (Device::rng(), which mx.random.seed and
// SeedAllDevices seed), and output element i draws from its own stream: the
// counters (block, 0, lo32(i), hi32(i)) for block = 0, 1, ... So an element's
// value depends on the key and its index alone, never on which thread or how
// many threads computed it: a device seeded alike gives the same numbers
// whatever its thread count, and the GPU's threads draw as the CPU's do.
//
// The distributions are MXNet 1.9.1's (src/operator/random/sampler.h), with
// its parameterisations: gamma(alpha = shape, beta = scale), exponential(lam
// = rate), negative_binomial(k failures, p success probability) as a
// gamma-Poisson mixture, generalized_negative_binomial(mu = mean, alpha =
// dispersion). The bits are not MXNet's (its generators are per-thread
// mt19937 and curand states).
#ifndef SYMX_DEVICES_GEOMETRY_RANDOM_DRAWS_H_
#define SYMX_DEVICES_GEOMETRY_RANDOM_DRAWS_H_

#include <math.h>
#include <stdint.h>

#include "devices/host_device.h"

namespace symx {

// The distributions of the _random_X, _random_X_like and _sample_X ops, with
// the values of the schemas' RandomDistribution (graph/ops/random.h; the CPU
// kernels check that they agree).
enum class RandomDraw : int {
  kUniform = 0,                      // a = low, b = high
  kNormal = 1,                       // a = loc (mu), b = scale (sigma)
  kGamma = 2,                        // a = alpha (shape), b = beta (scale)
  kExponential = 3,                  // a = lam (rate)
  kPoisson = 4,                      // a = lam
  kNegativeBinomial = 5,             // a = k, b = p
  kGeneralizedNegativeBinomial = 6,  // a = mu, b = alpha
};

// Philox4x32-10 of `counter` under key (k0, k1), in place.
SYMX_HOST_DEVICE inline void Philox4x32(uint32_t counter[4], uint32_t k0, uint32_t k1) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * counter[0];
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * counter[2];
    const uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    const uint32_t c1 = counter[1], c3 = counter[3];
    counter[0] = hi1 ^ c1 ^ k0;
    counter[1] = lo1;
    counter[2] = hi0 ^ c3 ^ k1;
    counter[3] = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

// One element's stream of random words: Philox blocks (block, 0, lo, hi) of
// the element's index under the call's key, four words per block.
class RandomStream {
 public:
  SYMX_HOST_DEVICE RandomStream(uint64_t key, uint64_t element)
      : k0_(static_cast<uint32_t>(key)),
        k1_(static_cast<uint32_t>(key >> 32)),
        lo_(static_cast<uint32_t>(element)),
        hi_(static_cast<uint32_t>(element >> 32)) {}

  SYMX_HOST_DEVICE uint32_t Next32() {
    if (used_ == 4) {
      words_[0] = block_++;
      words_[1] = 0;
      words_[2] = lo_;
      words_[3] = hi_;
      Philox4x32(words_, k0_, k1_);
      used_ = 0;
    }
    return words_[used_++];
  }
  SYMX_HOST_DEVICE uint64_t Next64() {
    const uint64_t hi = Next32();
    return (hi << 32) | Next32();
  }
  // Uniform in [0, 1) with 53 random bits.
  SYMX_HOST_DEVICE double Uniform() {
    return static_cast<double>(Next64() >> 11) * (1.0 / 9007199254740992.0);
  }
  // Uniform in (0, 1]: a logarithm's argument.
  SYMX_HOST_DEVICE double UniformOpen0() { return 1.0 - Uniform(); }
  // Standard normal (Box-Muller; the second value of a pair is not kept, so
  // every draw costs the same words whatever came before).
  SYMX_HOST_DEVICE double Normal() {
    const double r = sqrt(-2.0 * log(UniformOpen0()));
    return r * cos(6.283185307179586 * Uniform());
  }

 private:
  uint32_t k0_, k1_, lo_, hi_;
  uint32_t block_ = 0;
  uint32_t words_[4] = {0, 0, 0, 0};
  int used_ = 4;
};

// Gamma(alpha, scale beta) by Marsaglia and Tsang's squeeze (alpha >= 1), with
// alpha < 1 drawn as Gamma(alpha + 1) * U^(1/alpha). alpha = 0 or beta = 0
// gives 0 (the negative binomial's k = 0 and p = 1).
SYMX_HOST_DEVICE inline double DrawGamma(double alpha, double beta, RandomStream* s) {
  if (!(alpha > 0) || !(beta > 0)) return 0.0;
  const double a = alpha < 1 ? alpha + 1.0 : alpha;
  const double d = a - 1.0 / 3.0;
  const double c = 1.0 / sqrt(9.0 * d);
  double v = 0;
  for (;;) {
    double z = 0;
    do {
      z = s->Normal();
      v = 1.0 + c * z;
    } while (v <= 0);
    v = v * v * v;
    const double u = s->UniformOpen0();
    if (u < 1.0 - 0.0331 * z * z * z * z) break;
    if (log(u) < 0.5 * z * z + d * (1.0 - v + log(v))) break;
  }
  double x = d * v;
  if (alpha < 1) x *= pow(s->UniformOpen0(), 1.0 / alpha);
  return x * beta;
}

// log(Gamma(x)) without glibc's global sign (lgamma writes signgam, a race
// between the CPU kernel's threads).
SYMX_HOST_DEVICE inline double LogGamma(double x) {
#ifdef __CUDA_ARCH__
  return lgamma(x);
#else
  int sign = 0;
  return lgamma_r(x, &sign);
#endif
}

// Poisson(lam): Knuth's product of uniforms below 12, else the Cauchy-envelope
// rejection of Numerical Recipes (Press et al., "poidev").
SYMX_HOST_DEVICE inline double DrawPoisson(double lam, RandomStream* s) {
  if (!(lam > 0)) return 0.0;
  if (isinf(lam)) return lam;  // the negative binomial's p = 0
  if (lam < 12.0) {
    const double limit = exp(-lam);
    double k = 0;
    for (double prod = s->Uniform(); prod > limit; prod *= s->Uniform()) k += 1;
    return k;
  }
  const double sq = sqrt(2.0 * lam);
  const double log_lam = log(lam);
  const double g = lam * log_lam - LogGamma(lam + 1.0);
  for (;;) {
    double y = 0, em = 0;
    do {
      y = tan(3.141592653589793 * s->Uniform());
      em = sq * y + lam;
    } while (em < 0);
    em = floor(em);
    const double t = 0.9 * (1.0 + y * y) * exp(em * log_lam - LogGamma(em + 1.0) - g);
    if (s->Uniform() <= t) return em;
  }
}

// One draw of `dist` with parameters (a, b) (see RandomDraw).
SYMX_HOST_DEVICE inline double DrawSample(RandomDraw dist, double a, double b, RandomStream* s) {
  switch (dist) {
    case RandomDraw::kUniform: {
      // a + (b - a) u can round up to b; the interval is half-open.
      const double v = a + (b - a) * s->Uniform();
      return v < b || !(a < b) ? v : nextafter(b, a);
    }
    case RandomDraw::kNormal:
      return a + b * s->Normal();
    case RandomDraw::kGamma:
      return DrawGamma(a, b, s);
    case RandomDraw::kExponential:
      return -log(s->UniformOpen0()) / a;
    case RandomDraw::kPoisson:
      return DrawPoisson(a, s);
    case RandomDraw::kNegativeBinomial:
      // Failures before the k-th success: Poisson(Gamma(k, (1 - p) / p)).
      return DrawPoisson(DrawGamma(a, (1.0 - b) / b, s), s);
    case RandomDraw::kGeneralizedNegativeBinomial:
      // Poisson(Gamma(1 / alpha, alpha * mu)); alpha = 0 is Poisson(mu).
      return DrawPoisson(b == 0 ? a : DrawGamma(1.0 / b, b * a, s), s);
  }
  return 0.0;
}

// A draw from [0, range) without modulo bias (range > 0): 64-bit words
// below 2^64 mod range are rejected, so the rest split evenly.
SYMX_HOST_DEVICE inline uint64_t DrawBelow(uint64_t range, RandomStream* s) {
  const uint64_t threshold = (0 - range) % range;
  for (;;) {
    const uint64_t r = s->Next64();
    if (r >= threshold) return r % range;
  }
}

// _shuffle's permutation of [0, n): Fisher-Yates from the one stream of
// element 0 under `key` (sequential, so a GPU runs it on one thread).
SYMX_HOST_DEVICE inline void ShufflePermutation(uint64_t key, int64_t* perm, int64_t n) {
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  RandomStream s(key, 0);
  for (int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(DrawBelow(static_cast<uint64_t>(i + 1), &s));
    const int64_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

// _sample_unique_zipfian's row: distinct classes of [0, range_max) from the
// stream of element `row` under `key`, each draw lround(exp(u log
// range_max)) - 1 (MXNet's base law), until `n` are taken; `seen` is a zeroed
// bitmap of range_max bits. Returns the number of draws.
SYMX_HOST_DEVICE inline int64_t UniqueZipfianRow(uint64_t key, int64_t row, int64_t range_max,
                                                 int64_t n, uint64_t* seen, int64_t* samples) {
  RandomStream s(key, static_cast<uint64_t>(row));
  const double log_range = log(static_cast<double>(range_max));
  int64_t taken = 0, tries = 0;
  while (taken < n) {
    int64_t v = llround(exp(s.Uniform() * log_range)) - 1;
    if (v >= range_max) v = range_max - 1;  // exp rounding at the top
    ++tries;
    uint64_t& word = seen[v / 64];
    const uint64_t bit = uint64_t{1} << (v % 64);
    if (word & bit) continue;
    word |= bit;
    samples[taken++] = v;
  }
  return tries;
}

// The category of a multinomial draw: the first c whose running sum of p
// exceeds `target` (u times the row's sum), or the last positive one when
// rounding leaves the sum short. `value(p[c])` reads an element.
template <typename P, typename Value>
SYMX_HOST_DEVICE inline int64_t PickCategory(const P* p, int64_t k, double target, Value value) {
  double acc = 0;
  int64_t last = 0;
  for (int64_t c = 0; c < k; ++c) {
    const double v = value(p[c]);
    if (v > 0) last = c;
    acc += v;
    if (acc > target && v > 0) return c;
  }
  return last;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_RANDOM_DRAWS_H_
