"""Fits the float32 polynomials of devices/cpu/vector_math.h.

- exp: exp(x) = 2^m exp(r) with m = round(x / ln 2), |r| <= ln(2) / 2, and
  exp(r) = 1 + r + r^2 P(r); P(r) = (exp(r) - 1 - r) / r^2, degree 5
  (kExpPoly) and degree 4 (kExpPolyShort, for tanh, where exp's error enters
  at most halved).
- tanh near 0: tanh(x) = x + x^3 Q(x^2) for |x| < 0.55; Q(u) = (tanh(x) - x) / x^3,
  degree 4 in u = x^2.

Each is a least-squares fit in relative error at Chebyshev nodes against
mpmath at 40 digits; the fit error (below 1.3e-7, and scaled down by r^2 <= 0.12
or x^2 / 3 <= 0.1 in the result) is below float's 6e-8, so a kernel's error is its
own rounding. The script then replays the kernels' float32 evaluation on random
points and prints the worst error in ulp. Needs numpy and mpmath (any venv):

  python tools/ulp/fit_float_polys.py
"""
import numpy as np
import mpmath

mpmath.mp.dps = 40
F = np.float32
HALF_LN2 = float(mpmath.log(2) / 2)
TANH_SMALL = 0.55


def relative_fit(x, y, degree):
    v = np.vander(x, degree + 1, increasing=True)
    coef, *_ = np.linalg.lstsq(v / y[:, None], np.ones(len(x)), rcond=None)
    return coef, max(abs(np.polyval(coef[::-1], x) / y - 1))


def nodes(lo, hi, n=400):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def estrin(c, t):
    """Estrin's scheme in float, as the kernels evaluate it (unfused), for
    5 or 6 coefficients."""
    c = [F(v) for v in c]
    t2 = F(t * t)
    p01, p23 = (F(F(c[i + 1] * t) + c[i]) for i in (0, 2))
    p45 = F(F(c[5] * t) + c[4]) if len(c) == 6 else c[4]
    return F(F(F(F(p45 * t2) + p23) * t2) + p01)


def ulp_error(got, exact):
    return abs(float(got) - float(exact)) / float(np.spacing(F(exact)))


def fit_exp(rng, name, degree):
    r = nodes(-HALF_LN2, HALF_LN2)
    target = [float((mpmath.exp(v) - 1 - v) / mpmath.mpf(v) ** 2) for v in r]
    coef, err = relative_fit(r, np.array(target), degree)
    worst = 0.0
    for t in rng.uniform(-HALF_LN2, HALF_LN2, 20000).astype(F):
        e = F(F(1) + F(F(F(t * t) * estrin(coef, t)) + t))
        worst = max(worst, ulp_error(e, mpmath.exp(mpmath.mpf(float(t)))))
    return name, coef, err, worst


def fit_tanh(rng):
    x = nodes(0, TANH_SMALL)
    target = [float((mpmath.tanh(v) - v) / mpmath.mpf(v) ** 3) for v in x]
    coef, err = relative_fit(x * x, np.array(target), 4)
    worst = 0.0
    for t in rng.uniform(0, TANH_SMALL, 20000).astype(F):
        got = F(t + F(F(F(t * t) * t) * estrin(coef, F(t * t))))
        worst = max(worst, ulp_error(got, mpmath.tanh(mpmath.mpf(float(t)))))
    return "kTanhSmallPoly", coef, err, worst


def main():
    rng = np.random.default_rng(1)
    fits = (fit_exp(rng, "kExpPoly", 5), fit_exp(rng, "kExpPolyShort", 4), fit_tanh(rng))
    for name, coef, err, worst in fits:
        print("// fit relative error %.2e, float32 replay worst %.3f ulp" % (err, worst))
        print("constexpr float %s[] = {%s};" % (name, ", ".join("%.9ef" % c for c in coef)))


if __name__ == "__main__":
    main()
