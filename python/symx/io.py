"""mx.io: DataDesc, DataBatch, DataIter, NDArrayIter and the built-in digits."""
from collections import OrderedDict, namedtuple

import numpy as np

from .base import _core
from . import ndarray as nd

__all__ = ["DataDesc", "DataBatch", "DataIter", "NDArrayIter", "synthetic_digits"]


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


def synthetic_digits(num_train=6000, num_test=1000, seed=7):
    """symx's built-in 10-class digits (28x28, no files needed; train/data.h).

    Returns {'train_data', 'train_label', 'test_data', 'test_label'} numpy arrays,
    like MXNet's test_utils.get_mnist(): data float32 (N, 1, 28, 28) in [0, 1].
    """
    tx, ty, vx, vy = _core.synthetic_digits(int(num_train), int(num_test), int(seed))
    return {"train_data": tx.numpy(False).copy(), "train_label": ty.numpy(False).copy(),
            "test_data": vx.numpy(False).copy(), "test_label": vy.numpy(False).copy()}
