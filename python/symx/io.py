"""mx.io: DataDesc, DataBatch, DataIter, NDArrayIter, MNISTIter, ImageRecordIter,
CSVIter and the built-in digits."""
from collections import OrderedDict, namedtuple

import numpy as np

from .base import _core
from . import ndarray as nd

__all__ = ["DataDesc", "DataBatch", "DataIter", "NDArrayIter", "MNISTIter", "ImageRecordIter",
           "ImageRecordUInt8Iter", "ImageRecordInt8Iter", "ImageDetRecordIter", "CSVIter",
           "synthetic_digits"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """A named input's shape, dtype and layout (MXNet's DataDesc)."""

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        ret = super().__new__(cls, name, tuple(shape))
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self):
        return "DataDesc[%s,%s,%s,%s]" % (self.name, self.shape, self.dtype, self.layout)

    @staticmethod
    def get_batch_axis(layout):
        """The batch axis of ``layout`` (the position of 'N': 1 for "TNC");
        0 when there is no layout, -1 when it has no batch axis."""
        if layout is None:
            return 0
        return layout.find("N")

    @staticmethod
    def get_list(shapes, types=None):
        if types is not None:
            types = dict(types)
            return [DataDesc(n, s, types[n]) for n, s in shapes]
        return [DataDesc(n, s) for n, s in shapes]


class DataBatch:
    """One batch: lists of data and label arrays, the padding count and bucket key."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        if data is not None and not isinstance(data, (list, tuple)):
            raise TypeError("Data must be list of NDArrays")
        if label is not None and not isinstance(label, (list, tuple)):
            raise TypeError("Label must be list of NDArrays")
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [d.shape for d in self.data]
        label_shapes = [l.shape for l in self.label] if self.label else None
        return "{}: data shapes: {} label shapes: {}".format(type(self).__name__, data_shapes,
                                                            label_shapes)


class DataIter:
    """Base class of data iterators."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        pass

    def next(self):
        raise StopIteration

    def __next__(self):
        return self.next()


