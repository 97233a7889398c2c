"""mx.optimizer: SGD and Adam against MXNet 1.9.1's numbers, and the Python
front's own rules (per-parameter multipliers, create, errors).

The golden cases (golden/train_golden.json, from
tools/golden/make_python_train_golden.py) are lists of actions played on
MXNet's optimizer through get_updater; replay() plays the same list here.
"""
import json
import os

import numpy as np
import pytest

import symx as mx

with open(os.path.join(os.path.dirname(__file__), "golden", "train_golden.json")) as _f:
    GOLDEN = {c["name"]: c for c in json.load(_f)["optimizer"]}


def _fc_symbol(var_attrs):
    weight = mx.sym.Variable("fc_weight", **var_attrs.get("fc_weight", {}))
    bias = mx.sym.Variable("fc_bias", **var_attrs.get("fc_bias", {}))
    return mx.sym.FullyConnected(mx.sym.Variable("data"), weight=weight, bias=bias,
                                 num_hidden=3, name="fc")


def replay(case):
    """Plays the case's actions; returns (weights after each update, optimizer)."""
    kwargs = dict(case["kwargs"])
    if case.get("idx2name") is not None:
        kwargs["param_idx2name"] = {i: n for i, n in case["idx2name"]}
    if case.get("sym") is not None:
        kwargs["sym"] = _fc_symbol(case["sym"])
    if case.get("lr_scheduler") is not None:
        sched = case["lr_scheduler"]
        kwargs["lr_scheduler"] = getattr(mx.lr_scheduler, sched["class"])(**sched["kwargs"])
    opt = mx.optimizer.create(case["optimizer"], **kwargs)
    updater = mx.optimizer.get_updater(opt)
    dtype = case["dtype"]
    weights = {i: mx.nd.array(w, dtype=dtype) for i, w in case["weights"]}
    after = []
    for action in case["actions"]:
        kind = action[0]
        if kind == "update":
            index, grad = action[1], action[2]
            updater(index, mx.nd.array(grad, dtype=dtype), weights[index])
            after.append(weights[index].asnumpy())
        elif kind == "update_all":
            indices = [i for i, _ in action[1]]
            updater(indices, [mx.nd.array(g, dtype=dtype) for _, g in action[1]],
                    [weights[i] for i in indices])
            after.extend(weights[i].asnumpy() for i in indices)
        elif kind in ("set_lr_mult", "set_wd_mult"):
            getattr(opt, kind)({k: v for k, v in action[1]})
        elif kind == "set_learning_rate":
            opt.set_learning_rate(action[1])
        elif kind == "setattr":
            setattr(opt, action[1], action[2])
        else:
            raise ValueError(kind)
    return after, opt


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_matches_mxnet(name):
    case = GOLDEN[name]
    after, opt = replay(case)
    assert len(after) == len(case["after"])
    # The kernels differ from MXNet's in the order of a few operations, and
    # MXNet's update operators take their hyperparameters as float32 (beta2 =
    # 0.999f, ...), which bounds the agreement for float64 weights as well.
    rtol, atol = 1e-5, 1e-6
    if case["dtype"] == "float16" and not case["kwargs"].get("multi_precision"):
        # MXNet's half type rounds after each operation of the kernel, symx's
        # float16 kernels once at the end: the last bit may differ.
        rtol, atol = 2e-3, 1e-3
    for step, (got, want) in enumerate(zip(after, case["after"])):
        assert got.dtype == np.dtype(case["dtype"])
        np.testing.assert_allclose(got, np.array(want), rtol=rtol, atol=atol,
                                   err_msg="%s: update %d" % (name, step))
    assert opt.num_update == case["num_update"]


# ------------------------------------------------------------------ by hand

def _sgd_step(opt, index, w0, g):
    w = mx.nd.array(w0)
    opt.update(index, w, mx.nd.array(g), opt.create_state(index, w))
    return w.asnumpy()


def test_wd_only_on_weight_and_gamma_names():
    # A zero gradient leaves only decay: w * (1 - lr * wd) where it applies.
    names = {0: "fc_weight", 1: "fc_bias", 2: "bn_gamma", 3: "bn_beta", 4: "emb_moving_mean"}
    opt = mx.optimizer.SGD(learning_rate=0.5, wd=0.2, param_idx2name=names)
    w0 = np.full((3,), 2.0, np.float32)
    for index, name in names.items():
        got = _sgd_step(opt, index, w0, np.zeros(3, np.float32))
        decayed = name.endswith("_weight") or name.endswith("_gamma")
        np.testing.assert_allclose(got, w0 * (0.9 if decayed else 1.0), rtol=1e-6, err_msg=name)


def test_wd_on_every_index_without_names():
    opt = mx.optimizer.SGD(learning_rate=0.5, wd=0.2)
    got = _sgd_step(opt, 7, np.full((2,), 2.0, np.float32), np.zeros(2, np.float32))
    np.testing.assert_allclose(got, [1.8, 1.8], rtol=1e-6)


