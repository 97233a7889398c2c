"""mx.image's object-detection augmenters and ImageDetIter (MXNet 1.9.1's
mx.image.detection), in numpy like the rest of symx's mx.image.

A detection label is a float32 numpy array (objects, width >= 5), one row
per object: [class id, xmin, ymin, xmax, ymax, extra values...] with the
corners relative to the image (0 to 1). A DetAugmenter is called as
``aug(src, label)`` and returns ``(src, label)``; the image is (H, W, C).

Random draws use Python's `random` module (and numpy's global generator for
LightingAug and draw_next's box colours), in the same order and with the
same calls as MXNet's code: after ``random.seed(s)`` (and ``np.random.seed``)
the crops, pads, flips and shuffles are MXNet's own for the same seed
(tests/python/test_image_det.py checks them against MXNet's outputs).

Where symx differs on purpose: bad arguments are exceptions naming the
argument (MXNet asserts); invalid area/aspect ranges give a warning and a
disabled augmenter (MXNet's warnings.warn call is malformed and raises
TypeError instead); draw_next draws with numpy when OpenCV is not installed
(OpenCV, when present, draws as MXNet's does) and turns ``color`` from RGB
to OpenCV's BGR once (MXNet reverses it again for every image).
"""
import json
import logging
import math
import numbers
import random
import warnings

import numpy as np

from . import ndarray as nd
from .base import MXNetError
from .image import (Augmenter, CastAug, ColorJitterAug, ColorNormalizeAug, ForceResizeAug,
                    HueJitterAug, ImageIter, LightingAug, RandomGrayAug, ResizeAug,
                    copyMakeBorder, fixed_crop, imdecode)

__all__ = ["DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug",
           "DetRandomCropAug", "DetRandomPadAug", "CreateMultiRandCropAugmenter",
           "CreateDetAugmenter", "ImageDetIter"]

# ImageNet's statistics and AlexNet's PCA lighting, as CreateAugmenter's.
_MEAN_RGB = np.array([123.68, 116.28, 103.53])
_STD_RGB = np.array([58.395, 57.12, 57.375])
_PCA_EIGVAL = np.array([55.46, 4.794, 1.148])
_PCA_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                        [-0.5836, -0.6948, 0.4203]])


def _host(src):
    return src.asnumpy() if isinstance(src, nd.NDArray) else np.asarray(src)


def _pair(value, what, owner):
    """(a, b) from a pair or one number (a fixed value: (x, x))."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError("%s: %s must be a number or a (low, high) pair, got %r"
                             % (owner, what, value))
        return tuple(value)
    if not isinstance(value, numbers.Number):
        raise TypeError("%s: %s must be a number or a (low, high) pair, got %r"
                        % (owner, what, value))
    logging.info("%s: using the fixed %s %s", owner, what, value)
    return (value, value)


class DetAugmenter:
    """Base class of the detection augmenters: ``__call__(src, label)``
    returns ``(src, label)``; ``dumps()`` a JSON description."""

    def __init__(self, **kwargs):
        self._kwargs = {}
        for key, value in kwargs.items():
            if isinstance(value, nd.NDArray):
                value = value.asnumpy()
            if isinstance(value, np.ndarray):
                value = value.tolist()
            self._kwargs[key] = value

    def dumps(self):
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, src, label):
        raise NotImplementedError("a DetAugmenter subclass implements __call__(src, label)")


class DetBorrowAug(DetAugmenter):
    """Runs an image-only mx.image.Augmenter (one that leaves boxes where
    they are: colour, cast, normalization, resize) on the image."""

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise TypeError("DetBorrowAug: augmenter must be an mx.image.Augmenter, got %s"
                            % type(augmenter).__name__)
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        return [type(self).__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """With probability skip_prob returns the input unchanged; otherwise
    applies one augmenter of aug_list picked at random (an empty list
    always skips)."""

    def __init__(self, aug_list, skip_prob=0):
        super().__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise ValueError("DetRandomSelectAug: aug_list may hold DetAugmenters only, "
                                 "got %s" % type(aug).__name__)
        self.aug_list = aug_list
        self.skip_prob = skip_prob if aug_list else 1

    def dumps(self):
        return [type(self).__name__.lower(), [aug.dumps() for aug in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        # MXNet shuffles the list in place and takes its head.
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """With probability p mirrors the image left to right and the boxes with
    it (xmin, xmax become 1 - xmax, 1 - xmin; the label changes in place)."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            flipped = np.ascontiguousarray(_host(src)[:, ::-1])
            src = nd.array(flipped, dtype=flipped.dtype) if isinstance(src, nd.NDArray) \
                else flipped
            self._flip_label(label)
        return src, label

    @staticmethod
    def _flip_label(label):
        new_xmin = 1.0 - label[:, 3]
        label[:, 3] = 1.0 - label[:, 1]
        label[:, 1] = new_xmin


