"""mx.image: decode, read and resize images into NDArrays, and MXNet's
crop/normalize helpers.

Decoding is the engine's (libjpeg-turbo, libpng: train/image/codec), equal
pixel for pixel to MXNet 1.9.1's imdecode on the tested JPEGs and PNGs;
resizing is the _image_resize operator (OpenCV 3.4.2's arithmetic, as
MXNet's imresize). Images are (height, width, channels) uint8 NDArrays, RGB
unless to_rgb=0. MXNet's Augmenter classes, CreateAugmenter and ImageIter
run in Python (numpy), as MXNet's do; mx.io.ImageRecordIter runs the same
kind of augmentation in the engine's threads, much faster. imrotate and
random_rotate turn float32 channels-first images (C, H, W) or batches
(N, C, H, W), as MXNet's do. The detection augmenters and ImageDetIter
(symx/image_detection.py) are here too, as in MXNet (mx.image.ImageDetIter,
mx.image.det.*).
"""
import numbers as _numbers
import random as _pyrandom

import numpy as np

from . import _symx
from . import ndarray as nd
from .base import MXNetError

__all__ = ["imdecode", "imread", "imresize", "copyMakeBorder", "scale_down", "resize_short",
           "fixed_crop", "random_crop", "center_crop", "color_normalize", "random_size_crop",
           "Augmenter", "SequentialAug", "RandomOrderAug", "ResizeAug", "ForceResizeAug",
           "RandomCropAug", "RandomSizedCropAug", "CenterCropAug", "BrightnessJitterAug",
           "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
           "LightingAug", "ColorNormalizeAug", "RandomGrayAug", "HorizontalFlipAug", "CastAug",
           "CreateAugmenter", "ImageIter", "imrotate", "random_rotate"]


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


# --- Rotation (MXNet 1.9.1's imrotate / random_rotate) --------------------------
# Channels-first, as MXNet's: a (C, H, W) image or an (N, C, H, W) batch,
# float32 only. Each output pixel samples the input bilinearly (the
# BilinearSampler op, zero outside the image) at its position turned about
# the image centre; the sampling grid is computed in float32 in the order
# MXNet's NDArray code computes it.


