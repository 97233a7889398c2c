"""Golden cases of the math family (graph/ops/math.cc): the unary math ops
(logarithms, trigonometric and hyperbolic functions, roots, erf/erfinv,
gamma/gammaln, rounding, sign), smooth_l1 and the contributed round_ste, sign_ste,
gradientmultiplier and quadratic (see golden_lib.py for what a Case holds).

Inputs lie inside each op's domain and away from kinks."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


# (op, input range) for the differentiable unary math ops.
MATH = [
    ("log2", (0.2, 3.0)), ("log10", (0.2, 3.0)), ("log1p", (-0.5, 2.0)), ("expm1", (-2.0, 2.0)),
    ("sin", (-3.0, 3.0)), ("cos", (-3.0, 3.0)), ("tan", (-1.2, 1.2)), ("arcsin", (-0.9, 0.9)),
    ("arccos", (-0.9, 0.9)), ("arctan", (-3.0, 3.0)), ("sinh", (-2.0, 2.0)),
    ("cosh", (-2.0, 2.0)), ("arcsinh", (-3.0, 3.0)), ("arccosh", (1.2, 4.0)),
    ("arctanh", (-0.8, 0.8)), ("degrees", (-3.0, 3.0)), ("radians", (-200.0, 200.0)),
    ("reciprocal", (0.3, 2.0)), ("rsqrt", (0.2, 3.0)), ("cbrt", (-3.0, 3.0)),
    ("rcbrt", (0.2, 3.0)), ("erf", (-2.0, 2.0)), ("erfinv", (-0.9, 0.9)), ("gamma", (0.3, 4.0)),
    ("gammaln", (0.3, 5.0)),
]


def _math_cases():
    d = V("data")
    out = []
    for op, (lo, hi) in MATH:
        vals = np.linspace(lo, hi, 12)
        if op == "cbrt":
            vals = vals[np.abs(vals) > 0.2]
            vals = np.concatenate([vals, [2.5] * (12 - len(vals))])
        out.append(Case("math_" + op, getattr(mx.sym, op)(d), {"data": (3, 4)},
                        values={"data": vals}))
        # MXNet's digamma (gamma/gammaln gradients) is good to ~3e-7 relative.
        rtol = 1e-5 if op in ("gamma", "gammaln") else 1e-6
        out.append(Case("math_%s_float64" % op, getattr(mx.sym, op)(d), {"data": (2, 6)},
                        values={"data": vals}, dtypes={"data": "float64"}, rtol=rtol, atol=1e-8,
                        note="degrees/radians: MXNet scales by a float32 constant (5e-8 off)"
                        if op in ("degrees", "radians") else ""))
    out.append(Case("math_rcbrt_negative", mx.sym.rcbrt(d), {"data": (4,)},
                    values={"data": np.array([-8.0, -0.5, -2.0, -3.3])}))
    out.append(Case("math_gamma_negative", mx.sym.gamma(d), {"data": (2, 3)},
                    values={"data": np.array([-0.5, -0.2, -1.5, -2.3, -0.8, -2.7])}))
    out.append(Case("math_gammaln_negative", mx.sym.gammaln(d), {"data": (2, 3)},
                    values={"data": np.array([-0.5, -0.2, -1.5, -2.3, -0.8, -2.7])}))
    out.append(Case("math_erfinv_tails", mx.sym.erfinv(d), {"data": (4,)},
                    values={"data": np.array([-0.999, -0.99, 0.99, 0.999])},
                    dtypes={"data": "float64"}, rtol=1e-5, atol=1e-6))
    # Rounding and sign: zero gradient; halves show round (away from zero) vs rint
    # (MXNet 1.9.1: ties go down, rint(0.5) = 0, rint(-0.5) = -1).
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5, 0.0, 4.5, -0.75, 1.25])
    for op in ["floor", "ceil", "round", "rint", "fix", "trunc", "sign"]:
        out.append(Case("round_%s_halves" % op, getattr(mx.sym, op)(d), {"data": (3, 4)},
                        values={"data": halves}, grad=False))
        out.append(Case("round_%s" % op, getattr(mx.sym, op)(d), {"data": (3, 4)},
                        values={"data": np.linspace(-2.9, 2.9, 12) + 0.013}))
        out.append(Case("round_%s_int32" % op, getattr(mx.sym, op)(d), {"data": (2, 3)},
                        values={"data": np.array([-7, -1, 0, 1, 2, 100])},
                        dtypes={"data": "int32"}, grad=False))
    out.append(Case("round_sign_uint8", mx.sym.sign(d), {"data": (4,)},
                    values={"data": np.array([0, 1, 2, 200])}, dtypes={"data": "uint8"},
                    grad=False))
    # smooth_l1: default sigma 1 and others; values avoid the kink at 1/sigma^2.
    x = np.linspace(-3.0, 3.0, 12) + 0.011
    out.append(Case("smooth_l1_default", mx.sym.smooth_l1(d), {"data": (3, 4)},
                    values={"data": x}))
    for sigma in [1.0, 2.0, 0.5, 3.0]:
        out.append(Case("smooth_l1_sigma%g" % sigma, mx.sym.smooth_l1(d, scalar=sigma),
                        {"data": (3, 4)}, values={"data": x}))
    out.append(Case("smooth_l1_boundary", mx.sym.smooth_l1(d, scalar=2.0), {"data": (8,)},
                    values={"data": np.array([-2.0, -0.3, -0.2, 0.0, 0.1, 0.25, 0.3, 2.0])},
                    grad=False, note="|x| = 1/sigma^2 belongs to the linear part"))
    return out


def _contrib_cases():
    d = V("data")
    x = np.linspace(-2.9, 2.9, 12) + 0.013
    return [
        # The estimators pass the head gradient through, which MXNet stores.
        Case("round_ste", mx.sym.contrib.round_ste(d), {"data": (3, 4)}, values={"data": x}),
        Case("sign_ste", mx.sym.contrib.sign_ste(d), {"data": (3, 4)}, values={"data": x}),
        Case("round_ste_int32", mx.sym.contrib.round_ste(d), {"data": (4,)},
             values={"data": np.array([-7, 0, 3, 100])}, dtypes={"data": "int32"}, grad=False),
        Case("gradientmultiplier", mx.sym.contrib.gradientmultiplier(d, scalar=-2.5),
             {"data": (3, 4)}),
        Case("quadratic", mx.sym.contrib.quadratic(d, a=1.5, b=-2, c=0.1), {"data": (3, 4)}),
        Case("quadratic_default", mx.sym.contrib.quadratic(d), {"data": (2, 3)}),
        Case("quadratic_int32", mx.sym.contrib.quadratic(d, a=1.5, b=2, c=0.5), {"data": (4,)},
             values={"data": np.array([-2, 1, 0, 3])}, dtypes={"data": "int32"}, grad=False,
             note="computed in float, truncated"),
    ]


def cases():
    return _math_cases() + _contrib_cases()
