"""mx.image: decode, read and resize images into NDArrays, and MXNet's
crop/normalize helpers.

Decoding is the engine's (libjpeg-turbo, libpng: train/image/codec), equal
pixel for pixel to MXNet 1.9.1's imdecode on the tested JPEGs and PNGs;
resizing is the _image_resize operator (OpenCV 3.4.2's arithmetic, as
MXNet's imresize). Images are (height, width, channels) uint8 NDArrays, RGB
unless to_rgb=0. MXNet's Augmenter classes and ImageIter are not here yet:
use mx.io.ImageRecordIter, whose augmenters run in the engine.
"""
import random as _pyrandom

import numpy as np

from . import _symx
from . import ndarray as nd
from .base import MXNetError

__all__ = ["imdecode", "imread", "imresize", "copyMakeBorder", "scale_down", "resize_short",
           "fixed_crop", "random_crop", "center_crop", "color_normalize", "random_size_crop"]


def _as_bytes(buf):
    if isinstance(buf, nd.NDArray):
        return buf.asnumpy().astype(np.uint8).tobytes()
    if isinstance(buf, (bytes, bytearray)):
        return bytes(buf)
    if isinstance(buf, np.ndarray):
        return buf.astype(np.uint8, copy=False).tobytes()
    raise ValueError("buf must be of type bytes, bytearray or numpy.ndarray, if you would "
                     "like to input type str, please convert to bytes")


def _to_nd(pixels, out=None):
    arr = nd.array(pixels, dtype=np.uint8)
    if out is not None:
        out[:] = arr
        return out
    return arr


def imdecode(buf, flag=1, to_rgb=1, out=None):
    """Decodes a JPEG or PNG held in buf (bytes, bytearray, numpy or NDArray)
    into a (H, W, C) uint8 NDArray: flag 1 color (C = 3), 0 grayscale (C = 1),
    -1 as stored; RGB order unless to_rgb is 0 (then BGR, OpenCV's)."""
    return _to_nd(_symx.image_decode(_as_bytes(buf), int(flag), bool(to_rgb)), out)


def imread(filename, flag=1, to_rgb=1, out=None):
    """imdecode of a file's bytes; errors name the file."""
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError as e:
        raise MXNetError("imread: cannot read %s: %s" % (filename, e.strerror)) from None
    try:
        return imdecode(data, flag, to_rgb, out)
    except MXNetError as e:
        raise MXNetError("imread: %s: %s" % (filename, e)) from None


def imresize(src, w, h, interp=1, out=None):
    """Resizes a (H, W, C) image to (h, w); interp 0 nearest, 1 bilinear,
    2 bicubic, 3 area, 4 lanczos4 (OpenCV's codes and arithmetic)."""
    res = nd.image.resize(src, size=(int(w), int(h)), keep_ratio=False, interp=int(interp))
    if out is not None:
        out[:] = res
        return out
    return res


_BORDER_MODES = {0: "constant", 1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0, values=None, out=None):
    """Pads a (H, W, C) image as cv2.copyMakeBorder: type 0 constant (value,
    or per-channel values), 1 replicate, 2 reflect, 3 wrap, 4 reflect_101."""
    if type not in _BORDER_MODES:
        raise MXNetError("copyMakeBorder: border type %r: expected 0 to 4" % (type,))
    a = src.asnumpy()
    pad = [(top, bot), (left, right)] + [(0, 0)] * (a.ndim - 2)
    if type == 0:
        res = np.pad(a, pad, mode="constant", constant_values=0)
        fill = np.asarray(values if values is not None else value, dtype=np.float64)
        mask = np.ones(a.shape[:2], dtype=bool)
        mask = np.pad(mask, pad[:2], mode="constant", constant_values=False)
        res[~mask] = fill.astype(a.dtype) if fill.ndim else np.asarray(fill).astype(a.dtype)
    else:
        res = np.pad(a, pad, mode=_BORDER_MODES[type])
    arr = nd.array(res, dtype=res.dtype)
    if out is not None:
        out[:] = arr
        return out
    return arr


def scale_down(src_size, size):
    """(w, h) shrunk, keeping its aspect ratio, so that it fits in src_size."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def _interp_for(interp, src_h, src_w, dst_h, dst_w):
    # MXNet's _get_interp_method: 9 picks by direction, 10 at random.
    if interp == 9:
        if dst_h > src_h and dst_w > src_w:
            return 2
        if dst_h < src_h and dst_w < src_w:
            return 3
        return 1
    if interp == 10:
        return _pyrandom.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError("Unknown interp method %d" % interp)
    return interp


def resize_short(src, size, interp=2):
    """Resizes so the shorter edge is size, keeping the aspect ratio."""
    h, w = src.shape[0], src.shape[1]
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_interp_for(interp, h, w, new_h, new_w))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The region (x0, y0, w, h), resized to size (w, h) when given."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = imresize(out, size[0], size[1], interp=_interp_for(interp, *sizes))
    return out


def random_crop(src, size, interp=2):
    """A random crop of size (w, h) (shrunk to fit); returns (image, (x, y, w, h))."""
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0 = _pyrandom.randint(0, w - new_w)
    y0 = _pyrandom.randint(0, h - new_h)
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """The centred crop of size (w, h) (shrunk to fit); returns (image, (x, y, w, h))."""
    h, w = src.shape[0], src.shape[1]
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def color_normalize(src, mean, std=None):
    """(src - mean) / std."""
    if mean is not None:
        src = src - mean
    if std is not None:
        src = src / std
    return src


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """A crop of random area (a fraction in `area`, a number or (min, max))
    and aspect ratio (in `ratio`, log-uniform), resized to size; falls back
    to center_crop after 10 tries. Returns (image, (x, y, w, h))."""
    h, w = src.shape[0], src.shape[1]
    src_area = h * w
    if "min_area" in kwargs:
        area = kwargs.pop("min_area")
    if kwargs:
        raise TypeError("random_size_crop: unexpected arguments %s" % sorted(kwargs))
    if isinstance(area, (int, float)):
        area = (area, 1.0)
    for _ in range(10):
        target_area = _pyrandom.uniform(area[0], area[1]) * src_area
        log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
        new_ratio = np.exp(_pyrandom.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = _pyrandom.randint(0, w - new_w)
            y0 = _pyrandom.randint(0, h - new_h)
            out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
            return out, (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)
