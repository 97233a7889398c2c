"""mx.sym: variables, groups, composition, arithmetic, inference, attributes,
scopes, serialization and the op functions generated from the registry
(python/symx/symbol.py, _ops.py, attribute.py, name.py).

Expected values are MXNet 1.9.1's (the cases of its tests/python/unittest
test_symbol.py, test_infer_shape.py and test_attr.py, restated in
/work/shared/notes/mxnet-semantics.md) or small enough to derive by hand.
"""
import copy
import json
import pickle
import warnings

import numpy as np
import pytest

import symx as mx


def _mlp2():
    """data -> fc1(1000) -> relu -> fc2(10): MXNet's test_infer_shape mlp2."""
    data = mx.sym.Variable("data")
    out = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=1000)
    out = mx.sym.Activation(data=out, name="relu1", act_type="relu")
    return mx.sym.FullyConnected(data=out, name="fc2", num_hidden=10)


def _eval(sym, **values):
    """sym's first output for numpy ``values``, through bind + forward."""
    args = {k: mx.nd.array(v) for k, v in values.items()}
    return sym.bind(mx.cpu(), args).forward()[0].asnumpy()


# --- Variable ----------------------------------------------------------------

def test_variable_attributes_are_stored_as_hidden_keys():
    v = mx.sym.Variable("w", shape=(2, 3), dtype="float16", lr_mult=2.0, wd_mult=0.5,
                        init='["zero", {}]', attr={"mood": "angry"}, __layout__="NC")
    attrs = v.list_attr()
    # MXNet: shape as str(tuple), dtype as its type flag (float16 = 2).
    assert attrs["__shape__"] == "(2, 3)"
    assert attrs["__dtype__"] == "2"
    assert attrs["__lr_mult__"] == "2.0"
    assert attrs["__wd_mult__"] == "0.5"
    assert attrs["__init__"] == '["zero", {}]'
    assert attrs["mood"] == "angry"
    assert attrs["__layout__"] == "NC"
    assert v.name == "w"
    assert v.list_arguments() == ["w"]
    assert v.list_outputs() == ["w"]


def test_variable_short_names_of_hidden_keys():
    v = mx.sym.Variable("w", lr_mult=3)
    # test_attr.py: attr('lr_mult') falls back to __lr_mult__.
    assert v.attr("lr_mult") == v.attr("__lr_mult__")
    assert v.attr("no_such_key") is None


def test_variable_init_object_is_serialized():
    v = mx.sym.Variable("w", init=mx.init.Xavier())
    assert json.loads(v.attr("__init__"))[0] == "xavier"


def test_variable_shape_and_dtype_are_inference_hints():
    a = mx.sym.Variable("a", shape=(2, 3))
    b = mx.sym.Variable("b")
    assert (a + b).infer_shape() == ([(2, 3), (2, 3)], [(2, 3)], [])
    # A shape given in the call wins over the hint.
    assert (a + b).infer_shape(a=(5, 6)) == ([(5, 6), (5, 6)], [(5, 6)], [])
    v = mx.sym.Variable("v", dtype=np.float64)
    assert (v * 2).infer_type() == ([np.float64], [np.float64], [])


def test_variable_rejects_non_dunder_kwargs_and_bad_names():
    with pytest.raises(ValueError, match="double underscores"):
        mx.sym.Variable("w", foo=1)
    with pytest.raises(TypeError):
        mx.sym.Variable(3)


def test_var_is_variable():
    assert mx.sym.var("x").list_arguments() == ["x"]


# --- Group and indexing -------------------------------------------------------

def test_group_outputs_and_indexing():
    data = mx.sym.Variable("data")
    fc1 = mx.sym.FullyConnected(data, name="fc1", num_hidden=4)
    fc2 = mx.sym.FullyConnected(data, name="fc2", num_hidden=3)
    g = mx.sym.Group([fc1, fc2])
    assert g.list_outputs() == ["fc1_output", "fc2_output"]
    assert len(g) == 2
    assert g.name is None
    assert g[0].name == "fc1" and g[1].name == "fc2" and g[-1].name == "fc2"
    assert g["fc2_output"].name == "fc2"
    assert [s.name for s in g] == ["fc1", "fc2"]
    # A slice is a group too (this broke while the op mx.sym.slice shadowed the builtin).
    assert g[0:2].list_outputs() == ["fc1_output", "fc2_output"]
    assert g[1:].list_outputs() == ["fc2_output"]
    assert repr(g) == "<Symbol group [fc1, fc2]>" and repr(fc1) == "<Symbol fc1>"
    # Arguments are shared, listed once, in DFS order.
    assert g.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]


