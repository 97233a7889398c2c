"""mx.nd's operator functions and NDArray arithmetic run by the engine
(imperative calls through cached one-op plans)."""
import numpy as np
import pytest

import symx as mx


def _nd(values, dtype="float32", ctx=None):
    return mx.nd.array(np.asarray(values), ctx=ctx, dtype=dtype)


def test_every_registered_op_is_a_function_of_mx_nd():
    for name, aliases, _, _, is_backward in mx.base._core.list_ops():
        for spelling in [name] + list(aliases):
            has = callable(getattr(mx.nd, spelling, None))
            if is_backward or name in ("_send", "_recv", "_CrossDeviceCopy"):
                assert not has or spelling in mx.nd.__all__, spelling
            else:
                assert has, spelling
                assert getattr(mx.nd.op, spelling) is getattr(mx.nd, spelling)
    assert mx.nd.contrib.box_nms is mx.nd._contrib_box_nms
    assert mx.nd._internal._plus_scalar is mx.nd._plus_scalar
    # One function per spelling (the alias names the node, as in MXNet).
    assert mx.ndarray.concat.__name__ == "concat" and mx.nd.Concat.__name__ == "Concat"


def test_linear_algebra_and_layers_equal_numpy():
    rng = np.random.RandomState(0)
    a, b = rng.randn(3, 4).astype(np.float32), rng.randn(4, 5).astype(np.float32)
    np.testing.assert_allclose(mx.nd.dot(_nd(a), _nd(b)).asnumpy(), a @ b, rtol=1e-5)
    np.testing.assert_allclose(mx.nd.dot(_nd(a), _nd(a), transpose_b=True).asnumpy(), a @ a.T,
                               rtol=1e-5)
    x, w, bias = rng.randn(2, 4), rng.randn(3, 4), rng.randn(3)
    fc = mx.nd.FullyConnected(data=_nd(x), weight=_nd(w), bias=_nd(bias), num_hidden=3)
    np.testing.assert_allclose(fc.asnumpy(), x @ w.T + bias, rtol=1e-5, atol=1e-6)
    bx, by = rng.randn(2, 3, 4), rng.randn(2, 4, 2)
    np.testing.assert_allclose(mx.nd.batch_dot(_nd(bx), _nd(by)).asnumpy(), bx @ by, rtol=1e-5)


def test_imperative_equals_the_bound_symbol():
    rng = np.random.RandomState(1)
    x, w = rng.randn(2, 3, 8, 8), rng.randn(4, 3, 3, 3)
    attrs = dict(kernel=(3, 3), num_filter=4, pad=(1, 1), no_bias=True)
    got = mx.nd.Convolution(_nd(x), _nd(w), **attrs).asnumpy()
    net = mx.sym.Convolution(mx.sym.Variable("x"), mx.sym.Variable("w"), **attrs)
    want = net.eval(x=_nd(x), w=_nd(w))[0].asnumpy()
    np.testing.assert_array_equal(got, want)


def test_positional_attributes_out_and_several_outputs():
    x = _nd([[-2, 0.5], [3, 1]])
    np.testing.assert_array_equal(mx.nd.clip(x, 0, 1).asnumpy(), [[0, 0.5], [1, 1]])
    np.testing.assert_array_equal(mx.nd.one_hot(_nd([1, 0]), 3).asnumpy(), [[0, 1, 0], [1, 0, 0]])
    out = mx.nd.zeros((2, 2))
    assert mx.nd.relu(x, out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), [[0, 0.5], [3, 1]])
    parts = mx.nd.split(x, num_outputs=2, axis=0)
    assert isinstance(parts, list) and [p.shape for p in parts] == [(1, 2), (1, 2)]
    assert isinstance(mx.nd.split(x, num_outputs=1, axis=0), mx.nd.NDArray)
    a, b = mx.nd.zeros((1, 2)), mx.nd.zeros((1, 2))
    res = mx.nd.split(x, num_outputs=2, axis=0, out=[a, b])
    assert res[0] is a and res[1] is b
    np.testing.assert_array_equal(b.asnumpy(), [[3, 1]])
    top = x.topk(axis=1, k=1, ret_typ="both")
    assert isinstance(top, list) and len(top) == 2
    # A dot whose output is one of its inputs reads the old values.
    m = _nd([[1, 2], [3, 4]])
    mx.nd.dot(m, _nd([[0, 1], [1, 0]]), out=m)
    np.testing.assert_array_equal(m.asnumpy(), [[2, 1], [4, 3]])


