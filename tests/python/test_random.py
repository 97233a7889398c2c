"""mx.random.seed, mx.nd.random and mx.sym.random: MXNet's samplers reach the
engine's random family (scalars: _random_X, arrays: _sample_X), and a seed
fixes their numbers."""
import numpy as np
import pytest

import symx as mx


def test_seed_fixes_the_numbers():
    mx.random.seed(7)
    a = mx.nd.random.uniform(shape=(1000,)).asnumpy()
    b = mx.nd.random.uniform(shape=(1000,)).asnumpy()
    mx.random.seed(7)
    assert np.array_equal(mx.nd.random.uniform(shape=(1000,)).asnumpy(), a)
    assert not np.array_equal(a, b)
    assert a.dtype == np.float32 and 0 <= a.min() and a.max() < 1


def test_scalar_parameters_and_their_moments():
    mx.random.seed(3)
    x = mx.nd.random.normal(2.0, 0.5, shape=(20000,), dtype="float64").asnumpy()
    assert x.dtype == np.float64
    assert abs(x.mean() - 2.0) < 0.02 and abs(x.std() - 0.5) < 0.02
    # exponential takes the scale (mean), as MXNet's wrapper does.
    e = mx.nd.random.exponential(scale=4.0, shape=(20000,)).asnumpy()
    assert abs(e.mean() - 4.0) < 0.2
    g = mx.nd.random.gamma(alpha=3.0, beta=2.0, shape=(20000,)).asnumpy()
    assert abs(g.mean() - 6.0) < 0.2
    p = mx.nd.random.poisson(lam=5.0, shape=(20000,)).asnumpy()
    assert abs(p.mean() - 5.0) < 0.1 and np.all(p == np.round(p))
    nb = mx.nd.random.negative_binomial(k=3, p=0.4, shape=(20000,)).asnumpy()
    assert abs(nb.mean() - 4.5) < 0.2
    gnb = mx.nd.random.generalized_negative_binomial(mu=2.0, alpha=0.3, shape=(20000,)).asnumpy()
    assert abs(gnb.mean() - 2.0) < 0.1
    r = mx.nd.random.randint(-2, 3, shape=(5000,)).asnumpy()
    assert r.dtype == np.int32 and set(r.tolist()) == {-2, -1, 0, 1, 2}
    # Without a shape or out=, MXNet draws one number.
    assert mx.nd.random.uniform().shape == (1,)
    assert mx.nd.random.randn(2, 3).shape == (2, 3)


def test_array_parameters_use_the_sample_ops():
    mx.random.seed(5)
    mu = mx.nd.array([0.0, 10.0])
    sigma = mx.nd.array([1.0, 0.1])
    x = mx.nd.random.normal(mu, sigma, shape=(5000,)).asnumpy()
    assert x.shape == (2, 5000)
    assert abs(x[0].mean()) < 0.1 and abs(x[1].mean() - 10.0) < 0.01
    with pytest.raises(TypeError):
        mx.nd.random.normal(mu, 1.0)
    # exponential's arrays are scales too (MXNet passes 1 / scale as the rate).
    scale = mx.nd.array([2.0, 4.0])
    e = mx.nd.random.exponential(scale, shape=(8000,)).asnumpy()
    assert abs(e[0].mean() - 2.0) < 0.15 and abs(e[1].mean() - 4.0) < 0.3


def test_multinomial_and_shuffle():
    mx.random.seed(9)
    probs = mx.nd.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]])
    s = mx.nd.random.multinomial(probs, shape=(100,)).asnumpy()
    assert s.dtype == np.int32 and np.all(s[0] == 1) and set(s[1].tolist()) == {0, 2}
    s, logp = mx.nd.random.multinomial(probs, get_prob=True)
    assert np.allclose(logp.asnumpy(), [0.0, np.log(0.5)])
    data = mx.nd.array(np.arange(20).reshape(10, 2))
    out = mx.nd.random.shuffle(data).asnumpy()
    assert sorted(out[:, 0].tolist()) == list(range(0, 20, 2))
    assert np.all(out[:, 1] == out[:, 0] + 1)


def test_symbols_of_the_random_namespace():
    mu, sigma = mx.sym.Variable("mu"), mx.sym.Variable("sigma")
    net = mx.sym.random.normal(mu, sigma, shape=(3,))
    assert net.infer_shape(mu=(2,), sigma=(2,))[1] == [(2, 3)]
    u = mx.sym.random.uniform(low=1, high=1, shape=(2, 2))
    exe = u.simple_bind(mx.cpu())
    assert np.all(exe.forward()[0].asnumpy() == 1)
    # mx.sym's multinomial gives the log-probabilities too, as MXNet's.
    assert len(mx.sym.random.multinomial(mx.sym.Variable("p")).list_outputs()) == 2
    assert mx.sym.random.pdf_normal is mx.sym._random_pdf_normal


def test_densities():
    x = mx.nd.array([[0.0, 1.0], [2.0, 3.0]])
    d = mx.nd.random.pdf_normal(x, mx.nd.array([0.0, 2.0]), mx.nd.array([1.0, 0.5]))
    want = np.exp(-0.5 * np.array([[0.0, 1.0], [0.0, 4.0]])) / (
        np.sqrt(2 * np.pi) * np.array([[1.0], [0.5]]))
    assert np.allclose(d.asnumpy(), want, rtol=1e-5)