def _rotation_grid(n_angles_deg, h, w, zoom_in, zoom_out):
    """The (N, 2, H, W) BilinearSampler grid, x then y in [-1, 1], of a turn
    by each angle (degrees, counter-clockwise seen in the sampled grid)."""
    f32 = np.float32
    rad = (n_angles_deg.astype(f32) * f32(np.pi) / f32(180)).reshape(-1, 1, 1)
    half_h, half_w = f32((h - 1) / 2.0), f32((w - 1) / 2.0)
    ys = np.repeat(np.arange(h, dtype=f32).reshape(h, 1), w, axis=1) - half_h
    xs = np.repeat(np.arange(w, dtype=f32).reshape(1, w), h, axis=0) - half_w
    cos_a, sin_a = np.cos(rad), np.sin(rad)
    # Turn first, then scale each axis to [-1, 1]: the aspect ratio survives.
    gx = (xs[None] * cos_a - ys[None] * sin_a) / half_w
    gy = (xs[None] * sin_a + ys[None] * cos_a) / half_h
    scale = f32(1)
    if zoom_in or zoom_out:
        fh, fw = f32(h), f32(w)
        radius = np.sqrt(fh * fh + fw * fw)
        corner = np.arctan(fh / fw)
        turn = np.abs(rad)
        reach_x = np.maximum(np.abs(radius * np.cos(corner + turn)),
                             np.abs(radius * np.cos(corner - turn)))
        reach_y = np.maximum(np.abs(radius * np.sin(corner + turn)),
                             np.abs(radius * np.sin(corner - turn)))
        if zoom_out:   # the whole input stays in view
            scale = np.maximum(reach_x / fw, reach_y / fh)
        else:          # no empty border comes into view
            scale = np.minimum(fw / reach_x, fh / reach_y)
        scale = scale.reshape(-1, 1, 1, 1).astype(f32)
    grid = np.stack([gx, gy], axis=1).astype(f32)
    return (grid * scale).astype(f32)


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Turns a float32 image (C, H, W) or batch (N, C, H, W) about its
    centre by rotation_degrees (a number; for a batch also one angle per
    image as a list, numpy array or NDArray), sampling bilinearly with zeros
    outside. zoom_in scales so that no border shows, zoom_out so that the
    whole input shows. Errors as MXNet 1.9.1: ValueError for zoom_in with
    zoom_out, a rank other than 3 or 4 and an angle count that is not the
    batch size; TypeError for a dtype other than float32 and a non-scalar
    angle for one image."""
    if zoom_in and zoom_out:
        raise ValueError("imrotate: `zoom_in` and `zoom_out` cannot be both True")
    if not isinstance(src, nd.NDArray):
        raise TypeError("imrotate: src must be an NDArray, got %s" % type(src).__name__)
    if src.dtype is not np.float32:
        raise TypeError("imrotate: only float32 images are supported, src is %s"
                        % np.dtype(src.dtype).name)
    single = src.ndim == 3
    if single:
        if not isinstance(rotation_degrees, _numbers.Number):
            raise TypeError("imrotate: one image (C, H, W) needs a scalar rotation angle, "
                            "got %s" % type(rotation_degrees).__name__)
    elif src.ndim != 4:
        raise ValueError("imrotate: src must be (C, H, W) or (N, C, H, W), got shape %s"
                         % (src.shape,))
    batch = src.reshape((1,) + src.shape) if single else src
    n = batch.shape[0]
    if isinstance(rotation_degrees, _numbers.Number):
        angles = np.full((n,), rotation_degrees, dtype=np.float32)
    else:
        angles = np.asarray(_np(rotation_degrees), dtype=np.float32)
        if angles.ndim != 1 or len(angles) != n:
            raise ValueError("imrotate: %d images but rotation_degrees has shape %s: give one "
                             "angle per image" % (n, angles.shape))
    _, _, h, w = batch.shape
    grid = _rotation_grid(angles, h, w, zoom_in, zoom_out)
    out = nd.BilinearSampler(batch, nd.array(grid, ctx=src.context))
    return out[0] if single else out


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """imrotate by angles drawn uniformly from angle_limits = (low, high)
    degrees with numpy's global generator (np.random.seed repeats them): one
    angle for a (C, H, W) image, one per image for a batch."""
    if src.ndim == 3:
        angle = np.random.uniform(*angle_limits)
    else:
        angle = np.random.uniform(*angle_limits, size=src.shape[0])
    return imrotate(src, angle, zoom_in=zoom_in, zoom_out=zoom_out)


# --- Augmenters: callables on (H, W, C) NDArrays, as MXNet's mx.image ---------
# Geometry runs on uint8 or float images; the colour ones expect float32
# (CreateAugmenter puts a CastAug before them, as MXNet does). Random draws
# use Python's `random` and numpy's global generator, as MXNet's do.

import json as _json  # noqa: E402

_GRAY = np.array([0.299, 0.587, 0.114], dtype=np.float32)


def _np(src):
    return src.asnumpy() if isinstance(src, nd.NDArray) else np.asarray(src)


def _like(values, src):
    return nd.array(values, dtype=values.dtype) if isinstance(src, nd.NDArray) else values


class Augmenter:
    """Base class: __call__(src) returns the augmented image; dumps() a JSON
    description [class name in lower case, its arguments]."""

    def __init__(self, **kwargs):
        self._kwargs = {}
        for k, v in kwargs.items():
            if isinstance(v, nd.NDArray):
                v = v.asnumpy()
            if isinstance(v, np.ndarray):
                v = v.tolist()
            self._kwargs[k] = v

    def dumps(self):
        return _json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, src):
        raise NotImplementedError("an Augmenter subclass implements __call__")


class SequentialAug(Augmenter):
    """Applies each augmenter of `ts` in turn."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [type(self).__name__.lower(), [t.dumps() for t in self.ts]]

    def __call__(self, src):
        for t in self.ts:
            src = t(src)
        return src


class RandomOrderAug(SequentialAug):
    """Applies the augmenters of `ts` in a random order each call."""

    def __call__(self, src):
        _pyrandom.shuffle(self.ts)
        return super().__call__(src)


