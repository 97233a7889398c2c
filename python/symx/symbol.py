"""mx.sym / mx.symbol: Symbol, Variable, Group, load and the operator functions.

A Symbol is a handle to the engine's immutable graph; every method is the
engine's (graph/symbol.h). The operator functions (mx.sym.FullyConnected, ...)
are generated from the engine's op registry by symx/_ops.py.
"""
import builtins
import json
import numbers
import warnings

import numpy as np

from .base import _core, MXNetError, NotImplementedForSymbol, numeric_types
from .context import Context, current_context
from . import ndarray as nd

__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json", "fromjson", "maximum",
           "minimum", "power", "pow", "hypot", "histogram", "zeros", "ones", "full", "arange",
           "auto_stages"]


def _dtype_name(dtype):
    return dtype if isinstance(dtype, str) and dtype == "bfloat16" else np.dtype(dtype).name


def _np_type(name):
    return None if name is None else (np.dtype(name).type if name != "bfloat16" else name)


class Symbol:
    """A symbolic graph: the outputs of a DAG of operators and variables."""

    __slots__ = ("_s", "__weakref__")

    def __init__(self, handle):
        self._s = handle

    @property
    def handle(self):
        return self._s

    # --- structure ----------------------------------------------------------
    @property
    def name(self):
        """The name of the node whose output(s) this symbol is (SliceChannel's
        several outputs too, as MXNet's); None for a group of nodes."""
        if self._s.num_outputs == 1:
            return self._s.name()
        names = {self[i]._s.name() for i in range(self._s.num_outputs)}
        return names.pop() if len(names) == 1 else None

    def __repr__(self):
        name = self.name
        if name is None:
            return "<Symbol group [%s]>" % ", ".join(s.name for s in self)
        return "<Symbol %s>" % name

    def __len__(self):
        return self._s.num_outputs

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index):
        if isinstance(index, str):
            if index not in self.list_outputs():  # MXNet's ValueError, not the engine's error
                raise ValueError('Cannot find output that matches name "%s"' % index)
            return Symbol(self._s.output_by_name(index))
        # builtins.slice: _ops.populate adds the op mx.sym.slice to this module's globals.
        if isinstance(index, builtins.slice):
            return Group([self[i] for i in range(len(self))[index]])
        if not isinstance(index, int):
            raise TypeError("Symbol only support integer index to fetch i-th output")
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("output index %d out of range for %d outputs" % (index, len(self)))
        return Symbol(self._s.output(index))

    def __copy__(self):
        return Symbol(self._s)

    def __deepcopy__(self, memo):
        return Symbol(self._s)

    def __getstate__(self):
        return {"json": self.tojson()}

    def __setstate__(self, state):
        self._s = _core.Symbol.from_json(state["json"])

    def __call__(self, *args, **kwargs):
        """A copy with arguments replaced: by position (list_arguments order) or by name."""
        kwargs.pop("name", None)
        if args and kwargs:
            raise TypeError("compose only accept input Symbols either as positional or keyword "
                            "arguments, not both")
        if args:
            names = self.list_arguments()
            if len(args) > len(names):
                raise TypeError("compose: %d positional symbols for %d arguments"
                                % (len(args), len(names)))
            kwargs = dict(zip(names, args))
        for k, v in kwargs.items():
            if not isinstance(v, Symbol):
                raise TypeError("Compose expect `Symbol` as arguments, got %s for %s" % (type(v), k))
        return Symbol(self._s.compose({k: v._s for k, v in kwargs.items()}))

    def get_internals(self):
        return Symbol(self._s.get_internals())

    def get_children(self):
        children = self._s.get_children()
        return Symbol(children) if children.num_outputs else None

    def list_arguments(self):
        return self._s.list_arguments()

    def list_outputs(self):
        return self._s.list_outputs()

    def list_auxiliary_states(self):
        return self._s.list_auxiliary_states()

    def list_inputs(self):
        return self._s.list_inputs()

    # --- attributes ---------------------------------------------------------
    def _one_node(self):
        """The engine symbol of this symbol's node: the symbol itself, or its
        first output when its several outputs are one node's (SliceChannel);
        None for a group of nodes (MXNet's attr then gives None)."""
        if self._s.num_outputs == 1:
            return self._s
        return self[0]._s if self.name is not None else None

    def attr(self, key):
        """The attribute ``key`` of this symbol's node, or None (also for a group)."""
        node = self._one_node()
        return None if node is None else node.attr(key)

    def list_attr(self, recursive=False):
        if recursive:
            raise DeprecationWarning("Symbol.list_attr with recursive=True has been deprecated. "
                                     "Please use attr_dict instead.")
        node = self._one_node()
        return {} if node is None else _with_plain_hidden(node.list_attr())

    def attr_dict(self):
        return {k: _with_plain_hidden(v) for k, v in self._s.attr_dict().items()}

    # --- inference ----------------------------------------------------------
    def _known_shapes(self, args, kwargs):
        if args and kwargs:
            raise ValueError("Can only specify known argument shapes either by positional or "
                             "kwargs way.")
        if args:
            return [_shape_list(s, "infer_shape: argument %d" % i) if s else None
                    for i, s in enumerate(args)]
        return {k: _shape_list(s, "infer_shape: " + k) for k, s in kwargs.items()}

    def infer_shape(self, *args, **kwargs):
        """(arg_shapes, out_shapes, aux_shapes) from the given input shapes.

        When they do not decide every shape, warns with the undecided
        arguments and returns (None, None, None), as MXNet does.
        """
        complete, arg, out, aux, missing = self._s.infer_shape(self._known_shapes(args, kwargs),
                                                               False)
        if not complete:
            # The engine's message is MXNet's whole warning, header included.
            warnings.warn(missing, stacklevel=2)
            return (None, None, None)
        return ([tuple(s) for s in arg], [tuple(s) for s in out], [tuple(s) for s in aux])

    def infer_shape_partial(self, *args, **kwargs):
        """Like infer_shape, with unknown dims as 0 and unknown shapes as ()."""
        _, arg, out, aux, _ = self._s.infer_shape(self._known_shapes(args, kwargs), True)
        return ([tuple(s) for s in arg], [tuple(s) for s in out], [tuple(s) for s in aux])

    def _infer_type(self, args, kwargs, partial):
        if args and kwargs:
            raise ValueError("Can only specify known argument types either by positional or "
                             "kwargs way.")
        if args:
            kwargs = {n: t for n, t in zip(self.list_arguments(), args) if t is not None}
        known = {k: _dtype_name(v) for k, v in kwargs.items()}
        complete, arg, out, aux, missing = self._s.infer_type(known, partial)
        if not complete and not partial:
            warnings.warn(missing, stacklevel=3)
            return (None, None, None)
        return ([_np_type(t) for t in arg], [_np_type(t) for t in out], [_np_type(t) for t in aux])

    def infer_type(self, *args, **kwargs):
        """(arg_types, out_types, aux_types) as numpy types, from the given input types."""
        return self._infer_type(args, kwargs, False)

    def infer_type_partial(self, *args, **kwargs):
        return self._infer_type(args, kwargs, True)

    # --- serialization ------------------------------------------------------
    def tojson(self):
        return self._s.tojson()

    def save(self, fname, remove_amp_cast=True):
        if not isinstance(fname, str):
            raise TypeError("fname need to be string")
        self._s.save(fname)

    def debug_str(self):
        return self._s.debug_str()

    # --- arithmetic ---------------------------------------------------------
    def _arith(self, other, op, reverse=False):
        if isinstance(other, Symbol):
            a, b = (other, self) if reverse else (self, other)
            return Symbol(_core.binary(op, a._s, b._s))
        if isinstance(other, numeric_types) or isinstance(other, np.generic):
            # MXNet stores the scalar as str() of the Python value: 2 -> "2", 0.5 -> "0.5".
            value = other.item() if isinstance(other, np.generic) else other
            return Symbol(_core.scalar(op, self._s, str(value), reverse))
        raise TypeError("type %s not supported" % str(type(other)))

    def __add__(self, o): return self._arith(o, "+")
    def __radd__(self, o): return self._arith(o, "+", True)
    def __sub__(self, o): return self._arith(o, "-")
    def __rsub__(self, o): return self._arith(o, "-", True)
    def __mul__(self, o): return self._arith(o, "*")
    def __rmul__(self, o): return self._arith(o, "*", True)
    def __truediv__(self, o): return self._arith(o, "/")
    def __rtruediv__(self, o): return self._arith(o, "/", True)
    def __neg__(self): return self._arith(-1.0, "*")

    def __pow__(self, other):
        from . import _ops
        if isinstance(other, Symbol):
            return _ops.call("_power", self, other)
        return _ops.call("_power_scalar", self, scalar=other)

    def __rpow__(self, other):
        from . import _ops
        return _ops.call("_rpower_scalar", self, scalar=other)

    def __abs__(self):
        from . import _ops
        return _ops.call("abs", self)

    def _compare(self, other, name):
        """MXNet's elementwise comparisons and mod: _<name> of two symbols of
        one shape (no broadcasting, as in MXNet), _<name>_scalar of a number."""
        from . import _ops
        if isinstance(other, Symbol):
            return _ops.call("_" + name, self, other)
        if isinstance(other, numeric_types) or isinstance(other, np.generic):
            value = other.item() if isinstance(other, np.generic) else other
            return _ops.call("_%s_scalar" % name, self, scalar=value)
        raise TypeError("type %s not supported" % str(type(other)))

    def __eq__(self, other): return self._compare(other, "equal")
    def __ne__(self, other): return self._compare(other, "not_equal")
    def __gt__(self, other): return self._compare(other, "greater")
    def __ge__(self, other): return self._compare(other, "greater_equal")
    def __lt__(self, other): return self._compare(other, "lesser")
    def __le__(self, other): return self._compare(other, "lesser_equal")
    def __mod__(self, other): return self._compare(other, "mod")

    def __rmod__(self, other):
        from . import _ops
        return _ops.call("_rmod_scalar", self, scalar=other)

    # Symbols stay usable as dict keys and in sets (by identity), although
    # == builds a comparison.
    __hash__ = object.__hash__

    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, "bool")

    # --- binding ------------------------------------------------------------
    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None, group2ctx=None,
             shared_exec=None):
        """An Executor for ``args`` (list in list_arguments order, or dict by name)."""
        from .executor import Executor
        if not isinstance(ctx, Context):
            raise TypeError("Context type error")
        _check_complete(args, "args", self.list_arguments(), False)
        _check_complete(args_grad, "args_grad", self.list_arguments(), True)
        _check_complete(aux_states, "aux_states", self.list_auxiliary_states(), False)
        handle = _core.bind(self._s, str(ctx), _arrays(args, "args"),
                            None if args_grad is None else _arrays(args_grad, "args_grad"),
                            _grad_req(grad_req, "bind"), _arrays(aux_states, "aux_states"),
                            _group2ctx(group2ctx), _exec_handle(shared_exec),
                            _job_ranks_for(ctx, group2ctx))
        return Executor(handle, self, ctx, group2ctx)

    def simple_bind(self, ctx, grad_req="write", type_dict=None, stype_dict=None, group2ctx=None,
                    shared_arg_names=None, shared_exec=None, shared_buffer=None, **kwargs):
        """Binds with every array allocated (zero-filled) from the shapes in ``kwargs``."""
        from .executor import Executor
        if not isinstance(ctx, Context):
            raise TypeError("Context type error")
        for name, stype in (stype_dict or {}).items():
            if stype not in (None, "default"):
                raise MXNetError("simple_bind: %s has storage type '%s'; symx has dense storage "
                                 "only (sparse storage is not supported yet)" % (name, stype))
        shapes = {name: _shape_list(shape, "simple_bind: the shape of " + name)
                  for name, shape in kwargs.items()}
        types = None
        if type_dict is not None:
            types = {_key(k, "type_dict"): _dtype_name(v) for k, v in type_dict.items()}
        buffer = None
        if shared_buffer is not None:
            if not isinstance(shared_buffer, dict):
                raise TypeError("shared_buffer must be a dict of str to NDArray")
            buffer = {}
            for k, v in shared_buffer.items():
                if not isinstance(v, nd.NDArray):
                    raise TypeError("shared_buffer[%r] must be an NDArray, got %s"
                                    % (k, type(v).__name__))
                buffer[_key(k, "shared_buffer")] = v._t
        handle, new_buffer = _core.simple_bind(
            self._s, str(ctx), shapes, _grad_req(grad_req, "simple_bind"), types,
            _group2ctx(group2ctx), [_key(n, "shared_arg_names") for n in shared_arg_names or []],
            _exec_handle(shared_exec), buffer, _job_ranks_for(ctx, group2ctx))
        if shared_buffer is not None:
            for k, t in new_buffer.items():
                old = shared_buffer.get(k)
                if old is None or not (old._t.same_storage(t) and old._t.offset == t.offset
                                       and old.shape == tuple(t.shape)):
                    shared_buffer[k] = nd.NDArray(t)
        return Executor(handle, self, ctx, group2ctx)

    def eval(self, ctx=None, **kwargs):
        """Binds with ``kwargs`` as the arguments, runs forward, returns the outputs."""
        ctx = current_context() if ctx is None else ctx
        return self.bind(ctx, kwargs).forward()