def test_ops_without_inputs_take_ctx_or_the_current_context():
    z = mx.nd._zeros(shape=(2, 3), ctx=mx.cpu(1))
    assert z.context == mx.cpu(1) and z.shape == (2, 3)
    with mx.Context(mx.cpu(2)):
        assert mx.nd._ones(shape=(2,)).context == mx.cpu(2)
    np.testing.assert_array_equal(mx.nd._full(shape=(2,), value=7).asnumpy(), [7, 7])
    np.testing.assert_array_equal(mx.nd._arange(start=0, stop=3).asnumpy(), [0, 1, 2])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_arithmetic_broadcasts_and_keeps_the_dtype(dtype):
    rng = np.random.RandomState(2)
    a = rng.uniform(0.5, 2, (3, 4)).astype(dtype)
    b = rng.uniform(0.5, 2, (1, 4)).astype(dtype)
    x, y = _nd(a, dtype), _nd(b, dtype)
    tol = dict(rtol=2e-3) if dtype == "float16" else dict(rtol=1e-6)
    cases = {
        "x + y": (x + y, a + b), "x - y": (x - y, a - b), "x * y": (x * y, a * b),
        "x / y": (x / y, a / b), "x ** y": (x ** y, a ** b), "x + 2": (x + 2, a + 2),
        "2 - x": (2 - x, 2 - a), "x * 3": (x * 3, a * 3), "3 / x": (3 / x, 3 / a),
        "x ** 2": (x ** 2, a ** 2), "2 ** x": (2 ** x, 2 ** a), "-x": (-x, -a),
        "abs(-x)": (abs(-x), a), "max(x, y)": (mx.nd.maximum(x, y), np.maximum(a, b)),
        "min(x, 1)": (mx.nd.minimum(x, 1), np.minimum(a, 1)),
    }
    for what, (got, want) in cases.items():
        assert got.dtype == np.dtype(dtype), what
        np.testing.assert_allclose(got.asnumpy(), want.astype(dtype), err_msg=what, **tol)
    for what, (got, want) in {
        "x > y": (x > y, a > b), "x <= 1": (x <= 1, a <= 1), "1 < x": (1 < x, 1 < a),
        "x == x": (x == x, a == a), "x != y": (x != y, a != b),
    }.items():
        assert got.dtype == np.dtype(dtype), what
        np.testing.assert_array_equal(got.asnumpy(), want.astype(dtype), err_msg=what)


def test_inplace_arithmetic_writes_into_the_array():
    x = mx.sym.Variable("x")
    exe = (x * 2).simple_bind(mx.cpu(), x=(2,), grad_req="null")
    arg = exe.arg_arrays[0]
    arg += 1
    arg *= _nd([3, 4])
    arg -= 0.5
    arg /= 2
    assert exe.arg_arrays[0] is arg
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [2.5, 3.5])
    # Integer arrays compute in numpy (the engine's arithmetic is float) and
    # keep their dtype.
    i = mx.nd.array([1, 2, 3], dtype="int32")
    i += 2
    assert i.dtype == np.int32
    np.testing.assert_array_equal((i * 2).asnumpy(), [6, 8, 10])
    np.testing.assert_array_equal((i % 2).asnumpy(), [1, 0, 1])


def test_fluent_methods_are_the_ops():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = _nd(a)
    np.testing.assert_array_equal(x.sum(axis=1).asnumpy(), a.sum(axis=1))
    np.testing.assert_array_equal(x.mean(axis=0).asnumpy(), a.mean(axis=0))
    np.testing.assert_array_equal(x.max().asnumpy(), [11])
    np.testing.assert_array_equal(x.argmax(axis=1).asnumpy(), [3, 3, 3])
    np.testing.assert_array_equal(x.T.asnumpy(), a.T)
    np.testing.assert_array_equal(x.transpose((1, 0)).asnumpy(), a.T)
    np.testing.assert_allclose(x.exp().asnumpy(), np.exp(a), rtol=1e-6)
    np.testing.assert_array_equal(x.expand_dims(0).shape, (1, 3, 4))
    np.testing.assert_array_equal(x.clip(2, 5).asnumpy(), np.clip(a, 2, 5))
    assert x.astype("float64").dtype == np.float64
    np.testing.assert_array_equal(x.min().asnumpy(), [0])  # no min op yet: numpy


