"""mx.nd: NDArray, the engine's tensor seen from Python.

An NDArray is a handle to an engine Tensor; arrays an executor binds or
returns (``exe.arg_arrays``, ``exe.outputs``) are the executor's own memory,
so ``exe.arg_arrays[0][:] = 1`` or ``+=`` changes what the next ``forward``
reads. numpy sees that memory without copying through the buffer protocol;
``asnumpy()`` returns a copy, as MXNet's does.

Every registered op is a function here (mx.nd.dot, mx.nd.FullyConnected,
mx.nd.contrib.box_nms, ...) and the fluent methods are methods (x.sum(axis=1)):
the engine runs them at once through cached one-op plans (symx/_nd_ops.py).
Arithmetic and comparisons are those ops, as in MXNet: two arrays broadcast
(broadcast_add), an array and a scalar use the scalar op (_plus_scalar), and
the in-place forms write into the array (x += 1 is _plus_scalar with out=x).
Results have the operands' dtype and context.
"""
import numbers
import warnings

import numpy as np

from ..base import _core, MXNetError
from .. import _nd_ops
from ..context import Context, current_context, _as_context, _from_string

__all__ = ["NDArray", "array", "zeros", "ones", "empty", "full", "arange", "save", "load",
           "waitall", "add", "subtract", "multiply", "divide", "true_divide", "modulo", "power",
           "maximum", "minimum", "equal", "not_equal", "greater", "greater_equal", "lesser",
           "lesser_equal", "logical_and", "logical_or", "logical_xor", "hypot", "concatenate",
           "moveaxis", "onehot_encode", "from_numpy", "load_frombuffer", "histogram"]

_DEFAULT_DTYPE = "float32"


def _dtype_name(dtype):
    """The engine's name of a numpy-style dtype (np.float32, 'float32', ...)."""
    if dtype is None:
        return _DEFAULT_DTYPE
    if isinstance(dtype, str) and dtype == "bfloat16":
        return dtype
    return np.dtype(dtype).name


def _shape_tuple(shape):
    if isinstance(shape, numbers.Integral):
        return (int(shape),)
    return tuple(int(d) for d in shape)