# Keys MXNet stores as __k__ and lists under both spellings.
_HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


def _with_plain_hidden(attrs):
    """``attrs`` with every hidden __k__ also under k, as MXNet lists them."""
    out = dict(attrs)
    for key in _HIDDEN_KEYS:
        dunder = "__%s__" % key
        if dunder in out:
            out.setdefault(key, out[dunder])
    return out


def _scalar_or_symbol(name, lhs, rhs, array_op, scalar_op, rscalar_op, py_fn):
    """MXNet's two-operand symbol functions: two symbols use the array op, a
    symbol and a number the scalar op (the reversed one when the number is on
    the left), two numbers Python's function."""
    from . import _ops
    if isinstance(lhs, Symbol) and isinstance(rhs, Symbol):
        return _ops.call(array_op, lhs, rhs)
    if isinstance(lhs, Symbol) and isinstance(rhs, numbers.Number):
        return _ops.call(scalar_op, lhs, scalar=rhs)
    if isinstance(rhs, Symbol) and isinstance(lhs, numbers.Number):
        return _ops.call(rscalar_op, rhs, scalar=lhs)
    if isinstance(lhs, numbers.Number) and isinstance(rhs, numbers.Number):
        return py_fn(lhs, rhs)
    raise TypeError("%s: types (%s, %s) not supported" % (name, type(lhs).__name__,
                                                          type(rhs).__name__))