class ResizeAug(Augmenter):
    """Shorter edge to `size` (resize_short)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """To exactly `size` = (width, height)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        interp = _interp_for(self.interp, src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, self.size[0], self.size[1], interp=interp)


class RandomCropAug(Augmenter):
    """A random crop of `size` = (width, height)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """Inception's crop: random area (`area`, a minimum or a range) and
    aspect ratio (`ratio`), resized to `size`."""

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        if "min_area" in kwargs:
            area = kwargs.pop("min_area")
        if kwargs:
            raise TypeError("RandomSizedCropAug: unexpected arguments %s" % sorted(kwargs))
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size, self.area, self.ratio, self.interp = size, area, ratio, interp

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """The centred crop of `size` = (width, height)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class BrightnessJitterAug(Augmenter):
    """Scales the pixels by 1 + U(-brightness, brightness)."""

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        alpha = 1.0 + _pyrandom.uniform(-self.brightness, self.brightness)
        return _like((_np(src) * alpha).astype(np.float32), src)


class ContrastJitterAug(Augmenter):
    """Blends with the image's mean luma: alpha * p + (1 - alpha) * mean."""

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast

    def __call__(self, src):
        alpha = 1.0 + _pyrandom.uniform(-self.contrast, self.contrast)
        a = _np(src).astype(np.float32)
        mean_luma = float((a * _GRAY).sum()) * 3.0 / a.size
        return _like((a * alpha + (1.0 - alpha) * mean_luma).astype(np.float32), src)


class SaturationJitterAug(Augmenter):
    """Blends each pixel with its luma: alpha * p + (1 - alpha) * luma."""

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation

    def __call__(self, src):
        alpha = 1.0 + _pyrandom.uniform(-self.saturation, self.saturation)
        a = _np(src).astype(np.float32)
        luma = (a * _GRAY).sum(axis=2, keepdims=True)
        return _like((a * alpha + (1.0 - alpha) * luma).astype(np.float32), src)


class HueJitterAug(Augmenter):
    """Rotates the hue by U(-hue, hue) half turns, linearly in YIQ space."""

    _TO_YIQ = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321],
                        [0.211, -0.523, 0.311]])
    _FROM_YIQ = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue

    def __call__(self, src):
        angle = _pyrandom.uniform(-self.hue, self.hue) * np.pi
        c, s = np.cos(angle), np.sin(angle)
        rotate = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
        t = (self._FROM_YIQ @ rotate @ self._TO_YIQ).T
        return _like((_np(src).astype(np.float32) @ t.astype(np.float32)), src)


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitter (those above 0) in a random order."""

    def __init__(self, brightness, contrast, saturation):
        ts = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super().__init__(ts)


class LightingAug(Augmenter):
    """AlexNet's PCA lighting: adds eigvec @ (eigval * N(0, alphastd))."""

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd = alphastd
        self.eigval, self.eigvec = np.asarray(eigval), np.asarray(eigvec)

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        shift = (self.eigvec * alpha) @ self.eigval
        return _like((_np(src).astype(np.float32) + shift.astype(np.float32)), src)


class ColorNormalizeAug(Augmenter):
    """(src - mean) / std per channel."""

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = None if mean is None else np.asarray(_np(mean), dtype=np.float32)
        self.std = None if std is None else np.asarray(_np(std), dtype=np.float32)

    def __call__(self, src):
        a = _np(src).astype(np.float32)
        if self.mean is not None:
            a = a - self.mean
        if self.std is not None:
            a = a / self.std
        return _like(a, src)


class RandomGrayAug(Augmenter):
    """With probability p, every channel becomes 0.21 R + 0.72 G + 0.07 B."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if _pyrandom.random() < self.p:
            a = _np(src).astype(np.float32)
            gray = a @ np.array([0.21, 0.72, 0.07], dtype=np.float32)
            return _like(np.repeat(gray[:, :, None], 3, axis=2), src)
        return src


class HorizontalFlipAug(Augmenter):
    """With probability p, mirrors the image left to right."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if _pyrandom.random() < self.p:
            return _like(np.ascontiguousarray(_np(src)[:, ::-1]), src)
        return src


