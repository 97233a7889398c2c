"""The operator functions of mx.sym, generated from the engine's op registry.

MXNet's calling conventions: symbols given positionally or by input name are
the inputs; every other keyword is an attribute, formatted as MXNet's Python
formats it (str(): 3, 0.5, True, (3, 3)); ``name=`` names the node and
``attr=`` adds attributes. Missing inputs become variables "<name>_<input>".
"""
import json
import os

import numpy as np

from .base import _core

# Ops only the engine itself places (cross-device and cross-rank copies).
_ENGINE_ONLY = {"_CrossDeviceCopy", "_send", "_recv"}
# Submodules MXNet files prefixed ops under: mx.sym.contrib.box_nms is _contrib_box_nms.
_PREFIXES = {"_contrib_": "contrib", "_linalg_": "linalg", "_random_": "random", "_image_": "image"}


def _attr_text(key, value):
    if key == "dtype" and not isinstance(value, str):
        return np.dtype(value).name
    if isinstance(value, np.generic):
        value = value.item()
    # str() as MXNet's frontend writes attributes: a list stays "[1, 1]".
    return str(value)


def call(op_name, *args, **kwargs):
    """Applies op ``op_name``: the body of every generated function."""
    from .symbol import Symbol
    name = kwargs.pop("name", None)
    attr = kwargs.pop("attr", None)
    positional = [a._s for a in split_args(op_name, args, kwargs,
                                           lambda a: isinstance(a, Symbol))]
    named, attrs = [], {}
    for k, v in kwargs.items():
        if isinstance(v, Symbol):
            named.append((k, v._s))
        elif v is not None:
            attrs[k] = _attr_text(k, v)
    for k, v in (attr or {}).items():
        attrs[k] = str(v)
    return Symbol(_core.call_op(op_name, name or "", positional, named, attrs))


def _make_function(op_name, description, inputs, caller, what):
    def fn(*args, **kwargs):
        return caller(op_name, *args, **kwargs)
    fn.__name__ = op_name
    fn.__qualname__ = op_name
    lines = [description or op_name, ""]
    if inputs:
        lines.append("Inputs: " + ", ".join(inputs))
    else:
        lines.append("Inputs: depend on the attributes")
    lines += ["", what]
    fn.__doc__ = "\n".join(lines)
    return fn


_SYMBOL_DOC = ("Attributes are keyword arguments (MXNet's names); name= names the node,\n"
               "attr= adds node attributes (e.g. {'ctx_group': 'dev1'}).")


def populate(module, submodules, caller=None, what=_SYMBOL_DOC, keep=()):
    """Adds a function for every registered op (and alias) to ``module``.

    ``submodules``: prefix group name ("contrib", ..., "_internal") -> module
    to add the prefixed ops to under their short names. ``caller(op_name,
    *args, **kwargs)`` applies the op (default: composes a symbol); ``what``
    ends each docstring; names in ``keep`` are left as the module has them.
    """
    caller = caller or call
    for name, aliases, description, inputs, is_backward in _core.list_ops():
        if is_backward or name in _ENGINE_ONLY:
            continue
        for spelling in [name] + list(aliases):
            # One function per spelling: MXNet names a node after the function
            # called (mx.sym.split makes split0, not slicechannel0).
            _CANONICAL[spelling] = name
            fn = _make_function(spelling, description, inputs, caller, what)
            if spelling not in keep:
                setattr(module, spelling, fn)
            for prefix, group in _PREFIXES.items():
                if spelling.startswith(prefix):
                    setattr(submodules[group], spelling[len(prefix):], fn)
                    break
            else:
                if spelling.startswith("_"):
                    setattr(submodules["_internal"], spelling, fn)
            if "op" in submodules:
                setattr(submodules["op"], spelling, fn)


# Attributes MXNet's generated signatures let a caller give positionally,
# after the inputs (mx.nd.clip(x, 0, 1), mx.sym.Dropout(x, 0.5),
# mx.nd.topk(x, 1, 2)), in MXNet's order, by canonical op name; written from
# MXNet 1.9.1 by tools/golden/make_positional_attrs.py.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "_positional_attrs.json")) as _f:
    _POSITIONAL = json.load(_f)


# Each op name and alias -> the op's name (populate fills it).
_CANONICAL = {}


def split_args(op_name, args, kwargs, is_input):
    """The inputs among ``args`` (arrays or symbols, or lists of them); the
    other values become the op's positional attributes in ``kwargs``."""
    inputs, values = [], []
    for a in args:
        if a is None and not values:  # an input left out (bias=None with no_bias): skipped
            continue
        if is_input(a):
            inputs.append(a)
        elif isinstance(a, (list, tuple)) and a and all(is_input(x) for x in a):
            inputs.extend(a)
        else:
            values.append(a)
    if values:
        names = _POSITIONAL.get(_CANONICAL.get(op_name, op_name), [])
        if len(values) > len(names):
            raise TypeError("%s() takes at most %d positional attribute(s) after its inputs "
                            "(%s), got %d (%s): give attributes as keyword arguments"
                            % (op_name, len(names), ", ".join(names) or "none", len(values),
                               ", ".join(type(v).__name__ for v in values)))
        for key, value in zip(names, values):
            if key in kwargs:
                raise TypeError("%s() got multiple values for %s" % (op_name, key))
            kwargs[key] = value
    return inputs


# MXNet's fluent methods (x.reshape((0, -1)), x.sum(axis=1), ...): the op
# applied to the symbol or array, with its positional attributes as above.
_FLUENT = [
    "reshape", "repeat", "pad", "swapaxes", "split", "slice", "slice_axis", "one_hot", "sort",
    "topk", "argsort", "argmax", "argmin", "clip", "expand_dims", "tile", "transpose", "flip",
    "sum", "mean", "max", "min", "squeeze", "softmax", "log_softmax", "softmin", "take", "pick",
    "slice_like", "zeros_like", "ones_like", "argmax_channel", "abs", "sign", "flatten", "diag",
    "round", "rint", "fix", "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos",
    "arctan", "degrees", "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp",
    "expm1", "log", "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "rcbrt", "square",
    "reciprocal", "relu", "sigmoid", "broadcast_to", "broadcast_like", "reshape_like",
    "nansum", "prod", "nanprod", "norm", "shape_array", "size_array", "split_v2",
    "depth_to_space", "space_to_depth", "log_sigmoid", "mish", "erf", "erfinv", "gamma", "gammaln",
]


def _fluent(fn, method_name):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = method_name
    method.__doc__ = "Fluent form of %s with this object as its first input." % fn.__name__
    return method


def add_fluent_methods(cls, module):
    """Adds to ``cls`` the fluent methods whose op ``module`` has (and that
    ``cls`` does not define itself); ``astype`` is Cast where not defined."""
    for name in _FLUENT:
        fn = getattr(module, name, None)
        if fn is not None and name not in cls.__dict__:
            setattr(cls, name, _fluent(fn, name))
    if "astype" not in cls.__dict__:
        cls.astype = _fluent(module.Cast, "astype")
