"""mx.nd: creating arrays, numpy copies and views, indexing, arithmetic,
conversions and the .nd file round trip (python/symx/ndarray.py).

Expected values are small enough to derive by hand; where MXNet's behaviour
is not obvious (default dtype, which indexing is a view) the comment says
what MXNet 1.9.1 does.
"""
import numpy as np
import pytest

import symx as mx


def test_array_defaults_to_float32_whatever_the_source():
    # MXNet: float32 unless dtype is given; an NDArray source keeps its dtype.
    assert mx.nd.array([1, 2]).dtype == np.float32
    assert mx.nd.array(np.arange(3, dtype=np.int64)).dtype == np.float32
    assert mx.nd.array(np.arange(3.0)).dtype == np.float32
    assert mx.nd.array(mx.nd.zeros(2, dtype="int32")).dtype == np.int32
    assert mx.nd.array([1, 2], dtype="float64").dtype == np.float64
    assert mx.nd.array([1, 2], dtype=np.int32).dtype == np.int32


def test_array_of_a_scalar_is_zero_dimensional():
    # MXNet 1.9.1: mx.nd.array(5).shape == (), and a 0-d numpy array stays 0-d
    # (the head gradient of a 0-d output, e.g. split with squeeze_axis over a
    # 1-D input, is passed that way).
    assert mx.nd.array(5).shape == ()
    assert mx.nd.array(np.array(2.5)).shape == ()
    assert float(mx.nd.array(np.array(2.5)).asnumpy()) == 2.5
    assert mx.nd.array([5]).shape == (1,)
    x = mx.sym.Variable("x")
    parts = mx.sym.SliceChannel(x, num_outputs=3, axis=0, squeeze_axis=True)
    exe = parts.simple_bind(mx.cpu(), x=(3,))
    exe.arg_dict["x"][:] = np.arange(3.0)
    outs = exe.forward(is_train=True)
    assert [o.shape for o in outs] == [(), (), ()]
    exe.backward([mx.nd.array(np.array(v)) for v in (1.0, 2.0, 3.0)])
    np.testing.assert_array_equal(exe.grad_dict["x"].asnumpy(), [1.0, 2.0, 3.0])