def test_indexing_errors():
    g = mx.sym.Group([mx.sym.Variable("x"), mx.sym.Variable("y")])
    with pytest.raises(ValueError, match='"zz"'):
        g["zz"]
    with pytest.raises(IndexError):
        g[2]
    with pytest.raises(TypeError):
        g[1.5]
    with pytest.raises(TypeError):
        mx.sym.Group([mx.sym.Variable("x"), 1])
    with pytest.raises(TypeError):
        mx.sym.Group([])


def test_multi_output_op_indexing():
    data = mx.sym.Variable("data")
    parts = mx.sym.SliceChannel(data, num_outputs=3, name="split")
    assert parts.list_outputs() == ["split_output0", "split_output1", "split_output2"]
    second = parts[1]
    assert second.list_outputs() == ["split_output1"]
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    np.testing.assert_array_equal(_eval(second, data=x), x[:, 2:4])
    np.testing.assert_array_equal(_eval(parts["split_output2"], data=x), x[:, 4:6])


# --- list_* -------------------------------------------------------------------

def test_list_arguments_outputs_aux_inputs():
    data = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data, name="fc", num_hidden=3)
    bn = mx.sym.BatchNorm(fc, name="bn")
    out = mx.sym.SoftmaxOutput(bn, name="softmax")
    assert out.list_arguments() == ["data", "fc_weight", "fc_bias", "bn_gamma", "bn_beta",
                                    "softmax_label"]
    assert out.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    assert out.list_outputs() == ["softmax_output"]
    # Inputs: arguments and aux states together, in DFS order.
    assert out.list_inputs() == ["data", "fc_weight", "fc_bias", "bn_gamma", "bn_beta",
                                 "bn_moving_mean", "bn_moving_var", "softmax_label"]


def test_missing_inputs_copy_the_op_attributes():
    data = mx.sym.Variable("data")
    bn = mx.sym.BatchNorm(mx.sym.FullyConnected(data, name="fc1", num_hidden=128), name="bn")
    attrs = bn.attr_dict()
    assert attrs["fc1_weight"] == {"num_hidden": "128"}
    assert attrs["fc1_bias"] == {"num_hidden": "128"}
    # BatchNorm's FSetInputVarAttrOnCompose: moving stats start at 0 and 1.
    assert attrs["bn_moving_mean"]["__init__"] == '["zero", {}]'
    assert attrs["bn_moving_var"]["__init__"] == '["one", {}]'


# --- arithmetic -----------------------------------------------------------------

@pytest.mark.parametrize("make,expect", [
    (lambda a, b: 2 * a + b, lambda x, y: 2 * x + y),
    (lambda a, b: a - 1, lambda x, y: x - 1),
    (lambda a, b: 1 - a, lambda x, y: 1 - x),
    (lambda a, b: a / 2, lambda x, y: x / 2),
    (lambda a, b: 2 / a, lambda x, y: 2 / x),
    (lambda a, b: -a, lambda x, y: -x),
    (lambda a, b: a * b - b / a, lambda x, y: x * y - y / x),
    (lambda a, b: a + 0.5 * b, lambda x, y: x + 0.5 * y),
    (lambda a, b: a ** 2, lambda x, y: x ** 2),
], ids=["2a+b", "a-1", "1-a", "a/2", "2/a", "-a", "ab-b/a", "a+0.5b", "a**2"])
def test_arithmetic(make, expect):
    x = np.array([[1, 2], [3, 4]], np.float32)
    y = np.array([[0.5, -1], [2, 3]], np.float32)
    sym = make(mx.sym.Variable("a"), mx.sym.Variable("b"))
    # bind ignores the extra "b" where the expression does not use it, as MXNet.
    np.testing.assert_allclose(_eval(sym, a=x, b=y), expect(x, y), rtol=1e-6)


