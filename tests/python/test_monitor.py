"""mx.mon.Monitor and the mx.callback family in Module.fit, with MXNet
1.9.1's semantics (which batches are collected, row format, messages)."""
import logging
import math

import numpy as np
import pytest

import symx as mx


def _net():
    data = mx.sym.Variable("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def test_monitor_collects_every_interval_batches():
    exe = _net().simple_bind(mx.cpu(), data=(4, 5), grad_req="null")
    rng = np.random.RandomState(0)
    for name, arr in exe.arg_dict.items():
        arr[:] = rng.uniform(-1, 1, arr.shape)
    mon = mx.mon.Monitor(2, pattern="fc_output|fc_weight", sort=True)
    mon.install(exe)
    rows = []
    for _ in range(3):
        mon.tic()
        exe.forward(is_train=False)
        rows.append(mon.toc())
    # Batches 1 and 3 are collected (steps count from 1 after tic), 2 is not.
    assert [len(r) for r in rows] == [2, 0, 2]
    assert [(step, name) for step, name, _ in rows[0]] == [(1, "fc_output"), (1, "fc_weight")]
    assert rows[2][0][0] == 3
    out = exe.outputs[0]  # softmax; the fc output is what the row holds
    w = exe.arg_dict["fc_weight"].asnumpy()
    want_w = np.linalg.norm(w) / math.sqrt(w.size)
    assert float(rows[0][1][2].strip()) == pytest.approx(want_w, rel=1e-5)
    fc = exe.arg_dict["data"].asnumpy() @ w.T + exe.arg_dict["fc_bias"].asnumpy()
    assert float(rows[0][0][2].strip()) == pytest.approx(
        np.linalg.norm(fc) / math.sqrt(fc.size), rel=1e-5)
    assert out.shape == (4, 3)


def test_monitor_all_sees_inputs_and_a_custom_statistic():
    exe = _net().simple_bind(mx.cpu(), data=(2, 5), grad_req="null")
    exe.arg_dict["data"][:] = 1
    mon = mx.mon.Monitor(1, stat_func=lambda x: [x.max(), x.min()], pattern="fc_data",
                         monitor_all=True)
    mon.install(exe)
    mon.tic()
    exe.forward()
    (step, name, text), = mon.toc()
    assert name == "fc_data" and text.split("\t")[:2] == ["1.0", "1.0"]
    bad = mx.mon.Monitor(1, stat_func=lambda x: 3.0, pattern="fc_output")
    bad.install(exe)
    bad.tic()
    exe.forward()
    with pytest.raises(TypeError, match="stat_func must return an NDArray"):
        bad.toc()
    with pytest.raises(ValueError, match="interval"):
        mx.mon.Monitor(0)


def _fit(caplog, **kwargs):
    x = np.random.RandomState(1).randn(20, 5).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=5, label_name="softmax_label")
    mod = mx.mod.Module(_net())
    with caplog.at_level(logging.INFO):
        mod.fit(it, num_epoch=1, optimizer_params={"learning_rate": 0.1}, **kwargs)
    return mod, [r.getMessage() for r in caplog.records]


def test_fit_with_a_monitor_logs_each_collected_batch(caplog):
    _, lines = _fit(caplog, monitor=mx.mon.Monitor(2, pattern="fc_weight"))
    rows = [l for l in lines if l.startswith("Batch:")]
    # Four batches, interval 2: batches 1 and 3.
    assert len(rows) == 2 and "fc_weight" in rows[0]


def test_callbacks_log_mxnets_lines(caplog):
    _, lines = _fit(caplog, batch_end_callback=[mx.callback.Speedometer(5, 2),
                                                mx.callback.log_train_metric(2),
                                                mx.callback.ProgressBar(4, length=8)])
    assert any(l.startswith("Epoch[0] Batch [0-2]\tSpeed: ") and "accuracy=" in l for l in lines)
    assert any(l.startswith("Iter[0] Batch[2] Train-accuracy=") for l in lines)
    # nbatch counts from 0, so the last of 4 batches shows 75% (as MXNet).
    assert "[======--] 75%\r" in lines
    # Speedometer resets the local statistic; the epoch line is the global one.
    epoch = [l for l in lines if l.startswith("Epoch[0] Train-accuracy=")]
    assert len(epoch) == 1
    with pytest.raises(ValueError, match="total"):
        mx.callback.ProgressBar(0)