def test_zeros_ones_full_empty():
    z = mx.nd.zeros((2, 3))
    assert z.shape == (2, 3) and z.dtype == np.float32
    np.testing.assert_array_equal(z.asnumpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(mx.nd.ones(4, dtype="float16").asnumpy(), np.ones(4))
    assert mx.nd.ones(4, dtype="float16").dtype == np.float16
    full = mx.nd.full((2, 2), 7, dtype="int32")
    assert full.dtype == np.int32
    np.testing.assert_array_equal(full.asnumpy(), [[7, 7], [7, 7]])
    e = mx.nd.empty((3, 1))
    assert e.shape == (3, 1) and e.dtype == np.float32


def test_arange():
    np.testing.assert_array_equal(mx.nd.arange(2, 5).asnumpy(), [2, 3, 4])
    np.testing.assert_array_equal(mx.nd.arange(0, 1, 0.25).asnumpy(), [0, 0.25, 0.5, 0.75])
    np.testing.assert_array_equal(mx.nd.arange(3).asnumpy(), [0, 1, 2])
    np.testing.assert_array_equal(mx.nd.arange(3, repeat=2).asnumpy(), [0, 0, 1, 1, 2, 2])
    assert mx.nd.arange(3).dtype == np.float32
    assert mx.nd.arange(3, dtype="int64").dtype == np.int64


def test_properties():
    x = mx.nd.array([[1, 2, 3], [4, 5, 6]])
    assert x.shape == (2, 3)
    assert x.size == 6
    assert x.ndim == 2
    assert x.dtype == np.float32
    assert x.context == mx.cpu(0)
    assert mx.nd.zeros(2, ctx=mx.cpu(1)).context == mx.cpu(1)
    assert len(x) == 2


def test_asnumpy_returns_a_copy():
    x = mx.nd.array([1, 2, 3])
    host = x.asnumpy()
    host[0] = 100
    assert x.asnumpy()[0] == 1
    x[:] = 5
    assert host[1] == 2


def test_basic_slices_are_views():
    x = mx.nd.arange(0, 12).reshape((4, 3))
    rows = x[1:3]
    assert rows.shape == (2, 3)
    rows[:] = -1
    np.testing.assert_array_equal(x.asnumpy()[1:3], -np.ones((2, 3)))
    row = x[3]
    assert row.shape == (3,)
    row[:] = 9
    np.testing.assert_array_equal(x.asnumpy()[3], [9, 9, 9])
    # ... and the other way round: writes to x show through the views.
    x[:] = 0
    assert rows.asnumpy().sum() == 0 and row.asnumpy().sum() == 0
    # In-place arithmetic on a view writes x's memory too.
    v = x[0]
    v += 10
    np.testing.assert_array_equal(x.asnumpy()[0], [10, 10, 10])


def test_negative_index_and_out_of_range():
    x = mx.nd.arange(0, 6).reshape((3, 2))
    np.testing.assert_array_equal(x[-1].asnumpy(), [4, 5])
    with pytest.raises(IndexError):
        x[3]


def test_setitem_scalar_array_and_ndarray():
    x = mx.nd.zeros((2, 3))
    x[:] = 3
    np.testing.assert_array_equal(x.asnumpy(), np.full((2, 3), 3))
    x[:] = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(x.asnumpy(), np.arange(6).reshape(2, 3))
    x[:] = mx.nd.ones((2, 3))
    np.testing.assert_array_equal(x.asnumpy(), np.ones((2, 3)))
    x[1] = 5
    np.testing.assert_array_equal(x.asnumpy(), [[1, 1, 1], [5, 5, 5]])
    x[0:1] = np.array([[7, 8, 9]])
    np.testing.assert_array_equal(x.asnumpy(), [[7, 8, 9], [5, 5, 5]])


def test_setitem_of_a_zero_dimensional_array():
    # MXNet 1.9.1: x[:] = numpy_value works on a 0-d array (an executor's
    # argument of shape (), bound beside a 0-d output: the fuzzer's s36_g268).
    x = mx.nd.array(np.array(2.5))
    x[:] = np.array(3.0)
    assert x.shape == () and float(x.asnumpy()) == 3.0
    x[:] = mx.nd.array(np.array(-1.5))
    assert float(x.asnumpy()) == -1.5


def test_setitem_shape_mismatch_raises():
    x = mx.nd.zeros((2, 3))
    # MXNet: ValueError (operands could not be broadcast) for both.
    with pytest.raises(ValueError):
        x[:] = mx.nd.ones((3, 2))
    with pytest.raises(ValueError):
        x[:] = np.ones((3, 2))
    np.testing.assert_array_equal(x.asnumpy(), np.zeros((2, 3)))


def test_fancy_indexing_copies():
    x = mx.nd.arange(0, 20).reshape((5, 4))
    picked = x[[0, 2]]
    assert picked.shape == (2, 4)
    np.testing.assert_array_equal(picked.asnumpy(), [[0, 1, 2, 3], [8, 9, 10, 11]])
    picked[:] = 77
    np.testing.assert_array_equal(x.asnumpy()[0], [0, 1, 2, 3])
    column = x[:, 1]
    assert column.shape == (5,)
    np.testing.assert_array_equal(column.asnumpy(), [1, 5, 9, 13, 17])
    column[:] = -1
    assert x.asnumpy()[0, 1] == 1


def test_arithmetic_with_arrays_and_scalars():
    a = mx.nd.array([1, 2, 4])
    b = mx.nd.array([4, 5, 8])
    cases = [
        (a + b, [5, 7, 12]), (a - b, [-3, -3, -4]), (a * b, [4, 10, 32]),
        (a / b, [0.25, 0.4, 0.5]), (a + 1, [2, 3, 5]), (1 + a, [2, 3, 5]),
        (a - 1, [0, 1, 3]), (2 - a, [1, 0, -2]), (a * 3, [3, 6, 12]), (3 * a, [3, 6, 12]),
        (a / 2, [0.5, 1, 2]), (4 / a, [4, 2, 1]), (-a, [-1, -2, -4]), (a ** 2, [1, 4, 16]),
        (2 ** a, [2, 4, 16]), (b % 3, [1, 2, 2]),
    ]
    for result, expected in cases:
        assert isinstance(result, mx.nd.NDArray)
        assert result.dtype == np.float32
        np.testing.assert_allclose(result.asnumpy(), expected, rtol=1e-6)
    # The operands are untouched.
    np.testing.assert_array_equal(a.asnumpy(), [1, 2, 4])


def test_numpy_scalar_on_the_left_gives_an_ndarray():
    # NDArray's __array_priority__ makes numpy defer to its reflected operators.
    out = np.float32(2) * mx.nd.ones(2)
    assert isinstance(out, mx.nd.NDArray)
    np.testing.assert_array_equal(out.asnumpy(), [2, 2])


def test_inplace_arithmetic_keeps_the_array():
    a = mx.nd.array([1, 2, 4])
    alias = a
    a += 1
    assert a is alias
    np.testing.assert_array_equal(alias.asnumpy(), [2, 3, 5])
    a -= mx.nd.array([1, 1, 1])
    a *= 2
    a /= 4
    np.testing.assert_allclose(a.asnumpy(), [0.5, 1, 2])
    i = mx.nd.array([5, 6], dtype="int32")
    i += 2
    assert i.dtype == np.int32
    np.testing.assert_array_equal(i.asnumpy(), [7, 8])


def test_comparisons_give_ones_and_zeros_of_the_left_dtype():
    a = mx.nd.array([1, 2, 3])
    b = mx.nd.array([3, 2, 1])
    cases = [(a == b, [0, 1, 0]), (a != b, [1, 0, 1]), (a < b, [1, 0, 0]),
             (a <= b, [1, 1, 0]), (a > b, [0, 0, 1]), (a >= b, [0, 1, 1]),
             (a > 1, [0, 1, 1]), (a == 3, [0, 0, 1])]
    for result, expected in cases:
        assert result.dtype == np.float32
        np.testing.assert_array_equal(result.asnumpy(), expected)


def test_copyto_array_and_context():
    a = mx.nd.array([1, 2, 3])
    dst = mx.nd.zeros(3)
    assert a.copyto(dst) is dst
    np.testing.assert_array_equal(dst.asnumpy(), [1, 2, 3])
    other = a.copyto(mx.cpu(1))
    assert other.context == mx.cpu(1)
    np.testing.assert_array_equal(other.asnumpy(), [1, 2, 3])
    other[:] = 0  # a copy, not a view
    assert a.asnumpy()[0] == 1
    with pytest.raises(mx.base.MXNetError):
        a.copyto(mx.nd.zeros(4))


def test_copy_is_independent():
    a = mx.nd.array([1, 2])
    b = a.copy()
    b[:] = 0
    np.testing.assert_array_equal(a.asnumpy(), [1, 2])


def test_as_in_context():
    a = mx.nd.array([1, 2])
    assert a.as_in_context(mx.cpu(0)) is a
    moved = a.as_in_context(mx.cpu(2))
    assert moved.context == mx.cpu(2)
    np.testing.assert_array_equal(moved.asnumpy(), [1, 2])


def test_astype():
    a = mx.nd.array([1.5, -2.5, 3])
    i = a.astype("int32")
    assert i.dtype == np.int32
    np.testing.assert_array_equal(i.asnumpy(), [1, -2, 3])
    d = a.astype(np.float64)
    assert d.dtype == np.float64
    d[:] = 0  # astype copies by default
    assert a.asnumpy()[0] == 1.5
    assert a.astype("float32", copy=False) is a


def test_reshape_minus_one_and_zero_are_views():
    x = mx.nd.arange(0, 24).reshape((2, 3, 4))
    assert x.reshape((-1,)).shape == (24,)
    assert x.reshape((0, -1)).shape == (2, 12)
    assert x.reshape((0, 0, 2, 2)).shape == (2, 3, 2, 2)
    assert x.reshape(4, 6).shape == (4, 6)
    assert x.reshape(shape=(6, -1)).shape == (6, 4)
    flat = x.reshape((-1,))
    flat[:] = 1
    assert x.asnumpy().sum() == 24
    with pytest.raises(ValueError):
        x.reshape((5, -1))
    with pytest.raises(ValueError):
        x.reshape((-1, -1))


def test_save_load_list(tmp_path):
    path = str(tmp_path / "list.nd")
    arrays = [mx.nd.array([[1, 2], [3, 4]]), mx.nd.array([5, 6, 7], dtype="int32"),
              mx.nd.array([0.5], dtype="float64")]
    mx.nd.save(path, arrays)
    loaded = mx.nd.load(path)
    assert isinstance(loaded, list) and len(loaded) == 3
    for got, want in zip(loaded, arrays):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


def test_save_load_dict(tmp_path):
    path = str(tmp_path / "dict.nd")
    arrays = {"arg:w": mx.nd.array([[1, 2, 3]]), "aux:m": mx.nd.array([9], dtype="float16")}
    mx.nd.save(path, arrays)
    loaded = mx.nd.load(path)
    assert isinstance(loaded, dict) and sorted(loaded) == ["arg:w", "aux:m"]
    for k, want in arrays.items():
        assert loaded[k].dtype == want.dtype
        np.testing.assert_array_equal(loaded[k].asnumpy(), want.asnumpy())


def test_save_single_array_and_bad_input(tmp_path):
    path = str(tmp_path / "one.nd")
    mx.nd.save(path, mx.nd.array([1, 2]))
    loaded = mx.nd.load(path)
    assert isinstance(loaded, list) and len(loaded) == 1
    np.testing.assert_array_equal(loaded[0].asnumpy(), [1, 2])
    with pytest.raises(TypeError):
        mx.nd.save(path, {1: mx.nd.array([1])})
    with pytest.raises(TypeError):
        mx.nd.save(path, [np.ones(2)])


def test_waitall_and_wait_to_read():
    a = mx.nd.ones(2)
    a.wait_to_read()
    assert mx.nd.waitall() is None
    np.testing.assert_array_equal(a.asnumpy(), [1, 1])


def test_repr():
    assert repr(mx.nd.zeros((2, 3))).endswith("\n<NDArray 2x3 @cpu(0)>")
    assert repr(mx.nd.zeros(3, ctx=mx.cpu(1))).endswith("\n<NDArray 3 @cpu(1)>")
    assert "[[0. 0. 0.]\n [0. 0. 0.]]" in repr(mx.nd.zeros((2, 3)))


def test_scalar_conversions():
    a = mx.nd.array([2.5])
    assert a.asscalar() == 2.5
    assert float(a) == 2.5
    with pytest.raises(ValueError):
        mx.nd.ones(2).asscalar()