def test_arithmetic_with_unsupported_type():
    with pytest.raises(TypeError):
        mx.sym.Variable("a") + "x"


def test_arithmetic_scalar_is_an_op_attribute():
    a = mx.sym.Variable("a")
    assert (a * 3).list_arguments() == ["a"]
    node = [n for n in json.loads((a * 3).tojson())["nodes"] if n["op"] != "null"]
    assert [n["op"] for n in node] == ["_mul_scalar"]
    assert float(node[0]["attrs"]["scalar"]) == 3
    assert [n["op"] for n in json.loads((1 - a).tojson())["nodes"]][1] == "_rminus_scalar"


# --- composition ----------------------------------------------------------------

def _two_nets():
    data = mx.sym.Variable("data")
    net1 = mx.sym.FullyConnected(data=data, name="fc1", num_hidden=10)
    net1 = mx.sym.FullyConnected(data=net1, name="fc2", num_hidden=100)
    net2 = mx.sym.FullyConnected(name="fc3", num_hidden=10)
    net2 = mx.sym.Activation(data=net2, name="relu", act_type="relu")
    net2 = mx.sym.FullyConnected(data=net2, name="fc4", num_hidden=20)
    return net1, net2


def test_compose_by_keyword():
    net1, net2 = _two_nets()
    assert net1.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]
    assert net2.list_arguments()[0] == "fc3_data"
    composed = net2(fc3_data=net1, name="composed")
    assert composed.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight",
                                         "fc2_bias", "fc3_weight", "fc3_bias", "fc4_weight",
                                         "fc4_bias"]
    # The call returns a copy: net2 keeps its own input.
    assert net2.list_arguments()[0] == "fc3_data"
    assert composed.infer_shape(data=(2, 7))[1] == [(2, 20)]


def test_compose_by_position():
    net1, net2 = _two_nets()
    composed = net2(net1)
    assert composed.list_arguments()[:5] == net1.list_arguments()
    assert composed.tojson() == net2(fc3_data=net1).tojson()


def test_compose_numerically():
    x = mx.sym.Variable("x")
    double = mx.sym.Variable("u") * 2
    composed = double(u=x + 1)
    np.testing.assert_array_equal(_eval(composed, x=np.array([1, 2])), [4, 6])


def test_compose_errors():
    net1, net2 = _two_nets()
    with pytest.raises(TypeError):
        net2(net1, fc3_data=net1)
    with pytest.raises(TypeError):
        net2(fc3_data=1)
    with pytest.raises(mx.base.MXNetError, match="foo"):
        net2(foo=net1)


# --- infer_shape ------------------------------------------------------------------

def test_infer_shape_keyword_and_positional():
    out = _mlp2()
    expected = ([(100, 100), (1000, 100), (1000,), (10, 1000), (10,)], [(100, 10)], [])
    assert out.infer_shape(data=(100, 100)) == expected
    assert out.infer_shape((100, 100)) == expected
    # Positional: None means unknown; fewer than all arguments is fine.
    assert out.infer_shape((100, 100), None, (1000,)) == expected


def test_infer_shape_keyword_may_name_aux_states():
    bn = mx.sym.BatchNorm(mx.sym.Variable("data"), name="bn")
    arg, out, aux = bn.infer_shape(data=(2, 5), bn_moving_mean=(5,))
    assert aux == [(5,), (5,)] and out == [(2, 5)]