class NDArray:
    """An n-dimensional array on a device (MXNet 1.x's legacy NDArray)."""

    __slots__ = ("_t", "__weakref__")
    # numpy defers to NDArray's reflected operators (np.float32(2) * nd).
    __array_priority__ = 1000.0

    def __init__(self, handle):
        if not isinstance(handle, _core.Tensor):
            raise TypeError("NDArray wraps an engine Tensor; use mx.nd.array() to make one")
        self._t = handle

    # --- properties ---------------------------------------------------------
    @property
    def handle(self):
        return self._t

    @property
    def shape(self):
        return tuple(self._t.shape)

    @property
    def dtype(self):
        name = self._t.dtype
        return np.dtype(name).type if name != "bfloat16" else name

    @property
    def context(self):
        return _from_string(self._t.context)

    ctx = context

    @property
    def size(self):
        return int(self._t.size)

    @property
    def ndim(self):
        return len(self._t.shape)

    @property
    def stype(self):
        return "default"

    @property
    def T(self):
        if self.ndim > 2:
            raise ValueError("Only 2D matrix is allowed to be transposed")
        return _nd_ops.invoke("transpose", self)

    # --- numpy interop ------------------------------------------------------
    def _host(self):
        """This array's tensor, or a host copy of it when it lives on another device
        (bfloat16, which numpy lacks, as float32)."""
        t = self._t
        if t.dtype == "bfloat16":
            return t.copy_to_new("cpu(0)", "float32")
        if t.context.startswith("cpu"):
            return t
        return t.copy_to_new("cpu(0)", t.dtype)

    def _view(self):
        """A writable numpy view of this array's memory (host arrays only)."""
        return self._t.numpy(True)

    def asnumpy(self):
        """A numpy copy of the array (bfloat16 arrays come back as float32)."""
        return np.array(self._host().numpy(False), copy=True)

    def asscalar(self):
        if self.size != 1:
            raise ValueError("The current array is not a scalar")
        return self.asnumpy().reshape(-1)[0]

    def __array__(self, dtype=None):
        out = self.asnumpy()
        return out if dtype is None else out.astype(dtype)

    def wait_to_read(self):
        """Returns at once: engine calls finish before they return."""

    def wait_to_write(self):
        """Returns at once: engine calls finish before they return."""

    # --- copies and conversions ---------------------------------------------
    def copyto(self, other):
        """Copies into ``other`` (an NDArray of the same size) or to a new array on a Context."""
        if isinstance(other, NDArray):
            if other.shape != self.shape:
                raise MXNetError("copyto: shape mismatch, source %s, destination %s"
                                 % (self.shape, other.shape))
            if other._t.same_storage(self._t) and other._t.offset == self._t.offset:
                return other  # the same memory
            other._t.copy_from(self._t)
            return other
        if isinstance(other, Context):
            return NDArray(self._t.copy_to_new(str(other), self._t.dtype))
        raise TypeError("copyto does not support type " + str(type(other)))

    def copy(self):
        return self.copyto(self.context)

    def as_in_context(self, context):
        context = _as_context(context)
        if context == self.context:
            return self
        return self.copyto(context)

    def astype(self, dtype, copy=True):
        name = _dtype_name(dtype)
        if not copy and name == self._t.dtype:
            return self
        return NDArray(self._t.copy_to_new(self._t.context, name))

    def reshape(self, *shape, **kwargs):
        """A view with another shape; -1 infers one dim, 0 keeps the input's dim."""
        if len(shape) == 1 and not isinstance(shape[0], numbers.Integral):
            shape = shape[0]
        shape = kwargs.get("shape", shape)
        dims = []
        for i, d in enumerate(shape):
            dims.append(self.shape[i] if d == 0 and i < self.ndim else int(d))
        if dims.count(-1) > 1:
            raise ValueError("reshape: at most one dim may be -1, got %s" % (tuple(shape),))
        if -1 in dims:
            known = int(np.prod([d for d in dims if d != -1]))
            if known == 0 or self.size % known:
                raise ValueError("cannot reshape array of shape %s into %s" % (self.shape, tuple(shape)))
            dims[dims.index(-1)] = self.size // known
        if int(np.prod(dims)) != self.size:
            raise ValueError("cannot reshape array of shape %s into %s" % (self.shape, tuple(shape)))
        return NDArray(self._t.view(dims))

    def flatten(self):
        return self.reshape((self.shape[0], -1)) if self.ndim else self.reshape((1, 1))

    # --- indexing -----------------------------------------------------------
    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        for i in range(self.shape[0]):
            yield self[i]

    def __getitem__(self, key):
        # Integers and step-1 slices on the first axis are views, as in MXNet;
        # anything else is a copy.
        if isinstance(key, numbers.Integral) and self.ndim >= 1:
            n = self.shape[0]
            i = int(key) + n if key < 0 else int(key)
            if not 0 <= i < n:
                raise IndexError("index %d is out of bounds for axis 0 with size %d" % (key, n))
            row = self._t.slice(i, i + 1)
            return NDArray(row if self.ndim == 1 else row.view(list(self.shape[1:])))
        if isinstance(key, slice) and key.step in (None, 1) and self.ndim >= 1:
            begin, end, _ = key.indices(self.shape[0])
            return NDArray(self._t.slice(begin, max(begin, end)))
        return array(self.asnumpy()[key], ctx=self.context, dtype=self._t.dtype)

    def __setitem__(self, key, value):
        if self.ndim == 0 and isinstance(key, slice) and key == slice(None):
            # x[:] = v on a 0-d array sets its element (MXNet 1.9.1 takes a
            # numpy source there; numpy itself refuses the slice)
            key = ()
        if not self._t.context.startswith("cpu") or self._t.dtype == "bfloat16":
            host = self.asnumpy()
            host[key] = _as_numpy(value)
            self._t.copy_from(array(host, dtype=self._t.dtype)._t)
            return
        if isinstance(value, NDArray) and isinstance(key, slice) and key == slice(None):
            if value.shape != self.shape:
                raise ValueError("cannot assign an array of shape %s to one of shape %s"
                                 % (value.shape, self.shape))
            self._t.copy_from(value._t)
            return
        self._view()[key] = _as_numpy(value)

    # --- arithmetic (the engine's ops, as MXNet's) ---------------------------
    def _inplace(self, other, name):
        array_op, scalar_op, _, host = _UFUNCS[name]
        if not _on_engine(self, other):
            array_op = scalar_op = None
        if isinstance(other, numbers.Number) and scalar_op is not None:
            return _nd_ops.invoke(scalar_op, self, scalar=float(other), out=self)
        if array_op is not None and scalar_op is not None:
            value = _as_nd(other, self)
            if value is NotImplemented:
                raise TypeError("type %s not supported" % type(other).__name__)
            return _nd_ops.invoke(array_op, self, value, out=self)
        self[:] = _host_ufunc(self, other, host)  # no engine op yet
        return self

    def __add__(self, o): return add(self, o)
    def __radd__(self, o): return add(o, self)
    def __sub__(self, o): return subtract(self, o)
    def __rsub__(self, o): return subtract(o, self)
    def __mul__(self, o): return multiply(self, o)
    def __rmul__(self, o): return multiply(o, self)
    def __truediv__(self, o): return divide(self, o)
    def __rtruediv__(self, o): return divide(o, self)
    def __mod__(self, o): return modulo(self, o)
    def __rmod__(self, o): return modulo(o, self)
    def __pow__(self, o): return power(self, o)
    def __rpow__(self, o): return power(o, self)
    def __iadd__(self, o): return self._inplace(o, "add")
    def __isub__(self, o): return self._inplace(o, "subtract")
    def __imul__(self, o): return self._inplace(o, "multiply")
    def __itruediv__(self, o): return self._inplace(o, "divide")
    def __imod__(self, o): return self._inplace(o, "modulo")
    def __neg__(self):
        if not _on_engine(self):
            return _host_ufunc(self, -1, np.multiply)
        return _nd_ops.invoke("negative", self)

    def __abs__(self):
        if not _on_engine(self):
            return _host_ufunc(self, 0, lambda a, _: np.abs(a))
        return _nd_ops.invoke("abs", self)

    # Comparisons give 1/0 arrays of the operands' dtype, as MXNet's.
    def _compare(self, o, name):
        out = _ufunc(name, self, o)
        if out is NotImplemented:  # MXNet: x == None is an error, not False
            raise TypeError("type %s not supported" % type(o).__name__)
        return out

    def __eq__(self, o): return self._compare(o, "equal")
    def __ne__(self, o): return self._compare(o, "not_equal")
    def __lt__(self, o): return self._compare(o, "lesser")
    def __le__(self, o): return self._compare(o, "lesser_equal")
    def __gt__(self, o): return self._compare(o, "greater")
    def __ge__(self, o): return self._compare(o, "greater_equal")
    __hash__ = object.__hash__

    def __bool__(self):
        if self.size == 1:
            return bool(self.asnumpy().reshape(-1)[0])
        if self.size == 0:
            return False
        raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")

    def __float__(self):
        return float(self.asscalar())

    def __int__(self):
        return int(self.asscalar())

    # sum, mean, max, min, norm, argmax, ... are the fluent methods of their ops.

    def __repr__(self):
        shape_info = "x".join("%d" % d for d in self.shape)
        return "\n%s\n<%s %s @%s>" % (str(self.asnumpy()), type(self).__name__, shape_info,
                                      self.context)

    def __reduce__(self):
        return (_rebuild, (self.asnumpy(), str(self.context)))


