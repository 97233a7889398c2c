"""Optimizer states saved and loaded in MXNet's .states format
(python/symx/_states_pickle.py, Updater.get_states/set_states, Module's
save_optimizer_states/load_optimizer_states and checkpoints with states).

The golden cases (golden/train_golden.json "states", from
tools/golden/make_python_train_golden.py) hold the bytes MXNet 1.9.1 wrote
and the weights MXNet computed resuming from them; symx resumes from the
same bytes here. That MXNet resumes from symx's bytes is checked by
tools/golden/check_states_interop.py, which needs MXNet.
"""
import base64
import json
import os
import pickle

import numpy as np
import pytest

import symx as mx
from symx import _states_pickle

with open(os.path.join(os.path.dirname(__file__), "golden", "train_golden.json")) as _f:
    GOLDEN = {c["name"]: c for c in json.load(_f)["states"]}


@pytest.mark.parametrize("with_optimizer", [False, True])
@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_resumes_from_mxnets_states(name, with_optimizer):
    case = GOLDEN[name]
    key = "resumed_with_optimizer" if with_optimizer else "resumed"
    blob = base64.b64decode(case["states_with_optimizer" if with_optimizer else "states"])
    updater = mx.optimizer.get_updater(mx.optimizer.create(case["optimizer"], **case["kwargs"]))
    updater.set_states(blob)
    if with_optimizer:
        # The pickled optimizer is MXNet's, mapped to symx's class of the same name.
        assert type(updater.optimizer).__name__.lower() == case["optimizer"]
    dtype = case["dtype"]
    w = mx.nd.array(case["weight"], dtype=dtype)
    for step, (g, want) in enumerate(zip(case["grads"], case[key])):
        updater(0, mx.nd.array(g, dtype=dtype), w)
        np.testing.assert_allclose(w.asnumpy().astype(np.float32), np.array(want, np.float32),
                                   rtol=1e-5, atol=1e-6, err_msg="%s step %d" % (name, step))
    assert w.dtype == np.dtype(dtype)
    assert updater.optimizer.num_update == case[key + "_num_update"]


def _train(updater, weights, grads, start=0):
    for i, g in enumerate(grads, start):
        updater(i % 2, mx.nd.array(g, dtype=weights[0].dtype), weights[i % 2])


@pytest.mark.parametrize("name,kwargs,dtype", [
    ("sgd", {"momentum": 0.9, "wd": 0.01}, "float32"),
    ("adam", {"multi_precision": True}, "float16"),
    ("nadam", {}, "float64"),
    ("ftml", {}, "float32"),
    ("dcasgd", {"momentum": 0.5}, "float32"),
    ("lbsgd", {"momentum": 0.9, "batch_scale": 2}, "float32"),
    ("lbsgd", {"momentum": 0.9, "batch_scale": 2, "multi_precision": True}, "float16"),
])
def test_round_trip_resumes_bit_for_bit(name, kwargs, dtype):
    rng = np.random.RandomState(4)
    w0 = [rng.rand(3, 2).astype(np.float32) for _ in range(2)]
    grads = [rng.rand(3, 2).astype(np.float32) for _ in range(8)]

    whole = mx.optimizer.get_updater(mx.optimizer.create(name, **kwargs))
    ref = [mx.nd.array(w, dtype=dtype) for w in w0]
    _train(whole, ref, grads)

    first = mx.optimizer.get_updater(mx.optimizer.create(name, **kwargs))
    got = [mx.nd.array(w, dtype=dtype) for w in w0]
    # Saved after 3 updates: LBSGD's second weight is halfway through
    # summing its gradients (an NDArray inside the pickled optimizer).
    _train(first, got, grads[:3])
    blob = first.get_states(dump_optimizer=True)
    second = mx.optimizer.get_updater(mx.optimizer.create("sgd"))
    second.set_states(blob)  # the optimizer comes from the blob
    assert type(second.optimizer).__name__.lower() == name
    _train(second, got, grads[3:], start=3)
    for a, b in zip(ref, got):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "uint8", "int32", "int8",
                                   "int64", "bfloat16"])
def test_raw_ndarray_bytes_round_trip(dtype):
    values = np.arange(-3, 9, dtype=np.float32).reshape(3, 4)
    if dtype in ("uint8",):
        values = np.abs(values)
    arr = mx.nd.array(values, dtype=dtype)
    raw = _states_pickle.ndarray_to_raw(arr)
    back = _states_pickle.ndarray_from_raw(raw)
    assert back.dtype == arr.dtype and back.shape == (3, 4)
    np.testing.assert_array_equal(back.astype("float32").asnumpy(),
                                  arr.astype("float32").asnumpy())


def test_raw_layout_is_ndarray_save():
    raw = _states_pickle.ndarray_to_raw(mx.nd.array([[1.5, 2.0]]))
    # magic, dense, ndim 2, dims 1 and 2, cpu(0), float32, the values.
    want = (np.array([0xF993FAC9, 0, 2], "<u4").tobytes() + np.array([1, 2], "<i8").tobytes()
            + np.array([1, 0, 0], "<i4").tobytes() + np.array([1.5, 2.0], "<f4").tobytes())
    assert raw == want
    # A 0-d array is written in the numpy-shape layout (legacy ndim 0 means none).
    scalar = _states_pickle.ndarray_to_raw(mx.nd.array(3.0))
    assert scalar[:4] == np.array([0xF993FACA], "<u4").tobytes()
    assert _states_pickle.ndarray_from_raw(scalar).asnumpy() == 3.0


def test_states_pickle_names_mxnets_class():
    blob = _states_pickle.dumps({0: mx.nd.ones((2,))})
    assert b"mxnet.ndarray.ndarray\nNDArray\n" in blob
    # Plain pickle (no symx mapping) would need MXNet: the class is MXNet's.
    with pytest.raises((ImportError, ModuleNotFoundError, AttributeError)):
        pickle.loads(blob)


def test_pickled_optimizers_are_named_as_mxnets_classes():
    # MXNet 1.9.1 then loads them as its own and steps on (checked by hand:
    # tools/golden/check_states_interop.py, bit for bit for SGD, NAG, Adam,
    # RMSProp, FTML, Signum, Nadam, LARS and the schedules); symx loads them back.
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1)
    for opt, module in [(mx.optimizer.SGD(momentum=0.9, lr_scheduler=sched),
                         b"mxnet.optimizer.optimizer\nSGD\n"),
                        (mx.optimizer.Nadam(), b"mxnet.optimizer.optimizer\nNadam\n"),
                        (mx.optimizer.contrib.GroupAdaGrad(),
                         b"mxnet.optimizer.contrib\nGroupAdaGrad\n")]:
        updater = mx.optimizer.get_updater(opt)
        updater(0, mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))
        blob = updater.get_states(dump_optimizer=True)
        assert module in blob
        again = mx.optimizer.get_updater(mx.optimizer.SGD())
        again.set_states(blob)
        assert type(again.optimizer) is type(opt)
    assert b"mxnet.lr_scheduler\nFactorScheduler\n" in \
        mx.optimizer.get_updater(mx.optimizer.SGD(lr_scheduler=sched)).get_states(True)
    # AdamW is not MXNet 1.9.1's: it keeps symx's name.
    assert b"symx._adamw_optimizer" in mx.optimizer.get_updater(
        mx.optimizer.AdamW()).get_states(dump_optimizer=True)


@pytest.mark.parametrize("raw,match", [
    (b"\x00\x01", "truncated"),
    (np.array([0x12345678, 0, 1], "<u4").tobytes(), "bad magic"),
    (np.array([0xF993FAC9, 1, 1], "<u4").tobytes(), "storage type 1"),
    (np.array([0xF993FAC9, 0, 1], "<u4").tobytes() + np.array([4], "<i8").tobytes()
     + np.array([1, 0, 0], "<i4").tobytes() + b"\x00" * 8, "holds 8 bytes.*needs 16"),
    (np.array([0xF993FAC9, 0, 1], "<u4").tobytes() + np.array([1], "<i8").tobytes()
     + np.array([1, 0, 99], "<i4").tobytes(), "unknown dtype code 99"),
])
def test_bad_array_bytes_are_named(raw, match):
    with pytest.raises(mx.MXNetError, match=match):
        _states_pickle.ndarray_from_raw(raw)


def test_bad_state_files_are_named():
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    with pytest.raises(mx.MXNetError, match="cannot read optimizer states"):
        updater.set_states(b"not a pickle")
    with pytest.raises(mx.MXNetError, match="mxnet.gluon.Trainer"):
        updater.set_states(b"cmxnet.gluon\nTrainer\n.")
    with pytest.raises(mx.MXNetError, match="expected a dict"):
        updater.set_states(pickle.dumps([1, 2]))


# ------------------------------------------------------------------ Module

def _net():
    data = mx.sym.Variable("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
    act = mx.sym.Activation(fc1, act_type="relu")
    fc2 = mx.sym.FullyConnected(act, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def _batches(n=6):
    rng = np.random.RandomState(2)
    return [mx.io.DataBatch([mx.nd.array(rng.rand(4, 5))],
                            [mx.nd.array(rng.randint(0, 3, 4))]) for _ in range(n)]


def _module(sym, arg_params=None):
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind([("data", (4, 5))], [("softmax_label", (4,))])
    if arg_params is None:
        mx.random.seed(1)
        mod.init_params(mx.init.Xavier())
    else:
        mod.set_params(arg_params, {})
    return mod


def _steps(mod, batches):
    for b in batches:
        mod.forward(b, is_train=True)
        mod.backward()
        mod.update()


def test_module_checkpoint_with_states_resumes_exactly(tmp_path):
    batches = _batches()
    opt_params = {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3}
    whole = _module(_net())
    whole.init_optimizer(optimizer="sgd", optimizer_params=opt_params)
    _steps(whole, batches)

    first = _module(_net())
    first.init_optimizer(optimizer="sgd", optimizer_params=opt_params)
    _steps(first, batches[:3])
    prefix = str(tmp_path / "net")
    first.save_checkpoint(prefix, 3, save_optimizer_states=True)
    assert sorted(os.listdir(tmp_path)) == ["net-0003.params", "net-0003.states",
                                            "net-symbol.json"]

    second = mx.mod.Module.load(prefix, 3, load_optimizer_states=True)
    second.bind([("data", (4, 5))], [("softmax_label", (4,))])
    second.init_optimizer(optimizer="sgd", optimizer_params=opt_params)
    _steps(second, batches[3:])
    want, _ = whole.get_params()
    got, _ = second.get_params()
    for name in want:
        np.testing.assert_array_equal(got[name].asnumpy(), want[name].asnumpy(), err_msg=name)


def test_module_states_errors(tmp_path):
    mod = _module(_net())
    with pytest.raises(RuntimeError, match="init_optimizer"):
        mod.save_optimizer_states(str(tmp_path / "x.states"))
    mod.init_optimizer(optimizer="adam")
    with pytest.raises(mx.MXNetError, match="cannot read optimizer states .*nosuch"):
        mod.load_optimizer_states(str(tmp_path / "nosuch.states"))
    # States of another net: named by parameter.
    other = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3,
                                                       name="fc1"), name="softmax")
    small = _module(other)
    small.init_optimizer(optimizer="adam")
    _steps(small, _batches(1))
    small.save_optimizer_states(str(tmp_path / "small.states"))
    with pytest.raises(mx.MXNetError, match="small.states: the state of fc1_weight"):
        mod.load_optimizer_states(str(tmp_path / "small.states"))
    # A truncated file is an error naming it, and no half-written file is left.
    data = open(tmp_path / "small.states", "rb").read()
    (tmp_path / "cut.states").write_bytes(data[:len(data) // 2])
    with pytest.raises(mx.MXNetError, match="cut.states: cannot read optimizer states"):
        small.load_optimizer_states(str(tmp_path / "cut.states"))
    assert not [f for f in os.listdir(tmp_path) if ".tmp" in f]


def test_lbsgd_multi_precision_keeps_mxnets_state_order():
    # MXNet's LBSGD uses the base class's (float32 copy, momentum).
    opt = mx.optimizer.LBSGD(momentum=0.9, multi_precision=True)
    master, mom = opt.create_state_multi_precision(0, mx.nd.ones((2,), dtype="float16"))
    assert master.dtype == np.float32 and mom.dtype == np.float32


def test_module_loads_states_keyed_by_name_and_keeps_its_own_on_error(tmp_path):
    # MXNet's Module over several contexts updates on its kvstore, whose
    # states are keyed by parameter name.
    mod = _module(_net())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"momentum": 0.9})
    _steps(mod, _batches(2))
    by_index = mod._updater.states
    names = dict(enumerate(mod._param_names))
    by_name = {names[i]: s for i, s in by_index.items()}
    (tmp_path / "named.states").write_bytes(_states_pickle.dumps(by_name))
    other = _module(_net())
    other.init_optimizer(optimizer="sgd", optimizer_params={"momentum": 0.9})
    other.load_optimizer_states(str(tmp_path / "named.states"))
    assert sorted(other._updater.states) == sorted(by_index)
    for i in by_index:
        np.testing.assert_array_equal(other._updater.states[i].asnumpy(),
                                      by_index[i].asnumpy())
    # A file that fails its check leaves the module's states as they were.
    kept = dict(other._updater.states)
    bad = dict(by_name, fc1_weight=mx.nd.zeros((1,)))
    (tmp_path / "bad.states").write_bytes(_states_pickle.dumps(bad))
    with pytest.raises(mx.MXNetError, match="bad.states: the state of fc1_weight"):
        other.load_optimizer_states(str(tmp_path / "bad.states"))
    assert other._updater.states.keys() == kept.keys()
    assert all(other._updater.states[k] is kept[k] for k in kept)
    (tmp_path / "alien.states").write_bytes(_states_pickle.dumps({"nosuch_weight": None}))
    with pytest.raises(mx.MXNetError, match="'nosuch_weight', which this module does not have"):
        other.load_optimizer_states(str(tmp_path / "alien.states"))


def test_module_follows_the_loaded_optimizers_aggregation(tmp_path):
    # A file with a pickled optimizer brings its own grouping of updates:
    # an SGD module (aggregated) loading an LBSGD (one weight at a time)
    # must update as LBSGD, not hand it lists.
    mod = _module(_net())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"momentum": 0.9})
    assert mod._updater.aggregate_updates
    lbsgd = mx.optimizer.get_updater(mx.optimizer.LBSGD(momentum=0.9))
    lbsgd.states = {i: mx.nd.zeros(mod._exec_group.execs[0].arg_dict[n].shape)
                    for i, n in enumerate(mod._param_names)}
    (tmp_path / "lbsgd.states").write_bytes(lbsgd.get_states(dump_optimizer=True))
    mod.load_optimizer_states(str(tmp_path / "lbsgd.states"))
    assert isinstance(mod._optimizer, mx.optimizer.LBSGD)
    assert not mod._updater.aggregate_updates
    _steps(mod, _batches(2))