def test_infer_shape_incomplete_warns_and_returns_nones():
    data = mx.sym.Variable("data")
    prev = mx.sym.Variable("prev")
    x2h = mx.sym.FullyConnected(data, name="x2h", num_hidden=128)
    h2h = mx.sym.FullyConnected(prev, name="h2h", num_hidden=128)
    out = mx.sym.Activation(x2h + h2h, name="out", act_type="relu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert out.infer_shape(data=(10, 64)) == (None, None, None)
    # MXNet 1.9.1's warning, word for word.
    assert [str(w.message) for w in caught] == [
        "Cannot decide shape for the following arguments (0s in shape means unknown "
        "dimensions). Consider providing them as input:\n\tprev: ()\n\th2h_weight: ()"
        "\n\th2h_bias: ()"]


def test_infer_shape_conflict_raises_mxnet_error():
    out = _mlp2()
    with pytest.raises(mx.base.MXNetError) as info:
        out.infer_shape(data=(100, 100), fc1_weight=(1, 100))
    assert isinstance(info.value, RuntimeError)
    message = str(info.value)
    assert "fc1" in message and "inconsistent" in message


def test_infer_shape_argument_errors():
    out = _mlp2()
    with pytest.raises(ValueError):
        out.infer_shape((100, 100), fc1_weight=(1000, 100))
    with pytest.raises(TypeError):
        out.infer_shape(data=[100, 100])
    with pytest.raises(mx.base.MXNetError, match="foo"):
        out.infer_shape(foo=(1, 2))


def test_infer_shape_partial_rnn_cell():
    data = mx.sym.Variable("data")
    prev = mx.sym.Variable("prev")
    x2h = mx.sym.FullyConnected(data, name="x2h", num_hidden=128)
    h2h = mx.sym.FullyConnected(prev, name="h2h", num_hidden=128)
    out = mx.sym.Activation(x2h + h2h, name="out", act_type="relu")
    args = dict(zip(out.list_arguments(), out.infer_shape_partial(data=(10, 64))[0]))
    assert args["x2h_weight"] == (128, 64)
    assert args["h2h_weight"] == ()
    args = dict(zip(out.list_arguments(),
                    out.infer_shape_partial(data=(10, 64), prev=(10, 128))[0]))
    assert args["h2h_weight"] == (128, 128)


def test_infer_shape_partial_weight_with_unknown_dim():
    # test_symbol.py load_save: weight shape=(128, 0), 0 = unknown.
    weight = mx.sym.Variable("fc_weight", shape=(128, 0))
    fc = mx.sym.FullyConnected(mx.sym.Variable("data"), weight=weight, num_hidden=128,
                               name="fc")
    assert fc.infer_shape_partial() == ([(), (128, 0), ()], [()], [])
    assert fc.infer_shape(data=(10, 784)) == ([(10, 784), (128, 784), (128,)], [(10, 128)], [])


def test_infer_shape_partial_conv_with_unknown_dims():
    data = mx.sym.Variable("data", shape=(1, 0, 0, 0))
    conv = mx.sym.Convolution(data, num_filter=64, kernel=(7, 7), pad=(3, 3), stride=(2, 2),
                              name="conv")
    args = dict(zip(conv.list_arguments(), conv.infer_shape_partial()[0]))
    assert args["conv_weight"] == (64, 0, 7, 7)
    assert args["conv_bias"] == (64,)


# --- infer_type -------------------------------------------------------------------

def _cast_fc_softmax():
    data = mx.sym.Variable("data")
    net = mx.sym.Cast(data, dtype="float32")
    net = mx.sym.FullyConnected(net, num_hidden=128)
    return mx.sym.SoftmaxOutput(net)


def test_infer_type():
    net = _cast_fc_softmax()
    expected = ([np.float16, np.float32, np.float32, np.float32], [np.float32], [])
    assert net.infer_type(data=np.float16) == expected
    assert net.infer_type(np.float16) == expected
    assert net.infer_type(data="float16") == expected


def test_infer_type_partial_and_incomplete():
    net = _cast_fc_softmax()
    assert net.infer_type_partial() == ([None, np.float32, np.float32, np.float32],
                                        [np.float32], [])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert net.infer_type() == (None, None, None)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith("Cannot decide type") and message.count("Cannot decide") == 1
    assert "data" in message


def test_infer_type_conflict():
    fc = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")
    with pytest.raises(mx.base.MXNetError, match="inconsistent"):
        fc.infer_type(data=np.float16, fc_weight=np.float64)
    with pytest.raises(ValueError):
        fc.infer_type(np.float16, fc_weight=np.float32)


# --- attributes and scopes ----------------------------------------------------------

def test_op_attr_list_attr_attr_dict():
    data = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data, name="fc", num_hidden=3, attr={"__mood__": "calm"})
    assert fc.attr("num_hidden") == "3"
    assert fc.list_attr() == {"num_hidden": "3", "__mood__": "calm"}
    assert fc.attr_dict() == {
        "fc": {"num_hidden": "3", "__mood__": "calm"},
        "fc_weight": {"num_hidden": "3", "__mood__": "calm"},
        "fc_bias": {"num_hidden": "3", "__mood__": "calm"},
    }
    with pytest.raises(DeprecationWarning):
        fc.list_attr(recursive=True)


