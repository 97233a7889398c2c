"""Golden cases of the softmax family (graph/ops/softmax.cc): softmax,
log_softmax, softmin and SoftmaxActivation (see golden_lib.py for what a Case holds).

MXNet 1.9.1 quirk these cases steer around: SoftmaxActivation mode=instance
on data of more than 2 dims (the oneDNN forward normalizes over the last axis
only, and _backward_SoftmaxActivation always sums over axis 1, so neither
matches the documented softmax over all non-batch dims that symx computes).
Instance cases here use 2-D data, where every reading agrees."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _softmax_cases():
    d = V("data")
    out = []
    for op, ax in [("softmax", -1), ("log_softmax", 1)]:
        out.append(Case("%s_axis%d" % (op, ax), getattr(mx.sym, op)(d, axis=ax),
                        {"data": (2, 3, 4)}))
    out.append(Case("softmax_temperature", mx.sym.softmax(d, temperature=2.5), {"data": (3, 4)}))
    return out


def _softmax_activation_cases():
    d = V("data")
    return [
        Case("SoftmaxActivation_instance_2d", mx.sym.SoftmaxActivation(d), {"data": (3, 7)}),
        Case("SoftmaxActivation_instance_wide", mx.sym.SoftmaxActivation(d, mode="instance"),
             {"data": (2, 12)}, values={"data": np.linspace(-4, 4, 24).reshape(2, 12)}),
        Case("SoftmaxActivation_channel_3d", mx.sym.SoftmaxActivation(d, mode="channel"),
             {"data": (2, 4, 3)}),
        Case("SoftmaxActivation_channel_4d", mx.sym.SoftmaxActivation(d, mode="channel"),
             {"data": (2, 3, 2, 2)}),
    ]


def _softmin_cases():
    d = V("data")
    return [
        Case("softmin_default", mx.sym.softmin(d), {"data": (3, 5)}),
        Case("softmin_axis1", mx.sym.softmin(d, axis=1), {"data": (2, 4, 3)}),
        Case("softmin_axis0_temperature", mx.sym.softmin(d, axis=0, temperature=0.5),
             {"data": (4, 3)}),
        Case("softmin_neg_axis_temperature", mx.sym.softmin(d, axis=-2, temperature=3.0),
             {"data": (2, 3, 4)}),
    ]


def cases():
    return _softmax_cases() + _softmax_activation_cases() + _softmin_cases()
