"""mx.random.seed: the seed of the initializers' generator."""
from .base import _core

__all__ = ["seed"]

_rng = _core.Rng(42)


def seed(seed_state, ctx="all"):
    """Seeds the generator parameter initialization draws from."""
    global _rng
    _rng = _core.Rng(int(seed_state))


def _generator():
    return _rng
