"""MXNet's remaining Python functions of mx.nd.contrib / mx.sym.contrib:
rand_zipfian (both) and isinf, isfinite, isnan (mx.nd.contrib), composed of
registry ops as MXNet composes them."""
import math

import numpy as np

from . import ndarray as _nd
from . import symbol as _sym

__all__ = ["nd_rand_zipfian", "sym_rand_zipfian", "isinf", "isfinite", "isnan"]


def _zipfian(F, true_classes, num_sampled, range_max, **ctx):
    """(sampled classes int64, expected count of each true class, expected
    count of each sample), float64 counts: the approximately log-uniform law
    P(c) = log((c + 2) / (c + 1)) / log(range_max + 1), drawn by inversion."""
    log_range = math.log(range_max + 1)
    rand = F.random.uniform(0, log_range, shape=(num_sampled,), dtype="float64", **ctx)
    # (exp(u) - 1) truncated lies in [0, range_max]; % keeps it below range_max.
    sampled = (rand.exp() - 1).astype("int64") % range_max
    true_cls = true_classes.astype("float64")
    count_true = ((true_cls + 2.0) / (true_cls + 1.0)).log() / log_range * num_sampled
    sampled_f = sampled.astype("float64")
    count_sampled = ((sampled_f + 2.0) / (sampled_f + 1.0)).log() / log_range * num_sampled
    return sampled, count_true, count_sampled


def nd_rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """mx.nd.contrib.rand_zipfian: num_sampled classes of [0, range_max) from
    the log-uniform law, with the expected counts of the true and sampled ones."""
    from .context import current_context
    ctx = ctx or current_context()
    return _zipfian(_nd, true_classes.as_in_context(ctx), num_sampled, range_max, ctx=ctx)


def sym_rand_zipfian(true_classes, num_sampled, range_max):
    """mx.sym.contrib.rand_zipfian: the same as a graph."""
    if not isinstance(true_classes, _sym.Symbol):
        raise TypeError("unexpected type %s" % type(true_classes))
    return _zipfian(_sym, true_classes, num_sampled, range_max)


def isinf(data):
    """1 where data is +inf or -inf, else 0 (in data's dtype)."""
    return data.abs() == np.inf


def isfinite(data):
    """1 where data is neither infinite nor NaN, else 0."""
    return _nd.logical_and(data.abs() != np.inf, data == data)


def isnan(data):
    """1 where data is NaN, else 0."""
    return data != data
