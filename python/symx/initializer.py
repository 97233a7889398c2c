"""mx.init: parameter initializers, with MXNet 1.9.1's rules.

Calling an initializer with ``(InitDesc(name, attrs), arr)`` follows MXNet:
the variable's ``__init__`` attribute (another initializer's dumps() string
or name) wins; otherwise the name's suffix picks a hook: *weight ->
_init_weight (the initializer's own rule), *bias / *beta / *min -> 0,
*gamma / *max -> 1, *weight_quantize / *bias_quantize -> the quantized
rules, anything else is a ValueError. Called with a plain str name, the older
rules apply (MXNet's "legacy" path, with its DeprecationWarning): upsampling*
-> bilinear, stn_loc* weights 0 and biases the identity transform, and the
moving_mean / moving_var / moving_inv_var / moving_avg statistics too.

The random rules (uniform, normal, xavier, msraprelu, and orthogonal's draw)
run in the engine (train/initializer.h) from the generator mx.random.seed
sets. Subclasses override the _init_* hooks, as with MXNet; @register and
@alias make them known to create() by name.
"""
import functools
import json
import logging
import math
import re
import warnings

import numpy as np

from .base import _core
from . import ndarray as _nd
from . import random as _random

__all__ = ["InitDesc", "Initializer", "register", "alias", "create", "Load", "Mixed", "Zero",
           "One", "Constant", "Uniform", "Normal", "Orthogonal", "Xavier", "MSRAPrelu",
           "Bilinear", "LSTMBias", "FusedRNN"]


class InitDesc(str):
    """A parameter's name with its variable's attributes (``attrs['__init__']``)
    and the initializer to fall back on (``global_init``, set on first call)."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


def _check_array(arr, who):
    if not isinstance(arr, _nd.NDArray):
        raise TypeError("%s: the array to initialize must be an NDArray, got %s"
                        % (who, type(arr).__name__))


@functools.lru_cache(maxsize=64)
def _engine_handle(desc):
    return _core.create_initializer(desc)


def _engine_fill(desc, name, arr):
    """Fills ``arr`` with the engine's initializer ``desc`` (a dumps()-style
    string), drawing from mx.random's generator."""
    _core.init_parameter(_engine_handle(desc), str(name), desc, arr._t, _random._generator())


def _number(value, what):
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    elif isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return float(value)
    raise TypeError("%s must be a number, got %r" % (what, value))


