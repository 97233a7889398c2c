"""mx.mod.SequentialModule, PythonModule and PythonLossModule.

A small net split into modules chained in a SequentialModule must compute what
the same net as one Module computes from the same parameters: outputs, input
gradients and the parameters after SGD steps (with momentum and weight decay),
by hand and through fit; a PythonLossModule at the end with a grad_func trains
as the matching symbolic loss would; the misuses MXNet asserts on are errors.
"""
import logging

import numpy as np
import pytest

import symx as mx
from symx.base import MXNetError

BATCH, IN, HIDDEN, CLASSES = 6, 5, 8, 3
RTOL, ATOL = 1e-5, 1e-6


# --- nets -----------------------------------------------------------------
def stage1():
    data = mx.sym.Variable("data")
    h = mx.sym.FullyConnected(data, num_hidden=HIDDEN, name="fc1")
    return mx.sym.Activation(h, act_type="relu", name="relu1")


def scores(data_name="data"):
    return mx.sym.FullyConnected(mx.sym.Variable(data_name), num_hidden=CLASSES, name="fc2")


def stage2(data_name="data"):
    return mx.sym.SoftmaxOutput(scores(data_name), name="softmax")


def whole_net():
    h = mx.sym.FullyConnected(stage1(), num_hidden=CLASSES, name="fc2")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def whole_scores():
    return mx.sym.FullyConnected(stage1(), num_hidden=CLASSES, name="fc2")


def start_params(seed=3):
    rng = np.random.RandomState(seed)
    shapes = {"fc1_weight": (HIDDEN, IN), "fc1_bias": (HIDDEN,),
              "fc2_weight": (CLASSES, HIDDEN), "fc2_bias": (CLASSES,)}
    return {k: mx.nd.array(rng.uniform(-0.5, 0.5, s)) for k, s in shapes.items()}


def make_batches(n, seed=7):
    rng = np.random.RandomState(seed)
    return [mx.io.DataBatch([mx.nd.array(rng.uniform(-1, 1, (BATCH, IN)))],
                            [mx.nd.array(rng.randint(0, CLASSES, BATCH))])
            for _ in range(n)]


DATA = [("data", (BATCH, IN))]
LABEL = [("softmax_label", (BATCH,))]
SGD = (("learning_rate", 0.1), ("momentum", 0.9), ("wd", 1e-3))


def ready(mod, inputs_need_grad=False, label=LABEL, optimizer_params=SGD, allow_extra=False):
    mod.bind(DATA, label, for_training=True, inputs_need_grad=inputs_need_grad)
    mod.init_params(arg_params=start_params(), allow_extra=allow_extra)
    mod.init_optimizer(optimizer="sgd", optimizer_params=optimizer_params)
    return mod


def two_stage(auto_wiring, context=None):
    """fc1+relu1 | fc2+softmax; without auto_wiring the second module's data
    is named after the first one's output."""
    kw = {} if context is None else {"context": context}
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(stage1(), label_names=None, **kw))
    if auto_wiring:
        seq.add(mx.mod.Module(stage2("data"), **kw), take_labels=True, auto_wiring=True)
    else:
        seq.add(mx.mod.Module(stage2("relu1_output"), data_names=["relu1_output"], **kw),
                take_labels=True)
    return seq


def assert_params_equal(a, b):
    assert sorted(a) == sorted(b)
    for name in a:
        np.testing.assert_allclose(a[name].asnumpy(), b[name].asnumpy(), rtol=RTOL, atol=ATOL,
                                   err_msg=name)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def onehot(labels):
    return np.eye(CLASSES, dtype=np.float32)[labels.astype(int)]


