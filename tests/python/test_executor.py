"""Executors: bind and simple_bind, forward/backward with every grad_req and
head-gradient form, the array lists and dicts, copy_params_from, reshape,
shared memory (shared_exec/shared_buffer), group2ctx placement, monitors
(python/symx/executor.py and Symbol.bind/simple_bind in symbol.py).

The cases follow MXNet 1.9.1's tests/python/unittest test_executor.py and
test_model_parallel.py and the behaviour in
/work/shared/notes/mxnet-semantics.md sections 3-5; the expected numbers are
derived by hand in the comments.
"""
import numpy as np
import pytest

import symx as mx


def _nd(values, **kwargs):
    return mx.nd.array(values, **kwargs)


def _mul_net():
    """c = a * b: dc/da = b, dc/db = a."""
    return mx.sym.Variable("a") * mx.sym.Variable("b")


X = [1.0, 2.0, 3.0]
Y = [4.0, 5.0, 6.0]


def _shares(a, b):
    """Whether two NDArrays are the same engine memory (views included)."""
    return a.handle.same_storage(b.handle)


# --- bind: arguments and gradient arrays ----------------------------------------------

def test_bind_with_list_and_dict_args():
    net = 2 * mx.sym.Variable("a") + mx.sym.Variable("b")
    by_list = net.bind(mx.cpu(), [_nd(X), _nd(Y)])
    by_dict = net.bind(mx.cpu(), {"b": _nd(Y), "a": _nd(X), "unused": _nd([0])})
    for exe in (by_list, by_dict):
        np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [6, 9, 12])
    # Bound arrays are the caller's arrays, in list_arguments order.
    a = _nd(X)
    exe = net.bind(mx.cpu(), {"a": a, "b": _nd(Y)})
    a[:] = 0
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), Y)


def test_bind_argument_errors():
    net = _mul_net()
    with pytest.raises(ValueError, match="Length of args"):
        net.bind(mx.cpu(), [_nd(X)])
    with pytest.raises(ValueError, match="key `b` is missing in `args`"):
        net.bind(mx.cpu(), {"a": _nd(X)})
    with pytest.raises(TypeError, match="Only accept list of NDArrays"):
        net.bind(mx.cpu(), [_nd(X), np.array(Y)])
    with pytest.raises(ValueError, match="Length of args_grad"):
        net.bind(mx.cpu(), [_nd(X), _nd(Y)], args_grad=[_nd(X)])
    with pytest.raises(TypeError):
        net.bind("cpu", [_nd(X), _nd(Y)])


@pytest.mark.parametrize("form", ["list", "dict"])
def test_args_grad_list_and_dict(form):
    net = _mul_net()
    ga, gb = mx.nd.zeros(3), mx.nd.zeros(3)
    grads = [ga, gb] if form == "list" else {"a": ga, "b": gb}
    exe = net.bind(mx.cpu(), [_nd(X), _nd(Y)], args_grad=grads)
    assert exe.grad_arrays[0] is not None and _shares(exe.grad_arrays[0], ga)
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(3))
    np.testing.assert_array_equal(ga.asnumpy(), Y)
    np.testing.assert_array_equal(gb.asnumpy(), X)


def test_args_grad_none_means_no_backward():
    exe = _mul_net().bind(mx.cpu(), [_nd(X), _nd(Y)])
    assert exe.grad_arrays == [None, None]
    assert exe.grad_dict == {}
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(3))  # nothing to compute: a no-op, as in MXNet


def test_args_grad_dict_missing_name_gets_no_gradient():
    ga = mx.nd.zeros(3)
    exe = _mul_net().bind(mx.cpu(), [_nd(X), _nd(Y)], args_grad={"a": ga})
    assert exe.grad_arrays[1] is None
    assert sorted(exe.grad_dict) == ["a"]
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(3))
    np.testing.assert_array_equal(ga.asnumpy(), Y)


# --- grad_req ----------------------------------------------------------------------------

