"""mx.kv (mx.kvstore): MXNet's KVStore API.

The single-machine types ('local', 'device', 'nccl' and MXNet's other
local_* spellings) keep one value per key: ``push`` sums the values given
(one per device), applies the optimizer set by ``set_optimizer`` (MXNet's
update_on_kvstore) or stores the sum, and ``pull`` copies the stored value
out. 'device' (and 'nccl') take ``set_gradient_compression({'type': '2bit',
'threshold': t})`` as MXNet's device store does: each device's gradient,
plus what earlier rounding left over, is sent as -t, 0 or +t, and the rest
is kept for the next push.

The synchronous distributed types ('dist_sync', 'dist_device_sync',
'dist_sync_device', 'dist') span the ranks of an ``mpirun -np N python
script.py`` job over the engine's MPI communicator; there are no server
processes. ``init`` gives every rank rank 0's value; ``push`` sums the
values of this process's devices, then over the ranks (an allreduce), and
every rank applies the optimizer to its copy of the stored value (the sum is
the same bits on every rank, so the copies stay equal: what MXNet's servers
compute, without the round trip). ``rank``/``num_workers`` are the job's;
run without a launcher the store is a job of one. Every collective ends
after SYMX_COMM_TIMEOUT seconds (default 300) with an MXNetError naming the
rank at fault, and an exception that ends the script on one rank ends the
job (MPI_Abort), so no rank waits forever. 'dist_async' (asynchronous
servers), 'horovod' and 'byteps' are refused with the reason.
"""
import numpy as np

from .base import MXNetError
from . import optimizer as opt

__all__ = ["KVStore", "create"]

_LOCAL_TYPES = ("local", "device", "nccl", "local_update_cpu", "local_allreduce_cpu",
                "local_allreduce_device")
_DIST_SYNC_TYPES = ("dist_sync", "dist_device_sync", "dist_sync_device", "dist")
_DIST_TYPES = _DIST_SYNC_TYPES + ("dist_async", "horovod", "byteps")


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
            self._store[k] = self._initial(k, values[0].copy())

    def _initial(self, key, value):
        """The value a key starts from: this process's."""
        return value

    def _merged(self, key, values, stored):
        for v in values:
            if v.shape != stored.shape:
                raise MXNetError("kvstore push of key %r: shape %s differs from the stored %s"
                                 % (key, v.shape, stored.shape))
        if self._threshold is not None and len(values) > 1 and self._compresses_devices:
            values = [self._two_bit(key, slot, v) for slot, v in enumerate(values)]
        total = values[0].as_in_context(stored.context).copy()
        for v in values[1:]:
            total += v.as_in_context(stored.context)
        return total

    def _across_ranks(self, key, merged):
        """One process's sum is the whole sum."""
        return merged

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
            merged = self._across_ranks(k, self._merged(k, values, stored))
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

    # 2-bit compression: which types take it (MXNet's device stores), and
    # whether each device's value is compressed (a dist store compresses its
    # process's sum instead, _across_ranks).
    _compresses_devices = True

    def _takes_compression(self):
        return "device" in self._type or self._type == "nccl"

    def set_gradient_compression(self, compression_params):
        if not self._takes_compression():
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
    if name in _DIST_SYNC_TYPES:
        return DistKVStore(name)
    if name in _DIST_TYPES or name.startswith("dist"):
        raise MXNetError("kvstore '%s': symx runs no parameter servers, so there is no "
                         "asynchronous update; 'dist_sync' trains the same script over the "
                         "ranks of mpirun -np N with synchronous allreduce" % name)
    raise MXNetError("unknown kvstore type '%s' (known: %s)"
                     % (name, ", ".join(_LOCAL_TYPES + _DIST_TYPES)))


def _comm_timeout():
    """SYMX_COMM_TIMEOUT in seconds (default 300), read when ranks start."""
    import os
    text = os.environ.get("SYMX_COMM_TIMEOUT", "300")
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:
        raise MXNetError("SYMX_COMM_TIMEOUT must be a positive number of seconds, got %r" % text)
    return value


