"""Golden cases of the dropout family (graph/ops/dropout.cc): Dropout in
inference (its training masks are random) (see golden_lib.py for what a Case holds)."""
import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _dropout_cases():
    d = V("data")
    return [
        Case("Dropout_inference", mx.sym.Dropout(d, p=0.5), {"data": (3, 4)}),
    ]


def cases():
    return _dropout_cases()