def _bind_with_req(grad_req, start=7.0):
    """a*b bound with gradient arrays pre-filled with ``start``."""
    ga, gb = mx.nd.full(3, start), mx.nd.full(3, start)
    exe = _mul_net().bind(mx.cpu(), [_nd(X), _nd(Y)], args_grad=[ga, gb], grad_req=grad_req)
    return exe, ga, gb


def _two_backwards(exe, head=2.0):
    exe.forward(is_train=True)
    exe.backward(mx.nd.full(3, head))
    exe.backward(mx.nd.full(3, head))


def test_grad_req_write_overwrites():
    exe, ga, gb = _bind_with_req("write")
    _two_backwards(exe)
    np.testing.assert_array_equal(ga.asnumpy(), 2 * np.array(Y))
    np.testing.assert_array_equal(gb.asnumpy(), 2 * np.array(X))


def test_grad_req_add_accumulates():
    exe, ga, gb = _bind_with_req("add")
    _two_backwards(exe)
    # 7 + two backward passes of head 2 times the other input.
    np.testing.assert_array_equal(ga.asnumpy(), 7 + 2 * 2 * np.array(Y))
    np.testing.assert_array_equal(gb.asnumpy(), 7 + 2 * 2 * np.array(X))


def test_grad_req_null_leaves_arrays_alone():
    exe, ga, gb = _bind_with_req("null")
    _two_backwards(exe)
    np.testing.assert_array_equal(ga.asnumpy(), [7, 7, 7])
    np.testing.assert_array_equal(gb.asnumpy(), [7, 7, 7])


def test_grad_req_list():
    exe, ga, gb = _bind_with_req(["add", "write"])
    _two_backwards(exe)
    np.testing.assert_array_equal(ga.asnumpy(), 7 + 4 * np.array(Y))
    np.testing.assert_array_equal(gb.asnumpy(), 2 * np.array(X))


def test_grad_req_dict_omitted_names_are_null():
    exe, ga, gb = _bind_with_req({"b": "add"})
    _two_backwards(exe)
    np.testing.assert_array_equal(ga.asnumpy(), [7, 7, 7])
    np.testing.assert_array_equal(gb.asnumpy(), 7 + 4 * np.array(X))


def test_bad_grad_req():
    with pytest.raises(mx.base.MXNetError, match="grad_req"):
        _bind_with_req("sometimes")


def test_simple_bind_grad_req_forms():
    net = _mul_net()
    assert net.simple_bind(mx.cpu(), a=(2,), b=(2,), grad_req="null").grad_arrays == [None, None]
    by_dict = net.simple_bind(mx.cpu(), a=(2,), b=(2,), grad_req={"a": "write"})
    assert by_dict.grad_arrays[0].shape == (2,) and by_dict.grad_arrays[1] is None
    by_list = net.simple_bind(mx.cpu(), a=(2,), b=(2,), grad_req=["null", "add"])
    assert by_list.grad_arrays[0] is None and by_list.grad_arrays[1].shape == (2,)


def test_simple_bind_allocates_zeros_and_respects_type_dict():
    exe = _mul_net().simple_bind(mx.cpu(), a=(2, 3), b=(2, 3), type_dict={"a": np.float64})
    assert [a.shape for a in exe.arg_arrays] == [(2, 3), (2, 3)]
    # b is inferred from a (same-type elementwise op).
    assert [a.dtype for a in exe.arg_arrays] == [np.float64, np.float64]
    for arr in exe.arg_arrays + exe.grad_arrays:
        np.testing.assert_array_equal(arr.asnumpy(), np.zeros((2, 3)))
    with pytest.raises(TypeError):
        _mul_net().simple_bind(mx.cpu(), a=[2, 3])


def test_simple_bind_shape_error_lists_arguments():
    with pytest.raises(mx.base.MXNetError) as info:
        _mul_net().simple_bind(mx.cpu(), a=(2,), b=(3,))
    assert "simple_bind error" in str(info.value) and "b: (3,)" in str(info.value)


