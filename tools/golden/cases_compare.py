"""Golden cases of the compare family (graph/ops/compare.cc): the comparison and
logic ops in their one-shape, _scalar and broadcast_ forms, and logical_not
(see golden_lib.py for what a Case holds).

Outputs keep the input dtype and hold 0/1; the gradient is zero. Inputs of
the one-shape and broadcast comparisons are on two interleaved grids (no ties,
so finite differences and MXNet agree on a zero gradient); forward-only cases
with ties and integer dtypes check the values."""
import numpy as np

import mxnet as mx
from golden_lib import Case, mxop

V = mx.sym.Variable


FAMILIES = ["equal", "not_equal", "greater", "greater_equal", "lesser", "lesser_equal",
            "logical_and", "logical_or", "logical_xor"]


def _grid(shape, which):
    n = int(np.prod(shape))
    k = np.arange(n)
    return ((-0.95 if which == 0 else -0.85) + 0.2 * ((k * 7 + 3 * which) % 10)).reshape(shape)


def _ties(shape, seed):
    rng = np.random.RandomState(seed)
    return rng.randint(-2, 3, size=shape).astype(np.float64)


def _compare_cases():
    a, b, d = V("a"), V("b"), V("data")
    out = []
    for f in FAMILIES:
        s = (3, 4)
        out.append(Case("cmp_%s" % f, mxop("_" + f)(a, b), {"a": s, "b": s},
                        values={"a": _grid(s, 0), "b": _grid(s, 1)}))
        out.append(Case("cmp_%s_ties" % f, mxop("_" + f)(a, b), {"a": s, "b": s},
                        values={"a": _ties(s, 1), "b": _ties(s, 2)}, grad=False))
        out.append(Case("cmp_%s_int32" % f, mxop("_" + f)(a, b), {"a": s, "b": s},
                        values={"a": _ties(s, 3), "b": _ties(s, 4)},
                        dtypes={"a": "int32", "b": "int32"}, grad=False))
        # Broadcast: several shape pairs.
        for i, (ls, rs) in enumerate([((2, 1, 3), (1, 4, 3)), ((2, 3), (3,)), ((4, 1), (1, 5)),
                                      ((1,), (2, 3)), ((2, 3), (2, 3))]):
            out.append(Case("cmp_broadcast_%s_%d" % (f, i), mxop("broadcast_" + f)(a, b),
                            {"a": ls, "b": rs}, values={"a": _grid(ls, 0), "b": _grid(rs, 1)}))
        out.append(Case("cmp_broadcast_%s_ties" % f, mxop("broadcast_" + f)(a, b),
                        {"a": (2, 3, 4), "b": (3, 1)},
                        values={"a": _ties((2, 3, 4), 5), "b": _ties((3, 1), 6)}, grad=False))
        out.append(Case("cmp_broadcast_%s_uint8" % f, mxop("broadcast_" + f)(a, b),
                        {"a": (2, 3), "b": (1, 3)},
                        values={"a": np.abs(_ties((2, 3), 7)), "b": np.abs(_ties((1, 3), 8))},
                        dtypes={"a": "uint8", "b": "uint8"}, grad=False))
        # Scalar forms: default scalar (1), a fractional one, and integer truncation.
        out.append(Case("cmp_%s_scalar_default" % f, mxop("_" + f + "_scalar")(d),
                        {"data": (3, 4)}, values={"data": _ties((3, 4), 9)}, grad=False))
        out.append(Case("cmp_%s_scalar" % f, mxop("_" + f + "_scalar")(d, scalar=0.5),
                        {"data": (3, 4)}, values={"data": _grid((3, 4), 0)}))
        out.append(Case("cmp_%s_scalar_int32" % f, mxop("_" + f + "_scalar")(d, scalar=1.5),
                        {"data": (3, 4)}, values={"data": _ties((3, 4), 10)},
                        dtypes={"data": "int32"}, grad=False,
                        note="integer arrays compare with the scalar truncated (1.5 -> 1)"))
        out.append(Case("cmp_%s_scalar_float16" % f, mxop("_" + f + "_scalar")(d, scalar=-1),
                        {"data": (3, 4)}, values={"data": _ties((3, 4), 11)},
                        dtypes={"data": "float16"}, grad=False))
    # Python operators build these too.
    out.append(Case("cmp_sym_gt_scalar", d > 0.3, {"data": (2, 5)},
                    values={"data": _grid((2, 5), 0)}))
    out.append(Case("cmp_sym_eq", a == b, {"a": (2, 3), "b": (2, 3)},
                    values={"a": _ties((2, 3), 12), "b": _ties((2, 3), 13)}, grad=False))
    out.append(Case("logical_not", mx.sym.logical_not(d), {"data": (3, 4)},
                    values={"data": _ties((3, 4), 14)}, grad=False))
    out.append(Case("logical_not_grad", mx.sym.logical_not(d), {"data": (3, 4)}))
    out.append(Case("logical_not_int8", mx.sym.logical_not(d), {"data": (3, 4)},
                    values={"data": _ties((3, 4), 15)}, dtypes={"data": "int8"}, grad=False))
    close = np.array([1.0, -2.0, np.nan, 1e-9, 3.0, 0.5])
    near = np.array([1.0, -2.00001, np.nan, 0.0, 3.00002, 0.5])
    out.append(Case("allclose", mx.sym.contrib.allclose(a, b), {"a": (6,), "b": (6,)},
                    values={"a": close, "b": near}, grad=False))
    out.append(Case("allclose_no_equal_nan", mx.sym.contrib.allclose(a, b, equal_nan=False),
                    {"a": (6,), "b": (6,)}, values={"a": close, "b": near}, grad=False))
    out.append(Case("allclose_loose_int32", mx.sym.contrib.allclose(a, b, rtol=0, atol=1),
                    {"a": (4,), "b": (4,)}, values={"a": np.array([1, 5, -3, 0]),
                                                    "b": np.array([2, 5, -4, 1])},
                    dtypes={"a": "int32", "b": "int32"}, grad=False))
    return out


def cases():
    return _compare_cases()
