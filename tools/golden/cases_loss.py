"""Golden cases of the loss family (graph/ops/loss.cc): SoftmaxOutput,
Linear/Logistic/MAERegressionOutput, MakeLoss, SVMOutput, softmax_cross_entropy and
IdentityAttachKLSparseReg (see golden_lib.py for what a Case holds)."""
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
        # Scores on a grid clear of +-margin; labels of every class.
        Case("SVMOutput", mx.sym.SVMOutput(d, l, name="svm"), {"data": (4, 3), "label": (4,)},
             values={"data": np.linspace(-1.93, 1.87, 12), "label": np.array([0, 2, 1, 2])},
             no_grad=["label"]),
        Case("SVMOutput_linear",
             mx.sym.SVMOutput(d, l, margin=0.5, regularization_coefficient=2.5, use_linear=True,
                              name="svm"),
             {"data": (4, 3), "label": (4,)},
             values={"data": np.linspace(-1.93, 1.87, 12), "label": np.array([1, 0, 2, 1])},
             no_grad=["label"]),
        Case("softmax_cross_entropy", mx.sym.softmax_cross_entropy(d, l),
             {"data": (3, 4), "label": (3,)}, values={"label": np.array([3, 0, 2])},
             no_grad=["label"]),
        # moving_avg is updated by the backward pass; the case keeps it inside (0, 1).
        Case("IdentityAttachKLSparseReg",
             mx.sym.IdentityAttachKLSparseReg(d, sparseness_target=0.2, penalty=0.01,
                                              momentum=0.75, name="kl"),
             {"data": (3, 4)}, values={"data": np.linspace(0.05, 0.9, 12),
                                       "kl_moving_avg": np.array([0.3, 0.4, 0.5, 0.6])},
             is_train=True),
    ]


def cases():
    return _loss_cases()