def _init_data(data, allow_empty, default_name):
    """[(name, numpy array)] from an array, list or dict, in name order.

    As in MXNet, NDArrays keep their dtype and anything else becomes float32
    (MXNet turns it into an NDArray with mx.nd.array's default dtype)."""
    if data is None:
        if not allow_empty:
            raise ValueError("data must not be None")
        return []
    if isinstance(data, (np.ndarray, nd.NDArray)):
        data = [data]
    if isinstance(data, (list, tuple)):
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict([("_%d_%s" % (i, default_name), d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        raise TypeError("Input must be NDArray, numpy.ndarray, a list of them or dict with them "
                        "as values")
    out = []
    for k, v in sorted(data.items()):
        v = v.asnumpy() if isinstance(v, nd.NDArray) else np.asarray(v, dtype=np.float32)
        out.append((k, v))
    return out


class NDArrayIter(DataIter):
    """Batches over in-memory arrays.

    last_batch_handle: 'pad' fills the last batch from the start (DataBatch.pad
    says how many rows are padding), 'discard' drops it, 'roll_over' carries
    the leftover rows into the next epoch.
    """

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad",
                 data_name="data", label_name="softmax_label"):
        super().__init__(batch_size)
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ValueError("last_batch_handle must be 'pad', 'discard' or 'roll_over', got %r"
                             % (last_batch_handle,))
        self.data = _init_data(data, False, data_name)
        self.label = _init_data(label, True, label_name)
        self.num_data = self.data[0][1].shape[0]
        for name, arr in self.data + self.label:
            if arr.shape[0] != self.num_data:
                raise ValueError("NDArrayIter: %s has %d rows, %s has %d"
                                 % (name, arr.shape[0], self.data[0][0], self.num_data))
        if batch_size <= 0:
            raise ValueError("batch_size must be positive, got %d" % batch_size)
        if last_batch_handle == "discard" and self.num_data < batch_size:
            raise ValueError("batch_size %d is larger than the %d examples with 'discard'"
                             % (batch_size, self.num_data))
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self._carry = np.zeros((0,), dtype=np.int64)
        self.reset()

    @property
    def provide_data(self):
        return [DataDesc(k, (self.batch_size,) + v.shape[1:], v.dtype) for k, v in self.data]

    @property
    def provide_label(self):
        return [DataDesc(k, (self.batch_size,) + v.shape[1:], v.dtype) for k, v in self.label]

    def hard_reset(self):
        self._carry = np.zeros((0,), dtype=np.int64)
        self.reset()

    def reset(self):
        order = np.arange(self.num_data)
        if self.shuffle:
            np.random.shuffle(order)
        # MXNet reports the carried rows of 'roll_over' as the first batch's pad.
        self._rolled = len(self._carry) if self.last_batch_handle == "roll_over" else 0
        if self._rolled:
            order = np.concatenate([self._carry, order])
            self._carry = np.zeros((0,), dtype=np.int64)
        self._order = order
        self._cursor = 0
        self._pad = 0

    def iter_next(self):
        return self._cursor < len(self._order) and (
            self.last_batch_handle == "pad" or self._cursor + self.batch_size <= len(self._order))

    def next(self):
        if not self.iter_next():
            if self.last_batch_handle == "roll_over":
                self._carry = self._order[self._cursor:]
            raise StopIteration
        rows = self._order[self._cursor:self._cursor + self.batch_size]
        pad = self.batch_size - len(rows)
        if pad:
            # Cycles through the data again when a batch is larger than all of it.
            rows = np.concatenate([rows, np.resize(self._order, pad)])
        elif self._cursor == 0 and self._rolled:
            pad = self._rolled
        self._pad = pad
        self._cursor += self.batch_size
        data = [nd.array(v[rows], dtype=v.dtype) for _, v in self.data]
        label = [nd.array(v[rows], dtype=v.dtype) for _, v in self.label]
        return DataBatch(data=data, label=label, pad=pad, index=None)

    def getpad(self):
        """The pad of the batch next() returned last."""
        return self._pad


def _read_idx(path, magic, what):
    """The array of an MNIST idx file (gzip too), checked: errors name the file."""
    import gzip
    import struct
    from .base import MXNetError
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise MXNetError("MNISTIter: cannot read the %s file %s: %s" % (what, path, e)) from None
    dims = magic - 2048  # 2049: labels (1 dim), 2051: images (3 dims)
    if len(raw) < 4 + 4 * dims or struct.unpack(">I", raw[:4])[0] != magic:
        raise MXNetError("MNISTIter: %s is not an MNIST %s file (idx magic %d expected)"
                         % (path, what, magic))
    shape = struct.unpack(">" + "I" * dims, raw[4:4 + 4 * dims])
    body = raw[4 + 4 * dims:]
    if len(body) != int(np.prod(shape)):
        raise MXNetError("MNISTIter: %s holds %d bytes of %s, its header says %s"
                         % (path, len(body), what, shape))
    return np.frombuffer(body, dtype=np.uint8).reshape(shape)


class MNISTIter(DataIter):
    """MXNet's MNISTIter: batches of MNIST's idx files (``image``, ``label``;
    gzip-compressed ones too), as MXNet 1.9.1 gives them: pixels / 256 as
    float32 (or ``dtype``), ``(batch, 1, 28, 28)`` or ``(batch, 784)`` with
    ``flat``, labels as float32; every batch full (the rows that do not fill
    one are left out); ``num_parts``/``part_index`` read rows
    [n * i / parts, n * (i + 1) / parts) (a distributed job's share:
    ``num_parts=kv.num_workers, part_index=kv.rank``); ``shuffle`` (the
    default, as MXNet's) permutes the part once, from ``seed``, and keeps that
    order every epoch. The permutation is numpy's, not MXNet's generator's, so
    shuffled batches hold other rows than MXNet's. ``prefetch_buffer``,
    ``ctx`` and ``silent`` are accepted and have no effect (reading is in
    memory); ``data_shape`` (old scripts) must hold 784 values."""

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte",
                 batch_size=128, shuffle=True, flat=False, seed=0, silent=False, num_parts=1,
                 part_index=0, prefetch_buffer=4, ctx="gpu", dtype=None, data_shape=None,
                 data_name="data", label_name="softmax_label"):
        from .base import MXNetError
        super().__init__(int(batch_size))
        if self.batch_size <= 0:
            raise MXNetError("MNISTIter: batch_size must be positive, got %r" % (batch_size,))
        if not 0 <= int(part_index) < int(num_parts):
            raise MXNetError("MNISTIter: part_index %r must be in [0, num_parts %r)"
                             % (part_index, num_parts))
        if data_shape is not None and int(np.prod(data_shape)) != 28 * 28:
            raise MXNetError("MNISTIter: data_shape %s does not hold 784 values"
                             % (tuple(data_shape),))
        images = _read_idx(image, 2051, "image")
        labels = _read_idx(label, 2049, "label")
        if len(images) != len(labels):
            raise MXNetError("MNISTIter: %s has %d images, %s has %d labels"
                             % (image, len(images), label, len(labels)))
        n = len(images)
        begin, end = n * int(part_index) // int(num_parts), n * (int(part_index) + 1) // int(
            num_parts)
        order = np.arange(begin, end)
        if shuffle:
            np.random.RandomState(int(seed)).shuffle(order)
        if len(order) < self.batch_size:
            raise MXNetError("MNISTIter: part %d of %d holds %d images, fewer than batch_size %d"
                             % (int(part_index), int(num_parts), len(order), self.batch_size))
        out_dtype = np.dtype(dtype) if dtype is not None else np.dtype(np.float32)
        rows = images[order].astype(np.float32) * np.float32(1.0 / 256)
        rows = rows.reshape(len(order), 28 * 28) if flat else rows.reshape(len(order), 1, 28, 28)
        self._data = rows.astype(out_dtype)
        self._label = labels[order].astype(np.float32)
        self._names = (data_name, label_name)
        self._cursor = 0
        self.provide_data = [DataDesc(data_name, (self.batch_size,) + self._data.shape[1:],
                                      out_dtype.type)]
        self.provide_label = [DataDesc(label_name, (self.batch_size,), np.float32)]

    def reset(self):
        self._cursor = 0

    def next(self):
        begin = self._cursor
        if begin + self.batch_size > len(self._data):
            raise StopIteration
        self._cursor += self.batch_size
        return DataBatch(data=[nd.array(self._data[begin:self._cursor],
                                        dtype=self._data.dtype)],
                         label=[nd.array(self._label[begin:self._cursor])], pad=0, index=None,
                         provide_data=self.provide_data, provide_label=self.provide_label)


