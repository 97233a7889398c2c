"""mx.mod.Module end to end: LeNet on the engine's synthetic digits reaches the
C++ trainer's accuracy (tests/train/trainer_test.cc: > 0.95 after 2 epochs) on
one device and data-parallel on two; the two layouts compute the same update;
checkpoints, predict, score and BucketingModule."""
import logging
import os

import numpy as np
import pytest

import symx as mx


def lenet():
    data = mx.sym.Variable("data")
    h = data
    for i, filters in enumerate((20, 50), start=1):
        h = mx.sym.Convolution(data=h, kernel=(5, 5), num_filter=filters, name="conv%d" % i)
        h = mx.sym.Activation(data=h, act_type="tanh", name="tanh%d" % i)
        h = mx.sym.Pooling(data=h, pool_type="max", kernel=(2, 2), stride=(2, 2),
                           name="pool%d" % i)
    h = mx.sym.Flatten(data=h, name="flatten")
    h = mx.sym.FullyConnected(data=h, num_hidden=500, name="fc1")
    h = mx.sym.Activation(data=h, act_type="tanh", name="tanh3")
    h = mx.sym.FullyConnected(data=h, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(data=h, name="softmax")


@pytest.fixture(scope="module")
def digits():
    return mx.io.synthetic_digits(3000, 500, seed=11)


def iters(digits, batch_size=50):
    train = mx.io.NDArrayIter(digits["train_data"], digits["train_label"], batch_size,
                              shuffle=True, last_batch_handle="discard")
    test = mx.io.NDArrayIter(digits["test_data"], digits["test_label"], batch_size)
    return train, test


@pytest.mark.parametrize("contexts", [[mx.cpu(0)], [mx.cpu(0), mx.cpu(1)]],
                         ids=["one_device", "two_devices"])
def test_lenet_fit_reaches_the_cpp_trainers_accuracy(digits, contexts, tmp_path, caplog):
    np.random.seed(0)
    mx.random.seed(11)
    train, test = iters(digits)
    mod = mx.mod.Module(lenet(), context=contexts)
    prefix = str(tmp_path / "lenet")
    with caplog.at_level(logging.INFO):
        mod.fit(train, eval_data=test, eval_metric="acc", optimizer="sgd",
                optimizer_params={"learning_rate": 0.05, "momentum": 0.9},
                initializer=mx.init.Xavier(), num_epoch=2,
                epoch_end_callback=mx.callback.do_checkpoint(prefix))
    # One progress line per epoch for training, time and validation.
    lines = [r.getMessage() for r in caplog.records]
    for epoch in (0, 1):
        assert any(l.startswith("Epoch[%d] Train-accuracy=" % epoch) for l in lines)
        assert any(l.startswith("Epoch[%d] Time cost=" % epoch) for l in lines)
        assert any(l.startswith("Epoch[%d] Validation-accuracy=" % epoch) for l in lines)
    (name, acc), = mod.score(test, "acc")
    assert name == "accuracy"
    assert acc > 0.95
    # Epoch-end checkpoints, loadable into a new Module that scores the same.
    assert os.path.exists(prefix + "-symbol.json")
    assert os.path.exists(prefix + "-0001.params") and os.path.exists(prefix + "-0002.params")
    loaded = mx.mod.Module.load(prefix, 2, context=mx.cpu())
    loaded.bind(data_shapes=test.provide_data, label_shapes=test.provide_label,
                for_training=False)
    assert loaded.score(test, "acc")[0][1] == pytest.approx(acc, abs=1e-6)
    # predict drops the padding of the last batch and returns probabilities.
    probs = loaded.predict(test).asnumpy()
    assert probs.shape == (500, 10)
    np.testing.assert_allclose(probs.sum(axis=1), 1, rtol=1e-5)
    predicted_acc = (probs.argmax(axis=1) == digits["test_label"]).mean()
    assert predicted_acc > 0.95


def one_step(contexts, digits, batch_size=20):
    """Parameters after one SGD step from the same start, for a given layout."""
    mx.random.seed(5)
    mod = mx.mod.Module(lenet(), context=contexts)
    batch = mx.io.DataBatch(data=[mx.nd.array(digits["train_data"][:batch_size])],
                            label=[mx.nd.array(digits["train_label"][:batch_size])])
    mod.bind(data_shapes=[("data", (batch_size, 1, 28, 28))],
             label_shapes=[("softmax_label", (batch_size,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1, "wd": 1e-4})
    mod.forward_backward(batch)
    mod.update()
    outputs = mod.get_outputs()[0].asnumpy()
    args, _ = mod.get_params()
    return outputs, {k: v.asnumpy() for k, v in args.items()}


def test_data_parallel_step_equals_the_one_device_step(digits):
    # Rows split 7/7/6 over three devices: the gradient sum over the replicas
    # with rescale_grad 1/20 is the one-device update.
    out1, params1 = one_step([mx.cpu(0)], digits)
    out3, params3 = one_step([mx.cpu(0), mx.cpu(1), mx.cpu(2)], digits)
    np.testing.assert_allclose(out3, out1, rtol=1e-5, atol=1e-6)
    assert params1.keys() == params3.keys()
    for name in params1:
        np.testing.assert_allclose(params3[name], params1[name], rtol=1e-4, atol=1e-6,
                                   err_msg=name)


def test_module_errors():
    with pytest.raises(ValueError, match="data_names"):
        mx.mod.Module(lenet(), data_names=["image"])
    mod = mx.mod.Module(lenet())
    with pytest.raises(RuntimeError):
        mod.get_params()
    with pytest.raises(mx.base.MXNetError, match="smaller than the 2 contexts"):
        mx.mod.Module(lenet(), context=[mx.cpu(0), mx.cpu(1)]).bind(
            data_shapes=[("data", (1, 1, 28, 28))], label_shapes=[("softmax_label", (1,))])
    mod.bind(data_shapes=[("data", (4, 1, 28, 28))], label_shapes=[("softmax_label", (4,))])
    mod.init_params()
    with pytest.raises(mx.base.MXNetError, match="kvstore 'dist_async'"):
        mod.init_optimizer(kvstore="dist_async")
    with pytest.raises(RuntimeError, match="init_optimizer"):
        mod.update()
    with pytest.raises(RuntimeError, match="is not presented"):
        mod.init_params(arg_params={"conv1_weight": mx.nd.zeros((20, 1, 5, 5))}, force_init=True)


def test_set_params_and_get_params_round_trip():
    mod = mx.mod.Module(lenet())
    mod.bind(data_shapes=[("data", (2, 1, 28, 28))], label_shapes=[("softmax_label", (2,))])
    mod.init_params(mx.init.Uniform(0.1))
    args, auxs = mod.get_params()
    new_args = {k: mx.nd.full(v.shape, 0.25) for k, v in args.items()}
    mod.set_params(new_args, auxs)
    got, _ = mod.get_params()
    for k in new_args:
        assert np.all(got[k].asnumpy() == 0.25)


def test_bucketing_module_shares_parameters_across_buckets():
    # An MLP over sequences of different lengths, flattened: the FC weight
    # depends on the length, so buckets must share a length-independent part.
    def sym_gen(seq_len):
        data = mx.sym.Variable("data")
        emb = mx.sym.FullyConnected(data=mx.sym.Reshape(data, shape=(-1, 4)), num_hidden=8,
                                    name="proj")
        pooled = mx.sym.mean(mx.sym.Reshape(emb, shape=(-1, seq_len, 8)), axis=1)
        out = mx.sym.FullyConnected(data=pooled, num_hidden=3, name="cls")
        return mx.sym.SoftmaxOutput(data=out, name="softmax"), ("data",), ("softmax_label",)

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=10, context=mx.cpu())
    mod.bind(data_shapes=[("data", (6, 10, 4))], label_shapes=[("softmax_label", (6,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.1})
    rng = np.random.RandomState(0)
    for key in (10, 5, 10, 5):
        batch = mx.io.DataBatch(
            data=[mx.nd.array(rng.rand(6, key, 4))], label=[mx.nd.array(rng.randint(0, 3, 6))],
            bucket_key=key, provide_data=[mx.io.DataDesc("data", (6, key, 4))],
            provide_label=[mx.io.DataDesc("softmax_label", (6,))])
        before = mod.get_params()[0]["cls_weight"].asnumpy().copy()
        mod.forward_backward(batch)
        mod.update()
        assert mod.get_outputs()[0].shape == (6, 3)
        assert not np.array_equal(mod.get_params()[0]["cls_weight"].asnumpy(), before)
    assert sorted(mod.buckets) == [5, 10]
    # One parameter array for both buckets (shared_exec + shared_buffer).
    exe10 = mod.buckets[10]._exec_group.execs[0]
    exe5 = mod.buckets[5]._exec_group.execs[0]
    assert exe10.arg_dict["proj_weight"]._t.same_storage(exe5.arg_dict["proj_weight"]._t)
    assert exe10.grad_dict["cls_weight"]._t.same_storage(exe5.grad_dict["cls_weight"]._t)


def test_data_parallel_modules_can_be_dropped_in_any_order(digits):
    # The gradient reducer holds its executors; freeing the module (executors
    # and reducer in whatever order Python picks) must not touch freed ones.
    import gc
    for _ in range(3):
        mod = mx.mod.Module(lenet(), context=[mx.cpu(0), mx.cpu(1)])
        mod.bind(data_shapes=[("data", (4, 1, 28, 28))], label_shapes=[("softmax_label", (4,))])
        mod.init_params(mx.init.Xavier())
        mod.init_optimizer()
        batch = mx.io.DataBatch(data=[mx.nd.array(digits["train_data"][:4])],
                                label=[mx.nd.array(digits["train_label"][:4])])
        mod.forward_backward(batch)
        mod.update()
        group = mod._exec_group
        execs, reducer = group.execs, group.reducer
        del mod, group
        del execs
        gc.collect()
        del reducer
        gc.collect()


def test_grad_req_add_over_several_contexts_accumulates_per_replica():
    # Two backward passes accumulate in each replica; update sums the
    # replicas (MXNet's kvstore push): the same step as one context.
    rng = np.random.RandomState(8)
    batches = [mx.io.DataBatch([mx.nd.array(rng.randn(4, 6))],
                               [mx.nd.array(rng.randint(0, 3, 4))]) for _ in range(2)]
    params = []
    for contexts in ([mx.cpu(0)], [mx.cpu(0), mx.cpu(1)]):
        mod = mx.mod.Module(_two_stage_net(), context=contexts)
        mod.bind(data_shapes=[("data", (4, 6))], label_shapes=[("softmax_label", (4,))],
                 grad_req="add")
        mod.init_params(mx.init.Constant(0.05))
        mod.init_optimizer(optimizer_params={"learning_rate": 0.1, "rescale_grad": 1.0})
        for b in batches:
            mod.forward_backward(b)
        mod.update()
        params.append({k: v.asnumpy() for k, v in mod.get_params()[0].items()})
        if len(contexts) == 2:
            # Each replica kept its own accumulated gradient.
            g0, g1 = (e.grad_dict["fc2_bias"].asnumpy() for e in mod._exec_group.execs)
            assert not np.allclose(g0, g1)
    for name in params[0]:
        np.testing.assert_allclose(params[1][name], params[0][name], rtol=1e-5, atol=1e-7,
                                   err_msg=name)


def bn_net():
    h = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=8, name="fc1")
    h = mx.sym.BatchNorm(h, name="bn")
    h = mx.sym.FullyConnected(mx.sym.Activation(h, act_type="relu"), num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def test_fit_averages_aux_states_back_into_every_replica():
    rng = np.random.RandomState(0)
    x = rng.rand(40, 5).astype(np.float32)
    y = rng.randint(0, 3, 40).astype(np.float32)
    # Different halves of each batch: the replicas' moving statistics differ
    # until fit averages them at the end of the epoch.
    x[:, 0] += np.arange(40) % 10 >= 5
    mod = mx.mod.Module(bn_net(), context=[mx.cpu(0), mx.cpu(1)])
    mod.fit(mx.io.NDArrayIter(x, y, 10), num_epoch=1, optimizer_params={"learning_rate": 0.1})
    execs = mod._exec_group.execs
    for name in ("bn_moving_mean", "bn_moving_var"):
        np.testing.assert_array_equal(execs[0].aux_dict[name].asnumpy(),
                                      execs[1].aux_dict[name].asnumpy())
        np.testing.assert_array_equal(mod.get_params()[1][name].asnumpy(),
                                      execs[0].aux_dict[name].asnumpy())


def test_module_without_a_label_warns_and_predicts():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2, name="fc")
    with pytest.warns(UserWarning, match="softmax_label"):
        mod = mx.mod.Module(net)  # the default label_names; MXNet only warns
    mod.bind(data_shapes=[("data", (3, 4))], for_training=False)
    mod.init_params(mx.init.One())
    out = mod.predict(mx.io.NDArrayIter(np.ones((6, 4), np.float32), batch_size=3))
    np.testing.assert_array_equal(out.asnumpy(), np.full((6, 2), 4.0))


def test_init_params_twice_is_ignored_with_a_warning():
    mod = mx.mod.Module(lenet())
    mod.bind(data_shapes=[("data", (2, 1, 28, 28))], label_shapes=[("softmax_label", (2,))])
    mod.init_params(mx.init.Constant(0.5))
    with pytest.warns(UserWarning, match="already initialized"):
        mod.init_params(arg_params={"fc2_bias": mx.nd.full((10,), 7)}, allow_missing=True)
    assert np.all(mod.get_params()[0]["fc2_bias"].asnumpy() == 0)  # bias rule: zeros


def test_module_reshapes_do_not_keep_old_executors():
    import gc
    import weakref
    mod = mx.mod.Module(lenet())
    mod.bind(data_shapes=[("data", (4, 1, 28, 28))], label_shapes=[("softmax_label", (4,))])
    mod.init_params(mx.init.Xavier())
    first = weakref.ref(mod._exec_group.execs[0])
    for n in (3, 4, 3, 2):
        batch = mx.io.DataBatch(data=[mx.nd.ones((n, 1, 28, 28))], label=[mx.nd.zeros((n,))])
        mod.forward(batch, is_train=False)
        assert mod.get_outputs()[0].shape == (n, 10)
    gc.collect()
    assert first() is None


def test_bucketing_force_rebind_keeps_the_parameters():
    def sym_gen(key):
        net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc")
        return mx.sym.SoftmaxOutput(net, name="softmax"), ("data",), ("softmax_label",)

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=4)
    shapes = dict(data_shapes=[("data", (2, 4))], label_shapes=[("softmax_label", (2,))])
    mod.bind(**shapes)
    mod.init_params(mx.init.Uniform(1))
    before = mod.get_params()[0]["fc_weight"].asnumpy()
    mod.bind(force_rebind=True, **shapes)
    np.testing.assert_array_equal(mod.get_params()[0]["fc_weight"].asnumpy(), before)


def test_random_seed_fixes_dropout_masks():
    y = mx.sym.Dropout(mx.sym.Variable("x"), p=0.5)

    def mask(seed):
        mx.random.seed(seed)
        exe = y.simple_bind(mx.cpu(), x=(64,), grad_req="null")
        exe.arg_dict["x"][:] = 1
        return exe.forward(is_train=True)[0].asnumpy()

    a, b, c = mask(1), mask(2), mask(1)
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)


def _two_stage_net():
    data = mx.sym.Variable("data")
    with mx.AttrScope(ctx_group="dev1"):
        fc1 = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
        act = mx.sym.Activation(fc1, act_type="relu")
    with mx.AttrScope(ctx_group="dev2"):
        fc2 = mx.sym.FullyConnected(act, num_hidden=3, name="fc2")
        return mx.sym.SoftmaxOutput(fc2, name="softmax")


def _fit_params(**module_kwargs):
    rng = np.random.RandomState(4)
    x = rng.randn(24, 6).astype(np.float32)
    y = rng.randint(0, 3, 24).astype(np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=8, label_name="softmax_label")
    mx.random.seed(11)
    mod = mx.mod.Module(_two_stage_net(), **module_kwargs)
    mod.fit(it, num_epoch=2, optimizer_params={"learning_rate": 0.1},
            initializer=mx.init.Xavier())
    return mod, {k: v.asnumpy() for k, v in mod.get_params()[0].items()}


def test_group2ctxs_places_the_stages_and_trains_as_one_device():
    _, plain = _fit_params()
    mod, split = _fit_params(group2ctxs={"dev1": mx.cpu(1), "dev2": mx.cpu(2)})
    for name in plain:
        np.testing.assert_array_equal(split[name], plain[name], err_msg=name)
    exe = mod._exec_group.execs[0]
    assert "fc1" in exe.debug_str() and "on cpu(1)" in exe.debug_str()
    assert "on cpu(2)" in exe.debug_str()


def test_group2ctxs_per_replica_with_data_parallelism():
    # Two replicas, each split over two devices of its own: the same training.
    contexts = [mx.cpu(0), mx.cpu(3)]
    _, plain = _fit_params(context=contexts)
    _, split = _fit_params(context=contexts, group2ctxs={"dev1": [mx.cpu(1), mx.cpu(4)],
                                                         "dev2": [mx.cpu(2), mx.cpu(5)]})
    for name in plain:
        np.testing.assert_array_equal(split[name], plain[name], err_msg=name)


def test_group2ctxs_forms_and_errors():
    from symx.module.executor_group import prepare_group2ctxs
    assert prepare_group2ctxs(None, 2) == [None, None]
    assert prepare_group2ctxs({"a": mx.cpu(1), "b": [mx.cpu(2), mx.cpu(3)]}, 2) == [
        {"a": mx.cpu(1), "b": mx.cpu(2)}, {"a": mx.cpu(1), "b": mx.cpu(3)}]
    assert prepare_group2ctxs([{"a": mx.cpu(1)}, {"a": mx.cpu(2)}], 2)[1] == {"a": mx.cpu(2)}
    with pytest.raises(mx.base.MXNetError, match="2 maps for 3 contexts"):
        prepare_group2ctxs([{}, {}], 3)
    with pytest.raises(mx.base.MXNetError, match="group2ctxs\\['b'\\] has 1 contexts for 2"):
        prepare_group2ctxs({"b": [mx.cpu(1)]}, 2)
    with pytest.raises(TypeError):
        prepare_group2ctxs("dev1", 1)


def test_states_are_read_and_set():
    data, h = mx.sym.Variable("data"), mx.sym.Variable("h")
    net = mx.sym.FullyConnected(data, num_hidden=2, name="fc") + h
    mod = mx.mod.Module(net, data_names=["data"], label_names=None, state_names=["h"],
                        context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[("data", (4, 3))])
    mod.init_params(mx.init.Zero())
    mod.set_states(value=1.5)
    merged = mod.get_states()
    assert merged[0].shape == (4, 2) and merged[0].context == mx.cpu(0)
    np.testing.assert_array_equal(merged[0].asnumpy(), np.full((4, 2), 1.5))
    parts = mod.get_states(merge_multi_context=False)
    assert [p.shape for p in parts[0]] == [(2, 2), (2, 2)]
    mod.set_states(states=[[mx.nd.ones((2, 2)), mx.nd.zeros((2, 2), ctx=mx.cpu(1))]])
    mod.forward(mx.io.DataBatch([mx.nd.zeros((4, 3))], None), is_train=False)
    np.testing.assert_array_equal(mod.get_outputs()[0].asnumpy(), [[1, 1], [1, 1], [0, 0], [0, 0]])
    with pytest.raises(ValueError, match="exactly one"):
        mod.set_states()
    with pytest.raises(ValueError, match="has shape"):
        mod.set_states(states=[[mx.nd.ones((3, 2)), mx.nd.ones((2, 2))]])
    with pytest.raises(ValueError, match="1 arrays for 2 contexts"):
        mod.set_states(states=[[mx.nd.ones((2, 2))]])


def test_inputs_split_along_their_layouts_batch_axis():
    # Sequence data laid out TNC: the batch axis is 1, so two contexts take
    # two samples each of every time step; outputs and the metric see the
    # samples as one context does.
    data = mx.sym.Variable("data")
    pooled = mx.sym.sum(data, axis=0)  # (N, C)
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(pooled, num_hidden=3, name="fc"),
                               name="softmax")
    rng = np.random.RandomState(6)
    x = rng.randn(5, 4, 2).astype(np.float32)
    y = np.array([0, 1, 2, 1], dtype=np.float32)
    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    results = []
    for contexts in ([mx.cpu(0)], [mx.cpu(0), mx.cpu(1)]):
        mod = mx.mod.Module(net, context=contexts)
        mod.bind(data_shapes=[mx.io.DataDesc("data", (5, 4, 2), layout="TNC")],
                 label_shapes=[mx.io.DataDesc("softmax_label", (4,), layout="N")])
        mod.init_params(mx.init.Constant(0.1))
        assert [e.arg_dict["data"].shape for e in mod._exec_group.execs] == (
            [(5, 4, 2)] if len(contexts) == 1 else [(5, 2, 2), (5, 2, 2)])
        mod.forward(batch, is_train=False)
        metric = mx.metric.create("ce")
        mod.update_metric(metric, batch.label)
        results.append((mod.get_outputs()[0].asnumpy(), metric.get()[1]))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-6)
    assert results[1][1] == pytest.approx(results[0][1], rel=1e-6)
    assert mx.io.DataDesc.get_batch_axis("TNC") == 1
    assert mx.io.DataDesc.get_batch_axis(None) == 0
    assert mx.io.DataDesc.get_batch_axis("CHW") == -1


