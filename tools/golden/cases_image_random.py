"""Golden cases of the image_random family (graph/ops/image_random.cc): mx.nd.image's random augmenters at settings where MXNet's draw is fixed (min_factor == max_factor, alpha_std 0, jitter amounts too small to move a float), so both engines apply the same transform (see golden_lib.py for what a Case holds).

The random flips have no case: no setting fixes their coin (tests/golden/golden_test.cc, kNoGoldenCase). Saturation is compared at factor 1 only: elsewhere MXNet 1.9.1 takes the gray from the blue channel alone (docs/numerics.md, erratum 25)."""
import mxnet as mx
import numpy as np
from golden_lib import Case

V = mx.sym.Variable


def fixed(f):
    return {"min_factor": f, "max_factor": f}


def cases():
    img = mx.sym.image
    d = V("data")
    pixels = (np.arange(4 * 6 * 3) * 37 % 256).reshape(4, 6, 3)
    gray = (np.arange(3 * 5) * 53 % 256).reshape(3, 5, 1)
    u8 = {"data": "uint8"}
    return [
        Case("image_random_brightness", img.random_brightness(d, **fixed(1.5)), {"data": (3, 4, 3)},
             rtol=1e-5, atol=1e-5),
        Case("image_random_brightness_uint8", img.random_brightness(d, **fixed(1.37)),
             {"data": (4, 6, 3)}, values={"data": pixels}, dtypes=u8, grad=False),
        Case("image_random_contrast", img.random_contrast(d, **fixed(0.6)), {"data": (3, 4, 3)},
             rtol=1e-5, atol=1e-5),
        Case("image_random_contrast_uint8", img.random_contrast(d, **fixed(1.9)),
             {"data": (4, 6, 3)}, values={"data": pixels}, dtypes=u8, grad=False),
        Case("image_random_contrast_gray", img.random_contrast(d, **fixed(0.3)),
             {"data": (3, 5, 1)}, values={"data": gray}, rtol=1e-5, atol=1e-4),
        Case("image_random_saturation_one", img.random_saturation(d, **fixed(1.0)),
             {"data": (4, 6, 3)}, values={"data": pixels}, dtypes=u8, grad=False),
        Case("image_random_hue", img.random_hue(d, **fixed(0.25)), {"data": (4, 6, 3)},
             values={"data": pixels}, rtol=1e-5, atol=1e-4),
        Case("image_random_hue_uint8", img.random_hue(d, **fixed(0.1)), {"data": (4, 6, 3)},
             values={"data": pixels}, dtypes=u8, grad=False),
        # A zero turn: the HLS round trip's rounding, truncated to uint8.
        Case("image_random_hue_zero_uint8", img.random_hue(d, **fixed(0.0)), {"data": (4, 6, 3)},
             values={"data": pixels}, dtypes=u8, grad=False),
        Case("image_random_lighting_zero", img.random_lighting(d, alpha_std=0.0),
             {"data": (4, 6, 3)}, values={"data": pixels}, dtypes=u8, grad=False),
        Case("image_random_color_jitter_still",
             img.random_color_jitter(d, brightness=1e-30, contrast=1e-30, saturation=1e-30,
                                     hue=1e-30),
             {"data": (4, 6, 3)}, values={"data": pixels}, dtypes=u8, grad=False),
    ]