def synthetic_digits(num_train=6000, num_test=1000, seed=7):
    """symx's built-in 10-class digits (28x28, no files needed; train/data.h).

    Returns {'train_data', 'train_label', 'test_data', 'test_label'} numpy arrays,
    like MXNet's test_utils.get_mnist(): data float32 (N, 1, 28, 28) in [0, 1].
    """
    tx, ty, vx, vy = _core.synthetic_digits(int(num_train), int(num_test), int(seed))
    return {"train_data": tx.numpy(False).copy(), "train_label": ty.numpy(False).copy(),
            "test_data": vx.numpy(False).copy(), "test_label": vy.numpy(False).copy()}


def _param_text(value):
    """A keyword argument as MXNet's C API receives it (str of the value)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (tuple, list)):
        # Integers stay integers ("(3, 224, 224)"), fractions keep their
        # digits ("(0.3, 0.5)"): MXNet's C API gets str() of the tuple.
        return "(" + ", ".join(str(int(v)) if float(v).is_integer() else repr(float(v))
                               for v in value) + ")"
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return np.dtype(value).name
    return str(value)


def _launcher_shard(kwargs):
    """Under mpirun, a record iterator given no num_parts reads this rank's
    share: num_parts = the job's size, part_index = its rank. (A job whose
    ranks hold different stages of one model, not replicas, passes
    num_parts=1 so that every rank reads the same batches.)"""
    if "num_parts" in kwargs or "part_index" in kwargs:
        return kwargs
    from .kvstore import job_ranks
    ranks = job_ranks()
    if ranks is None or ranks.size <= 1:
        return kwargs
    kwargs = dict(kwargs)
    kwargs["num_parts"] = ranks.size
    kwargs["part_index"] = ranks.rank
    return kwargs


class _EngineIter(DataIter):
    """A DataIter over an engine iterator whose next() gives (data, label,
    pad, index) tensors, or None at the end of the epoch."""

    def __init__(self, engine, batch_size, data_name, label_name, dtype):
        super().__init__(batch_size)
        self._engine = engine
        self.provide_data = [DataDesc(data_name, tuple(engine.data_shape()), dtype)]
        self.provide_label = [DataDesc(label_name, tuple(engine.label_shape()), np.float32)]

    def reset(self):
        self._engine.reset()
        self._current = None

    def next(self):
        got = self._engine.next()
        if got is None:
            raise StopIteration
        data, label, pad, index = got
        return DataBatch(data=[nd.NDArray(data)], label=[nd.NDArray(label)], pad=pad,
                         index=None if index is None else np.asarray(index, dtype=np.uint64),
                         provide_data=self.provide_data, provide_label=self.provide_label)

    # MXNet's older loop: `while it.iter_next(): it.getdata() ...`.
    def iter_next(self):
        try:
            self._current = self.next()
        except StopIteration:
            self._current = None
            return False
        return True

    def _batch(self):
        if getattr(self, "_current", None) is None:
            from .base import MXNetError
            raise MXNetError("call iter_next() first: there is no current batch")
        return self._current

    def getdata(self):
        return self._batch().data

    def getlabel(self):
        return self._batch().label

    def getindex(self):
        return self._batch().index

    def getpad(self):
        return self._batch().pad


class ImageRecordIter(_EngineIter):
    """MXNet's ImageRecordIter over the engine's (train/image/record_iter.h):
    batches of (batch_size, C, H, W) images decoded and augmented by
    ``preprocess_threads`` threads from a RecordIO file, with MXNet 1.9.1's
    parameters (path_imgrec, path_imgidx, path_imglist, data_shape,
    batch_size, label_width, resize, rand_crop, rand_mirror, mirror,
    random_resized_crop, max/min_random_scale, max/min_aspect_ratio,
    max/min_random_area, max_rotate_angle, rotate, max_shear_ratio,
    max/min_crop_size, pad, fill_value, inter_method, brightness, contrast,
    saturation, pca_noise, mean_r/g/b/a, std_r/g/b/a, scale, mean_img,
    max_random_contrast, max_random_illumination, shuffle, seed, seed_aug,
    round_batch, num_parts, part_index, prefetch_buffer, dtype, ...).

    Differences from MXNet (docs/data.md): an unknown parameter is an error,
    not ignored; every epoch starts at the beginning (MXNet's continues after
    the records a wrapped last batch took); pad is always right; shuffle is
    over the whole shard; the augmentation of a record depends on (seed,
    epoch, record) only, so any thread count gives the same batches; under
    mpirun without num_parts each rank reads its share."""

    def __init__(self, data_name="data", label_name="softmax_label", **kwargs):
        kwargs = _launcher_shard(kwargs)
        if "batch_size" not in kwargs:
            from .base import MXNetError
            raise MXNetError("ImageRecordIter: batch_size is required")
        params = [(k, _param_text(v)) for k, v in kwargs.items() if v is not None or
                  k in ("seed_aug", "min_aspect_ratio")]
        engine = _core.ImageRecordIter(params)
        dtype = np.dtype(_param_text(kwargs.get("dtype", "float32")) if kwargs.get("dtype")
                         not in (None, "None") else "float32")
        super().__init__(engine, int(kwargs["batch_size"]), data_name, label_name, dtype.type)

    @property
    def num_records(self):
        """Records in this iterator's shard."""
        return self._engine.num_records()

    def wait_seconds(self):
        """Seconds next() has waited for batches the decode threads had not finished."""
        return self._engine.wait_seconds()