def test_errors_name_the_op_and_what_is_wrong():
    a = mx.nd.ones((2, 3))
    with pytest.raises(mx.base.MXNetError, match="operator dot"):
        mx.nd.dot(a, a)
    with pytest.raises(mx.base.MXNetError, match="weight, bias not given"):
        mx.nd.FullyConnected(a, num_hidden=2)
    with pytest.raises(mx.base.MXNetError, match="no_such_attr"):
        mx.nd.relu(a, no_such_attr=1)
    with pytest.raises(mx.base.MXNetError, match="different contexts"):
        mx.nd.elemwise_add(a, mx.nd.ones((2, 3), ctx=mx.cpu(1)))
    with pytest.raises(mx.base.MXNetError, match=r"out\[0\] is \[3,2\]"):
        mx.nd.relu(a, out=mx.nd.zeros((3, 2)))
    with pytest.raises(mx.base.MXNetError, match="has no input named 'wieght'"):
        mx.nd.FullyConnected(a, wieght=a, num_hidden=2)
    with pytest.raises(TypeError, match="takes at most 2 positional attribute"):
        mx.nd.clip(a, 0, 1, 2)
    with pytest.raises(TypeError, match="out= must be an NDArray"):
        mx.nd.relu(a, out=np.zeros((2, 3)))
    with pytest.raises(mx.base.MXNetError, match="broadcast_add"):
        a + mx.nd.ones((4,))


def test_the_second_call_is_a_cache_hit():
    mx.base._core.clear_imperative_cache()
    x = mx.nd.ones((5, 5))
    for _ in range(10):
        x = mx.nd.sigmoid(x)
    plans, hits, misses = mx.base._core.imperative_cache_stats()
    assert (plans, hits, misses) == (1, 9, 1)


def test_review_findings_match_mxnet():
    # Values from mxnet==1.9.1 on the same calls.
    i = mx.nd.array([-3, -1, 2, 5], dtype="int32")
    np.testing.assert_array_equal((i + 0.5).asnumpy(), [-3, -1, 2, 5])
    np.testing.assert_array_equal((i * 0.5).asnumpy(), [0, 0, 0, 0])
    np.testing.assert_array_equal((i / 2.6).asnumpy(), [-1, 0, 1, 2])
    np.testing.assert_array_equal((mx.nd.array([4, 9], dtype="int32") ** 0.5).asnumpy(), [1, 1])
    f = mx.nd.array([1, 2])
    assert np.isnan((f * float("nan")).asnumpy()).all()
    assert np.isnan((f + float("nan")).asnumpy()).all()
    x = mx.sym.Variable("x")
    assert np.isnan((x * float("nan")).eval(x=f)[0].asnumpy()).all()
    # Positional attributes in MXNet's order, for every op.
    v = mx.nd.array([[1, 3, 2], [6, 4, 5]])
    np.testing.assert_array_equal(mx.nd.topk(v, 1, 2).asnumpy(), [[1, 2], [0, 2]])
    np.testing.assert_array_equal(mx.nd.pick(v, mx.nd.array([0, 2]), 1).asnumpy(), [1, 5])
    # None for a left-out input.
    w = mx.nd.ones((2, 3))
    fc = mx.nd.FullyConnected(v, w, None, no_bias=True, num_hidden=2)
    np.testing.assert_array_equal(fc.asnumpy(), [[6, 6], [15, 15]])
    # Two dtypes are an error naming the op; x == None is a TypeError.
    with pytest.raises(mx.base.MXNetError, match="broadcast_add"):
        f + mx.nd.array([1, 2], dtype="int32")
    with pytest.raises(TypeError):
        f == None  # noqa: E711
    # An op without inputs runs where out= is.
    out = mx.nd.zeros((2,), ctx=mx.cpu(1))
    assert mx.nd._ones(shape=(2,), out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), [1, 1])


