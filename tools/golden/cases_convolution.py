"""Golden cases of the convolution family (graph/ops/convolution.cc):
Convolution, Convolution_v1 and Deconvolution (see golden_lib.py for what a Case holds)."""
import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _convolution_cases():
    d = V("data")
    out = []
    for label, kw, shape in [
            ("3x3", dict(kernel=(3, 3), num_filter=4), (2, 3, 6, 6)),
            ("stride2_pad1", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=3),
             (1, 2, 7, 7)),
            ("dilate_group", dict(kernel=(3, 3), dilate=(2, 2), num_group=2, num_filter=4),
             (1, 4, 7, 7)),
            ("1x1_nobias", dict(kernel=(1, 1), num_filter=5, no_bias=True), (2, 3, 4, 4)),
            ("1d", dict(kernel=(3,), pad=(1,), num_filter=2), (2, 3, 8)),
            ("3d", dict(kernel=(2, 2, 2), num_filter=2), (1, 2, 3, 4, 4))]:
        out.append(Case("Convolution_" + label, mx.sym.Convolution(d, name="conv", **kw),
                        {"data": shape}, rtol=1e-4, atol=1e-4))
    # MXNet's legacy Convolution_v1 (2-D only). Its data gradient ignores
    # dilate (docs/numerics.md, erratum 21), so the dilated case checks the
    # forward pass only.
    for label, kw, shape, grad in [
            ("3x3", dict(kernel=(3, 3), num_filter=4), (2, 3, 6, 6), True),
            ("stride2_pad1_group", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_group=2,
                                        num_filter=4), (1, 4, 7, 7), True),
            ("dilate2", dict(kernel=(3, 3), dilate=(2, 2), pad=(1, 1), num_filter=2),
             (1, 2, 7, 7), False)]:
        out.append(Case("Convolution_v1_" + label, mx.sym.Convolution_v1(d, name="conv", **kw),
                        {"data": shape}, rtol=1e-4, atol=1e-4, grad=grad))
    for label, kw, shape in [
            ("3x3", dict(kernel=(3, 3), num_filter=2), (1, 3, 4, 4)),
            ("stride2_adj", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 1),
                                 num_filter=2), (2, 2, 3, 3)),
            ("pad_nobias", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), num_filter=3,
                                no_bias=True), (1, 2, 4, 4))]:
        # target_shape is left to the conformance tests: MXNet 1.9.1's oneDNN
        # Deconvolution fails to run with it ("could not create a descriptor").
        out.append(Case("Deconvolution_" + label, mx.sym.Deconvolution(d, name="deconv", **kw),
                        {"data": shape}, rtol=1e-4, atol=1e-4))
    return out


def cases():
    return _convolution_cases()