def maximum(left, right):
    """Elementwise maximum of symbols and/or numbers."""
    return _scalar_or_symbol("maximum", left, right, "_maximum", "_maximum_scalar",
                             "_maximum_scalar", builtins.max)


def minimum(left, right):
    """Elementwise minimum of symbols and/or numbers."""
    return _scalar_or_symbol("minimum", left, right, "_minimum", "_minimum_scalar",
                             "_minimum_scalar", builtins.min)


def power(base, exp):
    """base ** exp for symbols and/or numbers."""
    return _scalar_or_symbol("power", base, exp, "_power", "_power_scalar", "_rpower_scalar",
                             builtins.pow)


pow = power  # noqa: A001 (MXNet's name)


def _create(op_name, **kwargs):
    from . import _ops  # symx/_ops.py imports this module
    return _ops.call(op_name, **kwargs)


# MXNet's creation functions over the _zeros/_ones/_full/_arange ops, float32
# unless given a dtype, as MXNet's.
def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros of ``shape`` (0 dims are inferred from its use)."""
    return _create("_zeros", shape=shape, dtype=dtype or np.float32, **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones of ``shape``."""
    return _create("_ones", shape=shape, dtype=dtype or np.float32, **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol of ``shape`` filled with ``val``."""
    return _create("_full", shape=shape, dtype=dtype or np.float32, value=float(val), **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """Evenly spaced values in [start, stop), each repeated ``repeat`` times."""
    return _create("_arange", start=start, stop=stop, step=step, repeat=repeat,
                   infer_range=infer_range, name=name, dtype=dtype or np.float32)


def hypot(left, right):
    """sqrt(left**2 + right**2) for symbols and/or numbers (MXNet's _hypot and
    _hypot_scalar ops)."""
    import math
    return _scalar_or_symbol("hypot", left, right, "_hypot", "_hypot_scalar", "_hypot_scalar",
                             math.hypot)


def histogram(a, bins=10, range=None, **kwargs):  # noqa: A002 (MXNet's name)
    """MXNet's mx.sym.histogram: counts of a's values and the bin edges, from a
    symbol of edges or a bin count over `range` (required here: a symbol has
    no values to take numpy's range from)."""
    from . import _ops
    if isinstance(bins, Symbol):
        return _ops.call("_histogram", a, bins, **kwargs)
    if isinstance(bins, numbers.Integral):
        if range is None:
            raise ValueError("null range is not supported in symbol mode")
        return _ops.call("_histogram", a, bin_cnt=bins, range=range, **kwargs)
    raise ValueError("bins argument should be either an integer or an NDArray")


def _check_complete(arrays, what, names, allow_missing):
    """MXNet's ValueErrors for a list of the wrong length or a dict missing a name
    (the engine finds them too, but raises MXNetError)."""
    if isinstance(arrays, (list, tuple)) and len(arrays) != len(names):
        raise ValueError("Length of %s does not match the number of arguments: expected %d (%s), "
                         "got %d" % (what, len(names), ", ".join(names), len(arrays)))
    if isinstance(arrays, dict) and not allow_missing:
        for name in names:
            if name not in arrays:
                raise ValueError("key `%s` is missing in `%s`" % (name, what))


def _arrays(arrays, what):
    if arrays is None:
        return None
    if isinstance(arrays, dict):
        for k, v in arrays.items():
            if not isinstance(k, str) or not isinstance(v, nd.NDArray):
                raise TypeError("Only accept list of NDArrays or dict of str to NDArray (%s)" % what)
        return {k: v._t for k, v in arrays.items()}
    if isinstance(arrays, (list, tuple)):
        for v in arrays:
            if v is not None and not isinstance(v, nd.NDArray):
                raise TypeError("Only accept list of NDArrays or dict of str to NDArray (%s)" % what)
        return [None if v is None else v._t for v in arrays]
    raise TypeError("Only accept list of NDArrays or dict of str to NDArray (%s)" % what)


def _key(name, what):
    if not isinstance(name, str):
        raise TypeError("%s: names must be strings, got %r" % (what, name))
    return name


def _shape_list(shape, what):
    """A shape tuple of ints as a list; anything else is a TypeError naming ``what``."""
    if not isinstance(shape, tuple) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
        raise TypeError("%s must be a shape (a tuple of ints), got %r" % (what, shape))
    return [int(d) for d in shape]


def _grad_req(grad_req, what):
    """grad_req checked: None, a str, a list of str or a dict of str to str."""
    def check(v):
        if not isinstance(v, str):
            raise TypeError("%s: grad_req values must be 'write', 'add' or 'null', got %r"
                            % (what, v))
        return v
    if grad_req is None or isinstance(grad_req, str):
        return grad_req
    if isinstance(grad_req, (list, tuple)):
        return [check(v) for v in grad_req]
    if isinstance(grad_req, dict):
        return {_key(k, what + " grad_req"): check(v) for k, v in grad_req.items()}
    raise TypeError("%s: grad_req must be a str, list or dict, got %s"
                    % (what, type(grad_req).__name__))


def _exec_handle(shared_exec):
    from .executor import Executor
    if shared_exec is None:
        return None
    if not isinstance(shared_exec, Executor):
        raise TypeError("shared_exec must be an Executor, got %s" % type(shared_exec).__name__)
    return shared_exec._handle


def _job_ranks_for(ctx, group2ctx):
    """The mpirun job's ranks when a context names another rank's device
    (a cross-rank bind, collective over the job), else None."""
    named = [c for c in [ctx] + list((group2ctx or {}).values())
             if isinstance(c, Context) and c.rank is not None]
    if not named:
        return None
    from . import kvstore
    ranks = kvstore.job_ranks()
    if ranks is None:
        raise MXNetError("%s is a device of another rank, but this process was not started by "
                         "an MPI launcher (mpirun -np N python ...)" % named[0])
    for c in named:
        if c.rank >= ranks.size:
            raise MXNetError("%s names rank %d, but the job has %d ranks (0-%d)"
                             % (c, c.rank, ranks.size, ranks.size - 1))
    return ranks


def _group2ctx(group2ctx):
    if not group2ctx:
        return {}
    out = {}
    for group, ctx in group2ctx.items():
        if not isinstance(ctx, Context):
            raise TypeError("group2ctx: the context of group %s must be a Context, got %r"
                            % (group, ctx))
        out[group] = str(ctx)
    return out


def Variable(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None,
             stype=None, **kwargs):
    """A variable (an argument of the graph) with optional shape, dtype, init and attributes."""
    if not isinstance(name, str):
        raise TypeError("Expect a string for variable `name`")
    attrs = {k: str(v) for k, v in (attr or {}).items()}
    for k, v in kwargs.items():
        if k.startswith("__") and k.endswith("__"):
            attrs[k] = str(v)
        else:
            raise ValueError("Attribute name=%s is not supported. Additional attributes must start "
                             "and end with double underscores, e.g, __yourattr__" % k)
    if stype not in (None, "default"):
        raise MXNetError("Variable %s: storage type '%s' is not supported (symx has dense storage "
                         "only)" % (name, stype))
    if init is not None and not isinstance(init, str):
        if not hasattr(init, "dumps"):
            raise TypeError("Variable %s: init must be an initializer or its dumps() string, got %r"
                            % (name, init))
        init = init.dumps()
    if shape is not None:
        shape = list(shape)
    # As MXNet: the multipliers are stored as str() of what was given (1 -> "1").
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    return Symbol(_core.Symbol.variable(name, shape, None if dtype is None else _dtype_name(dtype),
                                        init or "", None, None, attrs))


var = Variable


def Group(symbols):
    """One symbol whose outputs are all of ``symbols``' outputs."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError("Expected a list of symbols as input")
    return Symbol(_core.Symbol.group([s._s for s in symbols]))


def load(fname):
    """A symbol from a JSON file written by save (or by MXNet)."""
    if not isinstance(fname, str):
        raise TypeError("fname need to be string")
    return Symbol(_core.Symbol.load(fname))


def load_json(json_str):
    if not isinstance(json_str, str):
        raise TypeError("json_str need to be string")
    return Symbol(_core.Symbol.from_json(json_str))


fromjson = load_json


def auto_stages(symbol, num_stages, flops_per_byte=64.0, **shapes):
    """`symbol` cut into `num_stages` contiguous pipeline stages balanced by
    estimated cost (symx's own; MXNet has no equivalent): every node gets the
    ctx_group "stage1".."stageN" (replacing any it had), weights with their
    layer. Give the input shapes as keywords (data=(32, 784)). Returns the new
    symbol and a report dict: stage_flops, stage_cost, cut_bytes, first_ops,
    balance (slowest / mean stage cost), replaced_groups, summary. Place the
    stages with group2ctx (e.g. {"stage2": mx.cpu(0, rank=1)})."""
    if not isinstance(symbol, Symbol):
        raise TypeError("auto_stages takes a Symbol, got %s" % type(symbol).__name__)
    known = {k: [int(d) for d in v] for k, v in shapes.items()}
    staged, report = _core.auto_stages(symbol._s, int(num_stages), known, float(flops_per_byte))
    return Symbol(staged), dict(report)
