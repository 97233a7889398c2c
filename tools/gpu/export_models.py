"""Writes the model JSON files tools/gpu/bench.py times on the GPU machine.

The GPU machine has no MXNet, so the symbols travel with the tree. ResNet-50
v1 comes from MXNet 1.9.1's own model zoo (random weights, not saved: the
benchmark fills parameters from a seed), exported as symbol JSON; the GEMM
model is one FullyConnected layer and the MLP block a Transformer-style
feed-forward block, both written here. Run under the MXNet venv:

  ~/.cache/symx/mxnet-venv/bin/python tools/gpu/export_models.py
"""
import json
import os
import tempfile

import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def resnet50():
    net = mx.gluon.model_zoo.vision.get_model("resnet50_v1", pretrained=False)
    net.initialize()
    net.hybridize()
    net(mx.nd.zeros((1, 3, 224, 224)))
    with tempfile.TemporaryDirectory() as d:
        net.export(os.path.join(d, "m"))
        sym = mx.sym.load(os.path.join(d, "m-symbol.json"))
    # Training needs a loss head: MXNet's SoftmaxOutput, label "softmax_label".
    sym = mx.sym.SoftmaxOutput(sym, name="softmax")
    sym.save(os.path.join(OUT, "resnet50_v1-symbol.json"))


def gemm():
    data = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data, num_hidden=8192, no_bias=True, name="fc")
    fc.save(os.path.join(OUT, "gemm8192-symbol.json"))


def mlp_block(hidden=4096, inner=16384):
    """A Transformer block's feed-forward half on [tokens, hidden]: LayerNorm,
    FC to 4x, GELU (erf, MXNet's LeakyReLU gelu), FC back, residual add. A
    LinearRegressionOutput head (label "out_label") gives training a loss."""
    x = mx.sym.Variable("data")
    h = mx.sym.LayerNorm(x, name="ln")
    h = mx.sym.FullyConnected(h, num_hidden=inner, name="fc1")
    h = mx.sym.LeakyReLU(h, act_type="gelu", name="gelu")
    h = mx.sym.FullyConnected(h, num_hidden=hidden, name="fc2")
    y = mx.sym.elemwise_add(x, h, name="residual")
    out = mx.sym.LinearRegressionOutput(y, name="out")
    out.save(os.path.join(OUT, "mlp_block-symbol.json"))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    resnet50()
    gemm()
    mlp_block()
    for f in sorted(os.listdir(OUT)):
        print(f, os.path.getsize(os.path.join(OUT, f)))