class Initializer:
    """Base class. Subclasses set their arguments through ``__init__(**kwargs)``
    (what dumps() writes) and override ``_init_weight`` (and any other hook)."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Logs (logging.info) each array initialized, with ``print_func(arr)``:
        by default the root mean square, norm(arr) / sqrt(size). Returns self."""
        self._verbose = verbose
        if print_func is None:
            def print_func(x):
                return str((x.norm() / math.sqrt(x.size)).asscalar())
        self._print_func = print_func
        return self

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self):
        """The description MXNet writes: '["classname", {kwargs}]' (the class
        name in lower case), e.g. '["normal", {"sigma": 0.5}]'."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, desc, arr):
        """Initializes NDArray ``arr``, the parameter ``desc`` (an InitDesc, or
        a plain str for the legacy rules)."""
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        _check_array(arr, "initializing %s" % desc)
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        # The order matters: "fc_weight_quantize" ends with neither weight nor bias.
        for suffix, hook in (("weight", self._init_weight), ("bias", self._init_bias),
                             ("gamma", self._init_gamma), ("beta", self._init_beta),
                             ("min", self._init_zero), ("max", self._init_one),
                             ("weight_quantize", self._init_quantized_weight),
                             ("bias_quantize", self._init_quantized_bias)):
            if desc.endswith(suffix):
                hook(desc, arr)
                self._verbose_print(desc, suffix, arr)
                return
        self._init_default(desc, arr)

    def _legacy_init(self, name, arr):
        """MXNet's rules for a plain str name (deprecated there, and here)."""
        warnings.warn("Calling an initializer with init(str, NDArray) is deprecated; use "
                      "init(mx.init.InitDesc(...), NDArray) instead", DeprecationWarning,
                      stacklevel=3)
        if not isinstance(name, str):
            raise TypeError("initializer: the parameter name must be a str or InitDesc, got %s"
                            % type(name).__name__)
        _check_array(arr, "initializing %s" % name)
        ends = name.endswith
        if name.startswith("upsampling"):
            self._init_bilinear(name, arr)
        elif name.startswith("stn_loc") and ends("weight"):
            self._init_zero(name, arr)
        elif name.startswith("stn_loc") and ends("bias"):
            self._init_loc_bias(name, arr)
        elif ends("bias"):
            self._init_bias(name, arr)
        elif ends("gamma"):
            self._init_gamma(name, arr)
        elif ends("beta"):
            self._init_beta(name, arr)
        elif ends("weight"):
            self._init_weight(name, arr)
        elif ends("moving_mean") or ends("moving_inv_var") or ends("moving_avg") or ends("min"):
            self._init_zero(name, arr)
        elif ends("moving_var") or ends("max"):
            self._init_one(name, arr)
        else:
            self._init_default(name, arr)

    # --- hooks ----------------------------------------------------------------
    def _init_bilinear(self, name, arr):
        """Bilinear upsampling kernels: w[.., y, x] = (1 - |x/f - c|)(1 - |y/f - c|)
        with f = ceil(width / 2), c = (2f - 1 - f % 2) / 2f, computed in float64
        and stored as float32 values (whatever arr's dtype)."""
        shape = arr.shape
        if len(shape) != 4:
            raise ValueError("Bilinear initializer: %s must be 4-D (out, in, height, width), "
                             "got shape %s" % (name, shape))
        if arr.size == 0:
            return
        f = np.ceil(shape[3] / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        along_x = 1 - np.abs(np.arange(shape[3]) / f - c)
        along_y = 1 - np.abs(np.arange(shape[2]) / f - c)
        kernel = (along_y[:, None] * along_x[None, :]).astype(np.float32)
        arr[:] = np.broadcast_to(kernel, shape)

    def _init_loc_bias(self, name, arr):
        if arr.shape != (6,):
            raise ValueError("initializer: %s (a spatial transformer's localisation bias) must "
                             "have shape (6,), got %s" % (name, arr.shape))
        arr[:] = np.array([1.0, 0, 0, 0, 1.0, 0])

    def _init_zero(self, _, arr):
        arr[:] = 0.0

    def _init_one(self, _, arr):
        arr[:] = 1.0

    def _init_bias(self, _, arr):
        arr[:] = 0.0

    def _init_quantized_bias(self, _, arr):
        arr[:] = 0

    def _init_gamma(self, _, arr):
        arr[:] = 1.0

    def _init_beta(self, _, arr):
        arr[:] = 0.0

    def _init_weight(self, name, arr):
        raise NotImplementedError("%s does not define _init_weight, so it cannot initialize %s"
                                  % (type(self).__name__, name))

    def _init_quantized_weight(self, name, arr):
        # As MXNet: one integer drawn from [-127, 127) fills the whole array.
        draw = _nd.zeros((1,), dtype="float64")
        _engine_fill(json.dumps(["uniform", {"scale": 127.0}]), name, draw)
        arr[:] = np.int8(min(math.floor(draw.asnumpy()[0]), 126))

    def _init_default(self, name, _):
        raise ValueError(
            "Unknown initialization pattern for %s: without an __init__ attribute only names "
            'ending in "weight", "bias", "gamma" (1.0), "beta" (0.0), "min" (0.0) and "max" '
            "(1.0) are initialized; give the variable one with mx.sym.Variable(init=mx.init.*)"
            % name)

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = None  # as MXNet's (it defines __eq__ only)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__,
                           ", ".join("%s=%r" % kv for kv in self._kwargs.items()))


# ------------------------------------------------------------------ registry

_REGISTRY = {}


def _register_as(klass, name):
    if not (isinstance(klass, type) and issubclass(klass, Initializer)):
        raise TypeError("only subclasses of mx.init.Initializer can be registered, got %r"
                        % (klass,))
    if not isinstance(name, str):
        raise TypeError("an initializer's registered name must be a str, got %r" % (name,))
    name = name.lower()
    if name in _REGISTRY:
        old = _REGISTRY[name]
        warnings.warn("New initializer %s.%s registered with name %s is overriding existing "
                      "initializer %s.%s" % (klass.__module__, klass.__name__, name,
                                              old.__module__, old.__name__),
                      UserWarning, stacklevel=3)
    _REGISTRY[name] = klass
    return klass


def register(klass):
    """Class decorator: makes ``klass`` (an Initializer subclass) known to
    create() by its class name in lower case."""
    return _register_as(klass, klass.__name__ if isinstance(klass, type) else klass)


def alias(*aliases):
    """Class decorator: makes the class known to create() by each of ``aliases``."""
    def reg(klass):
        for name in aliases:
            _register_as(klass, name)
        return klass
    return reg


