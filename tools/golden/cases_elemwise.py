"""Golden cases of the elemwise family (graph/ops/elemwise.cc): the basic unary
ops, the array-with-scalar ops and ElementWiseSum, clip, where, Cast,
zeros_like, ones_like, BlockGrad and _copy (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case, mxop

V = mx.sym.Variable


def _unary_cases():
    d = V("data")
    out = []
    for op in ["exp", "negative", "square", "abs", "relu", "sigmoid", "tanh"]:
        out.append(Case("unary_" + op, getattr(mx.sym, op)(d), {"data": (4, 3)}))
    out.append(Case("unary_log", mx.sym.log(d), {"data": (4, 3)},
                    values={"data": np.linspace(0.2, 3, 12)}))
    out.append(Case("unary_sqrt", mx.sym.sqrt(d), {"data": (4, 3)},
                    values={"data": np.linspace(0.2, 3, 12)}))
    return out


def _scalar_cases():
    out = []
    d = V("data")
    for op, s in [("_plus_scalar", 1.5), ("_minus_scalar", 0.5), ("_rminus_scalar", 2.0),
                  ("_mul_scalar", -3.0), ("_div_scalar", 4.0), ("_maximum_scalar", 0.1),
                  ("_minimum_scalar", -0.2)]:
        out.append(Case("scalar" + op, getattr(mx.sym._internal, op)(d, scalar=s),
                        {"data": (3, 4)}))
    pos = {"data": np.linspace(0.3, 2.5, 12)}
    out.append(Case("scalar_rdiv_scalar", mx.sym._internal._rdiv_scalar(d, scalar=2.0),
                    {"data": (3, 4)}, values=pos))
    out.append(Case("scalar_power_scalar", mx.sym._internal._power_scalar(d, scalar=2.5),
                    {"data": (3, 4)}, values=pos))
    out.append(Case("scalar_rpower_scalar", mx.sym._internal._rpower_scalar(d, scalar=1.7),
                    {"data": (3, 4)}))
    return out


def _utility_cases():
    a, b, d = V("a"), V("b"), V("data")
    out = []
    out.append(Case("ElementWiseSum", mx.sym.ElementWiseSum(a, b, a), {"a": (2, 3), "b": (2, 3)}))
    out.append(Case("clip", mx.sym.clip(d, a_min=-0.5, a_max=0.4), {"data": (3, 4)}))
    c = V("cond")
    out.append(Case("where", mx.sym.where(c, a, b), {"cond": (3, 4), "a": (3, 4), "b": (3, 4)},
                    values={"cond": (np.arange(12) % 3 == 0).astype(np.float32)},
                    no_grad=["cond"]))
    out.append(Case("Cast_float64", mx.sym.Cast(d, dtype="float64"), {"data": (2, 3)}))
    out.append(Case("Cast_int32", mx.sym.Cast(d * 4, dtype="int32"), {"data": (2, 3)},
                    grad=False))
    for name in ["zeros_like", "ones_like", "BlockGrad", "_copy"]:
        out.append(Case("misc_" + name, mxop(name)(d) + d, {"data": (2, 3)}))
    out.append(Case("misc__copyto", mx.sym._internal._copyto(d) + a, {"data": (2, 3), "a": (2, 3)}))
    out.append(Case("misc__identity_with_attr_like_rhs",
                    mx.sym._internal._identity_with_attr_like_rhs(d, a) * 2,
                    {"data": (2, 3), "a": (2, 3)}, note="rhs gets a zero gradient"))
    return out


def cases():
    return _unary_cases() + _scalar_cases() + _utility_cases()
