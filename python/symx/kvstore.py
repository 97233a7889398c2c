"""mx.kv (mx.kvstore): MXNet's KVStore API for one process.

The single-machine types ('local', 'device', 'nccl' and MXNet's other
local_* spellings) keep one value per key: ``push`` sums the values given
(one per device), applies the optimizer set by ``set_optimizer`` (MXNet's
update_on_kvstore) or stores the sum, and ``pull`` copies the stored value
out. 'device' (and 'nccl') take ``set_gradient_compression({'type': '2bit',
'threshold': t})`` as MXNet's device store does: each device's gradient,
plus what earlier rounding left over, is sent as -t, 0 or +t, and the rest
is kept for the next push.

The distributed types ('dist_sync', 'dist_device_sync', 'dist_async',
'horovod', 'byteps') need ranks, which the Python front cannot span yet:
creating one is an MXNetError naming it (the ``symx`` tool trains data
parallel under mpirun: ``mpirun -np N symx train``).
"""
import numpy as np

from .base import MXNetError
from . import optimizer as opt

__all__ = ["KVStore", "create"]

_LOCAL_TYPES = ("local", "device", "nccl", "local_update_cpu", "local_allreduce_cpu",
                "local_allreduce_device")
_DIST_TYPES = ("dist_sync", "dist_device_sync", "dist_sync_device", "dist_async", "dist",
               "horovod", "byteps")


def _pairs(key, value, what):
    """[(key, [arrays])] from MXNet's key/value forms: a key with an array
    or a list of arrays (one per device), or lists of both."""
    from .ndarray import NDArray
    if isinstance(key, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(key):
            raise MXNetError("kvstore %s: %d keys need a list of %d values" % (what, len(key),
                                                                              len(key)))
        out = []
        for k, v in zip(key, value):
            out.extend(_pairs(k, v, what))
        return out
    if not isinstance(key, (int, str)):
        raise MXNetError("kvstore %s: a key is an int or a str, got %s" % (what,
                                                                           type(key).__name__))
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    for v in values:
        if not isinstance(v, NDArray):
            raise MXNetError("kvstore %s of key %r: expected NDArrays, got %s"
                             % (what, key, type(v).__name__))
    return [(key, values)]


class KVStore:
    """One process's key-value store (see the module docstring)."""

    def __init__(self, kv_type="local"):
        self._type = kv_type
        self._store = {}
        self._updater = None
        self._threshold = None  # 2-bit compression's threshold, when set
        self._residuals = {}    # (key, device slot) -> what compression left over

    @property
    def type(self):
        return self._type

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

    def is_capable(self, capability):
        if capability.lower() == "optimizer":
            return True
        raise ValueError("Unknown capability: {}".format(capability))

    def _stored(self, key, what):
        if key not in self._store:
            raise MXNetError("kvstore %s: key %r has not been initialized (call init first)"
                             % (what, key))
        return self._store[key]

    def init(self, key, value):
        for k, values in _pairs(key, value, "init"):
            if k in self._store:
                raise MXNetError("kvstore init: duplicate init of key %r" % (k,))
            self._store[k] = values[0].copy()

    def _merged(self, key, values, stored):
        for v in values:
            if v.shape != stored.shape:
                raise MXNetError("kvstore push of key %r: shape %s differs from the stored %s"
                                 % (key, v.shape, stored.shape))
        if self._threshold is not None and len(values) > 1:
            values = [self._two_bit(key, slot, v) for slot, v in enumerate(values)]
        total = values[0].as_in_context(stored.context).copy()
        for v in values[1:]:
            total += v.as_in_context(stored.context)
        return total

    def _two_bit(self, key, slot, value):
        from .ndarray import array
        t = self._threshold
        r = self._residuals.get((key, slot))
        r = value.asnumpy().astype(np.float32) + (0 if r is None else r)
        q = np.where(r >= t, t, np.where(r <= -t, -t, 0)).astype(np.float32)
        self._residuals[(key, slot)] = r - q
        return array(q, ctx=value.context, dtype=value.dtype)

    def push(self, key, value, priority=0):
        for k, values in _pairs(key, value, "push"):
            stored = self._stored(k, "push")
            merged = self._merged(k, values, stored)
            if self._updater is not None:
                self._updater(k, merged, stored)
            else:
                merged.copyto(stored)

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        if out is None:
            raise MXNetError("kvstore pull: out= (the arrays to copy into) is required")
        for k, outs in _pairs(key, out, "pull"):
            stored = self._stored(k, "pull")
            for o in outs:
                if o.shape != stored.shape:
                    raise MXNetError("kvstore pull of key %r: out shape %s differs from the "
                                     "stored %s" % (k, o.shape, stored.shape))
                stored.copyto(o)

    def pushpull(self, key, value, out=None, priority=0):
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        raise MXNetError("kvstore row_sparse_pull: symx has no row_sparse arrays")

    def set_gradient_compression(self, compression_params):
        if "device" not in self._type and self._type != "nccl":
            raise MXNetError("Gradient compression is not supported for this type of kvstore "
                             "('%s'; 'device' has it)" % self._type)
        params = dict(compression_params)
        kind = params.pop("type", None)
        if kind != "2bit":
            raise MXNetError("gradient compression type must be '2bit', got %r" % (kind,))
        threshold = float(params.pop("threshold", 0.5))
        if params:
            raise MXNetError("gradient compression: unknown settings %s" % sorted(params))
        if not threshold > 0:
            raise MXNetError("gradient compression threshold must be greater than 0, got %s"
                             % threshold)
        self._threshold = threshold

    def set_optimizer(self, optimizer):
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater):
        self._updater = updater

    set_updater = _set_updater

    def _barrier(self):
        """One worker: nothing to wait for."""

    barrier = _barrier

    def save_optimizer_states(self, fname, dump_optimizer=False):
        if self._updater is None:
            raise MXNetError("kvstore save_optimizer_states: no optimizer (call set_optimizer)")
        with open(fname, "wb") as f:
            f.write(self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        if self._updater is None:
            raise MXNetError("kvstore load_optimizer_states: no optimizer (call set_optimizer)")
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())


def create(name="local"):
    """A KVStore of type ``name`` (see the module docstring)."""
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    name = name.lower()
    if name in _LOCAL_TYPES:
        return KVStore(name)
    if name in _DIST_TYPES or name.startswith("dist"):
        raise MXNetError("kvstore '%s' needs several ranks, which symx's Python front cannot "
                         "span yet; train data parallel under mpirun with the symx tool "
                         "(mpirun -np N symx train ...), or use 'local'/'device' here" % name)
    raise MXNetError("unknown kvstore type '%s' (known: %s)"
                     % (name, ", ".join(_LOCAL_TYPES + _DIST_TYPES)))