def create(*args, **kwargs):
    """An initializer from an instance (returned as is), a registered name
    ('xavier', with the constructor's arguments), a dumps() string
    ('["xavier", {...}]'), a JSON object string or a dict whose
    'initializer' key names it and whose other keys are its arguments."""
    if args:
        init, args = args[0], args[1:]
    elif "initializer" in kwargs:
        init = kwargs.pop("initializer")
    else:
        raise TypeError("create() needs an initializer: an instance, a name, a dumps() string "
                        "or a dict")
    if isinstance(init, Initializer):
        if args or kwargs:
            raise ValueError("create(): %r is already an initializer; extra arguments are "
                             "invalid" % (init,))
        return init
    if isinstance(init, dict):
        if args or kwargs:
            raise ValueError("create(): extra arguments are invalid with a dict")
        return create(**init)
    if not isinstance(init, str):
        raise TypeError("create(): an initializer must be an Initializer, a name, a dumps() "
                        "string or a dict, got %r" % (init,))
    if init.startswith("[") or init.startswith("{"):
        if args or kwargs:
            raise ValueError("create(): extra arguments are invalid with %r" % init)
        try:
            parsed = json.loads(init)
        except ValueError:
            raise ValueError("create(): %r is not valid JSON" % init) from None
        if isinstance(parsed, dict):
            return create(**parsed)
        if (len(parsed) != 2 or not isinstance(parsed[0], str)
                or not isinstance(parsed[1], dict)):
            raise ValueError('create(): %r is not of the form ["name", {arguments}]' % init)
        return create(parsed[0], **parsed[1])
    name = init.lower()
    if name not in _REGISTRY:
        raise ValueError("unknown initializer %r: registered ones are %s (mx.init.register "
                         "adds more)" % (init, ", ".join(sorted(_REGISTRY))))
    return _REGISTRY[name](*args, **kwargs)


# ------------------------------------------------------- name-based wrappers

class Load:
    """Initializes each parameter from ``param`` (a str->array dict, or the
    name of a file mx.nd.save wrote one to); 'arg:' and 'aux:' prefixes are
    dropped. Names it lacks go to ``default_init`` (an error when None);
    ``verbose`` logs where each value came from."""

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            fname, param = param, _nd.load(param)
            if not isinstance(param, dict):
                raise ValueError("Load: %s holds a list of arrays; it needs a name->array dict "
                                 "(mx.nd.save(fname, {name: array}))" % fname)
        if not isinstance(param, dict):
            raise TypeError("Load: param must be a file name or a dict of name -> array, got %s"
                            % type(param).__name__)
        self.param = {}
        for name, value in param.items():
            if not isinstance(name, str):
                raise TypeError("Load: parameter names must be str, got %r" % (name,))
            if not isinstance(value, _nd.NDArray):
                value = np.asarray(value)
            if name.startswith("arg:") or name.startswith("aux:"):
                name = name[4:]
            self.param[name] = value
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            value = self.param[name]
            if tuple(arr.shape) != tuple(value.shape):
                raise ValueError("Parameter %s cannot be initialized from loading. Shape "
                                 "mismatch, target %s vs loaded %s"
                                 % (name, tuple(arr.shape), tuple(value.shape)))
            arr[:] = value
            if self.verbose:
                logging.info("Initialized %s by loading", name)
            return
        if self.default_init is None:
            raise ValueError("Cannot initialize %s: it is not among the loaded parameters and "
                             "no default initializer is given" % name)
        self.default_init(name, arr)
        if self.verbose:
            logging.info("Initialized %s by default", name)


class Mixed:
    """Initializes each parameter with the initializer of the first of
    ``patterns`` (regular expressions, re.match: anchored at the name's start)
    that matches its name; a name none matches is an error."""

    def __init__(self, patterns, initializers):
        patterns, initializers = list(patterns), list(initializers)
        if len(patterns) != len(initializers):
            raise ValueError("Mixed: %d patterns but %d initializers"
                             % (len(patterns), len(initializers)))
        compiled = []
        for pattern, init in zip(patterns, initializers):
            try:
                prog = re.compile(pattern)
            except (re.error, TypeError) as e:
                raise ValueError("Mixed: bad pattern %r: %s" % (pattern, e)) from None
            if not callable(init):
                raise TypeError("Mixed: the initializer for pattern %r is not callable: %r"
                                % (pattern, init))
            compiled.append((prog, init))
        self.map = compiled

    def __call__(self, name, arr):
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise ValueError('Parameter name %s did not match any pattern (%s). Consider adding a '
                         '".*" pattern at the end with a default initializer.'
                         % (name, ", ".join(repr(p.pattern) for p, _ in self.map)))


