"""Golden cases of the activation family (graph/ops/activation.cc): Activation,
LeakyReLU, hard_sigmoid and softsign (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _activation_cases():
    d = V("data")
    out = []
    # MXNet 1.9.1 has no log_sigmoid/mish act_type (symx does): not compared here.
    for t in ["relu", "sigmoid", "tanh", "softrelu", "softsign"]:
        out.append(Case("Activation_" + t, mx.sym.Activation(d, act_type=t), {"data": (3, 5)}))
    for t, extra in [("leaky", {"slope": 0.3}), ("elu", {"slope": 0.7}), ("gelu", {})]:
        out.append(Case("LeakyReLU_" + t, mx.sym.LeakyReLU(d, act_type=t, **extra),
                        {"data": (2, 3, 4)}))
    out.append(Case("LeakyReLU_selu", mx.sym.LeakyReLU(d, act_type="selu"), {"data": (2, 3, 4)},
                    fd=True, note="MXNet 1.9.1's selu gradient for x < 0 is off by up to 0.04"))
    out.append(Case("LeakyReLU_prelu", mx.sym.LeakyReLU(d, act_type="prelu", name="pr"),
                    {"data": (2, 3, 4)}))
    # Inputs clear of hard_sigmoid's kinks (alpha x + beta = 0 or 1).
    x = np.array([-4.1, -2.3, -0.6, 0.2, 1.1, 2.2, 3.1, 4.4, -1.4, 0.7, 5.3, -5.2])
    out.append(Case("hard_sigmoid", mx.sym.hard_sigmoid(d), {"data": (3, 4)}, values={"data": x}))
    out.append(Case("hard_sigmoid_params", mx.sym.hard_sigmoid(d, alpha=-0.3, beta=0.4),
                    {"data": (3, 4)}, values={"data": x}))
    out.append(Case("softsign", mx.sym.softsign(d), {"data": (3, 5)}))
    return out


def cases():
    return _activation_cases()