# --- SequentialModule against one Module ----------------------------------
@pytest.mark.parametrize("auto_wiring", [True, False], ids=["auto_wiring", "named_wiring"])
def test_two_modules_train_as_one(auto_wiring):
    seq = ready(two_stage(auto_wiring), inputs_need_grad=True)
    one = ready(mx.mod.Module(whole_net()), inputs_need_grad=True)
    for batch in make_batches(5):
        for mod in (seq, one):
            mod.forward(batch, is_train=True)
            mod.backward()
        np.testing.assert_allclose(seq.get_outputs()[0].asnumpy(), one.get_outputs()[0].asnumpy(),
                                   rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(seq.get_input_grads()[0].asnumpy(),
                                   one.get_input_grads()[0].asnumpy(), rtol=RTOL, atol=ATOL)
        seq.update()
        one.update()
    assert_params_equal(seq.get_params()[0], one.get_params()[0])
    # The chain reports the first module's inputs and the last one's outputs.
    assert seq.data_names == ["data"]
    assert seq.output_names == ["softmax_output"]
    assert [(d.name, d.shape) for d in seq.data_shapes] == DATA
    assert [tuple(s) for s in seq.output_shapes] == [("softmax_output", (BATCH, CLASSES))]
    assert [tuple(s) for s in seq.label_shapes] == LABEL


def test_fit_score_and_predict_match_one_module(caplog):
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (4 * BATCH, IN)).astype(np.float32)
    y = rng.randint(0, CLASSES, 4 * BATCH).astype(np.float32)

    def fit(mod):
        train = mx.io.NDArrayIter(x, y, BATCH, shuffle=False)
        with caplog.at_level(logging.INFO):
            mod.fit(train, eval_data=mx.io.NDArrayIter(x, y, BATCH), eval_metric="acc",
                    optimizer="sgd", optimizer_params=SGD, arg_params=start_params(),
                    num_epoch=3)
        return mod

    caplog.clear()
    seq = fit(two_stage(auto_wiring=True))
    lines = [r.getMessage() for r in caplog.records]
    for epoch in range(3):
        assert any(l.startswith("Epoch[%d] Train-accuracy=" % epoch) for l in lines)
        assert any(l.startswith("Epoch[%d] Validation-accuracy=" % epoch) for l in lines)
    one = fit(mx.mod.Module(whole_net()))
    assert_params_equal(seq.get_params()[0], one.get_params()[0])
    test = mx.io.NDArrayIter(x, y, 5)  # a batch size that does not divide: padding, reshapes
    assert seq.score(test, "acc")[0][1] == pytest.approx(one.score(test, "acc")[0][1])
    np.testing.assert_allclose(seq.predict(test).asnumpy(), one.predict(test).asnumpy(),
                               rtol=RTOL, atol=ATOL)


def test_data_parallel_stages_train_as_one_device():
    seq = ready(two_stage(True, context=[mx.cpu(0), mx.cpu(1)]), inputs_need_grad=True)
    one = ready(mx.mod.Module(whole_net()), inputs_need_grad=True)
    for batch in make_batches(3):
        for mod in (seq, one):
            mod.forward_backward(batch)
            mod.update()
        np.testing.assert_allclose(seq.get_input_grads()[0].asnumpy(),
                                   one.get_input_grads()[0].asnumpy(), rtol=RTOL, atol=ATOL)
    assert_params_equal(seq.get_params()[0], one.get_params()[0])


def test_params_are_merged_and_set_in_every_module():
    seq = two_stage(True)
    seq.bind(DATA, LABEL)
    seq.init_params(mx.init.Xavier())
    args, auxs = seq.get_params()
    assert sorted(args) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
    assert auxs == {}
    seq.set_params(start_params(), {})
    assert_params_equal(seq.get_params()[0], start_params())
    # Names no module has are ignored, as MXNet 1.9.1's (checked side by side).
    extra = dict(start_params(), other_weight=mx.nd.zeros((2,)))
    seq.set_params(extra, {})
    assert_params_equal(seq.get_params()[0], start_params())
    # A missing one: an error unless allow_missing (then the initializer's).
    partial = start_params()
    del partial["fc2_weight"]
    with pytest.raises(RuntimeError, match="fc2_weight"):
        seq.set_params(partial, {})
    seq.init_params(mx.init.Constant(0.25), arg_params=partial, allow_missing=True,
                    force_init=True)
    np.testing.assert_array_equal(seq.get_params()[0]["fc2_weight"].asnumpy(), 0.25)
    np.testing.assert_array_equal(seq.get_params()[0]["fc2_bias"].asnumpy(),
                                  start_params()["fc2_bias"].asnumpy())


def test_update_metric_only_from_modules_taking_labels():
    seq = ready(two_stage(True))
    batch = make_batches(1)[0]
    seq.forward(batch, is_train=False)
    metric = mx.metric.create("acc")
    seq.update_metric(metric, batch.label)
    assert metric.num_inst == BATCH  # the last module's outputs only
    predicted = seq.get_outputs()[0].asnumpy().argmax(axis=1)
    assert metric.get()[1] == pytest.approx((predicted == batch.label[0].asnumpy()).mean())


def test_install_monitor_reaches_every_module():
    seq = ready(two_stage(True))
    mon = mx.mon.Monitor(1, pattern="fc1_output|fc2_output")
    seq.install_monitor(mon)
    mon.tic()
    seq.forward(make_batches(1)[0], is_train=False)
    names = {name for _, name, _ in mon.toc()}
    assert names == {"fc1_output", "fc2_output"}


# --- PythonLossModule and PythonModule ------------------------------------
def test_python_loss_with_softmax_gradient_trains_as_softmax_output():
    seen = []

    def softmax_ce_grad(scores, labels):
        seen.append((scores.shape, labels.shape))
        # A numpy gradient: PythonLossModule makes an NDArray of it.
        return softmax(scores.asnumpy()) - onehot(labels.asnumpy())

    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(whole_scores(), label_names=None))
    seq.add(mx.mod.PythonLossModule(grad_func=softmax_ce_grad), take_labels=True,
            auto_wiring=True)
    ready(seq, inputs_need_grad=True)
    one = ready(mx.mod.Module(whole_net()), inputs_need_grad=True)
    assert seq.output_names == ["pyloss_output"]
    assert [tuple(s) for s in seq.output_shapes] == [("pyloss_output", (BATCH, CLASSES))]
    for batch in make_batches(4):
        for mod in (seq, one):
            mod.forward_backward(batch)
            mod.update()
        # The loss passes the scores through; SoftmaxOutput gives their softmax.
        np.testing.assert_allclose(softmax(seq.get_outputs()[0].asnumpy()),
                                   one.get_outputs()[0].asnumpy(), rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(seq.get_input_grads()[0].asnumpy(),
                                   one.get_input_grads()[0].asnumpy(), rtol=RTOL, atol=ATOL)
    assert seen == [((BATCH, CLASSES), (BATCH,))] * 4
    assert_params_equal(seq.get_params()[0], one.get_params()[0])


def test_python_loss_custom_gradient_flows_through_two_modules():
    def squared_error_grad(scores, labels):  # d/ds of sum((s - onehot)^2), as an NDArray
        return 2 * (scores - mx.nd.array(onehot(labels.asnumpy())))

    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(stage1(), label_names=None))
    seq.add(mx.mod.Module(scores("data"), label_names=None), auto_wiring=True)
    seq.add(mx.mod.PythonLossModule(name="mse", grad_func=squared_error_grad),
            take_labels=True, auto_wiring=True)
    ready(seq, inputs_need_grad=True)
    # The reference: the three stages' net as one Module, its head gradient
    # computed the same way by hand.
    ref = ready(mx.mod.Module(whole_scores(), label_names=None), inputs_need_grad=True,
                label=None)
    for batch in make_batches(4, seed=11):
        seq.forward_backward(batch)
        ref.forward(batch, is_train=True)
        out = ref.get_outputs()[0].asnumpy()
        head = 2 * (out - onehot(batch.label[0].asnumpy()))
        ref.backward(out_grads=[mx.nd.array(head)])
        np.testing.assert_allclose(seq.get_outputs()[0].asnumpy(), out, rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(seq.get_input_grads()[0].asnumpy(),
                                   ref.get_input_grads()[0].asnumpy(), rtol=RTOL, atol=ATOL)
        seq.update()
        ref.update()
    assert_params_equal(seq.get_params()[0], ref.get_params()[0])


class Doubler(mx.mod.PythonModule):
    """y = 2x, written in Python."""

    def __init__(self):
        super().__init__(data_names=["data"], label_names=None, output_names=["double_output"])
        self._out = self._grad = None

    def _compute_output_shapes(self):
        return [("double_output", self.data_shapes[0].shape)]

    def forward(self, data_batch, is_train=None):
        self._out = data_batch.data[0] * 2

    def backward(self, out_grads=None):
        self._grad = out_grads[0] * 2

    def get_outputs(self, merge_multi_context=True):
        return [self._out]

    def get_input_grads(self, merge_multi_context=True):
        return [self._grad]


def test_python_module_in_the_middle():
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(stage1(), label_names=None))
    seq.add(Doubler(), auto_wiring=True)
    seq.add(mx.mod.Module(stage2("data")), take_labels=True, auto_wiring=True)
    ready(seq)
    h = mx.sym.FullyConnected(stage1() * 2, num_hidden=CLASSES, name="fc2")
    one = ready(mx.mod.Module(mx.sym.SoftmaxOutput(h, name="softmax")))
    for batch in make_batches(3):
        for mod in (seq, one):
            mod.forward_backward(batch)
            mod.update()
        np.testing.assert_allclose(seq.get_outputs()[0].asnumpy(),
                                   one.get_outputs()[0].asnumpy(), rtol=RTOL, atol=ATOL)
    assert_params_equal(seq.get_params()[0], one.get_params()[0])


