"""Golden cases for the deformable convolutions: _contrib_DeformableConvolution
and _contrib_ModulatedDeformableConvolution (MXNet 1.9.1, float32).

Offsets are whole numbers plus fractions in [0.15, 0.85], so samples fall
between pixels (never on a grid line, where the bilinear weights have kinks)
and, with the larger offsets, in the last row and column and outside the
image. MXNet's CPU runs no backward of the modulated op ("only implemented in
GPU"), so its cases check the forward only; tests/ops/deformable_test.cc
checks its gradients against finite differences."""
import numpy as np
import mxnet as mx

from golden_lib import Case


def _offsets(shape, seed, scale):
    rng = np.random.RandomState(seed)
    whole = np.floor(rng.uniform(-1, 1, size=shape) * scale)
    frac = 0.15 + 0.7 * rng.uniform(0, 1, size=shape)
    return (whole + frac).astype(np.float32)


def _out(x, k, s, d, p):
    return (x + 2 * p - (d * (k - 1) + 1)) // s + 1


def _deform(name, modulated, data_shape, kernel, num_filter, stride=(1, 1), dilate=(1, 1),
            pad=(0, 0), num_group=1, dg=1, no_bias=False, scale=1.5, seed=0):
    n, c, h, w = data_shape
    ho = _out(h, kernel[0], stride[0], dilate[0], pad[0])
    wo = _out(w, kernel[1], stride[1], dilate[1], pad[1])
    taps = kernel[0] * kernel[1]
    rng = np.random.RandomState(seed)
    values = {
        "data": rng.uniform(-1, 1, size=data_shape).astype(np.float32),
        "offset": _offsets((n, 2 * taps * dg, ho, wo), seed + 1, scale),
        "weight": rng.uniform(-1, 1, size=(num_filter, c // num_group) + kernel).astype(np.float32),
    }
    names = ["data", "offset"]
    if modulated:
        values["mask"] = rng.uniform(0, 1, size=(n, taps * dg, ho, wo)).astype(np.float32)
        names.append("mask")
    names.append("weight")
    if not no_bias:
        values["bias"] = rng.uniform(-1, 1, size=(num_filter,)).astype(np.float32)
        names.append("bias")
    args = [mx.sym.Variable(k) for k in names]
    kw = dict(kernel=kernel, num_filter=num_filter, stride=stride, dilate=dilate, pad=pad,
              num_group=num_group, num_deformable_group=dg, no_bias=no_bias)
    if modulated:
        sym = mx.sym.contrib.ModulatedDeformableConvolution(*args, **kw)
        prefix = "ModulatedDeformableConvolution_"
    else:
        sym = mx.sym.contrib.DeformableConvolution(*args, **kw)
        prefix = "DeformableConvolution_"
    return Case(prefix + name, sym, shapes={k: v.shape for k, v in values.items()},
                values=values, grad=not modulated,
                note="" if not modulated else "forward only: MXNet's CPU has no backward")


def cases():
    return [
        _deform("3x3_pad", False, (2, 4, 5, 6), (3, 3), 4, pad=(1, 1)),
        _deform("far_offsets", False, (1, 3, 5, 5), (3, 3), 2, pad=(1, 1), no_bias=True,
                scale=3.5, seed=1),
        _deform("groups_stride_dilate", False, (2, 4, 6, 7), (3, 3), 6, stride=(2, 1),
                dilate=(1, 2), pad=(1, 2), num_group=2, dg=2, seed=2),
        _deform("2x3_1x1dg", False, (1, 4, 4, 5), (2, 3), 2, stride=(1, 2), dg=4, seed=3),
        _deform("3x3_pad", True, (2, 4, 5, 6), (3, 3), 4, pad=(1, 1), seed=4),
        _deform("far_offsets", True, (1, 3, 5, 5), (3, 3), 3, pad=(1, 1), no_bias=True,
                scale=3.5, seed=5),
        _deform("groups_stride_dilate", True, (2, 4, 6, 7), (3, 3), 6, stride=(2, 1),
                dilate=(1, 2), pad=(1, 2), num_group=2, dg=2, seed=6),
    ]