# --- aux states ------------------------------------------------------------------------

def test_batchnorm_aux_states_change_only_when_training():
    bn = mx.sym.BatchNorm(mx.sym.Variable("data"), name="bn", fix_gamma=False, momentum=0.5,
                          eps=1e-3)
    exe = bn.simple_bind(mx.cpu(), data=(4, 2))
    assert sorted(exe.aux_dict) == ["bn_moving_mean", "bn_moving_var"]
    exe.arg_dict["bn_gamma"][:] = 1
    exe.aux_dict["bn_moving_var"][:] = 1
    x = np.array([[0, 1], [2, 3], [4, 5], [6, 7]], np.float32)  # column means 3, 4; var 5
    out = exe.forward(is_train=False, data=x)[0].asnumpy()
    # Inference normalizes with the moving stats (0, 1) and leaves them alone.
    np.testing.assert_allclose(out, x / np.sqrt(1 + 1e-3), rtol=1e-6)
    np.testing.assert_array_equal(exe.aux_dict["bn_moving_mean"].asnumpy(), [0, 0])
    np.testing.assert_array_equal(exe.aux_dict["bn_moving_var"].asnumpy(), [1, 1])
    out = exe.forward(is_train=True, data=x)[0].asnumpy()
    np.testing.assert_allclose(out, (x - [3, 4]) / np.sqrt(5 + 1e-3), rtol=1e-5)
    # moving = 0.5 * moving + 0.5 * batch statistic (the biased variance).
    # (MXNet's CPU kernel does this in backward; symx in the training forward.)
    np.testing.assert_allclose(exe.aux_dict["bn_moving_mean"].asnumpy(), [1.5, 2], rtol=1e-6)
    np.testing.assert_allclose(exe.aux_dict["bn_moving_var"].asnumpy(), [3, 3], rtol=1e-6)
    # Once per training step: backward does not move them again.
    exe.backward(mx.nd.ones((4, 2)))
    np.testing.assert_allclose(exe.aux_dict["bn_moving_mean"].asnumpy(), [1.5, 2], rtol=1e-6)
    np.testing.assert_allclose(exe.aux_dict["bn_moving_var"].asnumpy(), [3, 3], rtol=1e-6)


def test_bind_with_aux_states_list_and_dict():
    bn = mx.sym.BatchNorm(mx.sym.Variable("data"), name="bn", fix_gamma=False)
    args = [_nd([[1.0, 2.0]]), _nd([2.0, 2.0]), _nd([1.0, -1.0])]
    for aux in ([_nd([1.0, 1.0]), _nd([4.0, 4.0])],
                {"bn_moving_var": _nd([4.0, 4.0]), "bn_moving_mean": _nd([1.0, 1.0])}):
        exe = bn.bind(mx.cpu(), args, aux_states=aux)
        out = exe.forward()[0].asnumpy()
        # gamma * (x - mean) / sqrt(var + eps) + beta, eps = 1e-3 (MXNet's default).
        np.testing.assert_allclose(out, [[2 * 0 / np.sqrt(4.001) + 1,
                                          2 * 1 / np.sqrt(4.001) - 1]], rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="aux_states"):
        bn.bind(mx.cpu(), args, aux_states={"bn_moving_mean": _nd([1.0, 1.0])})


# --- forward -----------------------------------------------------------------------------

def test_forward_kwargs_ndarray_and_numpy():
    exe = _mul_net().simple_bind(mx.cpu(), a=(3,), b=(3,))
    out = exe.forward(a=_nd(X), b=np.array(Y))
    assert out is exe.outputs
    np.testing.assert_array_equal(out[0].asnumpy(), [4, 10, 18])
    # The inputs were copied into the bound arrays.
    np.testing.assert_array_equal(exe.arg_dict["a"].asnumpy(), X)
    np.testing.assert_array_equal(exe.arg_dict["b"].asnumpy(), Y)


def test_forward_kwargs_errors():
    exe = _mul_net().simple_bind(mx.cpu(), a=(3,), b=(3,))
    with pytest.raises(TypeError, match="Unknown argument c"):
        exe.forward(c=_nd(X))
    with pytest.raises(ValueError, match="Shape not match"):
        exe.forward(a=np.zeros(4))
    with pytest.raises(ValueError, match="Shape not match"):
        exe.forward(a=mx.nd.zeros(4))
    with pytest.raises(ValueError):
        exe.forward(a=[1, 2, 3])


def test_outputs_exist_after_bind():
    exe = _mul_net().simple_bind(mx.cpu(), a=(2, 5), b=(2, 5))
    assert [o.shape for o in exe.outputs] == [(2, 5)]


# --- backward ----------------------------------------------------------------------------

def _group_exe():
    """Group(a*b, a+b): da = g0*b + g1, db = g0*a + g1."""
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    net = mx.sym.Group([a * b, a + b])
    exe = net.bind(mx.cpu(), [_nd(X), _nd(Y)], args_grad=[mx.nd.zeros(3), mx.nd.zeros(3)])
    exe.forward(is_train=True)
    return net, exe


def test_backward_out_grads_list():
    _, exe = _group_exe()
    exe.backward([mx.nd.ones(3), mx.nd.full(3, 2)])
    np.testing.assert_array_equal(exe.grad_dict["a"].asnumpy(), np.array(Y) + 2)
    np.testing.assert_array_equal(exe.grad_dict["b"].asnumpy(), np.array(X) + 2)


def test_backward_out_grads_dict():
    net, exe = _group_exe()
    first, second = net.list_outputs()
    exe.backward({second: mx.nd.full(3, 3), first: mx.nd.zeros(3)})
    np.testing.assert_array_equal(exe.grad_dict["a"].asnumpy(), [3, 3, 3])
    np.testing.assert_array_equal(exe.grad_dict["b"].asnumpy(), [3, 3, 3])


def test_backward_out_grads_single_ndarray():
    exe = _mul_net().bind(mx.cpu(), [_nd(X), _nd(Y)], args_grad=[mx.nd.zeros(3), mx.nd.zeros(3)])
    exe.forward(is_train=True)
    exe.backward(_nd([1, 0, -1]))
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), [4, 0, -6])


def test_backward_without_head_gradient_for_non_loss_output():
    _, exe = _group_exe()
    with pytest.raises(mx.base.MXNetError, match="head_gradient is required"):
        exe.backward()
    net, exe = _group_exe()
    with pytest.raises(mx.base.MXNetError, match="head_gradient is required"):
        exe.backward({net.list_outputs()[0]: mx.nd.ones(3)})


def test_backward_out_grads_type_errors():
    _, exe = _group_exe()
    with pytest.raises(TypeError):
        exe.backward([np.ones(3), np.ones(3)])
    with pytest.raises(TypeError):
        exe.backward(3)


def test_backward_loss_output_needs_no_head_gradient():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, name="fc", num_hidden=3)
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    exe = net.simple_bind(mx.cpu(), data=(2, 4))
    exe.arg_dict["data"][:] = 1
    exe.forward(is_train=True)  # weights 0: p = 1/3 each; labels 0
    exe.backward()
    # d fc_weight[k] = sum over the batch of (p_k - [k == label]) * x = 2 * (1/3 - [k == 0]).
    expected = np.array([[-4 / 3] * 4, [2 / 3] * 4, [2 / 3] * 4])
    np.testing.assert_allclose(exe.grad_dict["fc_weight"].asnumpy(), expected, rtol=1e-6)
    # A loss head ignores given head gradients.
    exe.backward(mx.nd.full((2, 3), 100))
    np.testing.assert_allclose(exe.grad_dict["fc_weight"].asnumpy(), expected, rtol=1e-6)


# --- the dicts -----------------------------------------------------------------------------

def test_array_dicts():
    data = mx.sym.Variable("data")
    net = mx.sym.BatchNorm(mx.sym.FullyConnected(data, name="fc", num_hidden=3), name="bn")
    exe = net.simple_bind(mx.cpu(), data=(2, 4), grad_req={"fc_weight": "write"})
    assert list(exe.arg_dict) == net.list_arguments()
    assert list(exe.aux_dict) == net.list_auxiliary_states()
    assert list(exe.output_dict) == ["bn_output"]
    assert list(exe.grad_dict) == ["fc_weight"]
    for name, arr in zip(net.list_arguments(), exe.arg_arrays):
        assert exe.arg_dict[name] is arr
    assert exe.output_dict["bn_output"] is exe.outputs[0]
    assert exe.arg_dict["fc_weight"].shape == (3, 4)
    assert exe.aux_dict["bn_moving_var"].shape == (3,)


def test_dicts_reject_duplicate_names():
    a = mx.sym.Variable("a")
    # Two nodes named "r": both outputs are "r_output".
    net = mx.sym.Group([mx.sym.Activation(a, act_type="relu", name="r"),
                        mx.sym.Activation(a, act_type="tanh", name="r")])
    assert net.list_outputs() == ["r_output", "r_output"]
    exe = net.bind(mx.cpu(), [_nd([1])])
    with pytest.raises(ValueError, match="Duplicate names"):
        exe.output_dict


def test_inplace_writes_to_bound_arrays_reach_forward():
    x = mx.sym.Variable("x")
    net = mx.sym.FullyConnected(x, num_hidden=4, name="fc")
    exe = net.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    exe.arg_arrays[0][:] = 1
    exe.arg_arrays[1] += 1
    exe.arg_arrays[2] += 0.5
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), np.full((5, 4), 4.5))
    exe.arg_dict["fc_bias"][:] = np.array([0, 1, 2, 3])
    np.testing.assert_array_equal(exe.forward()[0].asnumpy()[0], [4, 5, 6, 7])
    exe.arg_arrays[1] *= 2
    np.testing.assert_array_equal(exe.forward()[0].asnumpy()[0], [8, 9, 10, 11])


# --- copy_params_from ---------------------------------------------------------------------

def _fc_bn():
    data = mx.sym.Variable("data")
    net = mx.sym.BatchNorm(mx.sym.FullyConnected(data, name="fc", num_hidden=2), name="bn")
    return net.simple_bind(mx.cpu(), data=(1, 3))


def test_copy_params_from_converts_dtype():
    exe = _fc_bn()
    weight = np.arange(6).reshape(2, 3)
    exe.copy_params_from({"fc_weight": _nd(weight, dtype="float64"),
                          "fc_bias": _nd([1, 2], dtype="int32")},
                         {"bn_moving_var": _nd([3, 4], dtype="float16")})
    assert exe.arg_dict["fc_weight"].dtype == np.float32
    np.testing.assert_array_equal(exe.arg_dict["fc_weight"].asnumpy(), weight)
    np.testing.assert_array_equal(exe.arg_dict["fc_bias"].asnumpy(), [1, 2])
    np.testing.assert_array_equal(exe.aux_dict["bn_moving_var"].asnumpy(), [3, 4])
    # Names not given are untouched (simple_bind's zeros).
    np.testing.assert_array_equal(exe.aux_dict["bn_moving_mean"].asnumpy(), [0, 0])


def test_copy_params_from_extra_names():
    exe = _fc_bn()
    with pytest.raises(ValueError, match='Find name "extra" that is not in the arguments'):
        exe.copy_params_from({"fc_bias": _nd([1, 2]), "extra": _nd([1])})
    with pytest.raises(ValueError, match="Find name extra that is not in the auxiliary states"):
        exe.copy_params_from({}, {"extra": _nd([1])})
    exe.copy_params_from({"fc_bias": _nd([5, 6]), "extra": _nd([1])}, {"extra": _nd([1])},
                         allow_extra_params=True)
    np.testing.assert_array_equal(exe.arg_dict["fc_bias"].asnumpy(), [5, 6])


