"""Golden cases of the random_pdf family (graph/ops/random_pdf.cc): each
density and log density of MXNet 1.9.1 with its gradients (the samples' and
the parameters', summed over each distribution's block of samples), float32
and float64 (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable

# law -> (parameter names, sample values (2, 3), parameter values (2,) each)
_LAWS = {
    "uniform": (("low", "high"), [[-0.5, 0.1, 0.7], [0.2, 1.4, 2.0]],
                ([-1.0, -0.5], [1.0, 2.5])),
    "normal": (("mu", "sigma"), [[-1.2, 0.1, 0.9], [0.3, 1.7, -0.4]], ([0.2, -0.3], [0.8, 1.6])),
    "gamma": (("alpha", "beta"), [[0.3, 1.1, 2.4], [0.8, 1.9, 3.3]], ([1.5, 3.0], [0.7, 1.4])),
    "exponential": (("lam",), [[0.1, 0.6, 1.9], [0.3, 0.05, 2.2]], ([0.5, 2.0],)),
    "poisson": (("lam",), [[0.0, 2.0, 5.0], [1.0, 3.0, 7.0]], ([1.5, 4.0],)),
    "negative_binomial": (("k", "p"), [[0.0, 2.0, 4.0], [1.0, 3.0, 6.0]], ([2.0, 3.5],
                                                                           [0.3, 0.6])),
    "generalized_negative_binomial": (("mu", "alpha"), [[0.0, 2.0, 4.0], [1.0, 3.0, 6.0]],
                                      ([1.5, 3.0], [0.4, 0.8])),
}


def _scalar_cases():
    out = []
    for law, (names, sample, params) in sorted(_LAWS.items()):
        fn = getattr(mx.sym, "random_pdf_" + law)
        for is_log in (False, True):
            for dtype in ("float32", "float64"):
                args = [V("sample")] + [V(n) for n in names]
                values = {"sample": np.array(sample)}
                shapes = {"sample": (2, 3)}
                for n, p in zip(names, params):
                    values[n] = np.array(p)
                    shapes[n] = (2,)
                out.append(Case("_random_pdf_%s%s_%s" % (law, "_log" if is_log else "", dtype),
                                fn(*args, is_log=is_log), shapes, values=values,
                                dtypes={k: dtype for k in shapes}))
    return out


def _dirichlet_cases():
    x = np.array([[[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], [[0.25, 0.25, 0.5], [0.1, 0.8, 0.1]]])
    alpha = np.array([[1.5, 2.0, 0.7], [3.0, 1.2, 2.5]])
    out = []
    for is_log in (False, True):
        out.append(Case("_random_pdf_dirichlet%s" % ("_log" if is_log else ""),
                        mx.sym.random_pdf_dirichlet(V("sample"), V("alpha"), is_log=is_log),
                        {"sample": (2, 2, 3), "alpha": (2, 3)},
                        values={"sample": x, "alpha": alpha},
                        dtypes={"sample": "float64", "alpha": "float64"}))
    return out


def cases():
    return _scalar_cases() + _dirichlet_cases()
