"""Devices: mx.cpu(), mx.gpu(), mx.Context and the default context."""
import threading

from .base import _core

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus"]


class Context:
    """A device: ``Context('cpu', 1)``, ``Context('gpu', 0)`` or another Context.

    ``rank`` names a device of another process of an mpirun job
    (``mx.cpu(0, rank=1)``, the engine's ``cpu(0)@rank1``) for group2ctx
    placement across ranks; None is this process's device. Used as a
    ``with`` block it becomes the default context on this thread.
    """

    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {v: k for k, v in devtype2str.items()}
    _default = threading.local()

    def __init__(self, device_type, device_id=0, rank=None):
        if rank is not None and (not isinstance(rank, int) or rank < 0):
            raise ValueError("rank must be a non-negative int or None, got %r" % (rank,))
        self.rank = rank
        if isinstance(device_type, Context):
            self.device_typeid = device_type.device_typeid
            self.device_id = device_type.device_id
            self.rank = device_type.rank if rank is None else rank
        else:
            if device_type not in Context.devstr2type:
                raise ValueError("unknown device type %r: expected one of %s"
                                 % (device_type, sorted(Context.devstr2type)))
            self.device_typeid = Context.devstr2type[device_type]
            self.device_id = int(device_id)
        self._old = None

    @property
    def device_type(self):
        return Context.devtype2str[self.device_typeid]

    def __hash__(self):
        return hash((self.device_typeid, self.device_id, self.rank))

    def __eq__(self, other):
        return (isinstance(other, Context) and self.device_typeid == other.device_typeid
                and self.device_id == other.device_id and self.rank == other.rank)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __str__(self):
        text = "%s(%d)" % (self.device_type, self.device_id)
        return text if self.rank is None else "%s@rank%d" % (text, self.rank)

    __repr__ = __str__

    def __enter__(self):
        self._old = current_context()
        Context._default.value = self
        return self

    def __exit__(self, *exc):
        Context._default.value = self._old


def _from_string(text):
    """A Context from the engine's text ("cpu(1)")."""
    kind, dev_id, rank = _core.parse_context(text)
    return Context(kind, dev_id, None if rank < 0 else rank)


def _as_context(ctx):
    if ctx is None:
        return current_context()
    if isinstance(ctx, Context):
        return ctx
    if isinstance(ctx, str):
        return _from_string(ctx)
    raise TypeError("expected a Context, got %r" % (ctx,))


def cpu(device_id=0, rank=None):
    """The CPU device ``device_id``; cpu(1), cpu(2)... are separate devices.
    ``rank``: another process's (see Context)."""
    return Context("cpu", device_id, rank)


def cpu_pinned(device_id=0):
    return Context("cpu_pinned", device_id)


def gpu(device_id=0, rank=None):
    """GPU ``device_id`` (binding to it fails clearly when the build has no GPU).
    ``rank``: another process's (see Context)."""
    return Context("gpu", device_id, rank)


def current_context():
    """The default context of this thread: cpu(0) unless a ``with ctx:`` block says otherwise."""
    ctx = getattr(Context._default, "value", None)
    return ctx if ctx is not None else Context("cpu", 0)


def num_gpus():
    """The gpu(N) devices this process can use: 0 when the extension was
    built without CUDA (pip install . on a machine without it, or
    SYMX_CUDA=0), or when no GPU and driver are present; with
    SYMX_LOGICAL_GPUS=K, K logical devices over the physical ones."""
    return _core.num_gpus()
