// Accurate, vectorized exp, log, sqrt, sigmoid, tanh, mish, GELU and the
// normal CDF for the CPU kernels' Eigen expressions: `Accurate<SigmoidOp>(x)`.
//
// Why these and not Eigen's own: Eigen 3.4's float logistic is a rational
// approximation that returns exactly 1 from x = 15.72 (the true value rounds
// to 0.99999988 up to about 16.6) and exp(x) below -9 (1.2e-4 relative
// error); its float tanh is off by a few ulp (tanh(8.5) = 1); its exp clamps
// the argument to +-88.72, so exp(-100) is 2.9e-39 instead of 3.7e-44 and
// exp(-1000) is not 0. Detection models rank scores near 1, so those errors
// reorder boxes.
//
// How: float has an exp core of its own (ExpReduced: round-to-nearest
// reduction, fitted polynomial, exact power-of-two scaling) from which exp,
// sigmoid and tanh are built branch-free, with denormal results made without
// denormal arithmetic. double takes Eigen's packet exp where it is accurate
// (normal results, no clamping); denormal results come from exp(x / 2)^2, and
// a packet with a NaN or overflowing lane goes lane by lane through the C
// library, so rare inputs cost a little and never lose accuracy. The stated
// bounds and speeds are in docs/numerics.md. float16 computes in float
// (scalar), as the rest of the elementwise kernels.
#ifndef SYMX_DEVICES_CPU_VECTOR_MATH_H_
#define SYMX_DEVICES_CPU_VECTOR_MATH_H_

#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <type_traits>

