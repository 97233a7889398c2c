"""Golden cases of the spatial family (graph/ops/spatial.cc): GridGenerator,
BilinearSampler and SpatialTransformer (see golden_lib.py for what a Case holds).

MXNet 1.9.1 quirks these cases steer around:
- GridGenerator only runs in float32 in MXNet (symx also takes float64/float16).
- Grid points are random, so none lies on an integer pixel position where the
  bilinear gradient has a kink."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _grid_generator_cases():
    d = V("data")
    return [
        Case("GridGenerator_affine", mx.sym.GridGenerator(d, transform_type="affine",
                                                          target_shape=(3, 4)),
             {"data": (2, 6)}),
        Case("GridGenerator_affine_tall", mx.sym.GridGenerator(d, transform_type="affine",
                                                               target_shape=(5, 2)),
             {"data": (1, 6)}),
        Case("GridGenerator_warp", mx.sym.GridGenerator(d, transform_type="warp"),
             {"data": (2, 2, 3, 4)}),
        Case("GridGenerator_warp_square", mx.sym.GridGenerator(d, transform_type="warp"),
             {"data": (1, 2, 5, 5)}),
    ]


def _bilinear_sampler_cases():
    d, g = V("data"), V("grid")
    rng = np.random.RandomState(7)
    return [
        Case("BilinearSampler_basic", mx.sym.BilinearSampler(d, g),
             {"data": (2, 3, 4, 5), "grid": (2, 2, 3, 4)}),
        Case("BilinearSampler_outside", mx.sym.BilinearSampler(d, g),
             {"data": (1, 2, 5, 4), "grid": (1, 2, 4, 6)},
             values={"grid": rng.uniform(-1.5, 1.5, (1, 2, 4, 6))},
             note="part of the grid lies outside the image (zero padding)"),
        Case("BilinearSampler_upsample", mx.sym.BilinearSampler(d, g, cudnn_off=True),
             {"data": (2, 1, 2, 3), "grid": (2, 2, 5, 5)}),
        Case("BilinearSampler_float64", mx.sym.BilinearSampler(d, g),
             {"data": (1, 2, 3, 4), "grid": (1, 2, 3, 3)},
             dtypes={"data": "float64", "grid": "float64"}),
    ]


def _spatial_transformer_cases():
    d, loc = V("data"), V("loc")
    rng = np.random.RandomState(11)
    ident = np.array([1, 0, 0, 0, 1, 0], dtype=np.float64)

    def near_identity(n, scale):
        return ident[None, :] + scale * rng.uniform(-1, 1, (n, 6))

    def st(**kw):
        return mx.sym.SpatialTransformer(d, loc, transform_type="affine",
                                         sampler_type="bilinear", **kw)

    return [
        Case("SpatialTransformer_basic", st(target_shape=(3, 4)),
             {"data": (2, 3, 4, 5), "loc": (2, 6)}, values={"loc": near_identity(2, 0.2)}),
        Case("SpatialTransformer_upsample", st(target_shape=(6, 7)),
             {"data": (1, 2, 5, 5), "loc": (1, 6)}, values={"loc": near_identity(1, 0.5)}),
        Case("SpatialTransformer_random_loc", st(target_shape=(2, 3), cudnn_off=True),
             {"data": (2, 1, 4, 3), "loc": (2, 6)}),
    ]


def _correlation_cases():
    a, b = V("data1"), V("data2")
    rng = np.random.RandomState(13)

    def values(shape):
        # |data1| < 1 < |data2|, random signs: no tie in the absolute differences.
        one = rng.uniform(0.05, 1.0, shape) * rng.choice([-1, 1], shape)
        two = rng.uniform(1.1, 2.0, shape) * rng.choice([-1, 1], shape)
        return {"data1": one.astype(np.float32), "data2": two.astype(np.float32)}

    def corr(name, shape, **kw):
        return Case("Correlation_" + name, mx.sym.Correlation(a, b, **kw),
                    {"data1": shape, "data2": shape}, values=values(shape))

    return [
        corr("defaults", (2, 3, 5, 6)),
        corr("kernel3_pad2", (1, 2, 6, 7), kernel_size=3, max_displacement=2, pad_size=2),
        corr("strides", (2, 2, 7, 8), max_displacement=4, stride1=2, stride2=2, pad_size=3),
        corr("abs", (1, 2, 6, 7), kernel_size=3, max_displacement=2, pad_size=2,
             is_multiply=False),
        corr("abs_strides", (2, 2, 7, 8), max_displacement=4, stride1=2, stride2=2, pad_size=3,
             is_multiply=False),
    ]


def cases():
    return (_grid_generator_cases() + _bilinear_sampler_cases() + _spatial_transformer_cases() +
            _correlation_cases())
