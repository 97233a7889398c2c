"""Golden cases of the image family (graph/ops/image.cc): mx.nd.image's deterministic operators (see golden_lib.py for what a Case holds)."""
import mxnet as mx
import numpy as np
from golden_lib import Case

V = mx.sym.Variable


def cases():
    img = mx.sym.image
    d = V("data")
    pixels = (np.arange(4 * 6 * 3) * 37 % 256).reshape(4, 6, 3)
    return [
        Case("image_to_tensor_uint8", img.to_tensor(d), {"data": (4, 6, 3)},
             values={"data": pixels}, dtypes={"data": "uint8"}, grad=False),
        Case("image_to_tensor_batch", img.to_tensor(d), {"data": (2, 3, 4, 3)}, grad=False),
        Case("image_normalize_rgb",
             img.normalize(d, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225)),
             {"data": (3, 4, 5)}),
        Case("image_normalize_batch_one_value", img.normalize(d, mean=(0.5,), std=(0.25,)),
             {"data": (2, 1, 3, 4)}),
        # Even sizes (MXNet leaves an odd size's middle unwritten) and no
        # gradient (MXNet passes the head gradient through unflipped):
        # docs/numerics.md erratum 23.
        Case("image_flip_left_right", img.flip_left_right(d), {"data": (3, 4, 3)}, grad=False),
        Case("image_flip_top_bottom", img.flip_top_bottom(d), {"data": (4, 2, 1)}, grad=False),
        Case("image_adjust_lighting", img.adjust_lighting(d, alpha=(0.05, -0.1, 0.2)),
             {"data": (3, 4, 3)}, rtol=1e-5, atol=1e-4),
        Case("image_adjust_lighting_uint8", img.adjust_lighting(d, alpha=(-1.0, 0.5, 2.0)),
             {"data": (4, 6, 3)}, values={"data": pixels}, dtypes={"data": "uint8"},
             grad=False),
        Case("image_crop", img.crop(d, x=1, y=2, width=3, height=2), {"data": (5, 6, 3)}),
        Case("image_crop_batch", img.crop(d, x=0, y=1, width=2, height=3),
             {"data": (2, 4, 3, 1)}),
    ]
