"""Whole networks from MXNet's gluon model zoo (random weights, small inputs).

Parameters are not stored: they come from golden_lib's hash formula
(fill="hash"), so each case is its symbol plus a few kilobytes of outputs.
ResNet-18 v1 also runs a training pass (BatchNorm on batch statistics) and
checks every parameter gradient (large ones by summary).
"""
import mxnet as mx
from mxnet.gluon.model_zoo import vision

from golden_lib import Case


def _symbol(name, **kwargs):
    net = vision.get_model(name, pretrained=False, classes=10, **kwargs)
    net.initialize()
    return net(mx.sym.Variable("data"))


def _gluon_lstm():
    # A hybridized Gluon LSTM as HybridBlock.export writes it: its weights are
    # flattened and joined by _rnn_param_concat into the RNN op's parameters,
    # and its begin states are _zeros with a legacy 0 batch dim. Without
    # input_size the first layer's weights are (24, 0) until the data settles
    # them through the RNN op's parameter count (two unknown concat inputs).
    net = mx.gluon.rnn.LSTM(6, num_layers=2, layout="NTC", bidirectional=True)
    net.initialize()
    net.hybridize()
    return net(mx.sym.Variable("data"))


def cases():
    out = [Case("model_gluon_lstm", _gluon_lstm(), {"data": (2, 5, 4)}, fill="hash",
                rtol=1e-3, atol=1e-5)]
    for name, shape, train in [
            ("resnet18_v1", (4, 3, 32, 32), True),
            ("resnet18_v2", (2, 3, 32, 32), False),
            # Training MobileNetV2 this small is ill-conditioned: MXNet's own
            # float32 and float64 gradients differ by half their size.
            ("mobilenetv2_0.25", (4, 3, 32, 32), False),
            ("mobilenet0.25", (2, 3, 32, 32), False),
            ("squeezenet1.1", (1, 3, 224, 224), False),
            ("vgg11_bn", (2, 3, 32, 32), False),
            ("densenet121", (1, 3, 224, 224), False),
            ("inceptionv3", (1, 3, 299, 299), False)]:
        label = "model_" + name.replace(".", "_")
        out.append(Case(label, _symbol(name), {"data": shape}, fill="hash", is_train=train,
                        grad=train, rtol=2e-3, atol=1e-5, compare="scaled"))
    return out