def test_hidden_keys_as_op_kwargs_and_attr():
    data = mx.sym.Variable("data")
    # MXNet stores lr_mult/ctx_group as __k__ however they are given.
    a = mx.sym.FullyConnected(data, name="a", num_hidden=3, lr_mult=2)
    b = mx.sym.FullyConnected(data, name="b", num_hidden=3, attr={"ctx_group": "g"})
    assert a.attr("__lr_mult__") == "2" and a.attr("lr_mult") == "2"
    assert b.attr("__ctx_group__") == "g"
    assert b.attr_dict()["b_weight"]["__ctx_group__"] == "g"


def test_attr_scope_sets_ctx_group_on_ops_and_created_weights():
    with mx.AttrScope(ctx_group="dev1"):
        data = mx.sym.Variable("data")
        fc = mx.sym.FullyConnected(data, name="fc", num_hidden=3)
    after = mx.sym.Activation(fc, name="act", act_type="relu")
    attrs = after.attr_dict()
    for name in ("data", "fc", "fc_weight", "fc_bias"):
        assert attrs[name]["__ctx_group__"] == "dev1", name
    # Outside the scope: no group.
    assert attrs["act"] == {"act_type": "relu"}


def test_attr_scope_nesting_and_explicit_attrs_win():
    with mx.AttrScope(ctx_group="outer", lr_mult="2"):
        with mx.AttrScope(ctx_group="inner"):
            v = mx.sym.Variable("v")
            w = mx.sym.Variable("w", attr={"__ctx_group__": "mine"})
        u = mx.sym.Variable("u")
    assert v.attr("__ctx_group__") == "inner" and v.attr("__lr_mult__") == "2"
    assert w.attr("__ctx_group__") == "mine"
    assert u.attr("__ctx_group__") == "outer"
    assert mx.sym.Variable("z").attr("__ctx_group__") is None


def test_attr_scope_values_must_be_strings():
    with pytest.raises(ValueError):
        mx.AttrScope(ctx_group=1)


def test_name_prefix():
    with mx.name.Prefix("net1_"):
        auto = mx.sym.FullyConnected(mx.sym.Variable("d"), num_hidden=3)
        named = mx.sym.FullyConnected(mx.sym.Variable("d"), num_hidden=3, name="fc")
        v = mx.sym.Variable("v")
    # MXNet's Prefix prefixes op names, given or automatic, not variable names.
    assert auto.name == "net1_fullyconnected0"
    assert named.name == "net1_fc"
    assert named.list_arguments() == ["d", "net1_fc_weight", "net1_fc_bias"]
    assert v.name == "v"


def test_name_manager_counts_per_hint_from_zero():
    with mx.name.NameManager():
        a1 = mx.sym.FullyConnected(mx.sym.Variable("d"), num_hidden=3)
        a2 = mx.sym.FullyConnected(mx.sym.Variable("d"), num_hidden=3)
        a3 = mx.sym.Activation(a2, act_type="relu")
    with mx.name.NameManager():
        b1 = mx.sym.FullyConnected(mx.sym.Variable("d"), num_hidden=3)
    assert (a1.name, a2.name, a3.name, b1.name) == (
        "fullyconnected0", "fullyconnected1", "activation0", "fullyconnected0")


# --- internals and children -------------------------------------------------------------

def test_get_internals():
    net = _mlp2()
    internals = net.get_internals()
    assert internals.list_outputs() == ["data", "fc1_weight", "fc1_bias", "fc1_output",
                                        "relu1_output", "fc2_weight", "fc2_bias", "fc2_output"]
    fc1 = internals["fc1_output"]
    assert fc1.list_arguments() == ["data", "fc1_weight", "fc1_bias"]
    assert fc1.infer_shape(data=(2, 5))[1] == [(2, 1000)]


