"""mx.io: DataDesc, DataBatch, DataIter, NDArrayIter, MNISTIter, ImageRecordIter,
CSVIter, LibSVMIter and the built-in digits."""
from collections import OrderedDict, namedtuple

import numpy as np

from .base import _core
from . import ndarray as nd

__all__ = ["DataDesc", "DataBatch", "DataIter", "NDArrayIter", "MNISTIter", "ImageRecordIter",
           "ImageRecordUInt8Iter", "ImageRecordInt8Iter", "ImageDetRecordIter", "CSVIter",
           "LibSVMIter", "synthetic_digits"]


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


class _CurrentBatch:
    """MXNet's older loop, `while it.iter_next(): it.getdata() ...`, over an
    iterator's next()."""

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
            raise MXNetError("%s: call iter_next() first: there is no current batch"
                             % type(self).__name__)
        return self._current

    def getdata(self):
        return self._batch().data

    def getlabel(self):
        return self._batch().label

    def getindex(self):
        return self._batch().index

    def getpad(self):
        return self._batch().pad


class _EngineIter(_CurrentBatch, DataIter):
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


# ------------------------------------------------------------------ LibSVMIter
_LIBSVM_DTYPES = ("float32", "float64", "float16", "int32", "int64", "uint8", "int8")


def _libsvm_files(path, what):
    """[(name, bytes)] of a file, or of a folder's non-empty files in name order."""
    import os
    from .base import MXNetError
    if os.path.isdir(path):
        names = sorted(n for n in os.listdir(path) if os.path.isfile(os.path.join(path, n)))
        paths = [os.path.join(path, n) for n in names]
    else:
        paths = [path]
    files = []
    for p in paths:
        try:
            with open(p, "rb") as f:
                raw = f.read()
        except OSError as e:
            raise MXNetError("LibSVMIter: cannot read the %s file %s: %s"
                             % (what, p, e.strerror)) from None
        if raw:
            files.append((p, raw))
    if not files:
        raise MXNetError("LibSVMIter: the %s %s %s" % (
            what, "folder" if os.path.isdir(path) else "file", path) + " holds no data")
    return files


def _eol_run_end(raw, pos):
    """The position after the first line break at or after pos and the breaks
    that follow it (dmlc's LineSplitter::SeekRecordBegin), or len(raw)."""
    n = len(raw)
    while pos < n and raw[pos] not in b"\r\n":
        pos += 1
    while pos < n and raw[pos] in b"\r\n":
        pos += 1
    return pos


def _libsvm_part_lines(files, part_index, num_parts):
    """(file, line number, text) of the lines in the part, which is MXNet's
    (dmlc InputSplit's) byte range: the files' bytes cut into num_parts
    equal ranges, each boundary moved past the end of the line it falls in
    (a boundary on a line's first byte too), unless it is a file's start."""
    import re
    offsets = [0]
    for _, raw in files:
        offsets.append(offsets[-1] + len(raw))
    total = offsets[-1]
    step = (total + num_parts - 1) // num_parts
    bounds = []
    for b in (min(step * part_index, total), min(step * (part_index + 1), total)):
        k = max(i for i in range(len(files)) if offsets[i] <= b) if b < total else len(files)
        if k < len(files) and b != offsets[k]:
            b = offsets[k] + _eol_run_end(files[k][1], b - offsets[k])
        bounds.append(b)
    begin, end = bounds
    lines = []
    for k, (name, raw) in enumerate(files):
        lo, hi = max(begin - offsets[k], 0), min(end - offsets[k], len(raw))
        if lo >= hi:
            continue
        number = raw.count(b"\n", 0, lo) + raw.count(b"\r", 0, lo) - raw.count(b"\r\n", 0, lo) + 1
        for text in re.split(rb"\r\n|\r|\n", raw[lo:hi]):
            lines.append((name, number, text))
            number += 1
    return lines