class ImageDetRecordIter(_EngineIter):
    """MXNet's ImageDetRecordIter over the engine's: images with box labels
    (each record's label vector [header width, object width, header...,
    objects of (id, xmin, ymin, xmax, ymax, ...)], relative coordinates),
    augmented with the boxes (resize, rand_mirror_prob, rand_pad_prob /
    max_pad_scale, SSD's crop samplers rand_crop_prob / num_crop_sampler /
    min_crop_scales / ... / crop_emit_mode, max_random_contrast,
    resize_mode force|shrink|fit). Each label row is [C, H, W, L, the L
    label values, label_pad_value...], label_pad_width + 4 wide (the
    longest label of the file when not given); hue, saturation and
    illumination jitter (max_random_hue / random_hue_prob, ...). Under
    mpirun without num_parts each rank reads its share, as ImageRecordIter."""

    def __init__(self, data_name="data", label_name="softmax_label", **kwargs):
        kwargs = _launcher_shard(kwargs)
        if "batch_size" not in kwargs:
            from .base import MXNetError
            raise MXNetError("ImageDetRecordIter: batch_size is required")
        params = [(k, _param_text(v)) for k, v in kwargs.items() if v is not None]
        engine = _core.ImageRecordIter(params, True)
        dtype = np.dtype(_param_text(kwargs.get("dtype", "float32")) if kwargs.get("dtype")
                         not in (None, "None") else "float32")
        super().__init__(engine, int(kwargs["batch_size"]), data_name, label_name, dtype.type)


