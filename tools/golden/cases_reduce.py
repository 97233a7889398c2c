"""Golden cases of the reduce family (graph/ops/reduce.cc): sum, mean, max,
min, prod, nansum, nanprod, norm and moments (see golden_lib.py for what a Case holds)."""
import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _reduce_cases():
    d = V("data")
    out = []
    for op in ["sum", "mean", "max", "min", "prod", "nansum", "nanprod"]:
        out.append(Case("reduce_%s_all" % op, getattr(mx.sym, op)(d), {"data": (2, 3, 4)}))
        out.append(Case("reduce_%s_axis1_keep" % op, getattr(mx.sym, op)(d, axis=1, keepdims=True),
                        {"data": (2, 3, 4)}))
        out.append(Case("reduce_%s_exclude" % op,
                        getattr(mx.sym, op)(d, axis=(0, 2), exclude=True), {"data": (2, 3, 4)}))
    out.append(Case("reduce_sum_neg_axes", mx.sym.sum(d, axis=(-1, -3)), {"data": (2, 3, 4)}))
    out.append(Case("reduce_min_axis_alias", mx.sym.min_axis(d, axis=-1), {"data": (2, 3, 4)}))
    out.append(Case("reduce_prod_neg_axes_keep", mx.sym.prod(d, axis=(-1, 0), keepdims=True),
                    {"data": (2, 3, 4)}))
    out.append(Case("reduce_norm_all", mx.sym.norm(d), {"data": (2, 3, 4)}))
    out.append(Case("reduce_norm_ord1_axis1_keep", mx.sym.norm(d, ord=1, axis=1, keepdims=True),
                    {"data": (2, 3, 4)}))
    out.append(Case("reduce_norm_axes_neg", mx.sym.norm(d, axis=(0, -1)), {"data": (2, 3, 4)}))
    out.append(Case("reduce_moments_axis1", mx.sym.moments(d, axes=(1,)), {"data": (2, 3, 4)}))
    out.append(Case("reduce_moments_keep", mx.sym.moments(d, axes=(0, -1), keepdims=True),
                    {"data": (2, 3, 4)}))
    return out


def cases():
    return _reduce_cases()
