"""Errors and small helpers shared by the symx package.

Engine errors arrive as ``MXNetError``: a subclass of the extension's ``Error``
(itself a ``RuntimeError``, as MXNet's is), carrying the engine's message.
"""
from . import _symx as _core

__all__ = ["MXNetError", "string_types", "numeric_types", "integer_types"]


class MXNetError(_core.Error):
    """An error raised by the symx engine (MXNet's name for it)."""


_core._set_error_class(MXNetError)

string_types = (str,)
integer_types = (int,)
numeric_types = (float, int)


def _as_list(obj):
    """obj as a list: a list or tuple as is, anything else wrapped."""
    if isinstance(obj, (list, tuple)):
        return list(obj)
    return [obj]
