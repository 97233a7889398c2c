"""mx.lr_scheduler against MXNet 1.9.1's rates (golden/train_golden.json,
from tools/golden/make_python_train_golden.py): every scheduler, warmup mode,
a base_lr set afterwards (as an optimizer given learning_rate does) and
counts that rise, repeat and fall (the schedulers keep state)."""
import json
import os

import pytest

import symx as mx

with open(os.path.join(os.path.dirname(__file__), "golden", "train_golden.json")) as _f:
    CASES = json.load(_f)["lr_scheduler"]


@pytest.mark.parametrize("case", CASES, ids=["%s-%d" % (c["class"], i)
                                              for i, c in enumerate(CASES)])
def test_rates_match_mxnet(case):
    sched = getattr(mx.lr_scheduler, case["class"])(**case["kwargs"])
    if case["set_base_lr"] is not None:
        sched.base_lr = case["set_base_lr"]
    got = [sched(n) for n in case["queries"]]
    assert got == pytest.approx(case["values"], rel=1e-12, abs=0)


def test_every_scheduler_is_covered():
    assert {c["class"] for c in CASES} == {"FactorScheduler", "MultiFactorScheduler",
                                          "PolyScheduler", "CosineScheduler"}


@pytest.mark.parametrize("make, match", [
    (lambda: mx.lr_scheduler.FactorScheduler(step=0), "greater or equal than 1"),
    (lambda: mx.lr_scheduler.FactorScheduler(step=2, factor=1.5), "no more than 1"),
    (lambda: mx.lr_scheduler.MultiFactorScheduler(step=[3, 2]), "increasing"),
    (lambda: mx.lr_scheduler.MultiFactorScheduler(step=[]), "non-empty list"),
    (lambda: mx.lr_scheduler.PolyScheduler(max_update=0), "strictly positive"),
    (lambda: mx.lr_scheduler.CosineScheduler(max_update=4, warmup_steps=4), "equals"),
    (lambda: mx.lr_scheduler.FactorScheduler(step=2, warmup_mode="cubic"), "linear and constant"),
    (lambda: mx.lr_scheduler.FactorScheduler(step=2, base_lr=0.1, warmup_begin_lr=0.5),
     "higher than warmup_begin_lr"),
    (lambda: mx.lr_scheduler.FactorScheduler(step=2, warmup_steps=-1), "positive or 0"),
])
def test_bad_arguments_are_refused(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_module_fit_takes_a_schedule():
    # fit's optimizer_params may carry a scheduler; the rate follows it.
    data = mx.sym.Variable("data")
    net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(data, num_hidden=1, name="fc"),
                                        name="out")
    x = mx.nd.ones((4, 2))
    y = mx.nd.ones((4,))
    it = mx.io.NDArrayIter(x, y, batch_size=4, label_name="out_label")
    mod = mx.mod.Module(net, label_names=["out_label"])
    sched = mx.lr_scheduler.MultiFactorScheduler(step=[1, 2], factor=0.1, base_lr=0.1)
    mod.fit(it, num_epoch=3, optimizer="sgd",
            optimizer_params={"lr_scheduler": sched}, initializer=mx.init.Zero())
    assert mod._optimizer.num_update == 3
    assert mod._optimizer.learning_rate == pytest.approx(0.001)


def test_a_decay_shorter_than_the_warmup_stays_at_the_base_rate():
    # max_update < warmup_steps: MXNet warms up, then keeps the base rate
    # (values from mxnet==1.9.1).
    poly = mx.lr_scheduler.PolyScheduler(max_update=3, base_lr=1.0, warmup_steps=5)
    assert [poly(n) for n in (0, 4, 5, 9)] == pytest.approx([0.0, 0.8, 1.0, 1.0])
    cos = mx.lr_scheduler.CosineScheduler(max_update=3, base_lr=1.0, warmup_steps=5,
                                          warmup_begin_lr=0.5)
    assert [cos(n) for n in (0, 4, 5, 9)] == pytest.approx([0.5, 0.9, 1.0, 1.0])