#include "devices/stable_math.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace symx {
namespace cpu {

// The type scalar functors compute in: float16 is widened to float so a
// compound formula (gelu, softrelu, ...) rounds once, at the store.
template <typename T>
using ComputeType = std::conditional_t<std::is_same_v<T, Eigen::half>, float, T>;

namespace vector_math {

// Where Eigen's double packet exp(x) is a normal number computed without
// clamping (float has its own exp, PacketExpFloat).
struct ExpNormalRangeDouble {
  static constexpr double kLo = -708.3, kHi = 709.78;
};

// NaN lanes need no select of their own in the float kernels below: Eigen's
// pmin(a, b) and pmax(a, b) return a when a is NaN (std::min's rule), so a
// NaN input passes each clamp with the input first, and the arithmetic after
// it keeps it NaN.

// f applied lane by lane (the slow path for rare inputs), kept out of line
// so the fast path around it stays in registers.
template <typename Packet, typename F>
EIGEN_DONT_INLINE Packet MapLanes(const Packet& x, F f) {
  using T = typename Eigen::internal::unpacket_traits<Packet>::type;
  constexpr int kSize = Eigen::internal::unpacket_traits<Packet>::size;
  alignas(64) T lanes[kSize];
  Eigen::internal::pstore(lanes, x);
  for (int i = 0; i < kSize; ++i) lanes[i] = f(lanes[i]);
  return Eigen::internal::pload<Packet>(lanes);
}

// True when a lane is not a positive normal number (zero, negative,
// denormal, infinite or NaN).
template <typename Packet>
bool AnyOutsideNormal(const Packet& x) {
  using namespace Eigen::internal;
  using T = typename unpacket_traits<Packet>::type;
  const Packet outside = por(pcmp_lt_or_nan(x, pset1<Packet>(std::numeric_limits<T>::min())),
                             pcmp_lt(pset1<Packet>(std::numeric_limits<T>::max()), x));
  return predux_any(outside);
}

// exp of a packet. Below the normal range, exp(x) = exp(x / 2)^2: halving
// is exact, exp(x / 2) is normal down to twice the range, and the square
// rounds once into the denormals (or to 0 below them), so softmax tails
// stay vectorized. NaN or overflowing lanes (rare) go lane by lane. Used
// for double, whose packets have no integer twin in Eigen 3.4.
template <typename Packet>
EIGEN_DONT_INLINE Packet PacketExpOutsideNormal(const Packet& x) {
  using namespace Eigen::internal;
  using T = typename unpacket_traits<Packet>::type;
  using R = ExpNormalRangeDouble;
  if (predux_any(pcmp_lt_or_nan(pset1<Packet>(R::kHi), x))) {
    return MapLanes(x, [](T v) { return T(std::exp(v)); });
  }
  const Packet half = pexp(pmul(x, pset1<Packet>(T(0.5))));
  return pselect(pcmp_lt(x, pset1<Packet>(R::kLo)), pmul(half, half), pexp(x));
}

// Estrin's scheme for a polynomial of degree 4 or 5 (N coefficients, lowest
// first) in t, given t2 = t^2: independent FMAs on pairs, then two on t2, so
// the chain is 3 FMAs deep instead of Horner's 4 or 5.
template <size_t N, typename Packet>
EIGEN_STRONG_INLINE Packet Estrin(const float (&c)[N], const Packet& t, const Packet& t2) {
  using namespace Eigen::internal;
  static_assert(N == 5 || N == 6, "Estrin: degree 4 or 5");
  const Packet p01 = pmadd(pset1<Packet>(c[1]), t, pset1<Packet>(c[0]));
  const Packet p23 = pmadd(pset1<Packet>(c[3]), t, pset1<Packet>(c[2]));
  Packet p45 = pset1<Packet>(c[4]);
  if constexpr (N == 6) p45 = pmadd(pset1<Packet>(c[5]), t, p45);
  return pmadd(pmadd(p45, t2, p23), t2, p01);
}

// float exp(x) = 2^m exp(r), m = round(x / ln 2), r = x - m ln 2 (ln 2 in
// two parts, so r is exact but for one rounding), exp(r) = 1 + r + r^2 P(r)
// for |r| <= ln(2) / 2, P fitted by tools/ulp/fit_float_polys.py.
constexpr float kExpPoly[] = {5.000000013e-01f, 1.666666650e-01f, 4.166646572e-02f,
                              8.333373128e-03f, 1.393358128e-03f, 1.984951850e-04f};
// Adding 1.5 * 2^23 rounds a float of magnitude below 2^22 to an integer
// held in the low bits.
constexpr float kExpShifter = 12582912.0f;

// exp(r) for tanh, where exp's error enters the result at most halved: one
// degree lower, 0.87 ulp instead of 0.77 over |r| <= ln(2) / 2.
constexpr float kExpPolyShort[] = {4.999999942e-01f, 1.666657745e-01f, 4.166694269e-02f,
                                   8.363125765e-03f, 1.389383153e-03f};

// The shared core: for x already clamped to [-104, 88.75], returns y =
// exp(r) in [0.7, 1.42] and *t = 1.5 * 2^23 + m, so exp(x) = y 2^m; *s =
// y - 1 = r + r^2 P(r) before the rounding of 1 + s.
template <typename Packet, size_t N = std::size(kExpPoly)>
EIGEN_STRONG_INLINE Packet ExpReduced(const Packet& x, Packet* t, Packet* s,
                                      const float (&poly)[N] = kExpPoly) {
  using namespace Eigen::internal;
  const Packet shifter = pset1<Packet>(kExpShifter);
  *t = pmadd(x, pset1<Packet>(1.44269504088896341f), shifter);
  const Packet m = psub(*t, shifter);
  Packet r = pmadd(m, pset1<Packet>(-0.693359375f), x);  // m * 355/512 is exact
  r = pmadd(m, pset1<Packet>(2.12194440e-4f), r);        // ln 2 - 355/512
  const Packet r2 = pmul(r, r);
  *s = pmadd(r2, Estrin(poly, r, r2), r);
  return padd(pset1<Packet>(1.0f), *s);
}

// 2^(m + k) as a float from t = 1.5 * 2^23 + m, for m + k in [-126, 127].
template <int k, typename Packet>
EIGEN_STRONG_INLINE Packet PowerOfTwo(const Packet& t) {
  using namespace Eigen::internal;
  using PacketI = typename unpacket_traits<Packet>::integer_packet;
  const int32_t shifter_bits = Eigen::numext::bit_cast<int32_t>(kExpShifter);
  return preinterpret<Packet>(
      plogical_shift_left<23>(padd(preinterpret<PacketI>(t), pset1<PacketI>(127 + k - shifter_bits))));
}

// float exp(x), whole range, vectorized: the input is clamped where the
// answer is 0 or inf anyway. Normal results are (2y) 2^(m - 1) with m >=
// -125, both factors normal (m = 128, where exp(x) is still finite, must not
// build 2^128). Denormal results (x below -87.3) are built without denormal
// arithmetic, which costs x86 a microcode assist of about 100 cycles per
// instruction: y 2^(m + 149) is an exact normal float, rounding it to an
// integer k rounds exactly as the hardware would, and k's bits read as a
// float are k 2^-149. Eigen's packet exp clamps at +-88.72 and scales
// through four factors; this one is faster and right at both ends.
template <typename Packet>
EIGEN_STRONG_INLINE Packet PacketExpFloat(const Packet& x_in) {
  using namespace Eigen::internal;
  // exp(-104) rounds to 0 and exp(88.75) to inf; m stays within [-150, 128].
  const Packet x = pmin(pmax(x_in, pset1<Packet>(-104.0f)), pset1<Packet>(88.75f));
  Packet t, s;
  const Packet y = ExpReduced(x, &t, &s);
  const Packet t_normal = pmax(t, pset1<Packet>(kExpShifter - 125.0f));
  Packet e = pmul(padd(y, y), PowerOfTwo<-1>(t_normal));
  const Packet denormal = pcmp_lt(t, pset1<Packet>(kExpShifter - 125.0f));
  if (EIGEN_PREDICT_FALSE(predux_any(denormal))) {
    using PacketI = typename unpacket_traits<Packet>::integer_packet;
    const Packet z = pmul(y, PowerOfTwo<149>(pmin(t, pset1<Packet>(kExpShifter - 126.0f))));
    const Packet two23 = pset1<Packet>(8388608.0f);
    // z < 2^23 rounds to an integer by adding 2^23; from 2^23 it is one.
    const Packet k = pselect(pcmp_lt(z, two23), psub(padd(z, two23), two23), z);
    e = pselect(denormal, preinterpret<Packet>(pcast<Packet, PacketI>(k)), e);
  }
  return e;
}

template <typename Packet>
EIGEN_STRONG_INLINE Packet PacketExp(const Packet& x) {
  using namespace Eigen::internal;
  using T = typename unpacket_traits<Packet>::type;
  if constexpr (std::is_same_v<T, float>) {
    return PacketExpFloat(x);
  } else {
    using R = ExpNormalRangeDouble;
    const Packet outside =
        por(pcmp_lt(x, pset1<Packet>(R::kLo)), pcmp_lt_or_nan(pset1<Packet>(R::kHi), x));
    if (EIGEN_PREDICT_FALSE(predux_any(outside))) return PacketExpOutsideNormal(x);
    return pexp(x);
  }
}

// tanh for |x| < kTanhSmall: x + x^3 P(x^2). double: P from tanh's Taylor
// series (coefficients 2^2n (2^2n - 1) B_2n / (2n)!) through x^37, where the
// next term is below 2^-57 relative to x at |x| = 0.55. float: P =
// kTanhSmallPoly, fitted by tools/ulp/fit_float_polys.py.
constexpr double kTanhSmall = 0.55;
constexpr double kTanhSeries[] = {
    -0.3333333333333333,    0.13333333333333333,     -0.05396825396825397,
    0.021869488536155203,   -0.008863235529902197,   0.003592128036572481,
    -0.0014558343870513183, 0.000590027440945586,    -0.00023912911424355248,
    9.691537956929451e-05,  -3.927832388331683e-05,  1.5918905069328964e-05,
    -6.451689215655431e-06, 2.6147711512907546e-06,  -1.0597268320104654e-06,
    4.294911078273806e-07,  -1.7406618963571648e-07, 7.054636946400968e-08,
};
constexpr float kTanhSmallPoly[] = {-3.333333271e-01f, 1.333315390e-01f, -5.391471097e-02f,
                                    2.133394256e-02f, -6.647513585e-03f};
// Above this |x|, tanh(x) rounds to 1 (float: 1 - 2e^-18.4 = 1 - 2.0e-8;
// double: 1 - 2e^-39 = 1 - 2.3e-17); clamping there keeps exp in range.
template <typename T>
constexpr T kTanhOne = std::is_same_v<T, float> ? T(9.2) : T(19.5);

// The standard normal upper tail Q(a) = erfc(a / sqrt(2)) / 2 for a >= 0,
// as e^(-a^2 / 2) times a fitted factor: R(a) = Q(a) e^(a^2 / 2) in powers of
// (a - 1.25) below a = 2.5, and a R(a) in powers of 1 / a^2 from 2.5 to 14.5
// (beyond, Q is below the smallest float). Least-squares fits to 2e-10
// relative error, made by tools/ulp/fit_normal_tail.py. Why not
// (1 + erf(x / sqrt(2))) / 2: for x < -3 that cancels to nothing (gelu(-5.6)
// came out 12x too large).
constexpr double kNormalTailSplit = 2.5;
constexpr double kNormalTailCenter = 1.25;
constexpr double kNormalTailSmall[] = {
    0.23076032130752328,    -0.11049187881408987,    0.04632273630898004,    -0.017529484955815862,
    0.00610272075222343,    -0.0019802253600033856,  0.0006045713537981416,  -0.0001749031906140875,
    4.8243306709094807e-05, -1.2776617902404892e-05, 3.2313693579865814e-06, -7.571075272513899e-07,
    1.841219935590953e-07,  -5.6721156487796996e-08, 1.1668167527504225e-08,
};
constexpr double kNormalTailLarge[] = {
    0.3989422582655173, -0.3989332316623869, 1.1954744894943499, -5.8827395487290906,
    37.413603652055265, -246.8513825174095,  1381.37343913354,   -5572.185031094321,
    13746.11741670561,  -15279.344761223509,
};

template <typename Packet, size_t N>
Packet Horner(const double (&c)[N], const Packet& x) {
  using namespace Eigen::internal;
  using T = typename unpacket_traits<Packet>::type;
  Packet p = pset1<Packet>(T(c[N - 1]));
  for (size_t i = N - 1; i-- > 0;) p = pmadd(p, x, pset1<Packet>(T(c[i])));
  return p;
}

// For a >= 0 (no NaN): *q = Q(a) and *aq = a Q(a), within a few ulp.
template <typename Packet>
void NormalTail(const Packet& a_in, Packet* q, Packet* aq) {
  using namespace Eigen::internal;
  using T = typename unpacket_traits<Packet>::type;
  const Packet one = pset1<Packet>(T(1));
  const Packet half = pset1<Packet>(T(0.5));
  const Packet a = pmin(a_in, pset1<Packet>(T(15)));
  // a^2 = h + l exactly, so e^(-a^2 / 2) = e^(-h / 2) (1 - l / 2) keeps the
  // bits a rounded square would lose (50 ulp at a = 10).
  const Packet h = pmul(a, a);
#ifdef EIGEN_VECTORIZE_FMA
  const Packet l = pmadd(a, a, pnegate(h));
#else
  const Packet c = pmul(a, pset1<Packet>(T(4097)));  // Dekker's split
  const Packet hi = psub(c, psub(c, a));
  const Packet lo = psub(a, hi);
  const Packet l = padd(padd(psub(pmul(hi, hi), h), pmul(padd(hi, hi), lo)), pmul(lo, lo));
#endif
  const Packet e = pmul(PacketExp(pnegate(pmul(h, half))), psub(one, pmul(l, half)));
  const Packet small = pcmp_lt(a, pset1<Packet>(T(kNormalTailSplit)));
  const bool any_small = predux_any(small);
  const bool any_large = predux_any(pcmp_le(pset1<Packet>(T(kNormalTailSplit)), a));
  Packet q_small = e, q_large = e, aq_large = e;
  if (any_small) {
    q_small = pmul(e, Horner(kNormalTailSmall, psub(a, pset1<Packet>(T(kNormalTailCenter)))));
  }
  if (any_large) {
    aq_large = pmul(e, Horner(kNormalTailLarge, pdiv(one, h)));
    q_large = pdiv(aq_large, a);
  }
  *q = pselect(small, q_small, q_large);
  *aq = pselect(small, pmul(a, q_small), aq_large);
}

// x Phi(x) and Phi(x) in a wider type, for float16 and lanes with NaN.
inline double GeluWide(double x) { return 0.5 * x * std::erfc(-x * 0.70710678118654752440); }
inline long double GeluWide(long double x) {
  return 0.5L * x * std::erfc(-x * 0.707106781186547524400844362104849L);
}
inline double NormalCdfWide(double x) { return 0.5 * std::erfc(-x * 0.70710678118654752440); }
inline long double NormalCdfWide(long double x) {
  return 0.5L * std::erfc(-x * 0.707106781186547524400844362104849L);
}
template <typename C>
using Wide = std::conditional_t<std::is_same_v<C, float>, double, long double>;

}  // namespace vector_math

// exp(x).
template <typename T>
struct ExpOp {
  T operator()(const T& x) const {
    using C = ComputeType<T>;
    return T(std::exp(C(x)));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    return vector_math::PacketExp(x);
  }
};

// 1 / (1 + e^-x), as StableSigmoid.
template <typename T>
struct SigmoidOp {
  T operator()(const T& x) const {
    using C = ComputeType<T>;
    return T(StableSigmoid(C(x)));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    const Packet one = pset1<Packet>(T(1));
    const Packet negative = pcmp_lt(x, pset1<Packet>(T(0)));
    if constexpr (std::is_same_v<T, float>) {
      // e = exp(-|x|) kept normal (|x| <= 86.5, so m >= -125): no denormal
      // ever reaches the division. Below -86.5, sigmoid(x) = exp(x) to the
      // last bit (1 + e rounds to 1), taken from the full exp. (e^x / (1 +
      // e^x) for every lane would save the select, but it would return 1
      // from other inputs than MXNet's 1 / (1 + e^-x), which detectors' box
      // ties depend on.)
      Packet t, s;
      const Packet minus_abs = por(x, pset1<Packet>(-0.0f));
      const Packet y = vector_math::ExpReduced(pmax(minus_abs, pset1<Packet>(-86.5f)), &t, &s);
      const Packet e = pmul(y, vector_math::PowerOfTwo<0>(t));
      Packet q = pdiv(pselect(negative, e, one), padd(one, e));
      const Packet tail = pcmp_lt(x, pset1<Packet>(-86.5f));
      if (EIGEN_PREDICT_FALSE(predux_any(tail))) q = pselect(tail, vector_math::PacketExpFloat(x), q);
      return q;
    } else {
      const Packet e = vector_math::PacketExp(pnegate(pabs(x)));
      return pdiv(pselect(negative, e, one), padd(one, e));
    }
  }
};

// tanh(x): a fitted odd polynomial (float) or the odd series (double) near
// 0, else sign(x) (1 - 2 / (e^2|x| + 1)).
template <typename T>
struct TanhOp {
  T operator()(const T& x) const {
    using C = ComputeType<T>;
    return T(std::tanh(C(x)));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    if constexpr (std::is_same_v<T, float>) {
      return PacketFloat(x);
    } else {
      return PacketDouble(x);
    }
  }

