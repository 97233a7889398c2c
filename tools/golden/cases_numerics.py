"""Golden cases for numerics (docs/numerics.md): the elementwise math over the
saturating ranges real models visit (detector scores near 1, tails near the
denormals), with tolerances of a few float32 ulp, and the MXNet 1.9.1 errata
whose right answer MXNet's own unfused operators give (this generator runs
with MXNET_SUBGRAPH_BACKEND=NONE)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _tail_cases():
    d = V("data")
    # Every 1/64 from -88 to 36: sigmoid's negative tail (MXNet returns 0
    # below -88.7, so the cases stop there) and its approach to 1 (1 from
    # x = 16.64 in both engines).
    wide = np.arange(-88, 36, 1.0 / 64, dtype=np.float32)
    shape = {"data": (len(wide),)}
    out = [
        Case("numerics_sigmoid_tails", mx.sym.sigmoid(d), shape, values={"data": wide},
             rtol=3e-7, atol=0, grad=False,
             note="within 2.5 ulp; Eigen's fast logistic was 1.2e-4 off below -9"),
        Case("numerics_exp_tails", mx.sym.exp(d), shape, values={"data": wide},
             rtol=3e-7, atol=1e-44, grad=False,
             note="denormal results: Eigen's exp clamped its argument at -88.72"),
    ]
    near = np.arange(-12, 12, 1.0 / 256, dtype=np.float32)
    out.append(Case("numerics_tanh_range", mx.sym.tanh(d), {"data": (len(near),)},
                    values={"data": near}, rtol=3e-7, atol=0, grad=False,
                    note="Eigen's float tanh was 5.8 ulp off at 6.04"))
    # The fuzzer's arcsinh(cosh(x)): from x = 44, cosh(x)^2 overflows float32,
    # and symx's gradients of arcsinh and arccosh were 0 there. MXNet's
    # arccosh gradient has the same bug, so that case's gradient comes from
    # finite differences of MXNet's float64 forward.
    big = np.linspace(20, 80, 13).astype(np.float32)
    out.append(Case("numerics_arcsinh_of_cosh", mx.sym.arcsinh(mx.sym.cosh(d)),
                    {"data": (len(big),)}, values={"data": big}, rtol=1e-5, atol=0,
                    note="the gradient through x^2 overflowed float32 (difftest seed 1)"))
    out.append(Case("numerics_arccosh_of_cosh", mx.sym.arccosh(mx.sym.cosh(d)),
                    {"data": (len(big),)}, values={"data": big}, rtol=1e-5, atol=1e-6, fd=True,
                    note="MXNet 1.9.1's float32 arccosh gradient is 0 from x = 44 (x^2 "
                         "overflows); symx's was too"))
    return out


def conv_relu_add_symbol():
    """c1 = conv1(data); c1 + conv2(relu1(c1)): MXNet's default oneDNN fusion
    computes c1 + conv2(c1) here (tools/golden/mxnet_wrong/conv_relu_add.py)."""
    c1 = mx.sym.Convolution(V("data"), num_filter=4, kernel=(3, 3), pad=(1, 1), no_bias=True,
                            name="conv1")
    r = mx.sym.Activation(c1, act_type="relu", name="relu1")
    c2 = mx.sym.Convolution(r, num_filter=4, kernel=(3, 3), pad=(1, 1), no_bias=True,
                            name="conv2")
    return mx.sym.elemwise_add(c1, c2, name="add")


def _mxnet_wrong_cases():
    # docs/numerics.md, "MXNet 1.9.1's wrong answers" 1. Forward only, so symx
    # binds it for inference and its own fusion pass runs on it.
    out = conv_relu_add_symbol()
    return [Case("mxnet_wrong_conv_relu_add", out, {"data": (1, 4, 6, 6)}, grad=False,
                 note="MXNet 1.9.1's default CPU build drops relu1 (LFFD face detectors)")]


def cases():
    return _tail_cases() + _mxnet_wrong_cases()
