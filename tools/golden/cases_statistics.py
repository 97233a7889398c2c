"""Golden cases of the statistics family (graph/ops/statistics.cc): _histogram (see golden_lib.py for what a Case holds)."""
import mxnet as mx
import numpy as np
from golden_lib import Case

V = mx.sym.Variable


def _histogram_cases():
    hist = mx.sym._internal._histogram
    d = V("data")
    # Values on a grid of 0.25: many sit exactly on bin edges, some outside.
    grid = (np.arange(48) % 29 * 0.25 - 1.0).astype(np.float32).reshape(4, 12)
    out = [
        Case("histogram_uniform", hist(d, bin_cnt=5, range=(0, 5)), {"data": (4, 12)},
             values={"data": grid}, grad=False),
        Case("histogram_uniform_rounded_edges", hist(d, bin_cnt=3, range=(0, 0.3)),
             {"data": (4, 12)}, values={"data": grid / 10}, grad=False),
        Case("histogram_equal_range", hist(d, bin_cnt=4, range=(1, 1)), {"data": (4, 12)},
             values={"data": grid}, grad=False),
        Case("histogram_edges", hist(d, V("bins")), {"data": (4, 12), "bins": (4,)},
             values={"data": grid, "bins": np.array([-0.5, 0.0, 2.1, 3.0], np.float32)},
             grad=False),
        Case("histogram_int32", hist(d, bin_cnt=3, range=(-2, 7)), {"data": (3, 5)},
             values={"data": np.arange(-4, 11).reshape(3, 5)}, dtypes={"data": "int32"},
             grad=False),
        Case("histogram_float64", hist(d, bin_cnt=7, range=(-0.3, 1.1)), {"data": (40,)},
             values={"data": np.linspace(-0.5, 1.3, 40)}, dtypes={"data": "float64"},
             grad=False),
    ]
    return out


def cases():
    return _histogram_cases()
