"""Golden cases of the crop family (graph/ops/crop.cc): Crop (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _crop_cases():
    d, like = V("data"), V("crop_like")
    shp = {"data": (2, 2, 7, 8)}
    return [
        Case("Crop_hw_origin", mx.sym.Crop(d, num_args=1, h_w=(4, 4)), shp),
        Case("Crop_hw_offset", mx.sym.Crop(d, num_args=1, h_w=(4, 5), offset=(2, 3)), shp),
        Case("Crop_hw_offset_edge", mx.sym.Crop(d, num_args=1, h_w=(4, 4), offset=(3, 4)), shp),
        Case("Crop_center_even", mx.sym.Crop(d, num_args=1, h_w=(4, 4), center_crop=True), shp,
             note="center offsets round down: (1, 2)"),
        Case("Crop_center_odd", mx.sym.Crop(d, num_args=1, h_w=(3, 5), center_crop=True), shp,
             note="center offsets round down: (2, 1)"),
        Case("Crop_center_ignores_offset",
             mx.sym.Crop(d, num_args=1, h_w=(3, 3), offset=(4, 5), center_crop=True), shp),
        Case("Crop_like", mx.sym.Crop(d, like, num_args=2),
             {"data": (2, 2, 7, 8), "crop_like": (1, 1, 3, 5)}),
        Case("Crop_like_offset", mx.sym.Crop(d, like, num_args=2, offset=(1, 2)),
             {"data": (2, 2, 7, 8), "crop_like": (1, 1, 3, 5)}),
        Case("Crop_like_center", mx.sym.Crop(d, like, num_args=2, center_crop=True),
             {"data": (2, 2, 7, 8), "crop_like": (2, 2, 4, 3)},
             note="crop_like gets a zero gradient"),
    ]


def cases():
    return _crop_cases()