def _box_areas(boxes):
    """Areas of (n, 4) [xmin, ymin, xmax, ymax] rows; inverted boxes count 0."""
    return np.maximum(0, boxes[:, 3] - boxes[:, 1]) * np.maximum(0, boxes[:, 2] - boxes[:, 0])


class DetRandomCropAug(DetAugmenter):
    """A random crop that keeps the objects: its aspect ratio (width/height)
    is drawn from aspect_ratio_range and its area, a fraction of the image's,
    lies in area_range; it is accepted when every object it overlaps keeps
    more than min_object_covered of its area; objects left with
    min_eject_coverage of their area or less are dropped. After max_attempts
    proposals that fail, the input comes back unchanged."""

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                 area_range=(0.05, 1.0), min_eject_coverage=0.3, max_attempts=50):
        owner = "DetRandomCropAug"
        aspect_ratio_range = _pair(aspect_ratio_range, "aspect_ratio_range", owner)
        area_range = _pair(area_range, "area_range", owner)
        super().__init__(min_object_covered=min_object_covered,
                         aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         min_eject_coverage=min_eject_coverage, max_attempts=max_attempts)
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.enabled = False
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            warnings.warn("DetRandomCropAug is disabled: invalid area_range %s"
                          % (area_range,))
        elif aspect_ratio_range[0] > aspect_ratio_range[1] or aspect_ratio_range[0] <= 0:
            warnings.warn("DetRandomCropAug is disabled: invalid aspect_ratio_range %s"
                          % (aspect_ratio_range,))
        else:
            self.enabled = True

    def __call__(self, src, label):
        proposal = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if proposal:
            x, y, w, h, label = proposal
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    # The helpers keep MXNet's names: scripts subclass and call them.
    def _calculate_areas(self, label):
        return _box_areas(label)

    def _intersect(self, label, xmin, ymin, xmax, ymax):
        """Each box clipped to the window; boxes outside it become all zero."""
        out = label.copy()
        out[:, 0] = np.maximum(label[:, 0], xmin)
        out[:, 1] = np.maximum(label[:, 1], ymin)
        out[:, 2] = np.minimum(label[:, 2], xmax)
        out[:, 3] = np.minimum(label[:, 3], ymax)
        empty = (out[:, 0] >= out[:, 2]) | (out[:, 1] >= out[:, 3])
        out[empty, :] = 0
        return out

    def _check_satisfy_constraints(self, label, xmin, ymin, xmax, ymax, width, height):
        """Whether the pixel window keeps enough of every object it touches."""
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False
        window = (float(xmin) / width, float(ymin) / height,
                  float(xmax) / width, float(ymax) / height)
        areas = self._calculate_areas(label[:, 1:])
        kept = np.where(areas * width * height > 2)[0]
        if kept.size < 1:
            return False
        inside = self._intersect(label[kept, 1:], *window)
        coverage = self._calculate_areas(inside) / areas[kept]
        coverage = coverage[coverage > 0]
        return coverage.size > 0 and np.amin(coverage) > self.min_object_covered

    def _update_labels(self, label, crop_box, height, width):
        """Boxes in the crop's coordinates, clipped to it, without those that
        vanish or keep too little of their area; None when none is left."""
        x0, y0 = float(crop_box[0]) / width, float(crop_box[1]) / height
        cw, ch = float(crop_box[2]) / width, float(crop_box[3]) / height
        out = label.copy()
        out[:, (1, 3)] -= x0
        out[:, (2, 4)] -= y0
        out[:, (1, 3)] /= cw
        out[:, (2, 4)] /= ch
        out[:, 1:5] = np.minimum(1, np.maximum(0, out[:, 1:5]))
        coverage = self._calculate_areas(out[:, 1:]) * cw * ch / \
            self._calculate_areas(label[:, 1:])
        keep = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2]) & \
            (coverage > self.min_eject_coverage)
        keep = np.where(keep)[0]
        if keep.size < 1:
            return None
        return out[keep, :]

    def _random_crop_proposal(self, label, height, width):
        """(x, y, w, h, new label) of an accepted crop, or () after
        max_attempts failures (or when disabled)."""
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h = int(round(math.sqrt(min_area / ratio)))
            max_h = int(round(math.sqrt(max_area / ratio)))
            if round(max_h * ratio) > width:
                # The tallest crop whose rounded width still fits.
                max_h = int((width + 0.4999999) / ratio)
            max_h = min(max_h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if w > width:
                continue
            # Nudge a rounding that left the area range.
            area = w * h
            if area < min_area:
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (min_area <= area <= max_area and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._check_satisfy_constraints(label, x, y, x + w, y + h, width, height):
                new_label = self._update_labels(label, (x, y, w, h), height, width)
                if new_label is not None:
                    return (x, y, w, h, new_label)
        return ()


class DetRandomPadAug(DetAugmenter):
    """Places the image at a random spot of a larger canvas filled with
    pad_val: the canvas's aspect ratio is drawn from aspect_ratio_range and
    its area, a multiple of the image's, lies in area_range (above 1); the
    boxes move with the image. Proposals that would pad by less than 2
    pixels on an axis are redrawn, up to max_attempts."""

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0),
                 max_attempts=50, pad_val=(128, 128, 128)):
        owner = "DetRandomPadAug"
        if not isinstance(pad_val, (list, tuple)) and not isinstance(pad_val, numbers.Number):
            raise TypeError("DetRandomPadAug: pad_val must be a number or one value per "
                            "channel, got %r" % (pad_val,))
        aspect_ratio_range = _pair(aspect_ratio_range, "aspect_ratio_range", owner)
        area_range = _pair(area_range, "area_range", owner)
        super().__init__(aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         max_attempts=max_attempts, pad_val=pad_val)
        self.pad_val = pad_val
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.max_attempts = max_attempts
        self.enabled = False
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            warnings.warn("DetRandomPadAug is disabled: invalid area_range %s "
                          "(the largest area must exceed 1)" % (area_range,))
        elif aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
            warnings.warn("DetRandomPadAug is disabled: invalid aspect_ratio_range %s"
                          % (aspect_ratio_range,))
        else:
            self.enabled = True

    def __call__(self, src, label):
        if len(src.shape) != 3:
            raise MXNetError("DetRandomPadAug: the image must be (height, width, channels), "
                             "got shape %s" % (tuple(src.shape),))
        height, width, _ = src.shape
        proposal = self._random_pad_proposal(label, height, width)
        if proposal:
            x, y, w, h, label = proposal
            values = self.pad_val if isinstance(self.pad_val, (list, tuple)) else None
            value = 0.0 if values is not None else float(self.pad_val)
            src = copyMakeBorder(src, y, h - y - height, x, w - x - width, type=0, value=value,
                                 values=values)
        return src, label

    def _update_labels(self, label, pad_box, height, width):
        """Boxes in the canvas's coordinates."""
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] * width + pad_box[0]) / pad_box[2]
        out[:, (2, 4)] = (out[:, (2, 4)] * height + pad_box[1]) / pad_box[3]
        return out

    def _random_pad_proposal(self, label, height, width):
        """(x, y, w, h, new label): the image's corner in the canvas and the
        canvas's size; () when disabled or every attempt padded too little."""
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h = int(round(math.sqrt(min_area / ratio)))
            max_h = int(round(math.sqrt(max_area / ratio)))
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)
            h = max(h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if h - height < 2 or w - width < 2:
                continue
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            return (x, y, w, h, self._update_labels(label, (x, y, w, h), height, width))
        return ()


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                                 area_range=(0.05, 1.0), min_eject_coverage=0.3,
                                 max_attempts=50, skip_prob=0):
    """A DetRandomSelectAug over several DetRandomCropAugs: each argument is
    one value for all or a list with one value per augmenter (lists must
    have one length; a tuple is one value: aspect_ratio_range=(0.75, 1.33)
    serves every augmenter)."""
    params = [min_object_covered, aspect_ratio_range, area_range, min_eject_coverage,
              max_attempts]
    names = ["min_object_covered", "aspect_ratio_range", "area_range", "min_eject_coverage",
             "max_attempts"]
    params = [p if isinstance(p, list) else [p] for p in params]
    count = max(len(p) for p in params)
    for name, p in zip(names, params):
        if len(p) not in (1, count):
            raise ValueError("CreateMultiRandCropAugmenter: %s has %d values, another argument "
                             "%d: give one value or %d" % (name, len(p), count, count))
    params = [p * count if len(p) == 1 else p for p in params]
    augs = [DetRandomCropAug(min_object_covered=moc, aspect_ratio_range=arr, area_range=ar,
                             min_eject_coverage=mec, max_attempts=ma)
            for moc, arr, ar, mec, ma in zip(*params)]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def _channel_stats(value, default, what):
    if value is True:
        return default
    if value is None:
        return None
    arr = np.asarray(_host(value), dtype=np.float64)
    if arr.ndim != 1 or arr.shape[0] not in (1, 3):
        raise ValueError("CreateDetAugmenter: %s must hold 1 or 3 values (R, G, B), got %r"
                         % (what, value))
    return arr


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0,
                       rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                       saturation=0, pca_noise=0, hue=0, inter_method=2, min_object_covered=0.1,
                       aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 3.0),
                       min_eject_coverage=0.3, max_attempts=50, pad_val=(127, 127, 127)):
    """MXNet's detection augmenter list, in its order: resize of the short
    edge (resize > 0), random crops (probability rand_crop;
    min_object_covered etc. may be lists: one crop augmenter each), mirror
    (rand_mirror: probability 0.5), random padding (probability rand_pad,
    area up to area_range[1], filled with pad_val), the forced resize to
    data_shape (C, H, W), cast to float32, colour jitter, hue, PCA lighting,
    random gray, normalization (mean/std True: ImageNet's)."""
    augs = []
    if resize > 0:
        augs.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        augs.append(CreateMultiRandCropAugmenter(min_object_covered, aspect_ratio_range,
                                                 area_range, min_eject_coverage, max_attempts,
                                                 skip_prob=1 - rand_crop))
    if rand_mirror > 0:
        augs.append(DetHorizontalFlipAug(0.5))
    # Padding late: the steps before it work on fewer pixels.
    if rand_pad > 0:
        pad = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val)
        augs.append(DetRandomSelectAug([pad], 1 - rand_pad))
    augs.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    augs.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        augs.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        augs.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        augs.append(DetBorrowAug(LightingAug(pca_noise, _PCA_EIGVAL, _PCA_EIGVEC)))
    if rand_gray > 0:
        augs.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    mean = _channel_stats(mean, _MEAN_RGB, "mean")
    std = _channel_stats(std, _STD_RGB, "std")
    if mean is not None or std is not None:
        augs.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return augs