def test_symbol_multipliers_and_setters():
    sym = _fc_symbol({"fc_weight": {"lr_mult": 2.0}, "fc_bias": {"wd_mult": 3.0}})
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.5, sym=sym,
                           param_idx2name={0: "fc_weight", 1: "fc_bias"})
    assert opt.lr_mult == {"fc_weight": 2.0}
    # The symbol's wd_mult replaces the 0 a *_bias name would get.
    assert opt.wd_mult == {"fc_bias": 3.0}
    w0, g = np.ones(2, np.float32), np.ones(2, np.float32)
    # w - lr * lr_mult * (g + wd * wd_mult * w)
    np.testing.assert_allclose(_sgd_step(opt, 0, w0, g), 1 - 0.2 * 1.5, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(_sgd_step(opt, 1, w0, g), 1 - 0.1 * 2.5, rtol=1e-6, atol=1e-6)
    # Setters start again from the symbol's attributes and the name rule.
    opt.set_lr_mult({"fc_bias": 4.0})
    opt.set_wd_mult({})
    assert opt.lr_mult == {"fc_weight": 2.0, "fc_bias": 4.0}
    assert opt.wd_mult == {"fc_bias": 3.0}
    np.testing.assert_allclose(_sgd_step(opt, 1, w0, g), 1 - 0.4 * 2.5, rtol=1e-6, atol=1e-6)


def test_index_multiplier_wins_over_name():
    # MXNet looks an index up in lr_mult/wd_mult before its name.
    opt = mx.optimizer.SGD(learning_rate=0.1, param_idx2name={0: "fc_weight"})
    opt.set_lr_mult({"fc_weight": 2.0, 0: 5.0})
    got = _sgd_step(opt, 0, np.ones(2, np.float32), np.ones(2, np.float32))
    np.testing.assert_allclose(got, 1 - 0.5, rtol=1e-6)


def test_set_learning_rate():
    opt = mx.optimizer.SGD(learning_rate=0.1)
    w0, g = np.ones(2, np.float32), np.ones(2, np.float32)
    np.testing.assert_allclose(_sgd_step(opt, 0, w0, g), 0.9, rtol=1e-6)
    opt.set_learning_rate(0.25)
    assert opt.learning_rate == 0.25
    np.testing.assert_allclose(_sgd_step(opt, 0, w0, g), 0.75, rtol=1e-6)


def test_updater_keeps_state_per_index():
    # Momentum state per index: index 1's first step must not see index 0's.
    updater = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=1.0, momentum=0.5))
    w0, w1 = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    g = mx.nd.array([1.0, 1.0])
    updater(0, g, w0)
    updater(0, g, w0)  # mom = -1, then 0.5 * -1 - 1 = -1.5: w = -2.5
    updater(1, g, w1)
    np.testing.assert_allclose(w0.asnumpy(), [-2.5, -2.5])
    np.testing.assert_allclose(w1.asnumpy(), [-1.0, -1.0])


def test_adam_float64_by_hand():
    # MXNet's update operators hold their hyperparameters as float32 and
    # compute in the weight's dtype; the bias correction is folded into the
    # rate in double first. The float64 path is held to that formula here.
    def f(x):
        return float(np.float32(x))
    rng = np.random.RandomState(0)
    w = rng.randn(5)
    grads = rng.randn(4, 5)
    opt = mx.optimizer.Adam(learning_rate=0.05, beta1=0.8, beta2=0.99, epsilon=1e-6, wd=0.1,
                            rescale_grad=0.5, clip_gradient=0.4)
    got = mx.nd.array(w, dtype="float64")
    state = opt.create_state(0, got)
    mean, var = np.zeros(5), np.zeros(5)
    for t, g in enumerate(grads, 1):
        opt.update(0, got, mx.nd.array(g, dtype="float64"), state)
        g = np.clip(g * f(0.5) + w * f(0.1), -f(0.4), f(0.4))
        mean = mean * f(0.8) + g * (1 - f(0.8))
        var = var * f(0.99) + g * (1 - f(0.99)) * g
        lr = f(0.05 * np.sqrt(1 - 0.99 ** t) / (1 - 0.8 ** t))
        w = w - mean * lr / (np.sqrt(var) + f(1e-6))
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-12, err_msg="step %d" % t)


# ------------------------------------------------------- create and errors

def test_create_by_name():
    sgd = mx.optimizer.create("SGD", learning_rate=0.3, momentum=0.9, wd=1e-4)
    assert isinstance(sgd, mx.optimizer.SGD)
    assert (sgd.lr, sgd.momentum, sgd.wd) == (0.3, 0.9, 1e-4)
    adam = mx.optimizer.create("adam", beta1=0.8)
    assert isinstance(adam, mx.optimizer.Adam)
    assert (adam.lr, adam.beta1, adam.beta2) == (0.001, 0.8, 0.999)
    assert mx.optimizer.SGD().lr == 0.01


def test_create_unknown_name():
    with pytest.raises(ValueError, match="Cannot find optimizer nosuch.*sgd"):
        mx.optimizer.create("nosuch")