def test_python_loss_module_alone():
    loss = mx.mod.PythonLossModule(grad_func=lambda s, l: s - l.reshape((BATCH, 1)))
    loss.bind([("data", (BATCH, CLASSES))], [("softmax_label", (BATCH,))])
    assert loss.get_params() == ({}, {})
    loss.init_params()
    loss.init_optimizer()
    s = mx.nd.array(np.arange(BATCH * CLASSES).reshape(BATCH, CLASSES))
    l = mx.nd.array(np.arange(BATCH))
    loss.forward(mx.io.DataBatch([s], [l]), is_train=True)
    assert loss.get_outputs()[0] is s
    loss.backward()
    loss.update()
    np.testing.assert_array_equal(loss.get_input_grads()[0].asnumpy(),
                                  s.asnumpy() - l.asnumpy()[:, None])
    # The outputs (the scores) are what the metric scores.
    metric = mx.metric.create("mse")
    loss.update_metric(metric, [mx.nd.array(np.zeros((BATCH, CLASSES)))])
    assert metric.get()[1] == pytest.approx((s.asnumpy() ** 2).mean())


# --- errors ---------------------------------------------------------------
def test_sequential_errors():
    seq = mx.mod.SequentialModule()
    with pytest.raises(MXNetError, match="empty"):
        seq.bind(DATA, LABEL)
    with pytest.raises(AssertionError, match="Unknown meta \"take_label\""):
        seq.add(mx.mod.Module(stage1(), label_names=None), take_label=True)
    with pytest.raises(MXNetError, match="takes a module"):
        seq.add(stage1())
    with pytest.raises(MXNetError, match="needs a bound"):
        seq.forward(make_batches(1)[0])
    seq = two_stage(True)
    with pytest.raises(MXNetError, match="shared_module"):
        seq.bind(DATA, LABEL, shared_module=two_stage(True))
    with pytest.raises(AssertionError, match="inputs_need_grad"):
        seq.bind(DATA, LABEL, for_training=False, inputs_need_grad=True)
    with pytest.raises(MXNetError, match="grad_req='add'"):
        seq.bind(DATA, LABEL, grad_req="add")
    # A module taking labels the batch does not have (it would train on an unset label).
    with pytest.raises(MXNetError, match=r"takes labels \['softmax_label'\].*\['label'\]"):
        seq.bind(DATA, [("label", (BATCH,))])
    # Without auto_wiring the next module's data must be named as the outputs before it.
    unwired = mx.mod.SequentialModule()
    unwired.add(mx.mod.Module(stage1(), label_names=None))
    unwired.add(mx.mod.Module(stage2("data")), take_labels=True)
    with pytest.raises(ValueError, match="relu1_output"):
        unwired.bind(DATA, LABEL)
    miswired = mx.mod.SequentialModule()
    miswired.add(mx.mod.Module(stage1(), label_names=None))
    miswired.add(mx.mod.Module(mx.sym.Variable("a") + mx.sym.Variable("b"), data_names=["a", "b"],
                               label_names=None), auto_wiring=True)
    with pytest.raises(AssertionError, match="2 data names"):
        miswired.bind(DATA)

    seq.bind(DATA, LABEL)
    with pytest.raises(MXNetError, match="init_params"):
        seq.forward(make_batches(1)[0])
    with pytest.raises(MXNetError, match="init_params"):
        seq.init_optimizer()
    seq.init_params(arg_params=start_params())
    with pytest.raises(MXNetError, match="init_optimizer"):
        seq.update()
    with pytest.raises(MXNetError, match="inputs_need_grad"):
        seq.get_input_grads()
    # One Optimizer instance cannot number two modules' parameters.
    with pytest.raises(MXNetError, match="Optimizer instance"):
        seq.init_optimizer(optimizer=mx.optimizer.SGD(learning_rate=0.1))