def test_get_internals_lists_only_visible_outputs():
    # MXNet 1.9.1: [..., 'bn_moving_var', 'bn_output'] and nothing after.
    bn = mx.sym.BatchNorm(mx.sym.Variable("data"), name="bn")
    assert bn.get_internals().list_outputs() == ["data", "bn_gamma", "bn_beta",
                                                 "bn_moving_mean", "bn_moving_var", "bn_output"]


def test_get_children():
    net1, net2 = _two_nets()
    composed = net2(fc3_data=net1, name="composed")
    # test_symbol.py test_symbol_children.
    assert composed.get_children().list_outputs() == ["relu_output", "fc4_weight", "fc4_bias"]
    assert net1.get_children().list_outputs() == ["fc1_output", "fc2_weight", "fc2_bias"]
    assert mx.sym.Variable("x").get_children() is None


# --- serialization ---------------------------------------------------------------------

def test_tojson_layout():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, name="fc1", num_hidden=128)
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    doc = json.loads(net.tojson())
    assert [n["name"] for n in doc["nodes"]] == ["data", "fc1_weight", "fc1_bias", "fc1",
                                                 "softmax_label", "softmax"]
    assert doc["arg_nodes"] == [0, 1, 2, 4]
    assert doc["node_row_ptr"] == [0, 1, 2, 3, 4, 5, 6]
    assert doc["heads"] == [[5, 0, 0]]
    assert doc["attrs"] == {"mxnet_version": ["int", 10901]}
    assert doc["nodes"][3] == {"op": "FullyConnected", "name": "fc1",
                               "attrs": {"num_hidden": "128"},
                               "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}


def test_json_round_trips(tmp_path):
    net1, net2 = _two_nets()
    net = net2(fc3_data=net1)
    text = net.tojson()
    assert mx.sym.load_json(text).tojson() == text
    assert mx.sym.fromjson(text).tojson() == text
    path = str(tmp_path / "net-symbol.json")
    net.save(path)
    with open(path) as f:
        assert f.read() == text
    loaded = mx.sym.load(path)
    assert loaded.tojson() == text
    assert loaded.list_arguments() == net.list_arguments()
    assert loaded.infer_shape(data=(3, 4)) == net.infer_shape(data=(3, 4))


def test_json_round_trip_keeps_attributes():
    with mx.AttrScope(ctx_group="g"):
        v = mx.sym.Variable("v", shape=(2, 3), lr_mult=2)
        out = mx.sym.Activation(v, act_type="tanh", name="act")
    loaded = mx.sym.load_json(out.tojson())
    assert loaded.attr_dict() == out.attr_dict()
    assert loaded.attr_dict()["v"]["__shape__"] == "(2, 3)"


def test_load_errors(tmp_path):
    with pytest.raises(mx.base.MXNetError):
        mx.sym.load_json('{"nodes": [')
    with pytest.raises(mx.base.MXNetError, match="missing.json"):
        mx.sym.load(str(tmp_path / "missing.json"))
    with pytest.raises(TypeError):
        mx.sym.load_json(b"{}")


def test_pickle_and_copy():
    net1, net2 = _two_nets()
    net = net2(fc3_data=net1)
    text = net.tojson()
    assert pickle.loads(pickle.dumps(net)).tojson() == text
    assert copy.copy(net).tojson() == text
    assert copy.deepcopy(net).tojson() == text


# --- generated op functions -------------------------------------------------------------

def test_op_inputs_positional_and_keyword():
    data = mx.sym.Variable("data")
    w = mx.sym.Variable("w")
    by_position = mx.sym.FullyConnected(data, w, num_hidden=3, no_bias=True, name="fc")
    by_keyword = mx.sym.FullyConnected(data=data, weight=w, num_hidden=3, no_bias=True,
                                       name="fc")
    assert by_position.list_arguments() == ["data", "w"]
    assert by_position.tojson() == by_keyword.tojson()
    # A missing input becomes "<name>_<input>".
    assert mx.sym.FullyConnected(data, weight=w, num_hidden=3, name="q").list_arguments() == [
        "data", "w", "q_bias"]


def test_op_variadic_inputs():
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    cat = mx.sym.Concat(a, b, dim=1, name="cat")
    assert cat.list_arguments() == ["a", "b"]
    assert mx.sym.Concat(*[a, b], dim=1, name="cat").tojson() == cat.tojson()
    out = _eval(cat, a=np.ones((2, 1)), b=np.zeros((2, 2)))
    np.testing.assert_array_equal(out, [[1, 0, 0], [1, 0, 0]])


def test_op_name_and_attr():
    data = mx.sym.Variable("data")
    act = mx.sym.Activation(data, act_type="relu", name="relu1", attr={"__mood__": "x"})
    assert act.name == "relu1"
    assert act.list_outputs() == ["relu1_output"]
    assert act.list_attr() == {"act_type": "relu", "__mood__": "x"}


def test_op_attribute_formatting():
    data = mx.sym.Variable("data")
    conv = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), pad=[1, 1], no_bias=True,
                              name="c")
    # MXNet's Python formats attributes with str(): tuples, lists, bools
    # (checked against mxnet 1.9.1: pad=[1, 1] stays "[1, 1]").
    assert conv.attr("kernel") == "(3, 3)"
    assert conv.attr("pad") == "[1, 1]"
    assert conv.attr("no_bias") == "True"
    assert mx.sym.Cast(data, dtype=np.float16).attr("dtype") == "float16"