def test_copy_params_from_shape_mismatch():
    exe = _fc_bn()
    with pytest.raises(mx.base.MXNetError, match="fc_weight"):
        exe.copy_params_from({"fc_weight": mx.nd.ones((3, 3))})


# --- reshape ----------------------------------------------------------------------------

def test_reshape():
    # MXNet's test_executor.py test_reshape.
    x = mx.sym.Variable("x")
    y = mx.sym.FullyConnected(x, num_hidden=4)
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    exe.arg_arrays[0][:] = 1
    exe.arg_arrays[1][:] = mx.nd.ones((4, 4))
    exe.arg_arrays[2][:] = 0

    new_exe = exe.reshape(x=(3, 4))
    new_exe.forward(is_train=False)
    # 1 * 1 summed over 4 inputs.
    np.testing.assert_array_equal(new_exe.outputs[0].asnumpy(), np.full((3, 4), 4))
    # The new executor's memory is the old one's: its output shows in the old output.
    np.testing.assert_array_equal(exe.outputs[0][:3].asnumpy(), np.full((3, 4), 4))
    assert _shares(new_exe.arg_arrays[0], exe.arg_arrays[0])
    assert _shares(new_exe.arg_arrays[1], exe.arg_arrays[1])

    new_exe = exe.reshape(x=(6, 4), allow_up_sizing=True)
    # data is larger: a new, unshared array; the weight is still shared.
    new_exe.arg_arrays[0][:] = 0
    np.testing.assert_array_equal(exe.arg_arrays[0].asnumpy(), np.ones((5, 4)))
    new_exe.arg_arrays[1][:] = 0
    np.testing.assert_array_equal(exe.arg_arrays[1].asnumpy(), np.zeros((4, 4)))


def test_reshape_errors():
    x = mx.sym.Variable("x")
    exe = mx.sym.FullyConnected(x, num_hidden=4).simple_bind(mx.cpu(), x=(5, 4))
    with pytest.raises(mx.base.MXNetError, match="allow_up_sizing"):
        exe.reshape(x=(6, 4))
    z = mx.sym.Variable("z")
    net = mx.sym.FullyConnected(x, num_hidden=4, name="fc") + z
    exe = net.simple_bind(mx.cpu(), x=(5, 4), z=(5, 4))
    # z is not named, but its shape changes with x's.
    with pytest.raises(mx.base.MXNetError, match="partial_shaping"):
        exe.reshape(x=(3, 4))
    reshaped = exe.reshape(partial_shaping=True, x=(3, 4))
    assert [a.shape for a in reshaped.arg_arrays] == [(3, 4), (4, 4), (4,), (3, 4)]


def test_reshape_keeps_the_monitor():
    x = mx.sym.Variable("x")
    exe = mx.sym.FullyConnected(x, num_hidden=2, name="fc").simple_bind(mx.cpu(), x=(4, 3))
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append((name, arr.shape)))
    exe.reshape(x=(2, 3)).forward()
    assert seen == [("fc_output", (2, 2))]


# --- shared memory ------------------------------------------------------------------------

def _bucket_net():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=3, name="fc1")
    net = mx.sym.BatchNorm(net, name="bn")
    return mx.sym.SoftmaxOutput(net, name="softmax")


PARAMS = ["fc1_weight", "fc1_bias", "bn_gamma", "bn_beta"]


