"""Golden cases of the binary family (graph/ops/binary.cc): elemwise_* on one
shape, _maximum/_minimum/_power and broadcast_* (see golden_lib.py for what a Case holds)."""
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


def cases():
    return _binary_cases()
