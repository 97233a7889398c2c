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
from .attribute import AttrScope
from . import name
from . import random
from . import executor
from .executor import Executor
from . import initializer
from . import optimizer
from . import metric
from . import io
from . import model
from . import callback
from . import module

nd = ndarray
sym = symbol
init = initializer
mod = module


def _op_submodules():
    subs = {}
    for group in ("contrib", "linalg", "random", "image", "_internal"):
        full = "%s.symbol.%s" % (__name__, group)
        sub = _types.ModuleType(full, "mx.sym.%s: the registry's ops filed under %s" % (group, group))
        _sys.modules[full] = sub
        setattr(symbol, group, sub)
        subs[group] = sub
    return subs


_ops.populate(symbol, _op_submodules())
_ops.add_fluent_methods(symbol.Symbol, symbol)

__version__ = "1.9.1+symx"