def test_shared_exec_bucketing():
    # BucketingModule's pattern: the default (largest) bucket first, then the
    # others with shared_arg_names, shared_exec and shared_buffer.
    net = _bucket_net()
    buffer = {}
    big = net.simple_bind(mx.cpu(), data=(8, 5), softmax_label=(8,), shared_arg_names=PARAMS,
                          shared_buffer=buffer)
    # The buffer holds the non-shared arguments and their gradients.
    assert sorted(buffer) == ["data", "grad of data", "grad of softmax_label", "softmax_label"]
    small = net.simple_bind(mx.cpu(), data=(4, 5), softmax_label=(4,),
                            shared_arg_names=PARAMS, shared_exec=big, shared_buffer=buffer)
    for name in PARAMS:
        assert _shares(small.arg_dict[name], big.arg_dict[name]), name
        assert _shares(small.grad_dict[name], big.grad_dict[name]), name
    for name in ("bn_moving_mean", "bn_moving_var"):
        assert _shares(small.aux_dict[name], big.aux_dict[name]), name
    # Inputs are views of the bigger bucket's.
    assert small.arg_dict["data"].shape == (4, 5)
    assert _shares(small.arg_dict["data"], big.arg_dict["data"])
    assert buffer["data"].shape == (8, 5)
    # Same arrays: a parameter written through one executor is what the other reads.
    big.arg_dict["fc1_weight"][:] = 0.5
    np.testing.assert_array_equal(small.arg_dict["fc1_weight"].asnumpy(), np.full((3, 5), 0.5))
    small.arg_dict["data"][:] = 1
    small.arg_dict["bn_gamma"][:] = 1
    small.forward(is_train=True)
    small.backward()
    # The gradient small computed is in big's gradient array.
    np.testing.assert_array_equal(big.grad_dict["fc1_weight"].asnumpy(),
                                  small.grad_dict["fc1_weight"].asnumpy())


def test_shared_buffer_too_small_is_replaced():
    net = _bucket_net()
    buffer = {}
    big = net.simple_bind(mx.cpu(), data=(8, 5), softmax_label=(8,), shared_arg_names=PARAMS,
                          shared_buffer=buffer)
    old = buffer["data"]
    huge = net.simple_bind(mx.cpu(), data=(16, 5), softmax_label=(16,),
                           shared_arg_names=PARAMS, shared_exec=big, shared_buffer=buffer)
    assert buffer["data"].shape == (16, 5) and not _shares(buffer["data"], old)
    assert _shares(huge.arg_dict["fc1_weight"], big.arg_dict["fc1_weight"])


def test_shared_arg_names_need_a_shared_buffer():
    # Without shared_buffer MXNet allocates every argument afresh.
    net = _bucket_net()
    big = net.simple_bind(mx.cpu(), data=(8, 5), softmax_label=(8,))
    other = net.simple_bind(mx.cpu(), data=(4, 5), softmax_label=(4,), shared_arg_names=PARAMS,
                            shared_exec=big)
    assert not _shares(other.arg_dict["fc1_weight"], big.arg_dict["fc1_weight"])


def test_bind_shared_exec_shares_only_intermediates():
    net = _bucket_net()
    big = net.simple_bind(mx.cpu(), data=(8, 5), softmax_label=(8,))
    args = {k: v.copy() for k, v in big.arg_dict.items()}
    other = net.bind(mx.cpu(), args, aux_states=[a.copy() for a in big.aux_arrays],
                     shared_exec=big)
    assert not _shares(other.arg_dict["fc1_weight"], big.arg_dict["fc1_weight"])
    other.forward()
    assert other.outputs[0].shape == (8, 3)


# --- group2ctx -------------------------------------------------------------------------------

def _chain():
    # MXNet's test_model_parallel.py test_chain.
    data1, data2, data3 = (mx.sym.Variable("data%d" % i) for i in (1, 2, 3))
    with mx.AttrScope(ctx_group="dev1"):
        net = data1 + data2
        net = net * 3
    with mx.AttrScope(ctx_group="dev2"):
        net = net + data3
    return net


