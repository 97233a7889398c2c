"""Golden cases of the lrn family (graph/ops/lrn.cc): LRN, odd nsize only
(MXNet's reference kernel rejects even sizes; symx does too) (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _lrn_cases():
    d = V("data")
    return [
        Case("LRN_default", mx.sym.LRN(d, nsize=3), {"data": (2, 5, 3, 3)}),
        Case("LRN_alpha_big", mx.sym.LRN(d, nsize=3, alpha=0.5, beta=0.75, knorm=1),
             {"data": (2, 5, 2, 3)}, note="alpha is divided by nsize"),
        Case("LRN_nsize5", mx.sym.LRN(d, nsize=5, alpha=0.5, beta=0.6, knorm=2),
             {"data": (1, 7, 2, 2)}),
        Case("LRN_nsize1", mx.sym.LRN(d, nsize=1, alpha=0.7, beta=0.5, knorm=1.5),
             {"data": (2, 3, 2, 2)}),
    ]


def cases():
    return _lrn_cases()
