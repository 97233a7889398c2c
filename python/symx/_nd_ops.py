"""The operator functions of mx.nd: every registered op, run at once on arrays.

MXNet's imperative calling convention: arrays given positionally (or as
lists) or by input name are the inputs, in the op's input order; values after
the inputs are the op's leading attributes (mx.nd.clip(x, 0, 1)); every other
keyword is an attribute, formatted as for symbols. ``out=`` (an array, or a
list for several outputs) receives the result and is returned; ``ctx=`` is the
context of an op without inputs (mx.nd._zeros), default the current context;
``name=`` is accepted and ignored, as in MXNet.

The engine runs the op through a one-op plan it caches by op, attributes,
shapes, dtypes and context (executor/imperative.h): the second call of a kind
is a lookup and the kernel. Calls finish before they return on hosts; on a GPU
reads of the result wait for the kernel.
"""
from .base import _core
from . import _ops

_WHAT = ("Runs now on the arrays' context and returns the result (a list for several\n"
         "outputs); out= writes into given arrays; attributes as mx.sym's.")


def invoke(op_name, *args, **kwargs):
    """Applies op ``op_name`` to arrays: the body of every mx.nd function."""
    from .ndarray import NDArray
    from .context import _as_context
    out = kwargs.pop("out", None)
    kwargs.pop("name", None)
    ctx = kwargs.pop("ctx", None)
    positional = [a._t for a in _ops.split_args(op_name, args, kwargs,
                                                lambda a: isinstance(a, NDArray))]
    named, attrs = [], {}
    for k, v in kwargs.items():
        if isinstance(v, NDArray):
            named.append((k, v._t))
        elif v is not None:
            attrs[k] = _ops._attr_text(k, v)
    if out is None:
        outs = []
    elif isinstance(out, NDArray):
        outs = [out._t]
    elif isinstance(out, (list, tuple)) and all(isinstance(o, NDArray) for o in out):
        outs = [o._t for o in out]
    else:
        raise TypeError("%s: out= must be an NDArray or a list of them, got %s"
                        % (op_name, type(out).__name__))
    if positional or named:
        ctx_text = None
    elif ctx is None and outs:
        ctx_text = outs[0].context  # MXNet: an op without inputs runs where out= is
    else:
        ctx_text = str(_as_context(ctx))
    result = _core.invoke(op_name, positional, named, attrs, outs, ctx_text, False)
    if out is not None:
        return out
    if len(result) == 1:
        return NDArray(result[0])
    return [NDArray(t) for t in result]


def populate(module, submodules, keep):
    """Adds every registered op to mx.nd (and its submodules), keeping the
    Python functions named in ``keep`` (mx.nd.zeros, ...)."""
    _ops.populate(module, submodules, caller=invoke, what=_WHAT, keep=keep)


def has_op(name):
    """Whether the engine registers op ``name`` (or an alias of that name)."""
    return name in _op_names()


_NAMES = None


def _op_names():
    global _NAMES
    if _NAMES is None:
        _NAMES = set()
        for name, aliases, _, _, _ in _core.list_ops():
            _NAMES.add(name)
            _NAMES.update(aliases)
    return _NAMES