class CastAug(Augmenter):
    """Casts to `typ` (float32)."""

    def __init__(self, typ="float32"):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


_PCA_EIGVAL = np.array([55.46, 4.794, 1.148])
_PCA_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                        [-0.5836, -0.6948, 0.4203]])


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False, rand_mirror=False,
                    mean=None, std=None, brightness=0, contrast=0, saturation=0, hue=0,
                    pca_noise=0, rand_gray=0, inter_method=2):
    """MXNet's standard augmenter list: resize, crop (random sized, random or
    centred) to data_shape, mirror, cast to float32, colour and hue jitter,
    PCA lighting, random gray, normalization (mean/std True: ImageNet's)."""
    augs = []
    if resize > 0:
        augs.append(ResizeAug(resize, inter_method))
    crop = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise MXNetError("CreateAugmenter: rand_resize needs rand_crop")
        augs.append(RandomSizedCropAug(crop, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        augs.append(RandomCropAug(crop, inter_method))
    else:
        augs.append(CenterCropAug(crop, inter_method))
    if rand_mirror:
        augs.append(HorizontalFlipAug(0.5))
    augs.append(CastAug())
    if brightness or contrast or saturation:
        augs.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        augs.append(HueJitterAug(hue))
    if pca_noise > 0:
        augs.append(LightingAug(pca_noise, _PCA_EIGVAL, _PCA_EIGVEC))
    if rand_gray > 0:
        augs.append(RandomGrayAug(rand_gray))
    if mean is True:
        mean = np.array([123.68, 116.28, 103.53])
    if std is True:
        std = np.array([58.395, 57.12, 57.375])
    if mean is not None or std is not None:
        augs.append(ColorNormalizeAug(mean, std))
    return augs


class ImageIter:
    """MXNet's Python image iterator: images from a .rec (path_imgrec, with
    path_imgidx for shuffling and partitions), or from files (path_imglist
    "index<TAB>labels<TAB>path" under path_root, or imglist [[labels...,
    path], ...]); each decoded, passed through `aug_list` (default:
    CreateAugmenter(data_shape, **kwargs)) and stacked as (batch, 3, H, W)
    float32. last_batch_handle: 'pad' (fill from the start; pad says how
    many), 'discard', or 'roll_over' (the short batch starts the next epoch).
    For speed use mx.io.ImageRecordIter, which runs in the engine's threads."""

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None,
                 path_imglist=None, path_root=None, path_imgidx=None, shuffle=False, part_index=0,
                 num_parts=1, aug_list=None, imglist=None, data_name="data",
                 label_name="softmax_label", dtype="float32", last_batch_handle="pad", **kwargs):
        from . import io as _io
        from . import recordio
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise MXNetError("ImageIter: give path_imgrec, path_imglist or imglist")
        if dtype not in ("int32", "float32", "int64", "float64"):
            raise MXNetError("ImageIter: label dtype %r: expected int32, float32, int64 or "
                             "float64" % (dtype,))
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise MXNetError("ImageIter: last_batch_handle %r: expected pad, discard or "
                             "roll_over" % (last_batch_handle,))
        if len(data_shape) != 3 or data_shape[0] != 3:
            raise MXNetError("ImageIter: data_shape %r: expected (3, height, width)"
                             % (tuple(data_shape),))
        self.imgrec, keys = None, None
        if path_imgrec:
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                keys = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
        self.imglist = None
        if path_imglist:
            self.imglist, list_keys = {}, []
            with open(path_imglist) as f:
                for line in f:
                    fields = line.strip().split("\t")
                    if len(fields) < 3:
                        continue
                    key = int(fields[0])
                    self.imglist[key] = (np.array(fields[1:-1], dtype=dtype), fields[-1])
                    list_keys.append(key)
            keys = keys if self.imgrec is not None else list_keys
        elif isinstance(imglist, list):
            self.imglist, list_keys = {}, []
            for n, item in enumerate(imglist, 1):
                label = item[:-1] if len(item) > 2 else item[0]
                self.imglist[n] = (np.atleast_1d(np.array(label, dtype=dtype)), item[-1])
                list_keys.append(n)
            keys = keys if self.imgrec is not None else list_keys
        if self.imgrec is not None and keys is None and (shuffle or num_parts > 1):
            raise MXNetError("ImageIter: shuffle and num_parts need path_imgidx with path_imgrec")
        if num_parts > 1:
            if not 0 <= part_index < num_parts:
                raise MXNetError("ImageIter: part_index %d must be in [0, num_parts %d)"
                                 % (part_index, num_parts))
            share = len(keys) // num_parts
            keys = keys[part_index * share:(part_index + 1) * share]
        self.seq = keys
        self.path_root = path_root
        self.batch_size = batch_size
        self.data_shape = tuple(data_shape)
        self.label_width = label_width
        self.label_dtype = dtype
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        label_shape = (batch_size, label_width) if label_width > 1 else (batch_size,)
        self.provide_data = [_io.DataDesc(data_name, (batch_size,) + self.data_shape)]
        self.provide_label = [_io.DataDesc(label_name, label_shape)]
        self._rolled = None  # roll_over: (data, label, filled) of the short batch
        self._ended = False
        self.cur = 0
        self.reset()

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def reset(self):
        if self.seq is not None and self.shuffle:
            _pyrandom.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._ended = False

    def hard_reset(self):
        self._rolled = None
        self.reset()

    def read_image(self, fname):
        path = fname if self.path_root is None else self.path_root + "/" + fname
        with open(path, "rb") as f:
            return f.read()

    def next_sample(self):
        """(label, encoded image bytes) of the next image; StopIteration at the end."""
        from . import recordio
        if self.seq is not None:
            if self.cur >= len(self.seq):
                raise StopIteration
            key = self.seq[self.cur]
            self.cur += 1
            if self.imgrec is not None:
                header, img = recordio.unpack(self.imgrec.read_idx(key))
                label = header.label if self.imglist is None else self.imglist[key][0]
                return label, img
            label, fname = self.imglist[key]
            return label, self.read_image(fname)
        record = self.imgrec.read()
        if record is None:
            raise StopIteration
        header, img = recordio.unpack(record)
        return header.label, img

    def augmentation_transform(self, data):
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        return np.transpose(_np(datum), (2, 0, 1))

    def _fill(self, data, label, start):
        """Fills rows from `start` on; returns how many rows are filled."""
        i = start
        while i < self.batch_size:
            try:
                lab, encoded = self.next_sample()
            except StopIteration:
                break
            image = imdecode(encoded)
            image = self.augmentation_transform(image)
            arr = self.postprocess_data(image)
            if arr.shape != self.data_shape:
                raise MXNetError("ImageIter: an augmented image has shape %s, data_shape is %s "
                                 "(the augmenters must crop or resize to it)"
                                 % (arr.shape, self.data_shape))
            data[i] = arr
            label[i] = np.asarray(lab, dtype=self.label_dtype).reshape(label[i].shape)
            i += 1
        return i

    def next(self):
        from . import io as _io
        if self._ended:
            raise StopIteration
        if self._rolled is not None:
            data, label, filled = self._rolled
            self._rolled = None
        else:
            data = np.zeros((self.batch_size,) + self.data_shape, dtype=np.float32)
            label = np.zeros(self.provide_label[0].shape, dtype=self.label_dtype)
            filled = 0
        filled = self._fill(data, label, filled)
        if filled == 0:
            raise StopIteration
        pad = self.batch_size - filled
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over":
                self._rolled = (data, label, filled)
                raise StopIteration
            # pad: the rest from the start of the data, then the epoch ends.
            self.reset()
            self._fill(data, label, filled)
            self._ended = True
        return _io.DataBatch(data=[nd.array(data)], label=[nd.array(label, dtype=label.dtype)],
                             pad=pad, provide_data=self.provide_data,
                             provide_label=self.provide_label)


# MXNet's mx.image also holds its detection module's names (mx.image.ImageDetIter,
# mx.image.CreateDetAugmenter, ...) and the module itself as mx.image.det and
# mx.image.detection.
from . import image_detection as detection  # noqa: E402
from .image_detection import *  # noqa: E402,F401,F403
from .image_detection import __all__ as _det_names  # noqa: E402

det = detection
__all__ += _det_names
del _det_names
