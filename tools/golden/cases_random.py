"""Golden cases of the random family (graph/ops/random.cc): the samplers whose
law has a degenerate member, so MXNet 1.9.1's output is known whatever its
generator (uniform with low == high, normal with sigma 0, gamma with beta 0,
Poisson with lam 0, negative binomials with p = 1 or mu = 0, randint over one
integer, a one-hot multinomial, a one-row shuffle). They check the output's shape (legacy 0 dims filled from the use
included), dtype and the zero gradients of the _like and _sample_ forms; the
laws themselves are tested statistically in tests/ops/random_test.cc (see
golden_lib.py for what a Case holds)."""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


def _random_cases():
    d = V("data")
    return [
        Case("_random_uniform_point", mx.sym.random_uniform(low=1.5, high=1.5, shape=(2, 3)), {},
             grad=False),
        Case("_random_uniform_legacy_dim_from_use",
             mx.sym.uniform(low=-2, high=-2, shape=(0, 3), dtype="float64") + d,
             {"data": (4, 3)}, dtypes={"data": "float64"}),
        Case("_random_poisson_zero", mx.sym.random_poisson(lam=0, shape=(5,)), {}, grad=False),
        Case("_random_negative_binomial_p1",
             mx.sym.random_negative_binomial(k=3, p=1.0, shape=(2, 2), dtype="float16"), {},
             grad=False),
        Case("_random_gen_negative_binomial_zero",
             mx.sym.random_generalized_negative_binomial(mu=0, alpha=0, shape=(3,)), {},
             grad=False),
        Case("_random_randint_one_value",
             mx.sym.random_randint(low=7, high=8, shape=(2, 3), dtype="int64"), {}, grad=False),
        Case("_random_uniform_like_point", mx.sym.random.uniform_like(d, low=0.5, high=0.5),
             {"data": (2, 3)}),
        Case("_random_poisson_like_zero", mx.sym.random.poisson_like(d, lam=0), {"data": (4,)},
             dtypes={"data": "float64"}),
        Case("_random_negative_binomial_like_p1",
             mx.sym.random.negative_binomial_like(d, k=2, p=1.0), {"data": (3,)}),
        Case("_random_gen_negative_binomial_like_zero",
             mx.sym.random.generalized_negative_binomial_like(d, mu=0, alpha=0.5),
             {"data": (3,)}),
    ]


def _sample_cases():
    a, b = V("a"), V("b")
    return [
        Case("_sample_uniform_points", mx.sym.sample_uniform(a, b, shape=(3,)),
             {"a": (2,), "b": (2,)},
             values={"a": np.array([1.0, -2.0]), "b": np.array([1.0, -2.0])}),
        Case("_sample_normal_sigma0", mx.sym.sample_normal(a, b, shape=(2, 2), dtype="float64"),
             {"a": (3,), "b": (3,)},
             values={"a": np.array([0.5, -1.0, 4.0]), "b": np.zeros(3)}),
        Case("_sample_gamma_beta0", mx.sym.sample_gamma(a, b), {"a": (2, 2), "b": (2, 2)},
             values={"a": np.array([[1.0, 2.0], [0.5, 3.0]]), "b": np.zeros((2, 2))}),
        Case("_sample_poisson_zero", mx.sym.sample_poisson(a, shape=(4,)), {"a": (2,)},
             values={"a": np.zeros(2)}),
        Case("_sample_negative_binomial_p1", mx.sym.sample_negative_binomial(a, b, shape=(2,)),
             {"a": (2,), "b": (2,)},
             values={"a": np.array([1.0, 4.0]), "b": np.ones(2)}),
        Case("_sample_gen_negative_binomial_zero",
             mx.sym.sample_generalized_negative_binomial(a, b, shape=(2,)),
             {"a": (2,), "b": (2,)}, values={"a": np.zeros(2), "b": np.array([0.0, 0.5])}),
    ]


def _shuffle_multinomial_cases():
    d = V("data")
    return [
        Case("_shuffle_one_row", mx.sym.shuffle(d), {"data": (1, 4)}, grad=False),
        Case("_sample_multinomial_one_hot",
             mx.sym.sample_multinomial(d, shape=(3,), dtype="float32"), {"data": (2, 3)},
             values={"data": np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])}, grad=False),
        Case("_sample_multinomial_one_hot_get_prob",
             mx.sym.sample_multinomial(d, shape=(2,), get_prob=True)[1], {"data": (2, 3)},
             values={"data": np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])},
             note="the gradient of log p at the drawn category: ograd / p"),
        Case("_sample_unique_zipfian_one_class",
             mx.sym._internal._sample_unique_zipfian(range_max=1, shape=(3, 1)), {}, grad=False,
             note="one class: every row draws 0 at its first try"),
    ]


def cases():
    return _random_cases() + _sample_cases() + _shuffle_multinomial_cases()
