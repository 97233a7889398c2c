"""Optimizer state files (.states) in MXNet 1.x's format.

MXNet's Updater.get_states pickles a dict {index: state} (state: an NDArray,
a tuple of them, or None), or a (states, optimizer) pair. Its NDArrays pickle
as the class mxnet.ndarray.ndarray.NDArray rebuilt from (None,) with the state
{'handle': bytearray}, the bytes being one array in NDArray::Save's layout:

    uint32 magic      0xF993FAC9 (legacy shapes) or 0xF993FACA (numpy shapes)
    int32  stype      0: dense (the only kind these files hold)
    int32  ndim, int64 dims[ndim]
    int32  dev_type, int32 dev_id      (absent when the array is empty)
    int32  type_flag  (mshadow's dtype codes)
    raw values, little endian

dumps writes states so MXNet 1.9.1 loads them (the class named as MXNet's,
the handle a bytearray, which MXNet's __setstate__ needs to be writable); a
pickled optimizer (dump_optimizer) and its schedule are named as MXNet's
classes of the same name where MXNet 1.9.1 has one (their attributes are
MXNet's), so MXNet loads and steps them; others (AdamW, a user's subclass)
keep their own module's name.
loads reads MXNet's files and ours: MXNet's NDArray, optimizer and
lr_scheduler classes map to symx's of the same name. Any other class of
mxnet's is refused by name rather than guessed.
"""
import io
import pickle
import struct

import numpy as np

from .base import MXNetError

_MAGIC_V2 = 0xF993FAC9
_MAGIC_V3 = 0xF993FACA
_DENSE = 0
# mshadow's type flags.
_FLAG_OF = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5,
            "int64": 6, "bool": 7, "bfloat16": 12}
_NAME_OF = {v: k for k, v in _FLAG_OF.items()}


def ndarray_to_raw(arr):
    """One NDArray's bytes in NDArray::Save's layout (MXNDArraySaveRawBytes)."""
    dtype = arr.dtype if isinstance(arr.dtype, str) else np.dtype(arr.dtype).name
    if dtype not in _FLAG_OF:
        raise MXNetError("cannot save an NDArray of dtype %s in MXNet's format" % dtype)
    shape = arr.shape
    # A 0-d array is a scalar only in the numpy-shape layout: in the legacy
    # one ndim 0 means "no array".
    magic = _MAGIC_V2 if shape else _MAGIC_V3
    out = [struct.pack("<Iii", magic, _DENSE, len(shape)),
           struct.pack("<%dq" % len(shape), *shape)]
    ctx = arr.context
    out.append(struct.pack("<ii", ctx.device_typeid, ctx.device_id))
    out.append(struct.pack("<i", _FLAG_OF[dtype]))
    if dtype == "bfloat16":
        # The values are exact bfloat16 numbers: their bits are the top half
        # of the float32 bits.
        bits = np.ascontiguousarray(arr.astype("float32").asnumpy()).view(np.uint32) >> 16
        out.append(bits.astype("<u2").tobytes())
    else:
        out.append(np.ascontiguousarray(arr.asnumpy()).astype(np.dtype(dtype).newbyteorder("<"))
                   .tobytes())
    return b"".join(out)


def ndarray_from_raw(buf):
    """An NDArray on cpu from NDArray::Save's bytes (MXNDArrayLoadFromRawBytes)."""
    from . import ndarray as nd
    buf = bytes(buf)
    where = "an NDArray in an optimizer state file"
    try:
        magic, stype, ndim = struct.unpack_from("<Iii", buf, 0)
        if magic not in (_MAGIC_V2, _MAGIC_V3):
            raise MXNetError("%s: bad magic number 0x%08x (expected 0x%08x)"
                             % (where, magic, _MAGIC_V2))
        if stype != _DENSE:
            raise MXNetError("%s: storage type %d is not supported (only dense arrays)"
                             % (where, stype))
        if ndim < 0:
            raise MXNetError("%s: the array has no shape" % where)
        pos = 12
        shape = struct.unpack_from("<%dq" % ndim, buf, pos)
        pos += 8 * ndim
        if ndim == 0 and magic == _MAGIC_V2:
            raise MXNetError("%s: the array is empty (no shape)" % where)
        if any(d < 0 for d in shape):
            raise MXNetError("%s: unknown dimension in shape %s" % (where, shape))
        pos += 8  # the context it was saved from: it loads on cpu
        (flag,) = struct.unpack_from("<i", buf, pos)
        pos += 4
    except struct.error:
        raise MXNetError("%s is truncated (%d bytes)" % (where, len(buf))) from None
    if flag not in _NAME_OF:
        raise MXNetError("%s: unknown dtype code %d" % (where, flag))
    dtype = _NAME_OF[flag]
    count = int(np.prod(shape, dtype=np.int64))
    item = 2 if dtype == "bfloat16" else np.dtype(dtype).itemsize
    if len(buf) - pos != count * item:
        raise MXNetError("%s holds %d bytes of values; shape %s of %s needs %d"
                         % (where, len(buf) - pos, tuple(shape), dtype, count * item))
    if dtype == "bfloat16":
        bits = np.frombuffer(buf, dtype="<u2", count=count, offset=pos).astype(np.uint32) << 16
        return nd.array(bits.view(np.float32).reshape(shape), dtype="bfloat16")
    values = np.frombuffer(buf, dtype=np.dtype(dtype).newbyteorder("<"), count=count, offset=pos)
    return nd.array(values.reshape(shape), dtype=dtype)