def test_update_operators_write_their_states_in_place():
    # MXNet's calling convention: out=weight, the states (aux inputs) written.
    w = mx.nd.array([1.0, -2.0, 0.5])
    g = mx.nd.array([0.5, 0.5, -1.0])
    mom = mx.nd.zeros((3,))
    mx.nd.sgd_mom_update(w, g, mom, out=w, lr=0.1, momentum=0.9, wd=0.01)
    want_mom = -0.1 * 0.01 * np.array([1.0, -2.0, 0.5], np.float32) - 0.1 * np.float32([0.5, 0.5, -1])
    np.testing.assert_allclose(mom.asnumpy(), want_mom, rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), np.float32([1.0, -2.0, 0.5]) + want_mom, rtol=1e-6)
    # Without out= the weight keeps its value and the result is a new array.
    before = w.asnumpy()
    new = mx.nd.sgd_update(w, g, lr=1.0)
    np.testing.assert_array_equal(w.asnumpy(), before)
    np.testing.assert_allclose(new.asnumpy(), before - g.asnumpy(), rtol=1e-6)
    # float16 weights with a float32 master copy.
    w16 = mx.nd.array([1.0, 2.0], dtype="float16")
    w32 = w16.astype("float32")
    mx.nd.mp_sgd_update(w16, mx.nd.array([1e-4, 1e-4], dtype="float16"), w32, out=w16, lr=1.0)
    assert w32.dtype == np.float32 and w16.dtype == np.float16
    np.testing.assert_allclose(w32.asnumpy(), [1 - 1e-4, 2 - 1e-4], rtol=1e-6)
    # In a symbol the states are auxiliary, as MXNet lists them.
    s = mx.sym.adam_update(mx.sym.Variable("w"), mx.sym.Variable("g"), mx.sym.Variable("m"),
                           mx.sym.Variable("v"), lr=0.1)
    assert s.list_arguments() == ["w", "g"]
    assert s.list_auxiliary_states() == ["m", "v"]
    with pytest.raises(mx.MXNetError, match="lr"):
        mx.nd.sgd_update(w, g)


def test_reductions_and_updates_take_mxnets_positional_attributes():
    x = mx.nd.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    np.testing.assert_array_equal(mx.nd.min(x, 1).asnumpy(), [-2.0, -6.0])
    np.testing.assert_array_equal(x.prod(0).asnumpy(), [4.0, -10.0, -18.0])
    np.testing.assert_array_equal(mx.nd.norm(x, 1, 1).asnumpy(), [6.0, 15.0])
    mean, var = mx.nd.moments(x, (1,))
    np.testing.assert_allclose(mean.asnumpy(), [2.0 / 3, 1.0], rtol=1e-6)
    assert mx.sym.min(mx.sym.Variable("d"), 1).infer_shape(d=(2, 3))[1] == [(2,)]
    w = mx.nd.ones((2,))
    mx.nd.sgd_update(w, mx.nd.ones((2,)), 0.5, out=w)  # lr positionally
    np.testing.assert_array_equal(w.asnumpy(), [0.5, 0.5])


def test_grouped_ops_take_mxnets_positional_attributes():
    # mx.nd.contrib / image / linalg functions take attributes positionally
    # after their inputs, in MXNet's order.
    x = mx.nd.array(np.arange(18).reshape(2, 3, 3), dtype="uint8")
    np.testing.assert_array_equal(mx.nd.image.random_brightness(x, 2.0, 2.0).asnumpy(),
                                  x.asnumpy() * 2)
    np.testing.assert_array_equal(mx.nd.image.crop(x, 1, 0, 2, 1).asnumpy(),
                                  x.asnumpy()[0:1, 1:3])
    a = mx.nd.array([[4.0, 2.0], [2.0, 3.0]])
    np.testing.assert_allclose(mx.nd.linalg.gemm2(a, a, True).asnumpy(),
                               a.asnumpy().T @ a.asnumpy())
    np.testing.assert_allclose(mx.nd.contrib.div_sqrt_dim(a).asnumpy(), a.asnumpy() / np.sqrt(2))


def test_random_image_augmenters_return_one_array():
    x = mx.nd.array(np.arange(18).reshape(2, 3, 3), dtype="uint8")
    for fn in (mx.nd.image.random_flip_left_right, mx.nd.image.random_flip_top_bottom):
        y = fn(x)
        assert isinstance(y, mx.nd.NDArray) and y.shape == (2, 3, 3)
    s = mx.sym.image.random_flip_top_bottom(mx.sym.Variable("d"))
    assert len(s.list_outputs()) == 1
    y = mx.nd.image.random_color_jitter(x, brightness=0.2, contrast=0.2, saturation=0.2, hue=0.1)
    assert y.dtype == np.uint8 and y.shape == (2, 3, 3)


