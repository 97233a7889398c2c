"""MXNet's fluent Symbol methods: x.reshape(...), x.sum(axis=...), x.astype(...)."""
import numpy as np
import pytest

import symx as mx


def test_chain_of_fluent_methods_computes_what_the_ops_do():
    x = mx.sym.Variable("x")
    y = (x.reshape((0, -1)).sum(axis=1) * 2).astype("float64").expand_dims(1)
    assert y.infer_shape(x=(2, 3, 4))[1] == [(2, 1)]
    assert y.infer_type(x=np.float32)[1] == [np.float64]
    out = y.eval(x=mx.nd.array(np.arange(24).reshape(2, 3, 4)))[0].asnumpy()
    np.testing.assert_array_equal(out, [[2 * np.arange(12).sum()], [2 * np.arange(12, 24).sum()]])


def test_positional_attributes_follow_mxnets_signatures():
    x = mx.sym.Variable("x")
    assert x.transpose((1, 0)).infer_shape(x=(2, 3))[1] == [(3, 2)]
    assert x.clip(0, 1).list_attr() == {"a_min": "0", "a_max": "1"}
    assert x.slice_axis(1, 0, 2).infer_shape(x=(4, 5))[1] == [(4, 2)]
    # As MXNet's signature: reshape's second positional value is `reverse`.
    with pytest.raises(mx.base.MXNetError, match="'reverse'"):
        x.reshape((2, 3), (3, 2))
    with pytest.raises(TypeError, match="at most 2"):
        x.clip(0, 1, 2)
    with pytest.raises(TypeError, match="multiple values"):
        x.reshape((2, 3), shape=(3, 2))


def test_unary_fluent_methods_exist_and_run():
    x = mx.sym.Variable("x")
    for name in ("exp", "sqrt", "relu", "sigmoid", "flatten", "abs", "square"):
        y = getattr(x, name)()
        assert y.eval(x=mx.nd.ones((2, 2)))[0].shape == (2, 2)