class _MXNetNDArray:
    """What an MXNet NDArray unpickles into before its state arrives: MXNet
    pickles NDArray(None) then sets {'handle': bytes}."""

    def __init__(self, _handle=None):
        self.array = None

    def __setstate__(self, state):
        handle = state.get("handle") if isinstance(state, dict) else None
        self.array = None if handle is None else ndarray_from_raw(handle)


def _resolve(obj, seen=None):
    """Replaces the stand-ins by the NDArrays they hold, in dicts, lists and
    tuples (where MXNet's states keep them) and in the attributes of the
    objects a pickled optimizer brings (LBSGD's summed gradients)."""
    if isinstance(obj, _MXNetNDArray):
        return obj.array
    if isinstance(obj, dict):
        return {k: _resolve(v, seen) for k, v in obj.items()}
    if isinstance(obj, tuple):
        return tuple(_resolve(v, seen) for v in obj)
    if isinstance(obj, list):
        return [_resolve(v, seen) for v in obj]
    if hasattr(obj, "__dict__") and type(obj).__module__.startswith("symx."):
        seen = set() if seen is None else seen
        if id(obj) not in seen:
            seen.add(id(obj))
            obj.__dict__.update(_resolve(dict(obj.__dict__), seen))
    return obj


class _Unpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module == "mxnet.ndarray.ndarray" and name == "NDArray":
            return _MXNetNDArray
        if module.startswith("mxnet.optimizer"):
            from . import optimizer
            klass = getattr(optimizer, name, None) or getattr(optimizer.contrib, name, None)
            if klass is None:
                raise MXNetError("the state file holds MXNet's optimizer %s.%s, which symx "
                                 "does not have" % (module, name))
            return klass
        if module == "mxnet.lr_scheduler":
            from . import lr_scheduler
            if not hasattr(lr_scheduler, name):
                raise MXNetError("the state file holds MXNet's scheduler %s.%s, which symx "
                                 "does not have" % (module, name))
            return getattr(lr_scheduler, name)
        if module == "mxnet" or module.startswith("mxnet."):
            raise MXNetError("the state file holds %s.%s, which symx cannot load"
                             % (module, name))
        return super().find_class(module, name)


def loads(data):
    """The object get_states pickled (MXNet's or symx's), NDArrays on cpu."""
    try:
        return _resolve(_Unpickler(io.BytesIO(data)).load())
    except MXNetError:
        raise
    except Exception as e:  # pickle's errors are many: name the file kind
        raise MXNetError("cannot read optimizer states: %s: %s" % (type(e).__name__, e)) from None


class _Pickler(pickle._Pickler):  # the Python one: its save_global can be overridden
    def reducer_override(self, obj):
        from .ndarray import NDArray
        if isinstance(obj, NDArray):
            return (_MXNetNDArray, (None,), {"handle": bytearray(ndarray_to_raw(obj))})
        return NotImplemented

    def save_global(self, obj, name=None):
        # Named as MXNet's class, so MXNet loads the file; loads maps it back.
        target = _mxnet_name(obj)
        if target is not None:
            self.write(pickle.GLOBAL + ("%s\n%s\n" % target).encode("ascii"))
            self.memoize(obj)
            return
        super().save_global(obj, name)


# MXNet 1.9.1's optimizer classes (mxnet.optimizer.optimizer; GroupAdaGrad
# in mxnet.optimizer.contrib) and schedules (mxnet.lr_scheduler).
_MXNET_OPTIMIZERS = ("SGD", "Signum", "FTML", "LARS", "LBSGD", "LAMB", "DCASGD", "NAG", "SGLD",
                     "ccSGD", "Adam", "AdaGrad", "RMSProp", "AdaDelta", "Ftrl", "Adamax",
                     "Nadam", "Test")
_MXNET_SCHEDULERS = ("FactorScheduler", "MultiFactorScheduler", "PolyScheduler",
                     "CosineScheduler")


def _mxnet_name(obj):
    """(module, name) of MXNet's class for symx's ``obj``, or None."""
    if obj is _MXNetNDArray:
        return ("mxnet.ndarray.ndarray", "NDArray")
    module = getattr(obj, "__module__", "") or ""
    name = getattr(obj, "__qualname__", "")
    if module in ("symx._sgd_optimizers", "symx._nd_optimizers", "symx._lamb_optimizer") and \
            name in _MXNET_OPTIMIZERS:
        return ("mxnet.optimizer.optimizer", name)
    if module == "symx._optimizer_contrib" and name == "GroupAdaGrad":
        return ("mxnet.optimizer.contrib", name)
    if module == "symx.lr_scheduler" and name in _MXNET_SCHEDULERS:
        return ("mxnet.lr_scheduler", name)
    return None


def dumps(obj):
    """Pickles states as MXNet's Updater.get_states does, NDArrays as MXNet's."""
    out = io.BytesIO()
    _Pickler(out, protocol=4).dump(obj)  # MXNet 1.9.1 on Python 3.8+ writes 4
    return out.getvalue()
