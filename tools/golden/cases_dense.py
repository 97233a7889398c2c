"""Golden cases of the dense family (graph/ops/dense.cc): FullyConnected, dot,
batch_dot and khatri_rao (see golden_lib.py for what a Case holds)."""
import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _dense_cases():
    d, w, b = V("data"), V("w"), V("b")
    out = [
        Case("FullyConnected", mx.sym.FullyConnected(d, num_hidden=4, name="fc"),
             {"data": (3, 5)}),
        Case("FullyConnected_4d_flatten", mx.sym.FullyConnected(d, num_hidden=3, name="fc"),
             {"data": (2, 2, 2, 3)}),
        Case("FullyConnected_noflatten_nobias",
             mx.sym.FullyConnected(d, num_hidden=3, flatten=False, no_bias=True, name="fc"),
             {"data": (2, 2, 4)}),
        Case("dot", mx.sym.dot(d, w), {"data": (3, 4), "w": (4, 2)}),
        Case("dot_transpose", mx.sym.dot(d, w, transpose_a=True, transpose_b=True),
             {"data": (4, 3), "w": (2, 4)}),
        Case("batch_dot", mx.sym.batch_dot(d, w), {"data": (2, 3, 4), "w": (2, 4, 5)}),
        Case("batch_dot_transpose_b", mx.sym.batch_dot(d, w, transpose_b=True),
             {"data": (2, 3, 4), "w": (2, 5, 4)}),
        # MXNet registers no gradient for khatri_rao.
        Case("khatri_rao", mx.sym.khatri_rao(d, w, b), {"data": (2, 3), "w": (4, 3), "b": (3, 3)},
             grad=False),
        Case("khatri_rao_float64", mx.sym.khatri_rao(d, w), {"data": (3, 2), "w": (2, 2)},
             dtypes={"data": "float64", "w": "float64"}, grad=False),
    ]
    return out


def cases():
    return _dense_cases()
