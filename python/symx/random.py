"""mx.random.seed: the seed of parameter initialization and of every device's
generator (Dropout's masks)."""
from .base import _core

__all__ = ["seed"]

_rng = _core.Rng(42)


def seed(seed_state, ctx="all"):
    """Seeds the initializers' generator and every device's generator.

    MXNet can seed one device (ctx=mx.cpu(1)); symx seeds them all whatever
    ``ctx`` says (the engine has one call for every device).
    """
    global _rng
    _rng = _core.Rng(int(seed_state))
    _core.seed_devices(int(seed_state))


def _generator():
    return _rng