def test_op_docstring():
    doc = mx.sym.FullyConnected.__doc__
    assert doc and len(doc) > 40
    assert mx.sym.FullyConnected.__name__ == "FullyConnected"


def test_op_unknown_attribute_names_op_and_key():
    data = mx.sym.Variable("data")
    with pytest.raises(mx.base.MXNetError) as info:
        mx.sym.FullyConnected(data, num_hidden=3, name="fc", foo=2)
    assert "FullyConnected" in str(info.value) and "foo" in str(info.value)
    with pytest.raises(mx.base.MXNetError) as info:
        mx.sym.FullyConnected(data, num_hidden=3, attr={"mood": "x"})
    assert "mood" in str(info.value)


def test_op_positional_non_symbol_is_an_error():
    with pytest.raises(TypeError):
        mx.sym.Activation(3, act_type="relu")


def test_op_submodules():
    assert callable(mx.sym.contrib.box_nms)
    assert mx.sym.contrib.box_nms is mx.sym._contrib_box_nms
    assert callable(mx.symbol.contrib.box_nms)
    assert mx.sym._internal._plus_scalar is mx.sym._plus_scalar
    # Aliases are the same function.
    assert mx.sym.Flatten.__name__ == "Flatten" and mx.sym.flatten.__name__ == "flatten"


def test_eval():
    a = mx.sym.Variable("a")
    out = (a * 2).eval(ctx=mx.cpu(), a=mx.nd.array([1, 2]))
    np.testing.assert_array_equal(out[0].asnumpy(), [2, 4])


def test_debug_str_names_nodes():
    text = _mlp2().debug_str()
    assert "Op:FullyConnected, Name=fc1" in text and "Variable:data" in text


def test_comparisons_and_mod_build_mxnets_ops():
    # MXNet's Symbol operators: elementwise ops of two symbols, *_scalar ops of
    # a number; symbols stay hashable.
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    want = [(a > b, "_greater"), (a >= 1, "_greater_equal_scalar"), (a < 2.5, "_lesser_scalar"),
            (a <= b, "_lesser_equal"), (a == b, "_equal"), (a != 3, "_not_equal_scalar"),
            (a % b, "_mod"), (a % 2, "_mod_scalar"), (3 % a, "_rmod_scalar"),
            (2 < a, "_greater_scalar")]
    for sym, op in want:
        nodes = [n for n in json.loads(sym.tojson())["nodes"] if n["op"] != "null"]
        assert [n["op"] for n in nodes] == [op]
    exe = (a > b).bind(mx.cpu(), {"a": mx.nd.array([1, 2, 3]), "b": mx.nd.array([3, 2, 1])})
    assert exe.forward()[0].asnumpy().tolist() == [0, 0, 1]
    assert {a: 1}[a] == 1
