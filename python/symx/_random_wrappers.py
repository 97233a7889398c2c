"""MXNet 1.9.1's Python samplers of mx.nd.random and mx.sym.random
(python/mxnet/{ndarray,symbol}/random.py): uniform, normal, randn, poisson,
exponential, gamma, negative_binomial, generalized_negative_binomial,
randint, multinomial and shuffle, with MXNet's signatures. Scalar parameters call _random_X; arrays
(symbols) call _sample_X, one distribution per element. exponential takes
the scale (1 / the ops' rate lam), as in MXNet. The numbers come from each
device's generator, which mx.random.seed seeds."""
import numbers

from . import _nd_ops
from . import _ops

_NUMERIC = (numbers.Number,)

# name -> (the ops' parameter names, MXNet's wrapper defaults)
_LAWS = {
    "uniform": (("low", "high"), (0, 1)),
    "normal": (("loc", "scale"), (0, 1)),
    "poisson": (("lam",), (1,)),
    "exponential": (("lam",), (1,)),
    "gamma": (("alpha", "beta"), (1, 1)),
    "negative_binomial": (("k", "p"), (1, 1)),
    "generalized_negative_binomial": (("mu", "alpha"), (1, 1)),
}


def _dispatch(name, params, is_array, apply, shape, dtype, scalar_extra, kwargs):
    keys = _LAWS[name][0]
    if is_array(params[0]):
        for p in params[1:]:
            if not is_array(p):
                raise TypeError("Distribution parameters must all have the same type, but got "
                                "both %s and %s." % (type(params[0]), type(p)))
        return apply("_sample_" + name, *params, shape=shape, dtype=dtype, **kwargs)
    if isinstance(params[0], _NUMERIC):
        for p in params[1:]:
            if not isinstance(p, _NUMERIC):
                raise TypeError("Distribution parameters must all have the same type, but got "
                                "both %s and %s." % (type(params[0]), type(p)))
        attrs = dict(zip(keys, params))
        attrs.update(scalar_extra)
        return apply("_random_" + name, shape=shape, dtype=dtype, **dict(attrs, **kwargs))
    raise ValueError("Distribution parameters must be either NDArray/Symbol or numbers, "
                     "but got %s." % type(params[0]))


def _make(module_kind):
    """The wrappers for mx.nd.random (module_kind 'nd') or mx.sym.random."""
    if module_kind == "nd":
        from .ndarray import NDArray

        def is_array(x):
            return isinstance(x, NDArray)

        def apply(op, *args, **kwargs):
            return _nd_ops.invoke(op, *args, **kwargs)
    else:
        from .symbol import Symbol

        def is_array(x):
            return isinstance(x, Symbol)

        def apply(op, *args, **kwargs):
            return _ops.call(op, *args, **kwargs)

    def run(name, params, shape, dtype, ctx, out, kwargs):
        extra = {}
        if module_kind == "nd":
            kwargs = dict(kwargs, out=out)
            if not is_array(params[0]):
                # MXNet draws one number when neither shape nor out is given.
                if shape is None and out is None:
                    shape = 1
                extra["ctx"] = ctx
        return _dispatch(name, params, is_array, apply, shape, dtype, extra, kwargs)

    def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        """Samples from uniform distributions on [low, high)."""
        return run("uniform", [low, high], shape, dtype, ctx, out, kwargs)

    def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        """Samples from normal distributions (loc: mean, scale: standard deviation)."""
        return run("normal", [loc, scale], shape, dtype, ctx, out, kwargs)

    def randn(*shape, **kwargs):
        """Normal samples of the given shape (loc=0, scale=1 unless given)."""
        loc = kwargs.pop("loc", 0)
        scale = kwargs.pop("scale", 1)
        dtype = kwargs.pop("dtype", None)
        ctx = kwargs.pop("ctx", None)
        out = kwargs.pop("out", None)
        return run("normal", [loc, scale], shape or None, dtype, ctx, out, kwargs)

    def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        """Samples from Poisson distributions of rate lam."""
        return run("poisson", [lam], shape, dtype, ctx, out, kwargs)

    def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        """Samples from exponential distributions of mean `scale` (rate 1 / scale)."""
        return run("exponential", [1.0 / scale], shape, dtype, ctx, out, kwargs)

    def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        """Samples from gamma distributions (alpha: shape, beta: scale)."""
        return run("gamma", [alpha, beta], shape, dtype, ctx, out, kwargs)

    def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        """Failures before the k-th success with success probability p."""
        return run("negative_binomial", [k, p], shape, dtype, ctx, out, kwargs)

    def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None,
                                      **kwargs):
        """Negative binomial samples of mean mu and dispersion alpha."""
        return run("generalized_negative_binomial", [mu, alpha], shape, dtype, ctx, out, kwargs)

    def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        """Integers uniform in [low, high) (int32 unless dtype says int64)."""
        if not (isinstance(low, _NUMERIC) and isinstance(high, _NUMERIC)):
            raise ValueError("randint takes numbers for low and high, got %s and %s"
                             % (type(low), type(high)))
        attrs = dict(kwargs, low=low, high=high)
        if module_kind == "nd":
            if shape is None and out is None:
                shape = 1
            attrs.update(ctx=ctx, out=out)
        return apply("_random_randint", shape=shape, dtype=dtype, **attrs)

    def multinomial(data, shape=None, get_prob=module_kind != "nd", out=None, dtype="int32",
                    **kwargs):
        """Draws from the categorical distributions along data's last axis (MXNet's
        default get_prob is False in mx.nd, True in mx.sym)."""
        if module_kind == "nd":
            kwargs["out"] = out
        return apply("_sample_multinomial", data, shape=shape, get_prob=get_prob, dtype=dtype,
                     **kwargs)

    def shuffle(data, **kwargs):
        """data's rows (slices along axis 0) in a random order."""
        return apply("_shuffle", data, **kwargs)

    fns = [uniform, normal, randn, poisson, exponential, gamma, negative_binomial,
           generalized_negative_binomial, randint, multinomial, shuffle]
    return {f.__name__: f for f in fns}


def install(nd_random, sym_random):
    """Puts the wrappers into mx.nd.random and mx.sym.random."""
    for module, kind in ((nd_random, "nd"), (sym_random, "sym")):
        for name, fn in _make(kind).items():
            setattr(module, name, fn)