 private:
  // float: x + x^3 P(x^2) below |x| = kTanhSmall, else 1 - 2 / (e^2a + 1),
  // a = |x|, with the sign of x. From e^2a = 2^m y, y = 1 + s, the
  // denominator is formed as (2^m + 1) + 2^m s: both terms are exact (m <=
  // 24 where it matters), so it rounds once and e^2a's own rounding never
  // enters. From a = 0.55 the quotient is at most 1/2 and its error at most
  // 2^-25: the result is within about 1.25 ulp. Both forms are computed for
  // every lane and one selected: a branch on "some lane is small" is
  // mispredicted whenever packets mix (68% of 16-lane packets of uniform
  // [-8, 8] data, most packets of real activations), and cost more than the
  // polynomial (AVX-512: 2.0x instead of 1.5x the old tanh).
  template <typename Packet>
  static Packet PacketFloat(const Packet& x) {
    using namespace Eigen::internal;
    const Packet one = pset1<Packet>(1.0f);
    const Packet a = pmin(pabs(x), pset1<Packet>(vector_math::kTanhOne<float>));
    Packet t, s;
    vector_math::ExpReduced(padd(a, a), &t, &s, vector_math::kExpPolyShort);
    const Packet p = vector_math::PowerOfTwo<0>(t);
    const Packet d = padd(padd(p, one), pmul(p, s));
    const Packet big = psub(one, pdiv(pset1<Packet>(2.0f), d));
    const Packet a2 = pmul(a, a);
    const Packet q = vector_math::Estrin(vector_math::kTanhSmallPoly, a2, pmul(a2, a2));
    const Packet small = pmadd(pmul(a, a2), q, a);
    const Packet y = pselect(pcmp_lt(a, pset1<Packet>(float(vector_math::kTanhSmall))), small, big);
    return por(y, pand(x, pset1<Packet>(-0.0f)));
  }