def _rebuild(values, ctx):
    return array(values, ctx=_from_string(ctx), dtype=values.dtype)


# Python operator -> (op on two arrays, op with the scalar on the right, op
# with the scalar on the left, numpy's function); None: no engine op yet.
_UFUNCS = {
    "add": ("broadcast_add", "_plus_scalar", "_plus_scalar", np.add),
    "subtract": ("broadcast_sub", "_minus_scalar", "_rminus_scalar", np.subtract),
    "multiply": ("broadcast_mul", "_mul_scalar", "_mul_scalar", np.multiply),
    "divide": ("broadcast_div", "_div_scalar", "_rdiv_scalar", np.true_divide),
    "modulo": ("broadcast_mod", "_mod_scalar", "_rmod_scalar", np.mod),
    "power": ("broadcast_power", "_power_scalar", "_rpower_scalar", np.power),
    "maximum": ("broadcast_maximum", "_maximum_scalar", "_maximum_scalar", np.maximum),
    "minimum": ("broadcast_minimum", "_minimum_scalar", "_minimum_scalar", np.minimum),
    "equal": ("broadcast_equal", "_equal_scalar", "_equal_scalar", np.equal),
    "not_equal": ("broadcast_not_equal", "_not_equal_scalar", "_not_equal_scalar", np.not_equal),
    "greater": ("broadcast_greater", "_greater_scalar", "_lesser_scalar", np.greater),
    "greater_equal": ("broadcast_greater_equal", "_greater_equal_scalar",
                      "_lesser_equal_scalar", np.greater_equal),
    "lesser": ("broadcast_lesser", "_lesser_scalar", "_greater_scalar", np.less),
    "lesser_equal": ("broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar",
                     np.less_equal),
    "logical_and": ("broadcast_logical_and", "_logical_and_scalar", "_logical_and_scalar",
                    np.logical_and),
    "logical_or": ("broadcast_logical_or", "_logical_or_scalar", "_logical_or_scalar",
                   np.logical_or),
    "logical_xor": ("broadcast_logical_xor", "_logical_xor_scalar", "_logical_xor_scalar",
                    np.logical_xor),
    "hypot": ("broadcast_hypot", "_hypot_scalar", "_hypot_scalar", np.hypot),
}


