"""Golden cases of the contributed optimizer family's pure functions
(graph/ops/optimizer_contrib.cc): multi_sum_sq, multi_lars, all_finite and
multi_all_finite, which MXNet composes in symbols (the update operators
write their inputs and are checked in tests/ops/optimizer_contrib_test).
Forward only: none has a gradient."""
import numpy as np

import mxnet as mx
from golden_lib import Case, mxop

V = mx.sym.Variable


def _vals(shape, seed, scale=1.0):
    return np.random.RandomState(seed).uniform(-scale, scale, size=shape)


def cases():
    a, b, c = V("a"), V("b"), V("c")
    out = []
    shapes = {"a": (3, 4), "b": (7,), "c": (2, 3, 5)}
    out.append(Case("multi_sum_sq_three", mxop("multi_sum_sq")(a, b, c, num_arrays=3), shapes,
                    values={k: _vals(s, i, 3.0) for i, (k, s) in enumerate(shapes.items())},
                    grad=False))
    out.append(Case("multi_sum_sq_float16", mxop("multi_sum_sq")(a, b, num_arrays=2),
                    {"a": (4, 8), "b": (5,)},
                    values={"a": _vals((4, 8), 3, 20.0), "b": _vals((5,), 4, 20.0)},
                    dtypes={"a": "float16", "b": "float16"}, grad=False))
    out.append(Case("multi_sum_sq_float64", mxop("multi_sum_sq")(a, num_arrays=1), {"a": (6, 6)},
                    values={"a": _vals((6, 6), 5, 2.0)}, dtypes={"a": "float64"}, grad=False))
    # multi_lars: a layer with a zero weight norm and one with a zero
    # gradient norm keep their rates.
    lrs, w2, g2, wds = V("lrs"), V("weights_sum_sq"), V("grads_sum_sq"), V("wds")
    n = {"lrs": (5,), "weights_sum_sq": (5,), "grads_sum_sq": (5,), "wds": (5,)}
    for name, kwargs in [("multi_lars", {"eta": 0.001, "eps": 0.0}),
                         ("multi_lars_rescale_eps", {"eta": 0.01, "eps": 1e-3,
                                                     "rescale_grad": 0.25})]:
        out.append(Case(name, mxop("multi_lars")(lrs, w2, g2, wds, **kwargs), n,
                        values={"lrs": np.array([0.1, 0.2, 0.05, 0.1, 1.0]),
                                "weights_sum_sq": np.array([4.0, 0.0, 2.5, 9.0, 0.5]),
                                "grads_sum_sq": np.array([0.25, 1.0, 0.0, 16.0, 3e-4]),
                                "wds": np.array([1e-4, 0.0, 0.01, 0.5, 0.0])},
                        grad=False))
    finite = _vals((3, 4), 6)
    with_inf = finite.copy()
    with_inf[1, 2] = np.inf
    with_nan = finite.copy()
    with_nan[2, 0] = np.nan
    for tag, v in [("finite", finite), ("inf", with_inf), ("nan", with_nan)]:
        out.append(Case("all_finite_%s" % tag, mxop("all_finite")(a), {"a": (3, 4)},
                        values={"a": v}, grad=False))
    out.append(Case("all_finite_float64_huge", mxop("all_finite")(a), {"a": (2,)},
                    values={"a": np.array([1.0, 1e300])}, dtypes={"a": "float64"}, grad=False,
                    note="MXNet tests after a cast to float: 1e300 is not finite"))
    for tag, vb in [("finite", _vals((5,), 7)), ("inf", np.array([0, 1, -np.inf, 2, 3.0]))]:
        out.append(Case("multi_all_finite_%s" % tag, mxop("multi_all_finite")(a, b, num_arrays=2),
                        {"a": (3, 4), "b": (5,)}, values={"a": finite, "b": vb}, grad=False))
    return out