# -------------------------------------------------------------- initializers

@register
@alias("zeros")
class Zero(Initializer):
    """Weights 0."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 0


@register
@alias("ones")
class One(Initializer):
    """Weights 1."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 1


@register
class Constant(Initializer):
    """Weights ``value``: a number, or an array (NDArray, numpy, list)
    broadcast to the weight's shape (dumps() writes it as nested lists)."""

    def __init__(self, value):
        if hasattr(value, "asnumpy"):
            value = value.asnumpy()
        if isinstance(value, (list, tuple)) or hasattr(value, "tolist") and not np.isscalar(value):
            self._array = np.asarray(value, dtype=np.float64)
            super().__init__(value=self._array.tolist())
        else:
            self._array = None
            super().__init__(value=value)
        self.value = value

    def _init_weight(self, name, arr):
        if self._array is None:
            arr[:] = _number(self.value, "Constant: value")
            return
        try:
            arr[:] = np.broadcast_to(self._array, arr.shape)
        except ValueError:
            raise ValueError("Constant: value of shape %s does not broadcast to %s's shape %s"
                             % (self._array.shape, name, arr.shape)) from None


@register
class Uniform(Initializer):
    """U(-scale, scale)."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, name, arr):
        _engine_fill(json.dumps(["uniform", {"scale": _number(self.scale, "Uniform: scale")}]),
                     name, arr)


@register
class Normal(Initializer):
    """N(0, sigma)."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, name, arr):
        _engine_fill(json.dumps(["normal", {"sigma": _number(self.sigma, "Normal: sigma")}]),
                     name, arr)


@register
class Orthogonal(Initializer):
    """``scale`` times an orthogonal matrix (Saxe et al. 2013): the weight,
    seen as (shape[0], prod(shape[1:])), has orthonormal columns when it has
    at least as many rows as columns, orthonormal rows otherwise. It comes
    from the SVD of a U(-1, 1) ('uniform') or N(0, 1) ('normal') draw."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        if rand_type not in ("uniform", "normal"):
            raise ValueError("Orthogonal: rand_type must be 'uniform' or 'normal', got %r"
                             % (rand_type,))
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2 or arr.size == 0:
            raise ValueError("Orthogonal initializer: %s must have at least 2 dims and no zero "
                             "dim, got shape %s" % (name, shape))
        nout, nin = shape[0], int(np.prod(shape[1:]))
        draw = _nd.zeros((nout, nin), dtype="float64")
        if self.rand_type == "uniform":
            _engine_fill(json.dumps(["uniform", {"scale": 1.0}]), name, draw)
        else:
            _engine_fill(json.dumps(["normal", {"sigma": 1.0}]), name, draw)
        tmp = draw.asnumpy()
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        arr[:] = (_number(self.scale, "Orthogonal: scale") * res).reshape(shape)


@register
class Xavier(Initializer):
    """Glorot: scale = sqrt(magnitude / factor), factor from fan in/out (avg,
    in, out) with fan_in = shape[1] * prod(shape[2:]), fan_out = shape[0] *
    prod(shape[2:]); values U(-scale, scale) ('uniform') or N(0, scale)
    ('gaussian')."""

    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = _number(magnitude, "Xavier: magnitude")

    def _init_weight(self, name, arr):
        _engine_fill(json.dumps(["xavier", {"rnd_type": self.rnd_type,
                                            "factor_type": self.factor_type,
                                            "magnitude": self.magnitude}]), name, arr)


@register
class MSRAPrelu(Xavier):
    """He initialization for PReLU: Xavier gaussian with magnitude 2 / (1 + slope^2)."""

    def __init__(self, factor_type="avg", slope=0.25):
        magnitude = 2.0 / (1 + _number(slope, "MSRAPrelu: slope") ** 2)
        super().__init__("gaussian", factor_type, magnitude)
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Bilinear upsampling kernels for a 4-D (deconvolution) weight."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, name, arr):
        self._init_bilinear(name, arr)


@register
class LSTMBias(Initializer):
    """An LSTM cell's bias: 0, except ``forget_bias`` on the forget gate,
    the second quarter of the first axis (gates in the order i, f, c, o).
    Meant for a variable's init= (a *bias name alone gets the usual 0)."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        if arr.ndim == 0:
            raise ValueError("LSTMBias initializer: %s must have at least 1 dim" % name)
        values = np.zeros(arr.shape)
        num_hidden = int(arr.shape[0] / 4)
        values[num_hidden:2 * num_hidden] = _number(self.forget_bias, "LSTMBias: forget_bias")
        arr[:] = values


