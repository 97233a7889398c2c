"""mx.name: automatic node names ("fullyconnected0") and prefixes."""
from .base import _core

__all__ = ["NameManager", "Prefix"]


class NameManager:
    """Inside ``with NameManager():`` automatic names count from 0 again."""

    _prefix = ""

    def __init__(self):
        self._scope = None

    def get(self, name, hint):
        """``name`` if given, else "<hint><counter>" (with the active prefix)."""
        return _core.make_name(name or "", hint)

    def __enter__(self):
        self._scope = _core.NameScope(self._prefix)
        self._scope.enter()
        return self

    def __exit__(self, *exc):
        self._scope.exit()
        self._scope = None


class Prefix(NameManager):
    """Inside ``with Prefix('net1_'):`` every new name starts with the prefix."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix
