"""Symbol API details a new user met, each as MXNet 1.9.1 behaves (checked
side by side with the mxnet==1.9.1 venv when these were written)."""
import json

import numpy as np
import pytest

import symx as mx


def test_two_operand_functions():
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    x, y = mx.nd.array([1, -5, 3]), mx.nd.array([2, 2, 2])
    cases = [
        (mx.sym.maximum(a, b), np.maximum([1, -5, 3], 2)),
        (mx.sym.maximum(a, 2), np.maximum([1, -5, 3], 2)),
        (mx.sym.minimum(2, a), np.minimum([1, -5, 3], 2)),
        (mx.sym.power(b, a), np.power(2.0, [1, -5, 3])),
        (mx.sym.power(a, 2), np.power([1, -5, 3], 2.0)),
        (mx.sym.power(3, a), np.power(3.0, [1, -5, 3])),
        (mx.sym.hypot(a, b), np.hypot([1, -5, 3], 2)),
        (abs(a), np.abs([1, -5, 3])),
    ]
    for sym, want in cases:
        args = {k: v for k, v in (("a", x), ("b", y)) if k in sym.list_arguments()}
        np.testing.assert_allclose(sym.eval(**args)[0].asnumpy(), want, rtol=1e-6)
    assert mx.sym.maximum(a, 2).list_attr() == {"scalar": "2"}
    assert mx.sym.maximum(3, 4) == 4 and mx.sym.power(2, 3) == 8 and mx.sym.hypot(3, 4) == 5
    with pytest.raises(TypeError, match="maximum"):
        mx.sym.maximum(a, "x")
    np.testing.assert_allclose(mx.nd.hypot(mx.nd.array([3, 5]), 4).asnumpy(), [5, np.hypot(5, 4)])


def test_bool_of_a_symbol_is_refused():
    with pytest.raises(mx.base.NotImplementedForSymbol, match="only available in NDArray"):
        bool(mx.sym.Variable("a"))
    assert issubclass(mx.base.NotImplementedForSymbol, mx.base.MXNetError)
    assert mx.base.mx_real_t is np.float32


def test_positional_attributes():
    x = mx.sym.Variable("x")
    assert mx.sym.Dropout(x, 0.5).list_attr() == {"p": "0.5"}
    assert mx.sym.Activation(x, "relu").list_attr() == {"act_type": "relu"}


def test_hidden_keys_are_stored_once_and_listed_twice():
    v = mx.sym.Variable("w", lr_mult=1)
    assert v.attr("lr_mult") == "1" and v.attr("__lr_mult__") == "1"
    v = mx.sym.Variable("v", attr={"wd_mult": "2"}, lr_mult=1.5)
    assert v.list_attr() == {"__lr_mult__": "1.5", "lr_mult": "1.5", "__wd_mult__": "2",
                             "wd_mult": "2"}
    fc = mx.sym.FullyConnected(mx.sym.Variable("a"), num_hidden=2, attr={"wd_mult": "2"},
                               lr_mult=1, name="fc")
    assert fc.list_attr() == {"__lr_mult__": "1", "__wd_mult__": "2", "lr_mult": "1",
                              "num_hidden": "2", "wd_mult": "2"}
    # The file holds only the __k__ spelling.
    node = [n for n in json.loads(fc.tojson())["nodes"] if n["name"] == "fc"][0]
    assert node["attrs"] == {"__lr_mult__": "1", "__wd_mult__": "2", "num_hidden": "2"}
    assert fc.attr_dict()["fc_weight"]["lr_mult"] == "1"


def test_children_are_listed_per_node():
    a = mx.sym.Variable("a")
    assert mx.sym.SliceChannel(a, num_outputs=2).get_children().list_outputs() == ["a"]
    assert (a * a).get_children().list_outputs() == ["a", "a"]


def test_partial_shape_inference_leaves_what_mxnet_leaves():
    a, b, c = mx.sym.Variable("a"), mx.sym.Variable("b"), mx.sym.Variable("c")
    assert mx.sym.batch_dot(a, b).infer_shape_partial(a=(2, 0, 3), b=(2, 3, 4)) == (
        [(2, 0, 3), (2, 3, 4)], [(2, 0, 4)], [])
    # An unknown condition: nothing is inferred.
    assert mx.sym.where(c, a, b).infer_shape_partial(a=(2, 3)) == ([(), (2, 3), ()], [()], [])
    assert mx.sym.where(c, a, b).infer_shape(c=(2, 3), a=(2, 3))[1] == [(2, 3)]


