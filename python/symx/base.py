"""Errors and small helpers shared by the symx package.

Engine errors arrive as ``MXNetError``: a subclass of the extension's ``Error``
(itself a ``RuntimeError``, as MXNet's is), carrying the engine's message.
"""
from . import _symx as _core

import numpy as _np

__all__ = ["MXNetError", "NotImplementedForSymbol", "string_types", "numeric_types",
           "integer_types", "mx_real_t"]


class MXNetError(_core.Error):
    """An error raised by the symx engine (MXNet's name for it)."""


_core._set_error_class(MXNetError)


class NotImplementedForSymbol(MXNetError):
    """A Python operation that only an NDArray has (bool(symbol), ...)."""

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = function.__name__ if callable(function) else str(function)
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        msg = "Function {}".format(self.function)
        if self.alias:
            msg += " (namely operator \"{}\")".format(self.alias)
        if self.args:
            msg += " with arguments ({})".format(", ".join(self.args))
        msg += " is not implemented for Symbol and only available in NDArray."
        return msg


# MXNet's default real type.
mx_real_t = _np.float32

string_types = (str,)
integer_types = (int,)
numeric_types = (float, int)


def _as_list(obj):
    """obj as a list: a list or tuple as is, anything else wrapped."""
    if isinstance(obj, (list, tuple)):
        return list(obj)
    return [obj]