# The dtypes the engine's arithmetic kernels take; integer and bool arrays
# compute in numpy until they do (MXNet computes them natively).
_ENGINE_DTYPES = frozenset(["float32", "float64", "float16", "bfloat16"])


def _on_engine(*operands):
    """Whether every array among ``operands`` has a dtype the engine's
    arithmetic takes (numpy arrays count by their own dtype)."""
    for v in operands:
        if isinstance(v, NDArray):
            if v._t.dtype not in _ENGINE_DTYPES:
                return False
        elif isinstance(v, np.ndarray) and v.dtype.name not in _ENGINE_DTYPES:
            return False
    return True


def _as_nd(value, like):
    """``value`` as an NDArray beside ``like`` (numpy arrays and lists are
    copied in, with like's dtype); NotImplemented for other types."""
    if isinstance(value, NDArray):
        return value
    if isinstance(value, (np.ndarray, list, tuple)):
        return array(value, ctx=like.context, dtype=like._t.dtype)
    return NotImplemented


def _host_ufunc(lhs, rhs, fn):
    """numpy's ``fn`` on host copies, as an array of the array operand's
    dtype and context (for what the engine has no op for). A scalar is first
    cast to that dtype, as MXNet's scalar ops do (int32 array * 0.5 is 0)."""
    like = lhs if isinstance(lhs, NDArray) else rhs
    dtype = np.dtype(like._t.dtype) if like._t.dtype != "bfloat16" else np.dtype(np.float32)

    def operand(v):
        if isinstance(v, numbers.Number):
            return np.array(v).astype(dtype)
        return _as_numpy(v)
    out = fn(operand(lhs), operand(rhs))
    return array(np.asarray(out), ctx=like.context, dtype=like._t.dtype)


def _ufunc(name, lhs, rhs):
    """MXNet's helper behind add, subtract, ...: scalars use the scalar ops,
    two arrays the broadcasting op."""
    array_op, scalar_op, rscalar_op, host = _UFUNCS[name]
    lhs_scalar = isinstance(lhs, numbers.Number)
    rhs_scalar = isinstance(rhs, numbers.Number)
    if lhs_scalar and rhs_scalar:
        return host(lhs, rhs)
    if (array_op is not None and isinstance(lhs, NDArray) and isinstance(rhs, NDArray)
            and lhs._t.dtype != rhs._t.dtype):
        # MXNet refuses two dtypes; the engine's op says which.
        return _nd_ops.invoke(array_op, lhs, rhs)
    if array_op is None or not _on_engine(lhs, rhs):
        return _host_ufunc(lhs, rhs, host)
    if rhs_scalar:
        return _nd_ops.invoke(scalar_op, lhs, scalar=float(rhs))
    if lhs_scalar:
        return _nd_ops.invoke(rscalar_op, rhs, scalar=float(lhs))
    if not isinstance(lhs, NDArray):
        lhs = _as_nd(lhs, rhs)
    else:
        rhs = _as_nd(rhs, lhs)
    if lhs is NotImplemented or rhs is NotImplemented:
        return NotImplemented
    return _nd_ops.invoke(array_op, lhs, rhs)