def test_prelu_gamma_starts_at_a_quarter():
    net = mx.sym.LeakyReLU(mx.sym.Variable("x"), act_type="prelu", name="pr")
    gamma = [n for n in json.loads(net.tojson())["nodes"] if n["name"] == "pr_gamma"][0]
    assert gamma["attrs"]["__init__"] == '["Constant", {"value": 0.25}]'
    mod = mx.mod.Module(net, data_names=["x"], label_names=None)
    mod.bind(data_shapes=[("x", (2, 3))])
    mod.init_params()
    np.testing.assert_array_equal(mod.get_params()[0]["pr_gamma"].asnumpy(), [0.25] * 3)


def test_constant_initializer_with_an_array():
    init = mx.init.Constant(mx.nd.array([1, 2, 3]))
    assert init.dumps() == '["constant", {"value": [1.0, 2.0, 3.0]}]'
    w = mx.nd.zeros((2, 3))
    init(mx.init.InitDesc("fc_weight"), w)
    np.testing.assert_array_equal(w.asnumpy(), [[1, 2, 3], [1, 2, 3]])
    b = mx.nd.ones((3,))
    init(mx.init.InitDesc("fc_bias"), b)  # biases start at zero whatever the constant
    np.testing.assert_array_equal(b.asnumpy(), [0, 0, 0])
    with pytest.raises(ValueError, match="does not broadcast"):
        init(mx.init.InitDesc("fc_weight"), mx.nd.zeros((2, 2)))


def test_debug_str_ends_with_mxnets_memory_line():
    x = mx.sym.Variable("x")
    exe = mx.sym.FullyConnected(x, num_hidden=512).simple_bind(mx.cpu(), x=(1024, 1024))
    last = exe.debug_str().strip().splitlines()[-1]
    # 1024x1024 data + its gradient, 512x1024 weight + gradient, the output...
    assert last.startswith("Total ") and last.endswith(" MB allocated")
    assert int(last.split()[1]) >= 8


def test_alias_functions_name_nodes_after_themselves():
    # MXNet 1.9.1: mx.sym.split names its node split0, SliceChannel slicechannel0.
    x = mx.sym.Variable("x")
    assert mx.sym.split(x, num_outputs=2).name.startswith("split")
    assert mx.sym.swapaxes(x, dim1=0, dim2=1).name.startswith("swapaxes")
    assert mx.sym.SliceChannel(x, num_outputs=2).name.startswith("slicechannel")
    # Positional attributes still work through an alias.
    assert mx.sym.split(x, 2).attr("num_outputs") == "2"


def test_creation_functions_as_mxnets():
    z = mx.sym.zeros((2, 3))
    assert z.list_attr() == {"dtype": "float32", "shape": "(2, 3)"}
    assert mx.sym.ones((2,)).list_attr() == {"dtype": "float32", "shape": "(2,)"}
    assert mx.sym.full((2,), 3).list_attr() == {"dtype": "float32", "value": "3.0",
                                                "shape": "(2,)"}
    assert mx.sym.arange(0, 5, 2).list_attr() == {
        "infer_range": "False", "repeat": "1", "step": "2", "dtype": "float32", "stop": "5",
        "start": "0"}
    np.testing.assert_array_equal(mx.sym.full((2,), 3).eval()[0].asnumpy(), [3, 3])
    np.testing.assert_array_equal(mx.sym.arange(0, 5, 2).eval()[0].asnumpy(), [0, 2, 4])
    np.testing.assert_array_equal(mx.sym.pow(mx.sym.Variable("a"), 2).eval(
        a=mx.nd.array([3.0]))[0].asnumpy(), [9.0])


def test_ndarray_helpers_as_mxnets():
    a = mx.nd.array([[1, 2], [3, 4]])
    b = mx.nd.array([[5, 6]])
    np.testing.assert_array_equal(mx.nd.concatenate([a, b]).asnumpy(),
                                  [[1, 2], [3, 4], [5, 6]])
    assert mx.nd.concatenate([a, a], axis=1).shape == (2, 4)
    assert mx.nd.concatenate([a], always_copy=False) is a
    assert mx.nd.moveaxis(mx.nd.ones((2, 3, 4)), 0, -1).shape == (3, 4, 2)
    out = mx.nd.zeros((3, 4))
    mx.nd.onehot_encode(mx.nd.array([0, 2, 3]), out)
    np.testing.assert_array_equal(out.asnumpy(), np.eye(4)[[0, 2, 3]])
    assert mx.nd.from_numpy(np.arange(3, dtype=np.int32)).dtype == np.int32
    # A parameter file's bytes load as the file does.
    import tempfile
    import os
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "x.params")
        mx.nd.save(path, {"w": a})
        with open(path, "rb") as f:
            loaded = mx.nd.load_frombuffer(f.read())
    np.testing.assert_array_equal(loaded["w"].asnumpy(), a.asnumpy())
