"""Fits the normal-tail factors of devices/cpu/vector_math.h (GELU, Phi).

Q(a) = erfc(a / sqrt(2)) / 2 is written as exp(-a^2 / 2) times a smooth
factor R(a) = Q(a) exp(a^2 / 2):
  - below a = 2.5: R(a) as a polynomial in (a - 1.25), degree 14;
  - from 2.5 to 14.5: a R(a) as a polynomial in 1 / a^2, degree 9.
Each is a least-squares fit in relative error at Chebyshev nodes, against
mpmath at 40 digits. The script then replays the float32 evaluation the
kernel does (Horner in float, a^2 split exactly) on random points and prints
the worst error in ulp. Needs numpy and mpmath (any venv):

  python tools/ulp/fit_normal_tail.py
"""
import numpy as np
import mpmath

mpmath.mp.dps = 40
SPLIT, CENTER, TOP = 2.5, 1.25, 14.5
F = np.float32


def tail(a):
    return mpmath.erfc(mpmath.mpf(a) / mpmath.sqrt(2)) / 2


def factor(a):
    return float(tail(a) * mpmath.exp(mpmath.mpf(a) ** 2 / 2))


def nodes(lo, hi, n=500):
    k = np.arange(n)
    return (lo + hi) / 2 + (hi - lo) / 2 * np.cos(np.pi * (k + 0.5) / n)


def relative_fit(x, y, degree):
    v = np.vander(x, degree + 1, increasing=True)
    coef, *_ = np.linalg.lstsq(v / y[:, None], np.ones(len(x)), rcond=None)
    return coef


def horner(coef, x):
    p = F(coef[-1])
    for c in coef[-2::-1]:
        p = F(F(p * x) + F(c))
    return p


def main():
    a1 = nodes(0, SPLIT)
    small = relative_fit(a1 - CENTER, np.array([factor(a) for a in a1]), 14)
    a2 = nodes(SPLIT, TOP)
    large = relative_fit(1 / a2 ** 2, np.array([factor(a) * a for a in a2]), 9)
    rng = np.random.default_rng(1)
    worst, at = 0.0, None
    for a in np.concatenate([rng.uniform(0, 14, 6000), rng.uniform(0, 3, 4000)]).astype(F):
        h = F(a * a)
        c = F(4097) * a
        hi = F(c - F(c - a))
        lo = F(a - hi)
        low = F(F(F(hi * hi - h) + F(F(2) * hi * lo)) + F(lo * lo))
        e = F(F(np.exp(F(-h * F(0.5)))) * F(F(1) - low * F(0.5)))
        q = F(e * horner(small, F(a - F(CENTER)))) if a < SPLIT else \
            F(F(e * horner(large, F(F(1) / h))) / a)
        want = tail(float(a))
        if want < 1.17549435e-38:
            continue
        ulp = 2.0 ** (int(mpmath.floor(mpmath.log(want, 2))) - 23)
        err = abs(float(q) - float(want)) / ulp
        if err > worst:
            worst, at = err, a
    print("kNormalTailSmall =", [float(c) for c in small])
    print("kNormalTailLarge =", [float(c) for c in large])
    print("float32 replay: worst %.2f ulp at a = %s" % (worst, at))


if __name__ == "__main__":
    main()