def test_duplicated_parameter_names_across_modules():
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(stage1(), label_names=None))
    again = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=HIDDEN, name="fc1")
    seq.add(mx.mod.Module(again, label_names=None), auto_wiring=True)
    seq.bind([("data", (BATCH, HIDDEN))])
    with pytest.raises(AssertionError, match='name "fc1_weight" in layer 1 .* layer 0'):
        seq.init_params()
    assert not seq.params_initialized


def test_add_after_bind_needs_a_new_bind():
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(stage1(), label_names=None))
    ready(seq, label=None, allow_extra=True)  # only fc1's parameters are used yet
    seq.add(mx.mod.Module(stage2("data")), take_labels=True, auto_wiring=True)
    assert not (seq.binded or seq.params_initialized or seq.optimizer_initialized)
    with pytest.raises(MXNetError, match="bind again after add"):
        seq.forward(make_batches(1)[0])
    # Bound again, the first module keeps its binding and parameters (and
    # says so, as MXNet's Module does).
    with pytest.warns(UserWarning, match="already initialized"):
        ready(seq)
    one = ready(mx.mod.Module(whole_net()))
    for batch in make_batches(2):
        for mod in (seq, one):
            mod.forward_backward(batch)
            mod.update()
    assert_params_equal(seq.get_params()[0], one.get_params()[0])


def test_python_module_errors():
    with pytest.raises(AssertionError, match="one data name"):
        mx.mod.PythonLossModule(data_names=["a", "b"])
    with pytest.raises(AssertionError, match="callable"):
        mx.mod.PythonLossModule(grad_func=3)
    loss = mx.mod.PythonLossModule()
    with pytest.raises(AssertionError, match=r"expects data \['data'\]"):
        loss.bind([("scores", (BATCH, CLASSES))], LABEL)
    with pytest.raises(AssertionError, match=r"expects labels \['softmax_label'\]"):
        loss.bind([("data", (BATCH, CLASSES))], [("label", (BATCH,))])
    with pytest.raises(AssertionError, match="grad_req='write'"):
        loss.bind([("data", (BATCH, CLASSES))], LABEL, grad_req="add")
    with pytest.raises(MXNetError, match="shared_module"):
        loss.bind([("data", (BATCH, CLASSES))], LABEL, shared_module=loss)
    loss.bind([("data", (BATCH, CLASSES))], LABEL)
    batch = mx.io.DataBatch([mx.nd.zeros((BATCH, CLASSES))], [mx.nd.zeros((BATCH,))])
    loss.forward(batch, is_train=True)
    # Neither grad_func nor an overridden _backward_impl.
    with pytest.raises(NotImplementedError, match="grad_func"):
        loss.backward()
    with pytest.raises(AssertionError, match="out_grads"):
        loss.backward(out_grads=[mx.nd.zeros((BATCH, CLASSES))])
    with pytest.raises(NotImplementedError, match="install_monitor"):
        loss.install_monitor(mx.mon.Monitor(1))
    with pytest.raises(MXNetError, match="merge_multi_context"):
        loss.get_outputs(merge_multi_context=False)
    bad = mx.mod.PythonLossModule(grad_func=lambda s, l: np.zeros((1, 1)))
    bad.bind([("data", (BATCH, CLASSES))], LABEL)
    bad.forward(batch, is_train=True)
    with pytest.raises(MXNetError, match=r"shape \(1, 1\)"):
        bad.backward()
    # A PythonModule subclass that leaves out what it must provide.
    bare = mx.mod.PythonModule(["data"], None, ["out"])
    with pytest.raises(NotImplementedError, match="_compute_output_shapes"):
        bare.bind(DATA)
    with pytest.raises(NotImplementedError, match="forward"):
        bare.forward(batch)