def _libsvm_rows(lines, width, what):
    """(labels, dense (rows, width) float32 values) of libsvm lines:
    'label[:weight] [qid:N] index:value ... [# comment]', 0-based indices."""
    from .base import MXNetError
    labels, rows = [], []
    for name, number, text in lines:
        text = text.split(b"#", 1)[0].decode("latin-1")
        tokens = text.split()
        if not tokens:
            continue
        where = "LibSVMIter: %s line %d" % (name, number)
        head = tokens[0].split(":")
        try:
            if len(head) > 2:
                raise ValueError
            label = float(head[0])
            if len(head) == 2:
                float(head[1])  # a weight: read, then unused (as MXNet)
        except ValueError:
            raise MXNetError("%s: the label %r is not a number (or number:weight)"
                             % (where, tokens[0])) from None
        tokens = tokens[1:]
        if tokens and tokens[0].startswith("qid:") and tokens[0][4:].isdigit():
            tokens = tokens[1:]
        row = np.zeros((width,), dtype=np.float32)
        for token in tokens:
            index, sep, value = token.partition(":")
            if not sep or not (index.isascii() and index.isdigit()):
                raise MXNetError("%s: %r is not a feature index:value (0-based index)"
                                 % (where, token))
            try:
                v = float(value)
            except ValueError:
                raise MXNetError("%s: feature %r: the value %r is not a number"
                                 % (where, token, value)) from None
            i = int(index)
            if i >= width:
                raise MXNetError("%s: feature index %d is out of range for the %s shape (%d,) "
                                 "(indices are 0-based)" % (where, i, what, width))
            row[i] = v
        labels.append(label)
        rows.append(row)
    values = np.stack(rows) if rows else np.zeros((0, width), dtype=np.float32)
    return np.asarray(labels, dtype=np.float32), values