def test_histogram_as_mxnet():
    x = mx.nd.array([[0, 1], [2, 2], [3, 4.999]])
    counts, edges = mx.nd.histogram(x, bins=5, range=(0, 5))
    assert counts.asnumpy().tolist() == [1, 1, 2, 1, 1]
    assert counts.dtype == np.int64
    np.testing.assert_allclose(edges.asnumpy(), [0, 1, 2, 3, 4, 5])
    counts, _ = mx.nd.histogram(x, bins=mx.nd.array([0, 2.1, 3]))
    assert counts.asnumpy().tolist() == [4, 1]
    # A count without a range takes numpy's edges, as MXNet does.
    with pytest.warns(UserWarning):
        counts, edges = mx.nd.histogram(x, bins=2)
    want_counts, want_edges = np.histogram(x.asnumpy(), bins=2)
    assert counts.asnumpy().tolist() == want_counts.tolist()
    np.testing.assert_allclose(edges.asnumpy(), want_edges)
    with pytest.raises(ValueError):
        mx.nd.histogram(x, bins=2.5)


def test_histogram_symbol_needs_a_range():
    d = mx.sym.var("d")
    with pytest.raises(ValueError, match="null range"):
        mx.sym.histogram(d, bins=3)
    s = mx.sym.histogram(d, bins=3, range=(0, 3))
    assert s.list_outputs() == [s.name + "_output0", s.name + "_output1"]
    exe = s.simple_bind(mx.cpu(), d=(4,), grad_req="null")
    exe.forward(d=mx.nd.array([0, 1, 2, 3]))
    assert exe.outputs[0].asnumpy().tolist() == [1, 1, 2]


def test_boolean_mask_runs_imperatively_and_refuses_a_bind():
    x = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    y = mx.nd.contrib.boolean_mask(x, mx.nd.array([1, 0, 1]))
    assert y.shape == (2, 2)
    assert y.asnumpy().tolist() == [[1, 2], [5, 6]]
    assert mx.nd.contrib.boolean_mask(x, mx.nd.zeros(3)).shape == (0, 2)
    s = mx.sym.contrib.boolean_mask(mx.sym.var("d"), mx.sym.var("i"))
    with pytest.raises(mx.base.MXNetError, match="depends on the values"):
        s.simple_bind(mx.cpu(), d=(3, 2), i=(3,), grad_req="null")


def test_fft_pair_and_hypot():
    x = mx.nd.array([[1, 2, 3, 4]])
    f = mx.nd.contrib.fft(x)
    np.testing.assert_allclose(f.asnumpy().reshape(4, 2) @ [1, 1j],
                               np.fft.fft(x.asnumpy()[0]), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(mx.nd.contrib.ifft(f).asnumpy(), 4 * x.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(mx.nd.hypot(mx.nd.array([3, 5]), 4).asnumpy(), [5, 41 ** 0.5],
                               rtol=1e-6)
    a, b = mx.sym.var("a"), mx.sym.var("b")
    exe = mx.sym.hypot(a, b).simple_bind(mx.cpu(), a=(2,), b=(2,), grad_req="null")
    exe.forward(a=mx.nd.array([3, 6]), b=mx.nd.array([4, 8]))
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), [5, 10])


def test_contrib_checks_and_zipfian():
    x = mx.nd.array([1, np.inf, -np.inf, np.nan, 0])
    assert mx.nd.contrib.isinf(x).asnumpy().tolist() == [0, 1, 1, 0, 0]
    assert mx.nd.contrib.isfinite(x).asnumpy().tolist() == [1, 0, 0, 0, 1]
    assert mx.nd.contrib.isnan(x).asnumpy().tolist() == [0, 0, 0, 1, 0]
    mx.random.seed(3)
    sampled, count_true, count_sampled = mx.nd.contrib.rand_zipfian(mx.nd.array([3, 0]), 400, 5)
    s = sampled.asnumpy()
    assert sampled.dtype == np.int64 and s.min() >= 0 and s.max() < 5
    law = np.log((np.arange(5) + 2.0) / (np.arange(5) + 1.0)) / np.log(6)
    np.testing.assert_allclose(count_true.asnumpy(), law[[3, 0]] * 400)
    np.testing.assert_allclose(count_sampled.asnumpy(), law[s] * 400)
    # Class 0 is the likeliest (P = log 2 / log 6 = 0.39): 400 draws land near it.
    assert abs((s == 0).mean() - law[0]) < 0.1
    outs = mx.sym.contrib.rand_zipfian(mx.sym.Variable("t"), 8, 5)
    exe = mx.sym.Group(list(outs)).bind(mx.cpu(), {"t": mx.nd.array([1])})
    got = exe.forward()
    assert got[0].shape == (8,) and got[1].shape == (1,) and got[2].shape == (8,)
