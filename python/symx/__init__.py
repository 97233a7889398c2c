"""symx: MXNet 1.x's symbolic API over the symx engine.

    import symx as mx
    x = mx.sym.Variable('x')
    y = mx.sym.FullyConnected(x, num_hidden=4)
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req='null')
    exe.forward()
"""
import sys as _sys
import types as _types

from . import base
from .base import MXNetError
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus
from . import ndarray
from . import symbol
from . import _ops
from . import _nd_ops
from .attribute import AttrScope
from . import name
from . import random
from . import executor
from .executor import Executor
from . import initializer
from . import lr_scheduler
from . import optimizer
from . import metric
from . import io
from . import recordio
from . import image
from . import model
from . import callback
from . import monitor
from . import module
from . import kvstore
from . import kvstore as kv
from . import rnn

nd = ndarray
sym = symbol
init = initializer
mod = module
mon = monitor


def _op_submodules(package, short, groups):
    """mx.sym.contrib, mx.nd.linalg, ...: a module per op group, filled by
    the op lists (MXNet files prefixed ops there: mx.sym.contrib.box_nms is
    _contrib_box_nms)."""
    subs = {}
    for group in groups:
        full = "%s.%s.%s" % (__name__, package.__name__.rsplit(".", 1)[-1], group)
        sub = _types.ModuleType(full, "mx.%s.%s: the registry's ops filed under %s"
                                % (short, group, group))
        _sys.modules[full] = sub
        setattr(package, group, sub)
        subs[group] = sub
    return subs


_GROUPS = ("contrib", "linalg", "random", "image", "_internal")
_ops.populate(symbol, _op_submodules(symbol, "sym", _GROUPS))
_ops.add_fluent_methods(symbol.Symbol, symbol)
# mx.nd: the same ops, run at once; mx.nd.op holds every one of them. The
# Python functions MXNet also has (zeros, array, ...) stay as they are.
_nd_ops.populate(ndarray, _op_submodules(ndarray, "nd", _GROUPS + ("op",)),
                 keep=set(ndarray.__all__))
_ops.add_fluent_methods(ndarray.NDArray, ndarray)
# MXNet's Python wrappers of the contrib update ops (mx.nd.contrib.adamw_update, ...).
from . import _nd_contrib_updates  # noqa: E402
for _fn in _nd_contrib_updates.WRAPPERS:
    setattr(ndarray.contrib, _fn.__name__, _fn)
for _name, _fn in _nd_contrib_updates.SYMBOL_WRAPPERS.items():
    setattr(symbol.contrib, _name, _fn)
del _fn, _name
# MXNet's control flow builders: mx.sym.contrib.foreach traces a body into
# a _foreach node; mx.nd.contrib.foreach runs it eagerly (and while_loop, cond).
from . import _control_flow  # noqa: E402
for _name in ("foreach", "while_loop", "cond"):
    setattr(symbol.contrib, _name, getattr(_control_flow, _name))
    setattr(ndarray.contrib, _name, getattr(_control_flow, "nd_" + _name))
del _name
from . import _contrib_extras  # noqa: E402
ndarray.contrib.rand_zipfian = _contrib_extras.nd_rand_zipfian
symbol.contrib.rand_zipfian = _contrib_extras.sym_rand_zipfian
for _name in ("isinf", "isfinite", "isnan"):
    setattr(ndarray.contrib, _name, getattr(_contrib_extras, _name))
del _name
# MXNet's samplers of mx.nd.random / mx.sym.random (scalars: _random_X, arrays:
# _sample_X).
from . import _random_wrappers  # noqa: E402
_random_wrappers.install(ndarray.random, symbol.random)

__version__ = "1.9.1+symx"
