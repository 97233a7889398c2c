"""mx.random.seed: the seed of parameter initialization and of every device's
generator (Dropout's masks)."""
import numpy as np

from .base import _core

__all__ = ["seed"]

_rng = _core.Rng(42)
# Host draws of the Python front (SGLD's noise), seeded alike.
_host_rng = np.random.RandomState(42)


def seed(seed_state, ctx="all"):
    """Seeds the initializers' generator and every device's generator.

    MXNet can seed one device (ctx=mx.cpu(1)); symx seeds them all whatever
    ``ctx`` says (the engine has one call for every device).
    """
    global _rng, _host_rng
    _rng = _core.Rng(int(seed_state))
    _host_rng = np.random.RandomState(int(seed_state) % (2 ** 32))
    _core.seed_devices(int(seed_state))


def _generator():
    return _rng


def _host_generator():
    """numpy's generator for host draws, reseeded by seed()."""
    return _host_rng
