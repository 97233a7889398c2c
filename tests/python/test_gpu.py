"""GPUs from Python (issue 31): the same tests on every build. Without CUDA
(or without a GPU) every GPU request fails naming the context; with GPUs,
arrays, copies across contexts, a bound executor and a Module over two GPUs
give the CPU's numbers. tools/python_tests.sh --cuda runs this suite on the
extension built with --config=cuda; tools/gpu/run.sh runs it on a GPU."""
import numpy as np
import pytest

import symx as mx
from symx.base import _core

GPUS = mx.context.num_gpus()
needs_gpu = pytest.mark.skipif(GPUS < 1, reason="no GPU on this machine (num_gpus() == 0)")
needs_two = pytest.mark.skipif(GPUS < 2, reason="needs 2 gpu(N) (SYMX_LOGICAL_GPUS=2 on one GPU)")


def test_num_gpus_is_the_extensions_count():
    assert GPUS == _core.num_gpus() >= 0
    if not _core.built_with_cuda():
        assert GPUS == 0


@pytest.mark.skipif(GPUS > 0, reason="this machine has a GPU")
def test_without_a_gpu_requests_name_the_context():
    with pytest.raises(mx.base.MXNetError, match="gpu\\(0\\)") as err:
        mx.nd.ones((2,), ctx=mx.gpu(0))
    assert ("no CUDA support" in str(err.value)) == (not _core.built_with_cuda()), str(err.value)
    with pytest.raises(mx.base.MXNetError, match="gpu\\(1\\)"):
        (mx.sym.Variable("x") * 2).simple_bind(mx.gpu(1), x=(2,))
    mod = mx.mod.Module(_mlp(), context=[mx.gpu(0), mx.gpu(1)])
    with pytest.raises(mx.base.MXNetError, match="gpu\\(0\\)"):
        mod.bind([("data", (4, 6))], [("softmax_label", (4,))])


def _mlp():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.FullyConnected(net, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


@needs_gpu
def test_arrays_on_a_gpu_and_copies_across_contexts():
    x = np.random.RandomState(0).uniform(-1, 1, (3, 4)).astype(np.float32)
    g = mx.nd.array(x, ctx=mx.gpu(0))
    assert g.context == mx.gpu(0)
    np.testing.assert_allclose((g * 2 + 1).asnumpy(), x * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(mx.nd.dot(g, g.T).asnumpy(), x @ x.T, rtol=1e-5, atol=1e-6)
    back = g.copyto(mx.cpu(0))
    assert back.context == mx.cpu(0)
    np.testing.assert_array_equal(back.asnumpy(), x)
    into = mx.nd.zeros((3, 4), ctx=mx.cpu(1))
    g.copyto(into)
    np.testing.assert_array_equal(into.asnumpy(), x)


@needs_gpu
def test_an_executor_on_a_gpu_gives_the_cpus_numbers():
    rng = np.random.RandomState(1)
    values = {"data": rng.uniform(-1, 1, (4, 6)), "fc1_weight": rng.uniform(-.5, .5, (8, 6)),
              "fc1_bias": rng.uniform(-.1, .1, (8,)), "fc2_weight": rng.uniform(-.5, .5, (3, 8)),
              "fc2_bias": rng.uniform(-.1, .1, (3,)), "softmax_label": np.array([0, 1, 2, 1])}
    results = []
    for ctx in (mx.cpu(0), mx.gpu(0)):
        exe = _mlp().simple_bind(ctx, data=(4, 6), softmax_label=(4,))
        for k, v in values.items():
            exe.arg_dict[k][:] = v
        exe.forward(is_train=True)
        exe.backward()
        results.append([exe.outputs[0].asnumpy()] + [exe.grad_dict[k].asnumpy() for k in
                                                      ("fc1_weight", "fc2_weight", "data")])
    for cpu, gpu in zip(*results):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-4, atol=1e-6)


@needs_two
def test_module_over_two_gpus_trains_as_one_cpu():
    rng = np.random.RandomState(2)
    x = rng.uniform(-1, 1, (32, 6)).astype(np.float32)
    y = (x[:, :3].argmax(axis=1)).astype(np.float32)
    params = {"fc1_weight": rng.uniform(-.5, .5, (8, 6)), "fc1_bias": np.zeros(8),
              "fc2_weight": rng.uniform(-.5, .5, (3, 8)), "fc2_bias": np.zeros(3)}
    finals = []
    for contexts in ([mx.cpu(0)], [mx.gpu(0), mx.gpu(1)]):
        mod = mx.mod.Module(_mlp(), context=contexts)
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=2, kvstore="device",
                optimizer="sgd", optimizer_params={"learning_rate": 0.5, "momentum": 0.9},
                arg_params={k: mx.nd.array(v) for k, v in params.items()}, aux_params={})
        finals.append({k: v.asnumpy() for k, v in mod.get_params()[0].items()})
    for k in params:
        np.testing.assert_allclose(finals[1][k], finals[0][k], rtol=1e-4, atol=1e-5, err_msg=k)