def ImageRecordUInt8Iter(**kwargs):
    """ImageRecordIter with dtype='uint8': raw pixels (MXNet's deprecated alias)."""
    kwargs["dtype"] = "uint8"
    return ImageRecordIter(**kwargs)


def ImageRecordInt8Iter(**kwargs):
    """ImageRecordIter with dtype='int8': pixels minus the mean (MXNet's deprecated alias)."""
    kwargs["dtype"] = "int8"
    return ImageRecordIter(**kwargs)


class CSVIter(_EngineIter):
    """MXNet's CSVIter over the engine's (train/csv_iter.h): batches of
    rows of ``data_csv`` shaped ``data_shape``, with labels from
    ``label_csv`` (shaped ``label_shape``; zeros without one), ``dtype``
    float32, int32 or int64. ``round_batch`` wraps the last batch to the
    first rows (else fills it with zeros); ``pad`` counts those rows. A field
    that is not a number is an error naming its file, line and column."""

    def __init__(self, data_name="data", label_name="softmax_label", **kwargs):
        if "batch_size" not in kwargs:
            from .base import MXNetError
            raise MXNetError("CSVIter: batch_size is required")
        engine = _core.CSVIter([(k, _param_text(v)) for k, v in kwargs.items()
                                if v is not None])
        dtype = np.dtype(_param_text(kwargs["dtype"]) if kwargs.get("dtype") not in
                         (None, "None") else "float32")
        super().__init__(engine, int(kwargs["batch_size"]), data_name, label_name, dtype.type)
        self.provide_label = [DataDesc(label_name, tuple(engine.label_shape()), dtype.type)]