  // double: Taylor's series through x^37 near 0; only the branches some
  // lane needs.
  template <typename Packet>
  static Packet PacketDouble(const Packet& x) {
    using namespace Eigen::internal;
    if (predux_any(pcmp_lt_or_nan(x, x))) {  // a NaN lane
      return vector_math::MapLanes(x, [](T v) { return T(std::tanh(v)); });
    }
    const Packet one = pset1<Packet>(T(1));
    const Packet two = pset1<Packet>(T(2));
    const Packet ax = pabs(x);
    const Packet small_mask = pcmp_lt(ax, pset1<Packet>(T(vector_math::kTanhSmall)));
    Packet big = x, small = x;
    if (predux_any(pcmp_le(pset1<Packet>(T(vector_math::kTanhSmall)), ax))) {
      const Packet a = pmin(ax, pset1<Packet>(vector_math::kTanhOne<T>));
      // e^2a stays in exp's normal range (a <= 19.5), so no range checks.
      big = psub(one, pdiv(two, padd(pexp(pmul(two, a)), one)));
      big = pselect(pcmp_lt(x, pset1<Packet>(T(0))), pnegate(big), big);
    }
    if (predux_any(small_mask)) {
      const Packet x2 = pmul(x, x);
      constexpr int kTerms = std::size(vector_math::kTanhSeries);
      Packet p = pset1<Packet>(T(vector_math::kTanhSeries[kTerms - 1]));
      for (int i = kTerms - 2; i >= 0; --i) {
        p = pmadd(p, x2, pset1<Packet>(T(vector_math::kTanhSeries[i])));
      }
      small = padd(x, pmul(pmul(x, x2), p));
    }
    return pselect(small_mask, small, big);
  }
};

// log(x). Eigen's packet log treats denormal inputs as the smallest normal
// (log(1e-40) = -87.3 instead of -92.1); those lanes, and zero, negative,
// infinite and NaN ones, go lane by lane.
template <typename T>
struct LogOp {
  T operator()(const T& x) const {
    using C = ComputeType<T>;
    return T(std::log(C(x)));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    if (vector_math::AnyOutsideNormal(x)) {
      return vector_math::MapLanes(x, [](T v) { return T(std::log(v)); });
    }
    return plog(x);
  }
};

// gelu(x) = x Phi(x): x - x Q(x) for x >= 0, -|x| Q(|x|) below, so neither
// tail cancels. float packets use NormalTail; double computes in long
// double (the argument x / sqrt(2) must not round before erfc: its relative
// error grows by 2 x^2 there).
template <typename T>
struct GeluOp {
  T operator()(const T& x) const {
    using C = ComputeType<T>;
    return T(static_cast<C>(vector_math::GeluWide(vector_math::Wide<C>(C(x)))));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    if (predux_any(pcmp_lt_or_nan(x, x))) return vector_math::MapLanes(x, *this);
    Packet q, aq;
    vector_math::NormalTail(pabs(x), &q, &aq);
    return pselect(pcmp_lt(x, pset1<Packet>(T(0))), pnegate(aq), psub(x, aq));
  }
};

// Phi(x), the standard normal CDF: 1 - Q(x) for x >= 0, Q(-x) below.
template <typename T>
struct NormalCdfOp {
  T operator()(const T& x) const {
    using C = ComputeType<T>;
    return T(static_cast<C>(vector_math::NormalCdfWide(vector_math::Wide<C>(C(x)))));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    if (predux_any(pcmp_lt_or_nan(x, x))) return vector_math::MapLanes(x, *this);
    Packet q, aq;
    vector_math::NormalTail(pabs(x), &q, &aq);
    return pselect(pcmp_lt(x, pset1<Packet>(T(0))), q, psub(pset1<Packet>(T(1)), q));
  }
};

// tanh(softplus(x)), mish's factor, as StableTanhSoftplus (stable_math.h):
// exact in u = e^-|x|.
template <typename T>
struct TanhSoftplusOp {
  T operator()(const T& x) const {
    using C = ComputeType<T>;
    return T(StableTanhSoftplus(C(x)));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    const Packet one = pset1<Packet>(T(1));
    const Packet two = pset1<Packet>(T(2));
    const Packet u = vector_math::PacketExp(pnegate(pabs(x)));
    const Packet u2 = pmul(u, u);
    const Packet two_u = padd(u, u);
    const Packet pos = pdiv(padd(one, two_u), padd(padd(one, two_u), padd(u2, u2)));
    const Packet neg = pdiv(pmul(u, padd(two, u)), padd(padd(two, two_u), u2));
    return pselect(pcmp_lt(x, pset1<Packet>(T(0))), neg, pos);
  }
};

// mish(x) = x tanh(softplus(x)). Lanes where u is denormal (x below -80 in
// float, -700 in double) compute in the wider type, as the scalar path.
template <typename T>
struct MishOp {
  T operator()(const T& x) const {
    using C = ComputeType<T>;
    using W = vector_math::Wide<C>;
    const W w = C(x);
    return T(static_cast<C>(w * StableTanhSoftplus(w)));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    constexpr T kLow = std::is_same_v<T, float> ? T(-80) : T(-700);
    if (predux_any(pcmp_lt_or_nan(x, pset1<Packet>(kLow)))) {
      return vector_math::MapLanes(x, *this);
    }
    return pmul(x, TanhSoftplusOp<T>().packetOp(x));
  }
};

// `x.unaryExpr(Op<Scalar>())` for a tensor expression x:
// `Accurate<SigmoidOp>(x)`.
template <template <typename> class Op, typename X>
auto Accurate(const X& x) {
  return x.unaryExpr(Op<typename X::Scalar>());
}

// sqrt(x), correctly rounded: Eigen's fast float packet sqrt (an rsqrt
// estimate and a Newton step) is up to 4 ulp off, answers sqrt(inf) = NaN
// and sqrt(-1e-41) = inf; float goes through double's exact sqrt instead
// (one rounding of a 53-bit result to 24 bits is exact for sqrt).
template <typename X>
auto AccurateSqrt(const X& x) {
  if constexpr (std::is_same_v<typename X::Scalar, float>) {
    return x.template cast<double>().sqrt().template cast<float>();
  } else {
    return x.sqrt();
  }
}

}  // namespace cpu
}  // namespace symx