_job = []  # the job's ranks once started: [Ranks] (MPI starts once per process)


def job_ranks():
    """The ranks of this mpirun job (the engine's MPI communicator), started
    on first use, or None when no launcher started this process."""
    from . import base
    core = base._core
    if _job:
        return _job[0]
    if not core.mpi_launched():
        return None
    ranks = core.mpi_world(_comm_timeout())
    _job.append(ranks)
    _end_job_with_the_script(core, ranks)
    return ranks


def _end_job_with_the_script(core, ranks):
    """MPI must finalize on every rank after the script, and an uncaught
    exception on one rank must end the others (they would wait in their next
    collective for the rest of their timeout, or in MPI_Finalize for ever):
    the exception is printed, then MPI_Abort makes mpirun end every rank."""
    import atexit
    import sys
    atexit.register(core.finalize_mpi)
    previous = sys.excepthook

    def abort_job(kind, value, tb):
        previous(kind, value, tb)
        if ranks.size > 1:
            sys.stderr.write("symx: rank %d ends the job after an uncaught %s\n"
                             % (ranks.rank, kind.__name__))
            sys.stderr.flush()
            ranks.abort("uncaught %s on rank %d" % (kind.__name__, ranks.rank))

    sys.excepthook = abort_job


def _through_host(arrays, collective):
    """Runs ``collective`` (on a list of engine tensors, in place) over the
    NDArrays ``arrays``, through host copies for those on a device: the
    communicator moves host memory."""
    from .context import cpu
    hosts = [a if a.context.device_type == "cpu" else a.as_in_context(cpu()) for a in arrays]
    collective([h._t for h in hosts])
    for a, h in zip(arrays, hosts):
        if h is not a:
            a._t.copy_from(h._t)


def sum_over_ranks(ranks, arrays):
    """Each NDArray of ``arrays`` becomes its sum over the job's ranks, in place."""
    _through_host(arrays, lambda tensors: ranks.allreduce(tensors, "sum"))


def broadcast_from_rank0(ranks, arrays):
    """Each NDArray of ``arrays`` takes rank 0's values, in place."""
    _through_host(arrays, lambda tensors: ranks.broadcast(tensors, 0))


def job_rank():
    """This process's rank in its mpirun job once ranks have started (a
    distributed kvstore made, or a cross-rank bind), else 0."""
    return _job[0].rank if _job else 0


_log_rank = [0]  # a cross-rank Module's output rank; else 0


def logs_here():
    """Whether Module.fit and Speedometer log on this rank: rank 0, or in a
    Module split across ranks (group2ctxs) the rank holding its outputs,
    where the metric is."""
    return job_rank() == _log_rank[0]


class DistKVStore(KVStore):
    """The synchronous distributed store over the job's ranks (see the
    module docstring)."""

    def __init__(self, kv_type):
        KVStore.__init__(self, kv_type)
        self._ranks = job_ranks()

    @property
    def rank(self):
        return 0 if self._ranks is None else self._ranks.rank

    @property
    def num_workers(self):
        return 1 if self._ranks is None else self._ranks.size

    _compresses_devices = False

    def _takes_compression(self):
        return True  # every distributed type, as MXNet's dist stores

    def _initial(self, key, value):
        # MXNet's servers keep the value rank 0 initialized the key with.
        # (value is init's own copy.)
        if self._ranks is not None and self._ranks.size > 1:
            broadcast_from_rank0(self._ranks, [value])
        return value

    def _across_ranks(self, key, merged):
        # (merged is a fresh array: _merged's sum, or _two_bit's.)
        if self._threshold is not None:
            # MXNet's dist stores compress what a worker sends: the sum of
            # its devices' gradients (slot -1: the process's push).
            merged = self._two_bit(key, -1, merged)
        if self._ranks is not None and self._ranks.size > 1:
            sum_over_ranks(self._ranks, [merged])
        return merged

    def _barrier(self):
        if self._ranks is not None and self._ranks.size > 1:
            self._ranks.barrier()

    barrier = _barrier

    @property
    def ranks(self):
        """The job's ranks (the engine's communicator), or None for a job of one."""
        return self._ranks