_RNN_GATES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"],
              "gru": ["_r", "_z", "_o"]}


@register
class FusedRNN(Initializer):
    """The flat parameter vector of the RNN operator (FusedRNNCell's
    'parameters'): unpacked into per-gate blocks named as MXNet's FusedRNNCell
    names them (l0_i2h_f_weight, r1_h2h_o_bias, ...), each initialized with
    ``init`` (an initializer or its dumps() string; None: the global
    initializer the call came with) under its own name's rules, except that
    for lstm both the i2h and h2h forget-gate biases are ``forget_bias``.

    The layout is the RNN operator's: every (layer, direction)'s i2h then h2h
    weights, gate by gate, then every (layer, direction)'s i2h then h2h
    biases. The input size is inferred from the vector's length."""

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False,
                 forget_bias=1.0):
        if isinstance(init, str):
            init = create(init)
        if init is not None and not isinstance(init, Initializer):
            raise TypeError("FusedRNN: init must be an Initializer, its dumps() string or None, "
                            "got %r" % (init,))
        if mode not in _RNN_GATES:
            raise ValueError("FusedRNN: mode must be one of %s, got %r"
                             % (", ".join(sorted(_RNN_GATES)), mode))
        for what, value in (("num_hidden", num_hidden), ("num_layers", num_layers)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError("FusedRNN: %s must be a positive integer, got %r" % (what, value))
        super().__init__(init=init.dumps() if init is not None else None,
                         num_hidden=num_hidden, num_layers=num_layers, mode=mode,
                         bidirectional=bidirectional, forget_bias=forget_bias)
        self._init = init
        self._num_hidden = int(num_hidden)
        self._num_layers = int(num_layers)
        self._mode = mode
        self._bidirectional = bool(bidirectional)
        self._forget_bias = forget_bias

    def _blocks(self, name, size):
        """[(block name, offset, shape)] for a vector of ``size`` values."""
        gates = _RNN_GATES[self._mode]
        directions = ["l", "r"] if self._bidirectional else ["l"]
        b, m, h, layers = len(directions), len(gates), self._num_hidden, self._num_layers
        # size = b*m*h * ((input + h + 2) + (layers - 1) * (b*h + h + 2))
        per_layer = b * h + h + 2
        num_input = size // (b * m * h) - (layers - 1) * per_layer - h - 2
        if num_input < 1 or size != b * m * h * (num_input + h + 2 + (layers - 1) * per_layer):
            raise ValueError(
                "FusedRNN: %s has %d values, which is no parameter vector of mode=%s, "
                "num_hidden=%d, num_layers=%d, bidirectional=%s (for input size I it holds "
                "%d * (I + %d) values)" % (name, size, self._mode, h, layers, self._bidirectional,
                                           b * m * h, h + 2 + (layers - 1) * per_layer))
        blocks, p = [], 0
        for layer in range(layers):
            for d in directions:
                cols = num_input if layer == 0 else b * h
                for kind, width in (("i2h", cols), ("h2h", h)):
                    for gate in gates:
                        blocks.append(("%s%d_%s%s_weight" % (d, layer, kind, gate), p, (h, width)))
                        p += h * width
        for layer in range(layers):
            for d in directions:
                for kind in ("i2h", "h2h"):
                    for gate in gates:
                        blocks.append(("%s%d_%s%s_bias" % (d, layer, kind, gate), p, (h,)))
                        p += h
        return blocks

    def _init_weight(self, desc, arr):
        if arr.ndim != 1:
            raise ValueError("FusedRNN: %s must be a 1-D parameter vector, got shape %s"
                             % (desc, arr.shape))
        init = self._init
        if init is None:
            init = getattr(desc, "global_init", None)
            if init is None or isinstance(init, FusedRNN):
                raise ValueError("FusedRNN(init=None) initializes %s's blocks with the global "
                                 "initializer, and there is none: give FusedRNN an init, or "
                                 "use it as a variable's init= under another initializer" % desc)
        values = arr.asnumpy()
        dtype = arr._t.dtype
        for name, offset, shape in self._blocks(desc, arr.size):
            size = int(np.prod(shape))
            if self._mode == "lstm" and name.endswith("_f_bias"):
                values[offset:offset + size] = _number(self._forget_bias, "FusedRNN: forget_bias")
                continue
            block = _nd.array(values[offset:offset + size].reshape(shape), dtype=dtype)
            init(InitDesc(name, global_init=getattr(desc, "global_init", None)), block)
            values[offset:offset + size] = block.asnumpy().reshape(-1)
        arr[:] = values
