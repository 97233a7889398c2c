"""Golden cases of the statistics family (graph/ops/statistics.cc): _histogram and _contrib_hawkesll (see golden_lib.py for what a Case holds)."""
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


def _hawkes_cases():
    names = ["lda", "alpha", "beta", "state", "lags", "marks", "valid_length", "max_time"]
    sym = mx.sym.contrib.hawkesll(*[V(n) for n in names])
    n, k, t = 4, 3, 5
    rng = np.random.RandomState(7)
    values = {
        "lda": rng.uniform(0.5, 2.0, (n, k)),
        "alpha": np.array([0.2, 0.3, 0.4]),
        "beta": np.array([1.0, 2.0, 3.0]),
        "state": rng.uniform(0.0, 1.0, (n, k)),
        "lags": rng.uniform(0.1, 1.5, (n, t)),
        "marks": rng.randint(0, k, (n, t)),
        "valid_length": np.array([1, 5, 3, 0]),
        "max_time": np.array([10.0, 12.0, 8.0, 5.0]),
    }
    shapes = {name: v.shape for name, v in values.items()}
    # MXNet differentiates lda, alpha and beta only (it refuses the others and
    # leaves state's gradient unwritten).
    return [Case("hawkesll_three_processes", sym, shapes, values=values,
                 dtypes={"marks": "int32"},
                 no_grad=["state", "lags", "marks", "valid_length", "max_time"])]


def cases():
    return _histogram_cases() + _hawkes_cases()
