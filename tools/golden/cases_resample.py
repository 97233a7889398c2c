"""Golden cases of the resample family (graph/ops/resample.cc): UpSampling,
_contrib_AdaptiveAvgPooling2D and _contrib_BilinearResize2D (see golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _upsampling_cases():
    d = V("data")
    out = []
    out.append(Case("UpSampling_nearest", mx.sym.UpSampling(d, scale=2, sample_type="nearest"),
                    {"data": (1, 2, 3, 3)}))
    return out


def _contrib_cases():
    d, like = V("data"), V("like")
    pool = mx.sym.contrib.AdaptiveAvgPooling2D
    resize = mx.sym.contrib.BilinearResize2D
    return [
        Case("AdaptiveAvgPooling2D_3x2", pool(d, output_size=(3, 2)), {"data": (2, 3, 7, 5)}),
        Case("AdaptiveAvgPooling2D_square", pool(d, output_size=4), {"data": (1, 2, 6, 9)}),
        Case("AdaptiveAvgPooling2D_global", pool(d), {"data": (2, 2, 3, 4)},
             note="output_size () is 1x1"),
        Case("AdaptiveAvgPooling2D_upsample", pool(d, output_size=(5, 4)), {"data": (1, 2, 3, 2)},
             note="cells overlap when the output is larger than the input"),
        Case("BilinearResize2D_align", resize(d, height=7, width=3), {"data": (1, 2, 4, 5)}),
        Case("BilinearResize2D_no_align", resize(d, height=7, width=3, align_corners=False),
             {"data": (1, 2, 4, 5)}),
        Case("BilinearResize2D_no_align_up", resize(d, height=8, width=11, align_corners=False),
             {"data": (2, 1, 4, 5)}),
        Case("BilinearResize2D_size1", resize(d, height=1, width=3, align_corners=False),
             {"data": (1, 2, 4, 5)}, note="an output size of 1 samples index 0"),
        Case("BilinearResize2D_scales", resize(d, scale_height=1.5, scale_width=0.5),
             {"data": (1, 2, 4, 5)}),
        Case("BilinearResize2D_to_even_up", resize(d, mode="to_even_up"), {"data": (1, 2, 4, 5)}),
        Case("BilinearResize2D_to_odd_down", resize(d, mode="to_odd_down", align_corners=False),
             {"data": (1, 2, 4, 5)}),
        Case("BilinearResize2D_odd_scale", resize(d, mode="odd_scale", scale_height=2.0,
                                                  scale_width=0.7), {"data": (1, 2, 4, 7)}),
        Case("BilinearResize2D_like", resize(d, like, mode="like"),
             {"data": (2, 1, 3, 3), "like": (2, 1, 5, 4)},
             note="like gets a zero gradient; like has data's N and C because MXNet 1.9.1's "
                  "backward zeroes like's gradient as if it had, corrupting its heap otherwise"),
    ]


def cases():
    return _upsampling_cases() + _contrib_cases()
