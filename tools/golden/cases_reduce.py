"""Golden cases of the reduce family (graph/ops/reduce.cc): sum, mean and max
(see golden_lib.py for what a Case holds)."""
import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _reduce_cases():
    d = V("data")
    out = []
    for op in ["sum", "mean", "max"]:
        out.append(Case("reduce_%s_all" % op, getattr(mx.sym, op)(d), {"data": (2, 3, 4)}))
        out.append(Case("reduce_%s_axis1_keep" % op, getattr(mx.sym, op)(d, axis=1, keepdims=True),
                        {"data": (2, 3, 4)}))
        out.append(Case("reduce_%s_exclude" % op,
                        getattr(mx.sym, op)(d, axis=(0, 2), exclude=True), {"data": (2, 3, 4)}))
    out.append(Case("reduce_sum_neg_axes", mx.sym.sum(d, axis=(-1, -3)), {"data": (2, 3, 4)}))
    return out


def cases():
    return _reduce_cases()
