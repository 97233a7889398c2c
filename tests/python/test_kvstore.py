"""mx.kv for one process: MXNet 1.9.1's numbers for the same calls (worked
out with its device and local stores), errors, and a Module given a store."""
import os

import numpy as np
import pytest

import symx as mx


def test_device_store_sums_pushes_and_updates_with_its_optimizer():
    kv = mx.kv.create("device")
    assert (kv.type, kv.rank, kv.num_workers) == ("device", 0, 1)
    kv.init(3, mx.nd.ones((2, 3)))
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    out = mx.nd.zeros((2, 3))
    for want in (0.8, 0.7):  # MXNet's: 1 - 0.1 * (1 + 1), then - 0.1 * 1
        kv.push(3, [mx.nd.ones((2, 3)), mx.nd.ones((2, 3))] if want == 0.8 else mx.nd.ones((2, 3)))
        kv.pull(3, out=out)
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    assert kv.is_capable("optimizer")


def test_without_an_optimizer_a_push_stores_the_sum():
    # (MXNet's store then keeps the merge buffer itself as the value, so an
    # optimizer set later steps from the next push's sum, not from this
    # value: 1.8 where 5 - 0.2 = 4.8 is meant. symx keeps the value.)
    kv = mx.kv.create("device")
    kv.init(3, mx.nd.ones((2, 3)))
    kv.push(3, [mx.nd.ones((2, 3)) * 2, mx.nd.ones((2, 3)) * 3])
    out = mx.nd.zeros((2, 3))
    kv.pull(3, out=out)
    np.testing.assert_allclose(out.asnumpy(), 5.0)
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    kv.push(3, [mx.nd.ones((2, 3)), mx.nd.ones((2, 3))])
    kv.pull(3, out=out)
    np.testing.assert_allclose(out.asnumpy(), 4.8, rtol=1e-6)


def test_two_bit_compression_as_mxnet():
    kv = mx.kv.create("device")
    kv.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    kv.init("w", mx.nd.zeros((4,)))
    g = mx.nd.array([0.3, 0.6, -0.7, 0.1])
    want = [[0.5, 1.0, -1.0, 0.0], [1.0, 1.0, -1.0, 0.0], [0.5, 1.0, -1.0, 0.5]]
    for step in want:
        kv.push("w", [g, g * 2])
        out = mx.nd.zeros((4,))
        kv.pull("w", out=out)
        np.testing.assert_allclose(out.asnumpy(), step, atol=1e-6)


def test_local_store_lists_pushpull_broadcast():
    kv = mx.kv.create("local")
    kv.init(["a", "b"], [mx.nd.ones((2,)), mx.nd.zeros((2,))])
    kv.pushpull(["a", "b"], [mx.nd.ones((2,)) * 5, mx.nd.ones((2,)) * 7])
    out = [mx.nd.zeros((2,)), mx.nd.zeros((2,))]
    kv.pull(["a", "b"], out=out)
    np.testing.assert_allclose(out[0].asnumpy(), 5)
    np.testing.assert_allclose(out[1].asnumpy(), 7)
    x = mx.nd.zeros((2,))
    kv.broadcast("z", mx.nd.ones((2,)) * 4, out=x)
    np.testing.assert_allclose(x.asnumpy(), 4)
    kv.barrier()


def test_errors_name_the_key_or_type():
    kv = mx.kvstore.create("local")
    kv.init("a", mx.nd.ones((2,)))
    with pytest.raises(mx.base.MXNetError, match="duplicate init of key 'a'"):
        kv.init("a", mx.nd.ones((2,)))
    with pytest.raises(mx.base.MXNetError, match="key 'q' has not been initialized"):
        kv.push("q", mx.nd.ones((2,)))
    with pytest.raises(mx.base.MXNetError, match="shape \\(3,\\) differs from the stored \\(2,\\)"):
        kv.push("a", mx.nd.ones((3,)))
    with pytest.raises(mx.base.MXNetError, match="out= .* is required"):
        kv.pull("a")
    with pytest.raises(mx.base.MXNetError, match="not supported for this type of kvstore"):
        kv.set_gradient_compression({"type": "2bit"})
    with pytest.raises(mx.base.MXNetError, match="2 keys need a list of 2 values"):
        kv.push(["a", "b"], mx.nd.ones((2,)))
    with pytest.raises(mx.base.MXNetError, match="no optimizer"):
        kv.save_optimizer_states("/tmp/never.states")
    dev = mx.kv.create("device")
    with pytest.raises(mx.base.MXNetError, match="type must be '2bit', got '1bit'"):
        dev.set_gradient_compression({"type": "1bit"})
    with pytest.raises(mx.base.MXNetError, match="kvstore 'dist_async': symx runs no parameter"):
        mx.kv.create("dist_async")
    with pytest.raises(mx.base.MXNetError, match="unknown kvstore type 'locale'"):
        mx.kv.create("locale")


def _fc_module():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    mod = mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind([("data", (4, 5))], [("softmax_label", (4,))])
    mod.init_params(mx.init.Uniform(0.5))
    return mod


def test_module_given_a_store_trains_as_with_its_name_and_saves_states_there(tmp_path):
    batch = mx.io.DataBatch([mx.nd.array(np.arange(20).reshape(4, 5) / 20.0)],
                            [mx.nd.array([0, 1, 2, 1])])
    results = []
    for kvstore in ("device", mx.kv.create("device")):
        mx.random.seed(0)
        mod = _fc_module()
        mod.init_optimizer(kvstore=kvstore, optimizer="sgd",
                           optimizer_params={"learning_rate": 0.1, "momentum": 0.9},
                           force_init=True)
        for _ in range(2):
            mod.forward(batch, is_train=True)
            mod.backward()
            mod.update()
        results.append(mod.get_params()[0]["fc_weight"].asnumpy())
    np.testing.assert_array_equal(results[0], results[1])
    path = str(tmp_path / "kv.states")
    kvstore.save_optimizer_states(path)
    assert os.path.getsize(path) > 0
    kvstore.load_optimizer_states(path)
    with pytest.raises(mx.base.MXNetError, match="dist_async"):
        _fc_module().init_optimizer(kvstore="dist_async")