def _sync_bn_net(op, **attrs):
    data = mx.sym.Variable("data")
    h = op(data, name="bn", fix_gamma=False, momentum=0.5, **attrs)
    h = mx.sym.FullyConnected(h, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def _sync_bn_step(sym, contexts, out_grads=False):
    rng = np.random.RandomState(4)
    x = (rng.rand(8, 2, 3) * np.array([1.0, 5.0])[None, :, None]).astype(np.float32)
    x[:4] += 3.0  # the two replicas' halves differ: per-replica statistics would too
    y = rng.randint(0, 3, 8).astype(np.float32)
    mod = mx.mod.Module(sym, context=contexts)
    mod.bind(data_shapes=[("data", (8, 2, 3))], label_shapes=[("softmax_label", (8,))])
    mod.init_params(mx.init.Uniform(0.5), force_init=True)
    args, aux = mod.get_params()
    rng2 = np.random.RandomState(1)
    args = {k: mx.nd.array(rng2.uniform(-1, 1, v.shape)) for k, v in sorted(args.items())}
    mod.set_params(args, aux)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 1.0})
    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    mod.forward(batch, is_train=True)
    out = mod.get_outputs()[0].asnumpy()
    if out_grads:
        mod.backward([mx.nd.ones((8, 3))])
    else:
        mod.backward()
    mod.update()
    args, aux = mod.get_params()
    return out, {k: v.asnumpy() for k, v in list(args.items()) + list(aux.items())}


@pytest.mark.parametrize("out_grads", [False, True])
def test_sync_batch_norm_over_module_contexts_is_whole_batch_batch_norm(out_grads):
    want_out, want = _sync_bn_step(_sync_bn_net(mx.sym.BatchNorm), [mx.cpu(0)], out_grads)
    sync = _sync_bn_net(mx.sym.contrib.SyncBatchNorm, ndev=2, key="bn0")
    got_out, got = _sync_bn_step(sync, [mx.cpu(0), mx.cpu(1)], out_grads)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-6, err_msg=name)
    # ndev=1 keeps per-replica statistics (MXNet's meaning): another answer.
    alone = _sync_bn_net(mx.sym.contrib.SyncBatchNorm, ndev=1, key="bn0")
    other_out, _ = _sync_bn_step(alone, [mx.cpu(0), mx.cpu(1)], out_grads)
    assert np.abs(other_out - want_out).max() > 1e-3