def add(lhs, rhs): return _ufunc("add", lhs, rhs)
def subtract(lhs, rhs): return _ufunc("subtract", lhs, rhs)
def multiply(lhs, rhs): return _ufunc("multiply", lhs, rhs)
def divide(lhs, rhs): return _ufunc("divide", lhs, rhs)
def modulo(lhs, rhs): return _ufunc("modulo", lhs, rhs)
def power(base, exp): return _ufunc("power", base, exp)
def maximum(lhs, rhs): return _ufunc("maximum", lhs, rhs)
def minimum(lhs, rhs): return _ufunc("minimum", lhs, rhs)
def equal(lhs, rhs): return _ufunc("equal", lhs, rhs)
def not_equal(lhs, rhs): return _ufunc("not_equal", lhs, rhs)
def greater(lhs, rhs): return _ufunc("greater", lhs, rhs)
def greater_equal(lhs, rhs): return _ufunc("greater_equal", lhs, rhs)
def lesser(lhs, rhs): return _ufunc("lesser", lhs, rhs)
def lesser_equal(lhs, rhs): return _ufunc("lesser_equal", lhs, rhs)
def logical_and(lhs, rhs): return _ufunc("logical_and", lhs, rhs)
def logical_or(lhs, rhs): return _ufunc("logical_or", lhs, rhs)
def logical_xor(lhs, rhs): return _ufunc("logical_xor", lhs, rhs)
def hypot(lhs, rhs): return _ufunc("hypot", lhs, rhs)


def histogram(a, bins=10, range=None):  # noqa: A002 (MXNet's name)
    """MXNet's mx.nd.histogram: counts of a's values (flattened) and the bin
    edges. `bins` is an NDArray of edges, or a bin count over `range`; a count
    without a range takes numpy's edges over a's minimum and maximum, with a
    warning, as MXNet does."""
    if isinstance(bins, NDArray):
        return _nd_ops.invoke("_histogram", a, bins)
    if isinstance(bins, numbers.Integral):
        if range is None:
            warnings.warn("range is not specified, using numpy's result to ensure consistency "
                          "with numpy")
            counts, edges = np.histogram(a.asnumpy(), bins=bins)
            return array(counts, ctx=a.context), array(edges, ctx=a.context)
        return _nd_ops.invoke("_histogram", a, bin_cnt=bins, range=range)
    raise ValueError("bins argument should be either an integer or an NDArray")


true_divide = divide


def _as_numpy(value):
    if isinstance(value, NDArray):
        return value.asnumpy()
    return value


def array(source_array, ctx=None, dtype=None):
    """A new array holding a copy of ``source_array`` (a list, numpy array or NDArray).

    dtype: float32 unless given, or the source's dtype when it is an NDArray.
    """
    if isinstance(source_array, NDArray):
        dtype = source_array._t.dtype if dtype is None else dtype
        source_array = source_array.asnumpy()
    name = _dtype_name(dtype)
    # np.asarray(order="C"), not np.ascontiguousarray: the latter turns a
    # scalar into shape (1,), where MXNet keeps it 0-d (a head gradient of a
    # 0-d output, mx.nd.array(5)).
    if name == "bfloat16":
        host = NDArray(_core.from_buffer(np.asarray(source_array, dtype=np.float32, order="C"),
                                         "float32", "cpu(0)"))
        return host.as_in_context(_as_context(ctx)).astype("bfloat16")
    try:
        values = np.asarray(source_array, dtype=np.dtype(name), order="C")
    except (TypeError, ValueError) as e:
        raise TypeError("source_array must be array like object: %s" % e) from None
    return NDArray(_core.from_buffer(values, name, str(_as_context(ctx))))


