"""mx.AttrScope: attributes for every symbol created inside a ``with`` block."""
from .base import _core

__all__ = ["AttrScope"]


class AttrScope:
    """``with mx.AttrScope(ctx_group='dev1'):`` sets ``__ctx_group__`` on the ops and
    variables created inside (inner scopes and explicit attributes win).
    Values must be strings, as in MXNet."""

    def __init__(self, **kwargs):
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError("Attributes need to be string")
        self._attr = kwargs
        self._scope = None

    def get(self, attr):
        """``attr`` merged over the current scopes' attributes."""
        merged = dict(_core.current_attrs())
        merged.update(attr or {})
        return merged

    def __enter__(self):
        self._scope = _core.AttrScope(self._attr)
        self._scope.enter()
        return self

    def __exit__(self, *exc):
        self._scope.exit()
        self._scope = None