def test_a_scheduled_optimizer_reports_and_keeps_its_schedule():
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    with pytest.warns(UserWarning, match="overwritten"):
        opt = mx.optimizer.SGD(learning_rate=0.8, lr_scheduler=sched)
    assert sched.base_lr == 0.8
    assert opt.learning_rate == 0.8
    updater = mx.optimizer.get_updater(opt)
    w = mx.nd.zeros((1,))
    for _ in range(3):
        updater(0, mx.nd.ones((1,)), w)
    # Rates 0.8, 0.4, 0.2 (num_update 1, 2, 3).
    np.testing.assert_allclose(w.asnumpy(), [-1.4], rtol=1e-6)
    assert opt.learning_rate == pytest.approx(0.2)
    with pytest.raises(UserWarning, match="LRScheduler"):
        opt.set_learning_rate(0.1)


def test_multi_precision_keeps_small_steps():
    # Steps below float16's resolution near 1 (2^-10) are lost on the
    # float16 weight alone; the float32 master copy sums them.
    def run(mp):
        opt = mx.optimizer.SGD(learning_rate=1e-4, multi_precision=mp)
        updater = mx.optimizer.get_updater(opt)
        w = mx.nd.ones((3,), dtype="float16")
        for _ in range(50):
            updater(0, mx.nd.ones((3,), dtype="float16"), w)
        return w, updater.states[0]
    with pytest.warns(UserWarning, match="multi_precision=True"):
        w16, state = run(False)
    assert state is None
    np.testing.assert_array_equal(w16.asnumpy(), np.ones(3, np.float16))
    w_mp, (mom, master) = run(True)
    assert mom is None and master.dtype == np.float32
    np.testing.assert_allclose(master.asnumpy(), 1 - 50e-4, rtol=1e-5)
    assert w_mp.dtype == np.float16
    np.testing.assert_array_equal(w_mp.asnumpy(), master.asnumpy().astype(np.float16))


def test_multi_precision_state_order_is_mxnets():
    # (state, copy) for SGD and NAG, (copy, state) for the others: .states
    # files hold these tuples.
    w = mx.nd.ones((2,), dtype="float16")
    sgd = mx.optimizer.SGD(momentum=0.9, multi_precision=True)
    mom, master = sgd.create_state_multi_precision(0, w)
    assert (mom.dtype, master.dtype) == (np.float32, np.float32)
    adam = mx.optimizer.Adam(multi_precision=True)
    master, (mean, var) = adam.create_state_multi_precision(0, w)
    assert master.dtype == np.float32 and mean.dtype == np.float32
    # float32 weights take no copy.
    assert len(adam.create_state_multi_precision(0, mx.nd.ones((2,)))) == 2


def test_mismatched_gradient_shape():
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    with pytest.raises(mx.MXNetError, match="index 3.*shape"):
        updater(3, mx.nd.zeros((2, 2)), mx.nd.zeros((4,)))


def test_every_optimizer_is_created_by_name():
    names = ["sgd", "adam", "nag", "rmsprop", "adagrad", "adadelta", "adamax", "nadam", "signum",
             "ftrl", "ftml", "dcasgd", "sgld"]
    for name in names:
        opt = mx.optimizer.create(name, learning_rate=0.1)
        w = mx.nd.ones((2, 2))
        updater = mx.optimizer.get_updater(opt)
        updater(0, mx.nd.ones((2, 2)) * 0.5, w)
        assert np.isfinite(w.asnumpy()).all(), name
        assert not np.array_equal(w.asnumpy(), np.ones((2, 2))), name


def test_sgld_noise_follows_mx_random_seed():
    def run():
        mx.random.seed(7)
        opt = mx.optimizer.SGLD(learning_rate=0.01)
        w = mx.nd.zeros((1000,))
        mx.optimizer.get_updater(opt)(0, mx.nd.zeros((1000,)), w)
        return w.asnumpy()
    a, b = run(), run()
    np.testing.assert_array_equal(a, b)
    # N(0, lr): standard deviation sqrt(0.01) = 0.1.
    assert abs(a.std() - 0.1) < 0.01 and abs(a.mean()) < 0.01


def test_dcasgd_with_momentum_runs():
    # MXNet 1.9.1 raises here (it tests an NDArray's truth value); symx
    # applies the documented rule.
    opt = mx.optimizer.DCASGD(learning_rate=0.1, momentum=0.9)
    w = mx.nd.array([1.0, 2.0])
    up = mx.optimizer.get_updater(opt)
    up(0, mx.nd.array([0.5, -0.5]), w)
    np.testing.assert_allclose(w.asnumpy(), [0.95, 2.05], rtol=1e-6)
    up(0, mx.nd.array([0.5, -0.5]), w)
    # mom = 0.9 * (-0.05) - 0.1 * (0.5 + 0.04 * 0.25 * (0.95 - 1.0)) = -0.09495
    np.testing.assert_allclose(w.asnumpy()[0], 0.95 - 0.09495, rtol=1e-5)
