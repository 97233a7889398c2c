"""Writes the model JSON files tools/gpu/bench.py times on the GPU machine.

The GPU machine has no MXNet, so the symbols travel with the tree. ResNet-50
v1 comes from MXNet 1.9.1's own model zoo (random weights, not saved: the
benchmark fills parameters from a seed), exported as symbol JSON; the GEMM
model is one FullyConnected layer written here. Run under the MXNet venv:

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


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    resnet50()
    gemm()
    for f in sorted(os.listdir(OUT)):
        print(f, os.path.getsize(os.path.join(OUT, f)))
