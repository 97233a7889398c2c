"""Golden cases for the spatial-transformer ops (GridGenerator, BilinearSampler,
SpatialTransformer) and CTCLoss (issue 10; see golden_lib.py for what a Case holds).

MXNet 1.9.1 quirks these cases steer around:
- CTCLoss with an empty label (every entry padding) returns uninitialized memory in
  MXNet; symx returns -log of the all-blank path. No case has an empty label.
- CTCLoss with a label that cannot fit (length + repeats > sequence length) gives loss
  0 in MXNet and in symx; MXNet leaves that sample's gradient uninitialized (it reads
  0 only by chance), symx writes 0 (the true derivative of the constant 0). The case
  is forward only (fd=True cannot work: MXNet's CTCLoss has no float64 kernel); the
  conformance test checks symx's zero gradient there.
- CTCLoss runs in float32 only in MXNet (symx also takes float64).
- GridGenerator only runs in float32 in MXNet (symx also takes float64/float16).
- Grid points are random, so none lies on an integer pixel position where the
  bilinear gradient has a kink.
"""
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


def _ctc_cases():
    d, l = V("data"), V("label")
    dl, ll = V("data_lengths"), V("label_lengths")
    f32 = "float32"
    return [
        Case("CTCLoss_first", mx.sym.CTCLoss(d, l),
             {"data": (5, 2, 4), "label": (2, 3)},
             values={"label": np.array([[1, 2, 2], [3, 1, 0]], f32)}, no_grad=["label"]),
        Case("CTCLoss_first_alias_ctc_loss", mx.sym.ctc_loss(d, l),
             {"data": (4, 3, 3), "label": (3, 2)},
             values={"label": np.array([[1, 0], [2, 1], [1, 1]], f32)}, no_grad=["label"]),
        Case("CTCLoss_first_padding_inside", mx.sym.contrib.CTCLoss(d, l),
             {"data": (4, 1, 3), "label": (1, 3)},
             values={"label": np.array([[1, 0, 2]], f32)}, no_grad=["label"],
             note="a row ends at its first padding value"),
        Case("CTCLoss_last", mx.sym.CTCLoss(d, l, blank_label="last"),
             {"data": (5, 2, 4), "label": (2, 3)},
             values={"label": np.array([[0, 2, 1], [1, 1, -1]], f32)}, no_grad=["label"]),
        Case("CTCLoss_last_int_label", mx.sym.CTCLoss(d, l, blank_label="last"),
             {"data": (4, 2, 3), "label": (2, 2)},
             values={"label": np.array([[0, 1], [1, -1]], np.int32)},
             dtypes={"label": "int32"}, no_grad=["label"]),
        Case("CTCLoss_data_lengths",
             mx.sym.CTCLoss(d, l, dl, use_data_lengths=True),
             {"data": (5, 2, 3), "label": (2, 2), "data_lengths": (2,)},
             values={"label": np.array([[1, 2], [2, 0]], f32),
                     "data_lengths": np.array([3, 5], f32)},
             no_grad=["label", "data_lengths"]),
        Case("CTCLoss_label_lengths",
             mx.sym.CTCLoss(d, l, label_lengths=ll, use_label_lengths=True),
             {"data": (4, 2, 4), "label": (2, 3), "label_lengths": (2,)},
             values={"label": np.array([[1, 2, 3], [3, 1, 2]], f32),
                     "label_lengths": np.array([2, 1], f32)},
             no_grad=["label", "label_lengths"]),
        Case("CTCLoss_both_lengths_last",
             mx.sym.CTCLoss(d, l, dl, ll, use_data_lengths=True, use_label_lengths=True,
                            blank_label="last"),
             {"data": (6, 2, 4), "label": (2, 3), "data_lengths": (2,), "label_lengths": (2,)},
             values={"label": np.array([[0, 1, 2], [2, 2, 1]], f32),
                     "data_lengths": np.array([4, 6], f32),
                     "label_lengths": np.array([3, 2], f32)},
             no_grad=["label", "data_lengths", "label_lengths"]),
        Case("CTCLoss_infeasible", mx.sym.CTCLoss(d, l),
             {"data": (3, 2, 3), "label": (2, 3)},
             values={"label": np.array([[1, 1, 1], [1, 2, 0]], f32)}, no_grad=["label"],
             grad=False,
             note="row 0 needs 5 steps but has 3: loss 0; MXNet leaves that row's gradient "
                  "uninitialized (garbage), and its CTCLoss has no float64 forward for finite "
                  "differences, so this case is forward only"),
    ]


def cases():
    return (_grid_generator_cases() + _bilinear_sampler_cases() +
            _spatial_transformer_cases() + _ctc_cases())
