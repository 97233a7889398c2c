"""Golden cases of the loss family (graph/ops/loss.cc): SoftmaxOutput,
Linear/Logistic/MAERegressionOutput and MakeLoss (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _loss_cases():
    d, l = V("data"), V("label")
    return [
        Case("SoftmaxOutput", mx.sym.SoftmaxOutput(d, l, name="sm"), {"data": (4, 5), "label": (4,)},
             values={"label": np.array([0, 4, 2, 1])}, no_grad=["label"]),
        Case("SoftmaxOutput_ignore_normalize",
             mx.sym.SoftmaxOutput(d, l, use_ignore=True, ignore_label=2, normalization="valid",
                                  grad_scale=2.0, name="sm"),
             {"data": (4, 3), "label": (4,)}, values={"label": np.array([0, 2, 1, 2])},
             no_grad=["label"]),
        Case("LinearRegressionOutput", mx.sym.LinearRegressionOutput(d, l, name="lro"),
             {"data": (3, 2), "label": (3, 2)}, no_grad=["label"]),
        Case("LogisticRegressionOutput", mx.sym.LogisticRegressionOutput(d, l, name="lro"),
             {"data": (3, 2), "label": (3, 2)}, no_grad=["label"]),
        Case("MAERegressionOutput", mx.sym.MAERegressionOutput(d, l, name="lro"),
             {"data": (3, 2), "label": (3, 2)}, no_grad=["label"]),
        Case("MakeLoss", mx.sym.MakeLoss(mx.sym.square(d), grad_scale=0.5), {"data": (2, 3)}),
    ]


def cases():
    return _loss_cases()
