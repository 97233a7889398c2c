"""mx.init: parameter initializers, run by the engine (train/initializer.h).

Dispatch is MXNet's: a variable's ``__init__`` attribute wins; otherwise the
name's suffix decides (*weight: this initializer, *bias/*beta/*moving_mean: 0,
*gamma/*moving_var: 1, ...). Draws come from the generator mx.random.seed sets.
"""
import json

import numpy as np

from .base import _core
from . import random as _random

__all__ = ["InitDesc", "Initializer", "Uniform", "Normal", "Xavier", "MSRAPrelu", "Zero", "One",
           "Constant", "create"]


class InitDesc(str):
    """A parameter's name with its variable's attributes (``attrs['__init__']``)."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


class Initializer:
    """Base class: subclasses give the engine's name (``_kind``) and their arguments."""

    _kind = None

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._engine = None

    def dumps(self):
        """MXNet's description string, e.g. '["xavier", {"magnitude": 3}]'."""
        return json.dumps([self._kind, self._kwargs])

    def _handle(self):
        if self._engine is None:
            self._engine = _core.create_initializer(self.dumps())
        return self._engine

    def __call__(self, desc, arr):
        """Initializes NDArray ``arr``, the parameter named by ``desc`` (a str or InitDesc)."""
        attrs = getattr(desc, "attrs", {}) or {}
        _core.init_parameter(self._handle(), str(desc), attrs.get("__init__", ""), arr._t,
                             _random._generator())

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__,
                           ", ".join("%s=%r" % kv for kv in sorted(self._kwargs.items())))


class Uniform(Initializer):
    """U(-scale, scale)."""
    _kind = "uniform"

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)


class Normal(Initializer):
    """N(0, sigma)."""
    _kind = "normal"

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)


class Xavier(Initializer):
    """Glorot: scale = sqrt(magnitude / factor), factor from fan in/out (avg, in, out)."""
    _kind = "xavier"

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)


class MSRAPrelu(Initializer):
    """He initialization for PReLU: Xavier gaussian with magnitude 2 / (1 + slope^2)."""
    _kind = "msraprelu"

    def __init__(self, factor_type="avg", slope=0.25):
        super().__init__(factor_type=factor_type, slope=slope)


class Zero(Initializer):
    _kind = "zero"


class One(Initializer):
    _kind = "one"


class Constant(Initializer):
    """Fills weights with ``value``: a number, or an array (NDArray, numpy,
    list) broadcast to the weight's shape."""
    _kind = "constant"

    def __init__(self, value):
        if hasattr(value, "asnumpy"):
            value = value.asnumpy()
        if isinstance(value, (list, tuple)) or hasattr(value, "tolist") and not np.isscalar(value):
            self._array = np.asarray(value, dtype=np.float64)
            super().__init__(value=self._array.tolist())
        else:
            self._array = None
            super().__init__(value=value)

    def _handle(self):
        # The engine's constant is a number; an array value is filled here
        # (below) and the engine handles the other names' rules (bias: 0, ...).
        if self._engine is None and self._array is not None:
            self._engine = _core.create_initializer(json.dumps(["constant", {"value": 0}]))
        return super()._handle()

    def __call__(self, desc, arr):
        attrs = getattr(desc, "attrs", {}) or {}
        if self._array is not None and not attrs.get("__init__") and str(desc).endswith("weight"):
            try:
                arr[:] = np.broadcast_to(self._array, arr.shape)
            except ValueError:
                raise ValueError("Constant: value of shape %s does not broadcast to %s's shape %s"
                                 % (self._array.shape, desc, arr.shape)) from None
            return
        super().__call__(desc, arr)


_BY_NAME = {c._kind: c for c in (Uniform, Normal, Xavier, MSRAPrelu, Zero, One, Constant)}
_BY_NAME.update({"zeros": Zero, "ones": One})


def create(init, **kwargs):
    """An initializer from an instance, a name ('xavier') or a dumps() string."""
    if isinstance(init, Initializer):
        return init
    if isinstance(init, str) and init.startswith("["):
        kind, args = json.loads(init)
        return _BY_NAME[kind.lower()](**args)
    if isinstance(init, str) and init.lower() in _BY_NAME:
        return _BY_NAME[init.lower()](**kwargs)
    raise ValueError("unknown initializer %r: expected one of %s" % (init, sorted(_BY_NAME)))
