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
    ] + resize_cases()


def resize_cases():
    """_image_resize (OpenCV's cv::resize in MXNet): every interp in uint8 and
    float32, shrinking and growing, compared exactly (devices/geometry/image_resize.h
    reproduces OpenCV's arithmetic, SIMD rounding included)."""
    img = mx.sym.image
    d = V("data")
    rng = np.random.RandomState(29)
    names = ["nearest", "linear", "cubic", "area", "lanczos4"]
    out = []
    for interp, name in enumerate(names):
        for dtype in ("uint8", "float32"):
            for way, shape, size in (("down", (9, 13, 3), (5, 4)), ("up", (4, 5, 3), (11, 7))):
                values = (rng.randint(0, 256, shape) if dtype == "uint8"
                          else rng.uniform(-100, 100, shape))
                out.append(Case("image_resize_%s_%s_%s" % (name, dtype, way),
                                img.resize(d, size=size, interp=interp), {"data": shape},
                                values={"data": values}, dtypes={"data": dtype}, grad=False,
                                rtol=0, atol=0))
    px = lambda shape: rng.randint(0, 256, shape)
    out += [
        # A batch of 4-channel images, exact 2x shrink (linear takes area's
        # block mean there, with OpenCV's SIMD rounding: (sum + 2) >> 2).
        Case("image_resize_batch_linear_2x_uint8", img.resize(d, size=(4, 3)),
             {"data": (2, 6, 8, 4)}, values={"data": px((2, 6, 8, 4))},
             dtypes={"data": "uint8"}, grad=False, rtol=0, atol=0),
        Case("image_resize_area_3x_float32", img.resize(d, size=(3, 2), interp=3),
             {"data": (6, 9, 1)}, grad=False, rtol=0, atol=0),
        Case("image_resize_cubic_batch_1ch_uint8", img.resize(d, size=(19, 6), interp=2),
             {"data": (2, 5, 7, 1)}, values={"data": px((2, 5, 7, 1))},
             dtypes={"data": "uint8"}, grad=False, rtol=0, atol=0),
        # keep_ratio: the short edge becomes 4, the long one 9 * 4 / 6 = 6.
        Case("image_resize_keep_ratio", img.resize(d, size=4, keep_ratio=True),
             {"data": (6, 9, 3)}, values={"data": px((6, 9, 3))}, dtypes={"data": "uint8"},
             grad=False, rtol=0, atol=0),
        Case("image_resize_float64_lanczos4", img.resize(d, size=(6, 5), interp=4),
             {"data": (4, 3, 2)}, dtypes={"data": "float64"}, grad=False, rtol=0, atol=0),
        # The size kept: a copy, and MXNet's gradient (the head gradient) is right.
        Case("image_resize_same_size", img.resize(d, size=(5, 4)), {"data": (4, 5, 3)}),
    ]
    return out