namespace Eigen {
namespace internal {

// Vectorized for float and double (float only where kFloatOnly) when Eigen
// has the packet exp, log and division the functors are built from; float16
// takes the scalar path.
template <typename T, int kCost, bool kFloatOnly = false>
struct VectorMathTraits {
  enum {
    Cost = kCost * NumTraits<T>::MulCost,
    PacketAccess = (std::is_same_v<T, float> || (!kFloatOnly && std::is_same_v<T, double>)) &&
                   packet_traits<T>::HasExp && packet_traits<T>::HasLog && packet_traits<T>::HasDiv
  };
};
template <typename T>
struct functor_traits<symx::cpu::ExpOp<T>> : VectorMathTraits<T, 20> {};
template <typename T>
struct functor_traits<symx::cpu::LogOp<T>> : VectorMathTraits<T, 20> {};
template <typename T>
struct functor_traits<symx::cpu::SigmoidOp<T>> : VectorMathTraits<T, 25> {};
template <typename T>
struct functor_traits<symx::cpu::TanhOp<T>> : VectorMathTraits<T, 35> {};
template <typename T>
struct functor_traits<symx::cpu::TanhSoftplusOp<T>> : VectorMathTraits<T, 40> {};
template <typename T>
struct functor_traits<symx::cpu::MishOp<T>> : VectorMathTraits<T, 40> {};
// GELU's fitted normal tail is for float; double computes in long double,
// lane by lane.
template <typename T>
struct functor_traits<symx::cpu::GeluOp<T>> : VectorMathTraits<T, 60, true> {};
template <typename T>
struct functor_traits<symx::cpu::NormalCdfOp<T>> : VectorMathTraits<T, 60, true> {};

}  // namespace internal
}  // namespace Eigen

#endif  // SYMX_DEVICES_CPU_VECTOR_MATH_H_