def empty(shape, ctx=None, dtype=None):
    """An array of uninitialized values."""
    return NDArray(_core.empty(list(_shape_tuple(shape)), _dtype_name(dtype), str(_as_context(ctx))))


def zeros(shape, ctx=None, dtype=None, **kwargs):
    return NDArray(_core.zeros(list(_shape_tuple(shape)), _dtype_name(dtype), str(_as_context(ctx))))


def full(shape, val, ctx=None, dtype=None, out=None):
    arr = empty(shape, ctx, dtype) if out is None else out
    arr._t.fill(float(val))
    return arr


def ones(shape, ctx=None, dtype=None, **kwargs):
    return full(shape, 1, ctx, dtype)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=None):
    """Evenly spaced values in [start, stop), each repeated ``repeat`` times."""
    values = np.arange(start, stop, step, dtype=np.float64)
    if repeat > 1:
        values = np.repeat(values, int(repeat))
    return array(values, ctx=ctx, dtype=dtype)


def waitall():
    """Returns at once: every engine call has finished when it returns."""


def save(fname, data):
    """Saves an NDArray, a list of them or a str->NDArray dict in MXNet's format."""
    if isinstance(data, NDArray):
        data = [data]
    if isinstance(data, dict):
        names = list(data.keys())
        arrays = list(data.values())
        if not all(isinstance(k, str) for k in names):
            raise TypeError("save only accepts dict str->NDArray or list of NDArray")
    elif isinstance(data, (list, tuple)):
        names, arrays = [], list(data)
    else:
        raise TypeError("save only accepts dict str->NDArray or list of NDArray")
    for a in arrays:
        if not isinstance(a, NDArray):
            raise TypeError("save only accepts dict str->NDArray or list of NDArray")
    _core.save_params(str(fname), names, [a._t for a in arrays])


def load(fname):
    """Loads a file written by save (or MXNet's mx.nd.save): a list or a dict."""
    names, tensors = _core.load_params(str(fname))
    arrays = _wrap_all(tensors)
    if names:
        return dict(zip(names, arrays))
    return arrays


def load_frombuffer(buf):
    """What load reads from a file, from bytes (MXNet's mx.nd.load_frombuffer)."""
    import os
    import tempfile
    if not isinstance(buf, (bytes, bytearray)):
        raise TypeError("load_frombuffer needs bytes, got %s" % type(buf).__name__)
    fd, path = tempfile.mkstemp(suffix=".params")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(buf)
        return load(path)
    finally:
        os.remove(path)


def concatenate(arrays, axis=0, always_copy=True):
    """The arrays joined along ``axis`` (MXNet's mx.nd.concatenate), on the
    first array's context; one array is returned as is unless always_copy."""
    if not arrays:
        raise ValueError("concatenate needs at least one array")
    if len(arrays) == 1 and not always_copy:
        return arrays[0]
    ctx = arrays[0].context
    return _nd_ops.invoke("Concat", *[a.as_in_context(ctx) for a in arrays], dim=axis,
                          num_args=len(arrays))


def moveaxis(tensor, source, destination):
    """``tensor`` with axis ``source`` moved to ``destination`` (numpy's rule)."""
    ndim = tensor.ndim
    source = source + ndim if source < 0 else source
    destination = destination + ndim if destination < 0 else destination
    if not (0 <= source < ndim and 0 <= destination < ndim):
        raise ValueError("moveaxis: axes (%d, %d) out of range for %d dims"
                         % (source, destination, ndim))
    order = [a for a in range(ndim) if a != source]
    order.insert(destination, source)
    return _nd_ops.invoke("transpose", tensor, axes=tuple(order))


def onehot_encode(indices, out):
    """Writes the one-hot rows of ``indices`` into ``out`` (MXNet's legacy form)."""
    depth = out.shape[1]
    return _nd_ops.invoke("one_hot", indices, depth=depth, dtype=out.dtype, out=out)


def from_numpy(ndarray, zero_copy=True):
    """An NDArray holding ``ndarray``'s values (a copy: the engine owns its memory)."""
    return array(ndarray, dtype=ndarray.dtype)


def _wrap_all(tensors):
    """NDArrays for engine tensors; None (an undefined tensor) stays None."""
    return [NDArray(t) if t is not None else None for t in tensors]
