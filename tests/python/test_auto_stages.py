"""mx.sym.auto_stages: a model cut into balanced pipeline stages, the groups
written into every node, the report, and the errors."""
import pytest

import symx as mx


def _chain(n, width=64):
    h = mx.sym.var("data")
    for i in range(n):
        h = mx.sym.FullyConnected(h, num_hidden=width, name="fc%d" % (i + 1))
        h = mx.sym.Activation(h, act_type="relu", name="relu%d" % (i + 1))
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=10, name="out"),
                                name="softmax")


def test_equal_layers_split_evenly_and_every_node_has_its_group():
    staged, report = mx.sym.auto_stages(_chain(4), 2, flops_per_byte=0, data=(8, 64))
    assert report["first_ops"] == ["fc1", "fc3"]
    assert report["balance"] < 1.05
    assert not report["replaced_groups"]
    assert report["summary"].startswith("2 stages, balance")
    attrs = staged.attr_dict()
    assert attrs["fc1_weight"]["ctx_group"] == "stage1"
    assert attrs["data"]["ctx_group"] == "stage1"
    assert attrs["fc3"]["ctx_group"] == "stage2"
    assert attrs["softmax"]["ctx_group"] == "stage2"
    # The staged symbol round-trips through JSON with its groups.
    again = mx.sym.load_json(staged.tojson())
    assert again.attr_dict()["fc4_bias"]["ctx_group"] == "stage2"
    # It binds split over two devices of this process like any grouped model.
    exe = staged.simple_bind(mx.cpu(0), data=(8, 64),
                             group2ctx={"stage1": mx.cpu(1), "stage2": mx.cpu(2)})
    exe.forward(is_train=False)
    assert exe.outputs[0].shape == (8, 10)


def test_errors():
    with pytest.raises(mx.base.MXNetError, match="fewer than the 50 stages"):
        mx.sym.auto_stages(_chain(2), 50, data=(8, 64))
    with pytest.raises(mx.base.MXNetError, match="the shapes do not infer"):
        mx.sym.auto_stages(_chain(2), 2)
    with pytest.raises(TypeError, match="takes a Symbol"):
        mx.sym.auto_stages("net", 2, data=(8, 64))
