"""Golden cases of the amp family (graph/ops/amp.cc): amp_cast and amp_multicast
(see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _amp_cases():
    a, b, c = V("a"), V("b"), V("c")
    x = np.linspace(-3.3, 2.9, 12)
    return [
        Case("amp_cast_float16", mx.sym.amp_cast(a, dtype="float16"), {"a": (3, 4)},
             values={"a": x}, rtol=1e-3, atol=1e-3),
        Case("amp_cast_to_float32", mx.sym.amp_cast(a, dtype="float32"), {"a": (3, 4)},
             values={"a": x}, dtypes={"a": "float16"}, rtol=1e-3, atol=1e-3),
        # Integers pass through. (float64 does too, but MXNet 1.9.1's oneDNN path fails on
        # it, as on amp_multicast of float16: the cases keep to what its CPU build runs.)
        Case("amp_cast_int32", mx.sym.amp_cast(a, dtype="float16"), {"a": (4,)},
             values={"a": np.array([1, -7, 300, 0])}, dtypes={"a": "int32"}, grad=False),
        Case("amp_multicast", mx.sym.amp_multicast(a, b, c, num_outputs=3),
             {"a": (2, 3), "b": (4,), "c": (3,)},
             dtypes={"a": "float32", "b": "float32", "c": "int32"}, no_grad=["c"],
             values={"c": np.array([3, -1, 2])}),
        Case("amp_multicast_narrow", mx.sym.amp_multicast(a, b, num_outputs=2, cast_narrow=True),
             {"a": (2, 3), "b": (4,)}, dtypes={"a": "float32", "b": "uint8"}, no_grad=["b"],
             values={"b": np.array([3, 0, 200, 1])}),
    ]


def cases():
    return _amp_cases()
