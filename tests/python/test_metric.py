"""mx.metric: Accuracy, CrossEntropy, MSE and CompositeEvalMetric against
MXNet 1.9.1's values on the same inputs (golden/train_golden.json, from
tools/golden/make_python_train_golden.py), plus create, reset and errors.
"""
import json
import math
import os

import numpy as np
import pytest

import symx as mx

with open(os.path.join(os.path.dirname(__file__), "golden", "train_golden.json")) as _f:
    GOLDEN = {c["name"]: c for c in json.load(_f)["metric"]}

# Metrics compute on float32 host copies, in numpy, as MXNet's do.
RTOL = 1e-6


def _arrays(update):
    if isinstance(update["labels"][0], list):
        return ([mx.nd.array(x) for x in update["labels"]],
                [mx.nd.array(x) for x in update["preds"]])
    return mx.nd.array(update["labels"]), mx.nd.array(update["preds"])  # bare, not in a list


def _assert_get(got, want):
    got_name, got_value = got
    want_name, want_value = want
    assert got_name == want_name
    np.testing.assert_allclose(got_value, want_value, rtol=RTOL)


def _assert_name_value(got, want):
    assert [n for n, _ in got] == [n for n, _ in want]
    np.testing.assert_allclose([v for _, v in got], [v for _, v in want], rtol=RTOL)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_matches_mxnet(name):
    case = GOLDEN[name]
    metric = mx.metric.create(case["metric"])
    for step, update in enumerate(case["updates"]):
        metric.update(*_arrays(update))
        _assert_get(metric.get(), case["get"][step])
        _assert_name_value(metric.get_name_value(), case["name_value"][step])


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_reset_starts_over(name):
    case = GOLDEN[name]
    metric = mx.metric.create(case["metric"])
    for update in case["updates"]:
        metric.update(*_arrays(update))
    metric.reset()
    for _, value in metric.get_name_value():
        assert math.isnan(value)
    metric.update(*_arrays(case["updates"][0]))
    _assert_get(metric.get(), case["get"][0])


# ------------------------------------------------------------------ by hand

def test_accuracy_by_hand():
    acc = mx.metric.Accuracy()
    preds = mx.nd.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]])
    acc.update([mx.nd.array([0, 1, 1, 1])], [preds])
    assert acc.get() == ("accuracy", 0.75)
    acc.update([mx.nd.array([1, 1])], [mx.nd.array([[0.0, 1.0], [1.0, 0.0]])])
    assert acc.get() == ("accuracy", 4 / 6)
    assert (acc.sum_metric, acc.num_inst) == (4, 6)


def test_accuracy_axis():
    # Classes along axis 0: argmax over each column.
    acc = mx.metric.Accuracy(axis=0)
    acc.update([mx.nd.array([0, 1, 1])], [mx.nd.array([[0.9, 0.1, 0.6], [0.1, 0.9, 0.4]])])
    assert acc.get() == ("accuracy", 2 / 3)


def test_cross_entropy_by_hand():
    ce = mx.metric.CrossEntropy()
    ce.update([mx.nd.array([1, 0])], [mx.nd.array([[0.5, 0.5], [0.25, 0.75]])])
    np.testing.assert_allclose(ce.get()[1], (math.log(2) + math.log(4)) / 2, rtol=1e-6)


def test_mse_averages_batches():
    mse = mx.metric.MSE()
    mse.update([mx.nd.array([0.0])], [mx.nd.array([2.0])])              # 4
    mse.update([mx.nd.array([0.0, 0.0, 0.0])], [mx.nd.array([1, 1, 1])])  # 1
    assert mse.get() == ("mse", 2.5)  # (4 + 1) / 2 batches, not 7 / 4 rows


def test_composite():
    comp = mx.metric.CompositeEvalMetric([mx.metric.Accuracy(), "mse"])
    comp.add(mx.metric.create("ce"))
    assert [type(m) for m in comp.metrics] == [mx.metric.Accuracy, mx.metric.MSE,
                                               mx.metric.CrossEntropy]
    comp.update([mx.nd.array([1, 0])], [mx.nd.array([[0.0, 1.0], [1.0, 0.0]])])
    names, values = comp.get()
    assert names == ["accuracy", "mse", "cross-entropy"]
    assert values[0] == 1.0
    np.testing.assert_allclose(values[1], 0.5)  # labels broadcast over the two columns
    np.testing.assert_allclose(values[2], -math.log(1 + 1e-12), atol=1e-9)


@pytest.mark.parametrize("name,cls,metric_name", [
    ("acc", mx.metric.Accuracy, "accuracy"), ("accuracy", mx.metric.Accuracy, "accuracy"),
    ("ce", mx.metric.CrossEntropy, "cross-entropy"), ("mse", mx.metric.MSE, "mse")])
def test_create_by_name(name, cls, metric_name):
    metric = mx.metric.create(name)
    assert type(metric) is cls and metric.name == metric_name
    assert mx.metric.create(metric) is metric


def test_create_unknown():
    with pytest.raises(ValueError, match="top_k_acc"):
        mx.metric.create("top_k_acc")


def test_mismatched_counts():
    with pytest.raises(ValueError, match="does not match"):
        mx.metric.Accuracy().update([mx.nd.array([0]), mx.nd.array([1])],
                                    [mx.nd.array([[1.0, 0.0]])])