class LibSVMIter(_CurrentBatch, DataIter):
    """MXNet's LibSVMIter: batches of the rows of a LibSVM text file (or of
    every file of a folder, in name order).

    **symx has no sparse storage: each batch's data (and the label, when it
    comes from label_libsvm) is a dense NDArray with stype 'default' holding
    the values MXNet's CSRNDArray holds, zeros where a row gives no value**
    (equal to MXNet's ``batch.data[0].asnumpy()``). Dense rows take
    data_shape[0] floats each: for very wide, very sparse data, select
    columns first.

    Each line is ``label[:weight] [qid:N] index:value index:value ...``;
    indices are 0-based (MXNet's parser's default), weights and query ids are
    read and ignored, ``#`` starts a comment, blank lines are skipped, a
    repeated index keeps its last value. data_shape = (features,); the label
    is the first column, a (batch_size,) float32 array, or, with label_libsvm
    (a second file, one line per data line, its own first column ignored)
    and label_shape = (n,) with n > 1, a dense (batch_size, n) array.

    Batching is MXNet's (round_batch=True, the only mode MXNet supports): a
    short last batch wraps to the first rows of the part and ``pad`` counts
    them; the epoch after such a batch (reset()) continues after the rows
    the wrap took, so its batches are other rows than the first epoch's
    (MXNet's documented behaviour). ``index`` holds each row's position in
    the part. num_parts/part_index split the file by bytes as MXNet does
    (each part gets the lines that begin in its byte range, not equal
    counts). dtype casts data and label (MXNet 1.9.1 fails for any dtype
    but float32); prefetch_buffer and ctx are accepted and have no effect
    (the files are read whole, at construction).

    Also on purpose: data line i always gets label line i (MXNet's, when the
    label file's part holds more lines than the data file's, gives the rows
    of a wrap and of the epoch after it the labels of other lines), and a
    line whose first non-blank character is ``#`` is a comment wherever it
    is (MXNet's parser reads one after the first line as a row when the
    comment holds a digit or an 'e').

    Errors name the file and line: a label or value that is not a number, a
    feature that is not index:value, an index >= data_shape[0] (MXNet writes
    out of bounds there), a missing file, a label file with fewer lines than
    the data file's part.
    """

    def __init__(self, data_libsvm=None, data_shape=None, label_libsvm=None, label_shape=(1,),
                 batch_size=None, round_batch=True, num_parts=1, part_index=0,
                 prefetch_buffer=4, ctx="gpu", dtype=None, data_name="data",
                 label_name="softmax_label"):
        from .base import MXNetError
        if data_libsvm is None:
            raise MXNetError("LibSVMIter: data_libsvm (the LibSVM file) is required")
        if data_shape is None:
            raise MXNetError("LibSVMIter: data_shape (features,) is required")
        if batch_size is None:
            raise MXNetError("LibSVMIter: batch_size is required")
        data_shape = (int(data_shape),) if isinstance(data_shape, (int, np.integer)) \
            else tuple(int(d) for d in data_shape)
        label_shape = (int(label_shape),) if isinstance(label_shape, (int, np.integer)) \
            else tuple(int(d) for d in label_shape)
        if len(data_shape) != 1 or data_shape[0] <= 0:
            raise MXNetError("LibSVMIter: data_shape %s must be 1-D, (features,)"
                             % (data_shape,))
        if label_libsvm in (None, "NULL"):
            label_libsvm = None
            if int(np.prod(label_shape)) != 1:
                raise MXNetError("LibSVMIter: label_shape %s needs label_libsvm; without it "
                                 "the label is the data file's first column, label_shape (1,)"
                                 % (label_shape,))
        elif len(label_shape) != 1 or label_shape[0] <= 1:
            raise MXNetError("LibSVMIter: with label_libsvm, label_shape %s must be 1-D with "
                             "more than one value, (n,) with n > 1" % (label_shape,))
        if int(batch_size) <= 0:
            raise MXNetError("LibSVMIter: batch_size must be positive, got %r" % (batch_size,))
        if not round_batch or round_batch in ("False", "false", "0"):
            raise MXNetError("LibSVMIter: round_batch=False is not supported (nor is it by "
                             "MXNet's LibSVMIter): the last batch wraps to the first rows")
        if int(num_parts) <= 0 or not 0 <= int(part_index) < int(num_parts):
            raise MXNetError("LibSVMIter: part_index %r must be in [0, num_parts %r)"
                             % (part_index, num_parts))
        dtype = "float32" if dtype in (None, "None") else np.dtype(dtype).name
        if dtype not in _LIBSVM_DTYPES:
            raise MXNetError("LibSVMIter: dtype %r: expected one of %s"
                             % (dtype, ", ".join(_LIBSVM_DTYPES)))
        super().__init__(int(batch_size))
        part = (int(part_index), int(num_parts))
        labels, data = _libsvm_rows(_libsvm_part_lines(_libsvm_files(data_libsvm, "data"),
                                                       *part), data_shape[0], "data")
        if label_libsvm is not None:
            _, label_rows = _libsvm_rows(_libsvm_part_lines(
                _libsvm_files(label_libsvm, "label"), *part), label_shape[0], "label")
            if len(label_rows) < len(data):
                raise MXNetError("LibSVMIter: %s has %d lines in part %d of %d, fewer than the "
                                 "%d of %s" % (label_libsvm, len(label_rows), part[0], part[1],
                                               len(data), data_libsvm))
            labels = label_rows[:len(data)]
        if len(data) == 0:
            raise MXNetError("LibSVMIter: part %d of %d of %s holds no rows"
                             % (part[0], part[1], data_libsvm))
        if 2 * len(data) < self.batch_size:
            raise MXNetError("LibSVMIter: batch_size %d is more than twice the %d rows of part "
                             "%d of %d of %s (MXNet's limit: a batch wraps around once)"
                             % (self.batch_size, len(data), part[0], part[1], data_libsvm))
        self._data = data.astype(dtype)
        self._label = labels.astype(dtype)
        self._dtype = np.dtype(dtype).type
        self.provide_data = [DataDesc(data_name, (self.batch_size,) + data_shape, self._dtype)]
        self.provide_label = [DataDesc(label_name, (self.batch_size,) + self._label.shape[1:],
                                       self._dtype)]
        self._cursor = 0     # next row of the part
        self._wrapped = 0    # rows the last batch took from the part's start
        self._current = None

    @property
    def num_rows(self):
        """Rows in this iterator's part."""
        return len(self._data)

    def reset(self):
        # After a wrapped batch MXNet's loader has already rewound its reader:
        # the next epoch goes on from the rows the wrap took.
        if self._wrapped:
            self._wrapped = 0
        else:
            self._cursor = 0
        self._current = None

    def hard_reset(self):
        """Back to the first row of the part, whatever the last batch took."""
        self._wrapped = 0
        self._cursor = 0
        self._current = None

    def next(self):
        n = len(self._data)
        if self._wrapped or self._cursor >= n:
            raise StopIteration
        rows = np.arange(self._cursor, min(self._cursor + self.batch_size, n))
        self._cursor = rows[-1] + 1
        pad = self.batch_size - len(rows)
        if pad:
            if pad > n:
                from .base import MXNetError
                raise MXNetError("LibSVMIter: the last batch needs %d more rows to wrap to and "
                                 "the part holds %d: batch_size %d is too large for it (MXNet "
                                 "fails here too)" % (pad, n, self.batch_size))
            rows = np.concatenate([rows, np.arange(pad)])
            self._cursor = pad
            self._wrapped = pad
        return DataBatch(data=[nd.array(self._data[rows], dtype=self._dtype)],
                         label=[nd.array(self._label[rows], dtype=self._dtype)], pad=pad,
                         index=rows.astype(np.uint64), provide_data=self.provide_data,
                         provide_label=self.provide_label)