def test_group2ctx_chain():
    net = _chain()
    ctx1, ctx2 = mx.cpu(1), mx.cpu(2)
    shape = (4, 5)
    arr = [mx.nd.full(shape, v, ctx=c) for v, c in ((1, ctx1), (2, ctx1), (3, ctx2))]
    arr_grad = [mx.nd.empty(shape, ctx=c) for c in (ctx1, ctx1, ctx2)]
    exe = net.bind(mx.cpu(), args=arr, args_grad=arr_grad,
                   group2ctx={"dev1": ctx1, "dev2": ctx2})
    single = net.bind(mx.cpu(), args=[a.copyto(mx.cpu()) for a in arr],
                      args_grad=[mx.nd.empty(shape) for _ in arr])
    for e in (exe, single):
        e.forward(is_train=True)
        e.backward([mx.nd.ones(shape, ctx=ctx2 if e is exe else mx.cpu())])
    # (1 + 2) * 3 + 3 = 12; gradients 3, 3, 1.
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), np.full(shape, 12))
    assert exe.outputs[0].context == ctx2
    for got, want, value in zip(arr_grad, single.grad_arrays, (3, 3, 1)):
        np.testing.assert_array_equal(got.asnumpy(), np.full(shape, value))
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), single.outputs[0].asnumpy())
    # The placement crossed devices once, where dev1's result feeds dev2's add.
    assert exe.get_optimized_symbol().tojson().count('"_CrossDeviceCopy"') == 1


def test_arrays_on_other_devices_need_group2ctx():
    net = _chain()
    arr = [mx.nd.ones(2, ctx=mx.cpu(1)) for _ in range(3)]
    with pytest.raises(mx.base.MXNetError, match="group2ctx"):
        net.bind(mx.cpu(), args=arr)


# --- monitor, optimized symbol, debug_str ---------------------------------------------------------

def _mlp_exe():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=3, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    return net.simple_bind(mx.cpu(), data=(2, 4))


def test_monitor_callback_sees_op_outputs():
    exe = _mlp_exe()
    exe.arg_dict["data"][:] = 1
    exe.arg_dict["fc1_bias"][:] = np.array([1, -1, 2])
    seen = {}
    exe.set_monitor_callback(lambda name, arr: seen.setdefault(name, arr.asnumpy()))
    exe.forward()
    assert list(seen) == ["fc1_output", "relu1_output"]
    np.testing.assert_array_equal(seen["fc1_output"], [[1, -1, 2], [1, -1, 2]])
    np.testing.assert_array_equal(seen["relu1_output"], [[1, 0, 2], [1, 0, 2]])


def test_monitor_all_adds_inputs():
    exe = _mlp_exe()
    names = []
    exe.set_monitor_callback(lambda name, arr: names.append(name), monitor_all=True)
    exe.forward()
    assert names == ["fc1_data", "fc1_weight", "fc1_bias", "fc1_output", "relu1_data",
                     "relu1_output"]
    names.clear()
    exe.set_monitor_callback(None)
    exe.forward()
    assert names == []


def test_monitor_callback_exception_propagates_out_of_forward():
    exe = _mlp_exe()

    def callback(name, arr):
        raise KeyError("boom at " + name)
    exe.set_monitor_callback(callback)
    with pytest.raises(KeyError, match="boom at fc1_output"):
        exe.forward()
    # The executor still works once the callback is gone.
    exe.set_monitor_callback(None)
    assert exe.forward()[0].shape == (2, 3)


def test_get_optimized_symbol():
    exe = _mlp_exe()
    optimized = exe.get_optimized_symbol()
    assert optimized.list_outputs() == ["relu1_output"]
    assert optimized.list_arguments() == ["data", "fc1_weight", "fc1_bias"]


def test_debug_str():
    text = _mlp_exe().debug_str()
    assert "fc1" in text and "relu1" in text
    assert "FullyConnected" in text


# --- unsupported configurations fail clearly ---------------------------------------------

def test_sparse_stype_dict_is_a_clear_error():
    net = _mul_net()
    with pytest.raises(mx.base.MXNetError, match="storage type 'csr'"):
        net.simple_bind(mx.cpu(), a=(2,), b=(2,), stype_dict={"a": "csr"})
    # 'default' is dense: fine.
    net.simple_bind(mx.cpu(), a=(2,), b=(2,), stype_dict={"a": "default"})


def test_gpu_context_is_a_clear_error():
    with pytest.raises(mx.base.MXNetError, match="gpu"):
        _mul_net().simple_bind(mx.gpu(), a=(2,), b=(2,))