class ImageDetIter(ImageIter):
    """MXNet's Python detection iterator: images from a .rec (path_imgrec,
    with path_imgidx for shuffle and num_parts/part_index), an image list
    file (path_imglist: index<TAB>raw label values<TAB>path) or imglist
    ([[raw label values], path], ...) under path_root. A raw label is
    [header width A (>= 2), object width B (>= 5), A - 2 more header values,
    objects of B values: id, xmin, ymin, xmax, ymax, ...]; objects whose box
    is empty are dropped. Each image passes through aug_list (default
    CreateDetAugmenter(data_shape, **kwargs)) with its objects; images the
    augmenters leave without a valid object are skipped.

    Batches: data (batch_size, 3, H, W) float32; label (batch_size,
    objects, B), objects being the most any image of the source holds
    (label_shape; reshape() or sync_label_shape() make it larger), unused
    rows -1. last_batch_handle as MXNet's: 'pad' fills the last batch from
    the start of the data (pad counts those rows), 'discard' drops it,
    'roll_over' keeps it and completes it with the next epoch's first
    images (that batch's pad counts them)."""

    def __init__(self, batch_size, data_shape, path_imgrec=None, path_imglist=None,
                 path_root=None, path_imgidx=None, shuffle=False, part_index=0, num_parts=1,
                 aug_list=None, imglist=None, data_name="data", label_name="label",
                 last_batch_handle="pad", **kwargs):
        from . import io as _io
        self.check_data_shape(data_shape)
        # Iteration state, read by reset(), which ImageIter's __init__ calls.
        self._cache_data = self._cache_label = self._cache_idx = None
        self._allow_read = True
        super().__init__(batch_size=batch_size, data_shape=tuple(data_shape),
                         path_imgrec=path_imgrec, path_imglist=path_imglist, path_root=path_root,
                         path_imgidx=path_imgidx, shuffle=shuffle, part_index=part_index,
                         num_parts=num_parts, aug_list=[], imglist=imglist, data_name=data_name,
                         label_name=label_name, last_batch_handle=last_batch_handle)
        self.num_image = len(self.seq) if self.seq is not None else None
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.label_shape = self._estimate_label_shape()
        self.provide_label = [_io.DataDesc(label_name, (self.batch_size,) + self.label_shape)]

    # --- reading -------------------------------------------------------------
    def check_data_shape(self, data_shape):
        if len(data_shape) != 3:
            raise ValueError("ImageDetIter: data_shape %r must be (channels, height, width)"
                             % (tuple(data_shape),))
        if data_shape[0] != 3:
            raise ValueError("ImageDetIter: data_shape %r: only 3 channels (RGB) are supported"
                             % (tuple(data_shape),))

    def check_valid_image(self, data):
        if len(data[0].shape) == 0:
            raise MXNetError("ImageDetIter: an image decoded to an empty array")

    def reset(self):
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        # A kept roll_over batch reads on from where it stopped.
        if self.last_batch_handle != "roll_over" or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """reset(), dropping a batch kept by roll_over."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache_data = self._cache_label = self._cache_idx = None

    def next_sample(self):
        """(raw label, encoded image) of the next image; StopIteration at the
        end, which (but with 'discard') rewinds to the first image."""
        from . import recordio
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:
            record = self.imgrec.read()
            if record is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, img = recordio.unpack(record)
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        key = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            header, img = recordio.unpack(self.imgrec.read_idx(key))
            return (header.label if self.imglist is None else self.imglist[key][0]), img
        label, fname = self.imglist[key]
        return label, self.read_image(fname)

    def read_image(self, fname):
        import os
        path = fname if self.path_root is None else os.path.join(self.path_root, fname)
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError as e:
            raise MXNetError("ImageDetIter: cannot read image %s: %s" % (path, e.strerror)) \
                from None

    def imdecode(self, s):
        """Decodes one image; an error names the file or record it came from."""
        try:
            return imdecode(s)
        except Exception as e:  # noqa: BLE001 - any decode failure names its source
            where = "record"
            if self.seq is not None and self.num_image:
                key = self.seq[(self.cur % self.num_image) - 1]
                where = "image %s" % (self.imglist[key][1],) if self.imglist is not None \
                    else "record index %s" % (key,)
            raise MXNetError("ImageDetIter: broken %s: %s" % (where, e)) from None

    # --- labels --------------------------------------------------------------
    def _parse_label(self, label):
        """The (objects, B) array of a raw label, without empty boxes."""
        raw = np.asarray(_host(label), dtype=np.float32).ravel()
        if raw.size < 7:
            raise MXNetError("ImageDetIter: a label of %d values is too short: a detection "
                             "label is [header width, object width, header..., objects...] "
                             "with at least one object of 5 values" % raw.size)
        header_width, obj_width = int(raw[0]), int(raw[1])
        if header_width < 2 or obj_width < 5:
            raise MXNetError("ImageDetIter: label header width %d and object width %d: they "
                             "must be at least 2 and 5" % (header_width, obj_width))
        if (raw.size - header_width) % obj_width != 0:
            raise MXNetError("ImageDetIter: a label of %d values does not split into a header "
                             "of %d and objects of %d" % (raw.size, header_width, obj_width))
        objects = raw[header_width:].reshape(-1, obj_width)
        valid = (objects[:, 3] > objects[:, 1]) & (objects[:, 4] > objects[:, 2])
        if not valid.any():
            raise MXNetError("ImageDetIter: a label has no valid object (every box has "
                             "xmax <= xmin or ymax <= ymin)")
        return objects[valid, :]

    def _check_valid_label(self, label):
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise MXNetError("ImageDetIter: the augmented label has shape %s; (objects >= 1, "
                             "width >= 5) is required" % (label.shape,))
        valid = (label[:, 0] >= 0) & (label[:, 3] > label[:, 1]) & (label[:, 4] > label[:, 2])
        if not valid.any():
            raise MXNetError("ImageDetIter: the augmented label holds no valid object")

    def _estimate_label_shape(self):
        """(most objects of any image, object width of the last image)."""
        most, last = 0, None
        self.reset()
        try:
            while True:
                raw, _ = self.next_sample()
                last = self._parse_label(raw)
                most = max(most, last.shape[0])
        except StopIteration:
            pass
        self.reset()
        if last is None:
            raise MXNetError("ImageDetIter: the source holds no images (label shape unknown)")
        return (most, last.shape[1])

    def check_label_shape(self, label_shape):
        """Raises ValueError unless label_shape = (objects, width) keeps at
        least the current object count and the same width."""
        if len(label_shape) != 2:
            raise ValueError("ImageDetIter: label_shape %r must be (objects, width)"
                             % (tuple(label_shape),))
        if label_shape[0] < self.label_shape[0]:
            raise ValueError("ImageDetIter: label_shape %r holds fewer objects than the %d "
                             "the data needs" % (tuple(label_shape), self.label_shape[0]))
        width = self.provide_label[0][1][2]
        if label_shape[1] != width:
            raise ValueError("ImageDetIter: label_shape %r: the object width must stay %d"
                             % (tuple(label_shape), width))

    def reshape(self, data_shape=None, label_shape=None):
        """New data_shape (C, H, W) and/or label_shape (objects, width) for
        the batches to come (the augmenters must produce the new size)."""
        from . import io as _io
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self.provide_data = [_io.DataDesc(self.provide_data[0][0],
                                              (self.batch_size,) + tuple(data_shape))]
            self.data_shape = tuple(data_shape)
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.provide_label = [_io.DataDesc(self.provide_label[0][0],
                                               (self.batch_size,) + tuple(label_shape))]
            self.label_shape = tuple(label_shape)

    def sync_label_shape(self, it, verbose=False):
        """Gives this iterator and `it` (another ImageDetIter, e.g. the
        validation set's) the larger object count of the two; returns it."""
        if not isinstance(it, ImageDetIter):
            raise TypeError("sync_label_shape: expected an ImageDetIter, got %s"
                            % type(it).__name__)
        mine, theirs = self.label_shape, it.label_shape
        if mine[1] != theirs[1]:
            raise ValueError("sync_label_shape: object widths differ: %d and %d"
                             % (mine[1], theirs[1]))
        most = max(mine[0], theirs[0])
        if most > mine[0]:
            self.reshape(None, (most, mine[1]))
        if most > theirs[0]:
            it.reshape(None, (most, theirs[1]))
        if verbose and most > min(mine[0], theirs[0]):
            logging.info("Resized label_shape to (%d, %d).", most, mine[1])
        return it

    # --- batches -------------------------------------------------------------
    def augmentation_transform(self, data, label):  # pylint: disable=arguments-differ
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def _batchify(self, batch_data, batch_label, start=0):
        """Fills rows from `start`; returns the next free row. Images whose
        label or augmentation fails are skipped (logged at debug level)."""
        i = start
        try:
            while i < self.batch_size:
                raw, encoded = self.next_sample()
                data = self.imdecode(encoded)
                try:
                    self.check_valid_image([data])
                    label = self._parse_label(raw)
                    data, label = self.augmentation_transform(data, label)
                    self._check_valid_label(label)
                except RuntimeError as e:
                    logging.debug("ImageDetIter: skipping an image: %s", e)
                    continue
                arr = self.postprocess_data(data)
                if arr.shape != tuple(self.data_shape):
                    raise MXNetError("ImageDetIter: an augmented image has shape %s (as C, H, "
                                     "W), data_shape is %s: the augmenters must resize to it"
                                     % (arr.shape, tuple(self.data_shape)))
                rows, width = batch_label.shape[1:]
                if label.shape[0] > rows or label.shape[1] != width:
                    raise MXNetError("ImageDetIter: an augmented label of shape %s does not "
                                     "fit label_shape %s" % (label.shape, (rows, width)))
                batch_data[i] = arr
                batch_label[i, :label.shape[0]] = label
                batch_label[i, label.shape[0]:] = -1
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self):
        from . import io as _io
        if self._cache_data is not None:
            batch_data, batch_label, i = self._cache_data, self._cache_label, self._cache_idx
        else:
            batch_data = np.zeros((self.batch_size,) + tuple(self.data_shape), dtype=np.float32)
            batch_label = np.full(self.provide_label[0][1], -1, dtype=np.float32)
            i = self._batchify(batch_data, batch_label)
        pad = self.batch_size - i
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache_data is None:
                self._cache_data, self._cache_label, self._cache_idx = \
                    batch_data, batch_label, i
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache_data = self._cache_label = self._cache_idx = None
        return _io.DataBatch([nd.array(batch_data)], [nd.array(batch_label)], pad=pad,
                             provide_data=self.provide_data, provide_label=self.provide_label)

    # --- display -------------------------------------------------------------
    def draw_next(self, color=None, thickness=2, mean=None, std=None, clip=True,
                  waitKey=None, window_name="draw_next", id2labels=None):
        """Yields the next images, augmented, as (H, W, 3) uint8 BGR numpy
        arrays with their boxes drawn (color: RGB, None for random colours);
        mean/std (True: ImageNet's) undo a normalization, clip keeps values
        in [0, 255]. waitKey (not None) also shows each in an OpenCV window
        and id2labels writes class names; both need OpenCV (cv2)."""
        try:
            import cv2
        except ImportError:
            cv2 = None
        if cv2 is None and waitKey is not None:
            raise MXNetError("ImageDetIter.draw_next: waitKey=%r shows the images in an OpenCV "
                             "window, and OpenCV (cv2) is not installed; use waitKey=None "
                             "and display the yielded arrays" % (waitKey,))
        if cv2 is None and id2labels is not None:
            warnings.warn("ImageDetIter.draw_next: class names need OpenCV (cv2), which is "
                          "not installed; drawing the boxes only")
        std = _channel_stats(std, _STD_RGB, "std")
        mean = _channel_stats(mean, _MEAN_RGB, "mean")
        bgr = None if not color else tuple(color)[::-1]
        while True:
            try:
                raw, encoded = self.next_sample()
            except StopIteration:
                return
            data = self.imdecode(encoded)
            try:
                self.check_valid_image([data])
                label = self._parse_label(raw)
            except RuntimeError as e:
                logging.debug("ImageDetIter: skipping an image: %s", e)
                continue
            data, label = self.augmentation_transform(data, label)
            image = _host(data).astype(np.float64)
            if std is not None:
                image = image * std
            if mean is not None:
                image = image + mean
            image = image[:, :, ::-1]  # RGB to OpenCV's BGR
            if clip:
                image = np.clip(image, 0, 255)
            image = np.ascontiguousarray(image.astype(np.uint8))
            height, width = image.shape[:2]
            for obj in label:
                x1 = int(obj[1] * width)
                if x1 < 0:
                    continue
                y1, x2, y2 = int(obj[2] * height), int(obj[3] * width), int(obj[4] * height)
                box_color = np.random.rand(3) * 255 if bgr is None else bgr
                if cv2 is not None:
                    cv2.rectangle(image, (x1, y1), (x2, y2), box_color, thickness)
                else:
                    _draw_box(image, x1, y1, x2, y2, box_color, thickness)
                if id2labels is not None and cv2 is not None and int(obj[0]) in id2labels:
                    text = "{:s}".format(id2labels[int(obj[0])])
                    font, font_scale = cv2.FONT_HERSHEY_SIMPLEX, 0.5
                    text_height = cv2.getTextSize(text, font, font_scale, 2)[0][1]
                    cv2.putText(image, text, (x1 + 5, y1 + text_height + 5), font, font_scale,
                                (255, 255, 255), 2)
            if waitKey is not None:
                cv2.imshow(window_name, image)
                cv2.waitKey(waitKey)
            yield image


def _draw_box(image, x1, y1, x2, y2, color, thickness):
    """A rectangle outline `thickness` pixels wide centred on the box's
    edges (numpy's stand-in for cv2.rectangle)."""
    height, width = image.shape[:2]
    half = max(int(thickness), 1) // 2
    span = max(int(thickness), 1)
    value = np.asarray(color, dtype=np.float64)[:image.shape[2]].astype(image.dtype)
    left, right = sorted((x1, x2))
    top, bottom = sorted((y1, y2))

    def fill(r0, r1, c0, c1):
        r0, r1 = max(r0, 0), min(r1, height)
        c0, c1 = max(c0, 0), min(c1, width)
        if r0 < r1 and c0 < c1:
            image[r0:r1, c0:c1] = value

    fill(top - half, top - half + span, left - half, right - half + span)
    fill(bottom - half, bottom - half + span, left - half, right - half + span)
    fill(top - half, bottom - half + span, left - half, left - half + span)
    fill(top - half, bottom - half + span, right - half, right - half + span)
