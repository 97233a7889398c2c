"""Golden cases of the binary family (graph/ops/binary.cc): elemwise_* on one
shape, _maximum/_minimum/_power, broadcast_*, mod and hypot (arrays, broadcast,
scalars) and broadcast_to/axis/like (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _binary_cases():
    a, b = V("a"), V("b")
    out = []
    for op in ["elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"]:
        out.append(Case("binary_" + op, getattr(mx.sym, op)(a, b), {"a": (3, 4), "b": (3, 4)}))
    for op in ["_maximum", "_minimum"]:
        out.append(Case("binary" + op, getattr(mx.sym._internal, op)(a, b),
                        {"a": (3, 4), "b": (3, 4)}))
    out.append(Case("binary_power", mx.sym._internal._power(a, b), {"a": (3, 4), "b": (3, 4)},
                    values={"a": np.linspace(0.3, 2, 12)}))
    for op in ["add", "sub", "mul", "div", "maximum", "minimum"]:
        out.append(Case("broadcast_" + op, getattr(mx.sym, "broadcast_" + op)(a, b),
                        {"a": (2, 1, 4), "b": (3, 1)}))
    out.append(Case("broadcast_power", mx.sym.broadcast_power(a, b), {"a": (2, 3), "b": (1, 3)},
                    values={"a": np.linspace(0.3, 2, 6)}))
    out.append(Case("arith_2a_plus_b", 2 * a + b, {"a": (2, 2), "b": (2, 2)}))
    return out


def _mod_hypot_cases():
    a, b = V("a"), V("b")
    # Quotients clear of whole numbers (mod jumps there), both signs of divisor.
    av = np.array([-2.7, -1.1, 0.35, 1.45, 2.2, 3.1, -0.4, 0.8, -3.3, 1.9, 2.6, -1.7])
    bv = np.array([1.3, -0.7, 0.9])
    out = [
        Case("binary_mod", mx.sym._internal._mod(a, b), {"a": (4, 3), "b": (4, 3)},
             values={"a": av, "b": np.tile(bv, 4)}),
        Case("broadcast_mod", mx.sym.broadcast_mod(a, b), {"a": (4, 3), "b": (1, 3)},
             values={"a": av, "b": bv}),
        # Integers: the divisor's sign, 0 for a zero divisor.
        Case("broadcast_mod_int32", mx.sym.broadcast_mod(a, b), {"a": (2, 4), "b": (1, 4)},
             values={"a": np.array([5, -5, 5, -5, 7, 0, -8, 9]), "b": np.array([3, 3, -3, 0])},
             dtypes={"a": "int32", "b": "int32"}, grad=False),
        Case("binary_hypot", mx.sym._internal._hypot(a, b), {"a": (3, 4), "b": (3, 4)}),
        Case("broadcast_hypot", mx.sym.broadcast_hypot(a, b), {"a": (2, 1, 4), "b": (3, 1)}),
        Case("mod_scalar", mx.sym._internal._mod_scalar(a, scalar=-1.3), {"a": (4, 3)},
             values={"a": av}),
        Case("rmod_scalar", mx.sym._internal._rmod_scalar(a, scalar=2.5), {"a": (4, 3)},
             values={"a": av}),
        Case("hypot_scalar", mx.sym._internal._hypot_scalar(a, scalar=0.75), {"a": (3, 4)}),
        Case("rmod_scalar_int32", mx.sym._internal._rmod_scalar(a, scalar=17.9), {"a": (4,)},
             values={"a": np.array([3, 5, -7, 0])}, dtypes={"a": "int32"}, grad=False,
             note="the scalar is truncated to the array's dtype (17)"),
    ]
    return out


def _broadcast_cases():
    a, b = V("a"), V("b")
    return [
        Case("broadcast_to", mx.sym.broadcast_to(a, shape=(4, 0, 5)), {"a": (1, 3, 1)}),
        Case("broadcast_axis", mx.sym.broadcast_axis(a, axis=(0, 2), size=(2, 5)),
             {"a": (1, 3, 1)}),
        Case("broadcast_axes", mx.sym.broadcast_axes(a, axis=1, size=3), {"a": (2, 1)}),
        Case("broadcast_like", mx.sym.broadcast_like(a, b), {"a": (1, 3), "b": (4, 3)}),
        Case("broadcast_like_axes",
             mx.sym.broadcast_like(a, b, lhs_axes=(0, 2), rhs_axes=(-1, 0)),
             {"a": (1, 3, 1), "b": (5, 2)}),
    ]


def cases():
    return _binary_cases() + _mod_hypot_cases() + _broadcast_cases()
