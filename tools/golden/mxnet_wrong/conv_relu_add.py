"""MXNet 1.9.1's oneDNN fusion drops a ReLU whose input also feeds an add.

  c1 = Convolution(x); out = c1 + Convolution(relu(c1))

With the default CPU backend MXNet computes c1 + Convolution(c1) at inference.
Run in the mxnet==1.9.1 venv (tools/golden/make_golden.sh makes it):

  python tools/golden/mxnet_wrong/conv_relu_add.py        # difference 13.4
  MXNET_SUBGRAPH_BACKEND=NONE python ...conv_relu_add.py  # difference 0

docs/numerics.md lists it; golden case mxnet_wrong_conv_relu_add holds the
right answer.
"""
import os
import sys

import numpy as np
import mxnet as mx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from cases_numerics import conv_relu_add_symbol  # noqa: E402


def conv(data, weight):
    return mx.nd.Convolution(data, weight, num_filter=4, kernel=(3, 3), pad=(1, 1), no_bias=True)


def main():
    out = conv_relu_add_symbol()
    rng = np.random.RandomState(0)
    args = {"data": mx.nd.array(rng.uniform(-1, 1, (1, 4, 6, 6))),
            "conv1_weight": mx.nd.array(rng.uniform(-1, 1, (4, 4, 3, 3))),
            "conv2_weight": mx.nd.array(rng.uniform(-1, 1, (4, 4, 3, 3)))}
    got = out.bind(mx.cpu(), args).forward(is_train=False)[0].asnumpy()
    c1v = conv(args["data"], args["conv1_weight"])
    right = (c1v + conv(mx.nd.relu(c1v), args["conv2_weight"])).asnumpy()
    relu_dropped = (c1v + conv(c1v, args["conv2_weight"])).asnumpy()
    print("MXNET_SUBGRAPH_BACKEND=%s" % os.environ.get("MXNET_SUBGRAPH_BACKEND", "(default)"))
    print("largest |bound graph - operators one by one|: %g" % np.abs(got - right).max())
    print("largest |bound graph - relu dropped|:         %g" % np.abs(got - relu_dropped).max())


if __name__ == "__main__":
    main()
