"""The operator functions of mx.sym, generated from the engine's op registry.

MXNet's calling conventions: symbols given positionally or by input name are
the inputs; every other keyword is an attribute, formatted as MXNet's Python
formats it (str(): 3, 0.5, True, (3, 3)); ``name=`` names the node and
``attr=`` adds attributes. Missing inputs become variables "<name>_<input>".
"""
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
    if isinstance(value, list):
        value = tuple(value)
    return str(value)


def call(op_name, *args, **kwargs):
    """Applies op ``op_name``: the body of every generated function."""
    from .symbol import Symbol
    name = kwargs.pop("name", None)
    attr = kwargs.pop("attr", None)
    positional, named, attrs = [], [], {}
    for a in args:
        if isinstance(a, Symbol):
            positional.append(a._s)
        elif isinstance(a, (list, tuple)) and a and all(isinstance(s, Symbol) for s in a):
            positional.extend(s._s for s in a)
        else:
            raise TypeError("%s: positional arguments must be symbols, got %s; give attributes "
                            "as keyword arguments" % (op_name, type(a).__name__))
    for k, v in kwargs.items():
        if isinstance(v, Symbol):
            named.append((k, v._s))
        elif v is not None:
            attrs[k] = _attr_text(k, v)
    for k, v in (attr or {}).items():
        attrs[k] = str(v)
    return Symbol(_core.call_op(op_name, name or "", positional, named, attrs))


def _make_function(op_name, description, inputs):
    def fn(*args, **kwargs):
        return call(op_name, *args, **kwargs)
    fn.__name__ = op_name
    fn.__qualname__ = op_name
    lines = [description or op_name, ""]
    if inputs:
        lines.append("Inputs: " + ", ".join(inputs))
    else:
        lines.append("Inputs: depend on the attributes (list_arguments() of the result names them)")
    lines += ["", "Attributes are keyword arguments (MXNet's names); name= names the node,",
              "attr= adds node attributes (e.g. {'ctx_group': 'dev1'})."]
    fn.__doc__ = "\n".join(lines)
    return fn


def populate(module, submodules):
    """Adds a function for every registered op (and alias) to ``module``.

    ``submodules``: prefix group name ("contrib", ..., "_internal") -> module
    to add the prefixed ops to under their short names.
    """
    for name, aliases, description, inputs, is_backward in _core.list_ops():
        if is_backward or name in _ENGINE_ONLY:
            continue
        fn = _make_function(name, description, inputs)
        for spelling in [name] + list(aliases):
            setattr(module, spelling, fn)
            for prefix, group in _PREFIXES.items():
                if spelling.startswith(prefix):
                    setattr(submodules[group], spelling[len(prefix):], fn)
                    break
            else:
                if spelling.startswith("_"):
                    setattr(submodules["_internal"], spelling, fn)


# MXNet's fluent Symbol methods (x.reshape((0, -1)), x.sum(axis=1), ...): the
# op applied to the symbol, with the op's leading attributes accepted
# positionally as MXNet's generated signatures allow.
_FLUENT = {
    "reshape": ["shape"], "repeat": ["repeats"], "pad": ["mode", "pad_width"],
    "swapaxes": ["dim1", "dim2"], "split": ["num_outputs"], "slice": ["begin", "end"],
    "slice_axis": ["axis", "begin", "end"], "one_hot": ["depth"], "sort": ["axis"],
    "topk": ["axis"], "argsort": ["axis"], "argmax": ["axis"], "argmin": ["axis"],
    "clip": ["a_min", "a_max"], "expand_dims": ["axis"], "tile": ["reps"],
    "transpose": ["axes"], "flip": ["axis"], "sum": ["axis"], "mean": ["axis"],
    "max": ["axis"], "min": ["axis"], "squeeze": ["axis"], "softmax": ["axis"],
    "log_softmax": ["axis"], "softmin": ["axis"], "take": [], "pick": [], "slice_like": [],
}
_FLUENT_UNARY = [
    "zeros_like", "ones_like", "argmax_channel", "abs", "sign", "flatten", "diag", "round",
    "rint", "fix", "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
    "degrees", "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp", "expm1",
    "log", "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "rcbrt", "square", "reciprocal",
    "relu", "sigmoid",
]


def _fluent(op_name, positional_attrs):
    def method(self, *args, **kwargs):
        from .symbol import Symbol
        inputs = [a for a in args if isinstance(a, Symbol)]
        values = [a for a in args if not isinstance(a, Symbol)]
        if len(values) > len(positional_attrs):
            raise TypeError("%s() takes at most %d positional attribute(s) (%s), got %d"
                            % (op_name, len(positional_attrs), ", ".join(positional_attrs),
                               len(values)))
        for key, value in zip(positional_attrs, values):
            if key in kwargs:
                raise TypeError("%s() got multiple values for %s" % (op_name, key))
            kwargs[key] = value
        return call(op_name, self, *inputs, **kwargs)
    method.__name__ = op_name
    method.__doc__ = "Fluent form of mx.sym.%s with this symbol as its first input." % op_name
    return method


def add_fluent_methods(symbol_class, module):
    """Adds the fluent methods whose op the registry has; ``astype`` is Cast."""
    table = dict(_FLUENT)
    table.update({name: [] for name in _FLUENT_UNARY})
    for name, positional in table.items():
        if hasattr(module, name) and not hasattr(symbol_class, name):
            setattr(symbol_class, name, _fluent(name, positional))
    symbol_class.astype = _fluent("Cast", ["dtype"])
