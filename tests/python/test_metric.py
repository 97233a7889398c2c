"""mx.metric against MXNet 1.9.1: every case of golden/train_golden.json (made
by tools/golden/make_python_train_golden.py) is replayed on symx's metric,
comparing get(), get_name_value(), get_global(), get_global_name_value()
after each step and get_config(); then create() of every registered name and
alias, errors, get_config round trips, custom metrics and Module-style use.
"""
import json
import math
import os
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import symx as mx

with open(os.path.join(os.path.dirname(__file__), "golden", "train_golden.json")) as _f:
    GOLDEN = {c["name"]: c for c in json.load(_f)["metric"]}

# Metrics compute on float32 host copies, in numpy, as MXNet's do; MXNet's
# float32 sums (Loss, Perplexity) may add in another order.
RTOL = 1e-6


# The custom metric functions the golden cases name (the generator has the same).
def mean_abs(label, pred):
    return np.abs(label.reshape(pred.shape) - pred).mean()


def correct_and_count(label, pred):
    return float((pred.argmax(axis=1) == label.ravel()).sum()), label.size


def first_column_mean(label, pred):
    return float(pred[:, 0].mean())


FEVALS = {f.__name__: f for f in (mean_abs, correct_and_count, first_column_mean)}


def make_metric(case):
    kwargs = case.get("kwargs", {})
    kind = case.get("custom")
    if kind is None:
        return mx.metric.create(case["metric"], **kwargs)
    feval = FEVALS[case["metric"]]
    if kind == "create":
        return mx.metric.create(feval, **kwargs)
    if kind == "np":
        return mx.metric.np(feval, **kwargs)
    return mx.metric.CustomMetric(feval, **kwargs)


def play(metric, update, to_array=mx.nd.array):
    """One golden step on ``metric``; to_array makes the inputs (NDArray or numpy)."""
    if update.get("reset_local"):
        metric.reset_local()
    elif update.get("bare"):
        labels = None if update["labels"] is None else to_array(update["labels"])
        metric.update(labels, to_array(update["preds"]))
    else:
        metric.update([to_array(x) for x in update["labels"]],
                      [to_array(x) for x in update["preds"]])


def _numpy32(x):
    return np.array(x, dtype=np.float32)


def _assert_result(got, want):
    got_name, got_value = got
    want_name, want_value = want
    assert got_name == want_name
    np.testing.assert_allclose(np.array(got_value, dtype=float),
                               np.array(want_value, dtype=float), rtol=RTOL)


def _assert_pairs(got, want):
    assert [n for n, _ in got] == [n for n, _ in want]
    np.testing.assert_allclose(np.array([v for _, v in got], dtype=float),
                               np.array([v for _, v in want], dtype=float), rtol=RTOL)


def _replay(case, to_array):
    metric = make_metric(case)
    for step, update in enumerate(case["updates"]):
        play(metric, update, to_array)
        where = "%s step %d" % (case["name"], step)
        try:
            _assert_result(metric.get(), case["get"][step])
            _assert_pairs(metric.get_name_value(), case["name_value"][step])
            _assert_result(metric.get_global(), case["global"][step])
            _assert_pairs(metric.get_global_name_value(), case["global_name_value"][step])
        except AssertionError as err:
            raise AssertionError("%s: %s" % (where, err))
    return metric


def test_golden_covers_the_family():
    classes = set()
    for case in GOLDEN.values():
        config = case["config"]
        if config is None:
            classes.add("CustomMetric")
            continue
        classes.add(config["metric"])
        classes.update(c["metric"] for c in config.get("metrics", []))
    assert classes >= {"Accuracy", "TopKAccuracy", "F1", "MCC", "Perplexity", "MAE", "MSE",
                       "RMSE", "CrossEntropy", "NegativeLogLikelihood", "PearsonCorrelation",
                       "PCC", "Loss", "Torch", "Caffe", "CustomMetric", "CompositeEvalMetric"}
    assert any(u.get("reset_local") for c in GOLDEN.values() for u in c["updates"])


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_matches_mxnet(name):
    case = GOLDEN[name]
    metric = _replay(case, mx.nd.array)
    if case["config"] is None:
        with pytest.raises(NotImplementedError):
            metric.get_config()
    else:
        assert metric.get_config() == case["config"]


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_matches_mxnet_numpy_inputs(name):
    # numpy arrays (float32, as NDArrays are) give the same numbers.
    _replay(GOLDEN[name], _numpy32)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_reset_starts_over(name):
    case = GOLDEN[name]
    metric = make_metric(case)
    for update in case["updates"]:
        play(metric, update)
    metric.reset()
    for _, value in metric.get_name_value() + metric.get_global_name_value():
        assert math.isnan(value)
    # The first step again gives the first results (global ones included).
    play(metric, case["updates"][0])
    _assert_result(metric.get(), case["get"][0])
    _assert_result(metric.get_global(), case["global"][0])


def _unsuffixed(config):
    """A recreated config with its TopKAccuracy names' extra '_<top_k>' taken off."""
    config = dict(config)
    if config["metric"] == "TopKAccuracy":
        suffix = "_%d" % config["top_k"]
        assert config["name"].endswith(suffix + suffix)
        config["name"] = config["name"][:-len(suffix)]
    if "metrics" in config:
        config["metrics"] = [_unsuffixed(c) for c in config["metrics"]]
    return config


@pytest.mark.parametrize("name", sorted(n for n in GOLDEN if GOLDEN[n]["config"] is not None))
def test_config_recreates(name):
    # create(**get_config()) builds the metric again (MXNet's round trip). As
    # in MXNet, a config lacks 'average' (F1, MCC, PearsonCorrelation) and
    # Perplexity's 'axis', and a TopKAccuracy's name gains its suffix again.
    case = GOLDEN[name]
    config = make_metric(case).get_config()
    again = mx.metric.create(**config)
    assert type(again).__name__ == config["metric"]
    assert _unsuffixed(again.get_config()) == config
    assert mx.metric.create(json.dumps(config)).get_config() == again.get_config()
    kept = set(config) | {"has_global_stats", "metrics"}
    if not set(case.get("kwargs", {})) <= kept:
        return  # built with an argument the config does not keep
    for update in case["updates"]:
        play(again, update)
    np.testing.assert_allclose(np.array(again.get()[1], dtype=float),
                               np.array(case["get"][-1][1], dtype=float), rtol=RTOL)


def test_config_drops_average_and_axis():
    for metric in (mx.metric.F1(average="micro"), mx.metric.MCC(average="micro"),
                   mx.metric.PearsonCorrelation(average="micro")):
        assert "average" not in metric.get_config()
        assert mx.metric.create(**metric.get_config()).average == "macro"
    ppl = mx.metric.Perplexity(ignore_label=0, axis=0)
    assert mx.metric.create(**ppl.get_config()).axis == -1


# ------------------------------------------------------------- create / names

# MXNet 1.9.1's registry: every lower-cased class name and alias.
REGISTERED = {
    "accuracy": "Accuracy", "acc": "Accuracy",
    "topkaccuracy": "TopKAccuracy", "top_k_accuracy": "TopKAccuracy",
    "top_k_acc": "TopKAccuracy",
    "f1": "F1", "mcc": "MCC", "perplexity": "Perplexity",
    "mae": "MAE", "mse": "MSE", "rmse": "RMSE",
    "crossentropy": "CrossEntropy", "ce": "CrossEntropy",
    "negativeloglikelihood": "NegativeLogLikelihood", "nll_loss": "NegativeLogLikelihood",
    "pearsoncorrelation": "PearsonCorrelation", "pearsonr": "PearsonCorrelation",
    "pcc": "PCC", "loss": "Loss", "torch": "Torch", "caffe": "Caffe",
    "compositeevalmetric": "CompositeEvalMetric", "composite": "CompositeEvalMetric",
    "custommetric": "CustomMetric",
}
NEEDS = {"TopKAccuracy": {"top_k": 3}, "Perplexity": {"ignore_label": None},
         "CustomMetric": {"feval": mean_abs}}
DEFAULT_NAMES = {"Accuracy": "accuracy", "TopKAccuracy": "top_k_accuracy_3", "F1": "f1",
                 "MCC": "mcc", "Perplexity": "perplexity", "MAE": "mae", "MSE": "mse",
                 "RMSE": "rmse", "CrossEntropy": "cross-entropy",
                 "NegativeLogLikelihood": "nll-loss", "PearsonCorrelation": "pearsonr",
                 "PCC": "pcc", "Loss": "loss", "Torch": "torch", "Caffe": "caffe",
                 "CompositeEvalMetric": "composite", "CustomMetric": "mean_abs"}


@pytest.mark.parametrize("name", sorted(REGISTERED))
def test_create_every_name(name):
    cls = REGISTERED[name]
    for spelling in (name, name.upper()):
        metric = mx.metric.create(spelling, **NEEDS.get(cls, {}))
        assert type(metric) is getattr(mx.metric, cls)
        assert metric.name == DEFAULT_NAMES[cls]
        assert mx.metric.create(metric) is metric


def test_registry_is_mxnets():
    assert set(mx.metric._base._REGISTRY) == set(REGISTERED)


def test_create_unknown_name():
    # 'cross-entropy' is CrossEntropy's display name, not a registered one.
    for name in ("cross-entropy", "top_k", "accurcy"):
        with pytest.raises(ValueError, match="Metric must be either callable or in"):
            mx.metric.create(name)


def test_create_bad_arguments():
    with pytest.raises(TypeError, match="metric must be a name"):
        mx.metric.create(3)
    with pytest.raises(TypeError, match="metric must be a name"):
        mx.metric.create(None)
    with pytest.raises(TypeError, match="not the class Accuracy"):
        mx.metric.create(mx.metric.Accuracy)
    acc = mx.metric.Accuracy()
    with pytest.raises(ValueError, match="already a metric instance"):
        mx.metric.create(acc, axis=0)
    with pytest.raises(ValueError, match="'metric' key"):
        mx.metric.create({"name": "x"})
    with pytest.raises(ValueError, match="bad JSON"):
        mx.metric.create("[acc")
    with pytest.raises(ValueError, match="name, {kwargs}"):
        mx.metric.create('["acc"]')
    with pytest.raises(TypeError):
        mx.metric.create("acc", nonsense=1)  # the constructor's own TypeError


def test_create_forms():
    acc0 = mx.metric.create("acc", 0)  # positional constructor arguments
    assert acc0.axis == 0
    assert mx.metric.create('["top_k_acc", {"top_k": 4}]').top_k == 4
    nll = mx.metric.create('{"metric": "nll_loss", "eps": 0.5}')
    assert type(nll) is mx.metric.NegativeLogLikelihood and nll.eps == 0.5
    assert mx.metric.create({"metric": "rmse", "name": "r"}).name == "r"
    comp = mx.metric.create(["acc", mx.metric.F1(), mean_abs, {"metric": "pcc"}])
    assert [type(m).__name__ for m in comp.metrics] == ["Accuracy", "F1", "CustomMetric", "PCC"]
    comp = mx.metric.create(("mae", "mse"))
    assert [m.name for m in comp.metrics] == ["mae", "mse"]
    custom = mx.metric.create(lambda label, pred: 1.0)
    assert isinstance(custom, mx.metric.CustomMetric) and custom.name == "custom(<lambda>)"
    named = mx.metric.create(mean_abs, "my_name")
    assert named.name == "my_name"


def test_register_and_alias():
    @mx.metric.register
    @mx.metric.alias("symx_test_alias_a", "Symx_Test_Alias_B")
    class SymxTestCount(mx.metric.EvalMetric):
        def __init__(self, name="counted", **kwargs):
            super().__init__(name, **kwargs)

        def update(self, labels, preds):
            self.sum_metric += len(preds)
            self.num_inst += 1

    try:
        for name in ("symxtestcount", "SYMX_TEST_ALIAS_A", "symx_test_alias_b"):
            metric = mx.metric.create(name)
            assert type(metric) is SymxTestCount
        metric.update([1], [1, 2])  # its own update, no length check
        assert metric.get() == ("counted", 2.0)
        # No global statistics asked for: get_global is get.
        assert metric.get_global() == metric.get()
        assert metric.get_global_name_value() == [("counted", 2.0)]
        with pytest.warns(UserWarning, match="replaces"):
            mx.metric.register(mx.metric.MAE, "symx_test_alias_a")
        assert type(mx.metric.create("symx_test_alias_a")) is mx.metric.MAE
        with pytest.raises(TypeError, match="subclass of EvalMetric"):
            mx.metric.register(dict)
    finally:
        for key in ("symxtestcount", "symx_test_alias_a", "symx_test_alias_b"):
            mx.metric._base._REGISTRY.pop(key, None)


# --------------------------------------------------------------- base class

def test_base_class_statistics():
    class Count(mx.metric.EvalMetric):
        def update(self, labels, preds):
            self._add(float(len(preds)), 2)

    plain = Count("n", ["out"], ["lab"], extra=5)
    assert plain.get_config() == {"extra": 5, "metric": "Count", "name": "n",
                                  "output_names": ["out"], "label_names": ["lab"]}
    plain.update([0], [0, 0, 0])
    assert (plain.sum_metric, plain.num_inst) == (3.0, 2)
    assert (plain.global_sum_metric, plain.global_num_inst) == (3.0, 2)
    plain.reset_local()
    assert math.isnan(plain.get()[1])
    assert math.isnan(plain.get_global()[1])  # no global stats: get_global() is get()
    tracked = Count("n", has_global_stats=True)
    assert "has_global_stats" not in tracked.get_config()
    tracked.update([], [0])
    tracked.reset_local()
    tracked.update([], [0, 0, 0])
    assert tracked.get() == ("n", 1.5) and tracked.get_global() == ("n", 1.0)
    assert tracked.get_global_name_value() == [("n", 1.0)]
    assert str(tracked) == "EvalMetric: {'n': 1.5}"
    tracked.reset()
    assert (tracked.num_inst, tracked.global_num_inst) == (0, 0)
    with pytest.raises(NotImplementedError):
        mx.metric.EvalMetric("abstract").update([], [])


def test_update_dict():
    acc = mx.metric.Accuracy(output_names=["b_out"], label_names=["b_label"])
    labels = OrderedDict([("a_label", mx.nd.array([0, 0])), ("b_label", mx.nd.array([1, 0]))])
    preds = OrderedDict([("a_out", mx.nd.array([[1, 0], [1, 0]])),
                         ("b_out", mx.nd.array([[0, 1], [0, 1]]))])
    acc.update_dict(labels, preds)
    assert acc.get() == ("accuracy", 0.5)
    every = mx.metric.Accuracy()  # no names: every entry, in order
    every.update_dict(labels, preds)
    assert every.get() == ("accuracy", 0.75)
    with pytest.raises(KeyError, match="c_out"):
        mx.metric.Accuracy(output_names=["c_out"]).update_dict(labels, preds)
    # A composite filters by its own names, then each child by its own.
    comp = mx.metric.CompositeEvalMetric(["acc", mx.metric.Accuracy(name="a_only",
                                                                    output_names=["a_out"],
                                                                    label_names=["a_label"])],
                                         output_names=["a_out"], label_names=["a_label"])
    comp.update_dict(labels, preds)
    assert comp.get() == (["accuracy", "a_only"], [1.0, 1.0])


def test_composite():
    comp = mx.metric.CompositeEvalMetric([mx.metric.Accuracy(), "mse"])
    comp.add(mx.metric.create("ce"))
    assert [type(m) for m in comp.metrics] == [mx.metric.Accuracy, mx.metric.MSE,
                                               mx.metric.CrossEntropy]
    assert comp.get_metric(1) is comp.metrics[1]
    with pytest.raises(ValueError, match="out of range"):
        comp.get_metric(3)
    comp.update([mx.nd.array([1, 0])], [mx.nd.array([[0.0, 1.0], [1.0, 0.0]])])
    names, values = comp.get()
    assert names == ["accuracy", "mse", "cross-entropy"]
    assert values[0] == 1.0
    np.testing.assert_allclose(values[1], 0.5)  # labels broadcast over the two columns
    np.testing.assert_allclose(values[2], -math.log(1 + 1e-12), atol=1e-9)
    comp.reset_local()
    assert all(math.isnan(v) for v in comp.get()[1])
    assert comp.get_global()[1][0] == 1.0
    assert str(comp).startswith("EvalMetric: {'accuracy': nan")
    # Children passed in keep their statistics.
    acc = mx.metric.Accuracy()
    acc.update([mx.nd.array([1])], [mx.nd.array([[0.0, 1.0]])])
    assert mx.metric.CompositeEvalMetric([acc]).get() == (["accuracy"], [1.0])


# ----------------------------------------------------------------- by hand

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


def test_top_k_by_hand():
    top2 = mx.metric.TopKAccuracy(top_k=2)
    scores = np.array([[0.1, 0.5, 0.4, 0.0], [0.7, 0.1, 0.0, 0.2], [0.3, 0.3, 0.1, 0.3]])
    top2.update([np.array([2, 1, 2])], [scores])
    assert top2.get() == ("top_k_accuracy_2", 1 / 3)
    top4 = mx.metric.TopKAccuracy(top_k=4, name="t")
    top4.update(np.array([2, 1, 3]), scores)
    assert top4.get() == ("t_4", 1.0)


def test_f1_by_hand():
    f1 = mx.metric.F1()
    # predicted [1, 1, 0, 0], labels [1, 0, 1, 0]: precision = recall = 1/2.
    scores = mx.nd.array([[0.2, 0.8], [0.3, 0.7], [0.6, 0.4], [0.9, 0.1]])
    f1.update([mx.nd.array([1, 0, 1, 0])], [scores])
    assert f1.get() == ("f1", 0.5)
    f1.update([mx.nd.array([1, 1])], [mx.nd.array([[0.2, 0.8], [0.4, 0.6]])])
    assert f1.get() == ("f1", 0.75)  # macro: mean of 0.5 and 1.0
    micro = mx.metric.F1(average="micro")
    micro.update([mx.nd.array([1, 0, 1, 0])], [scores])
    micro.update([mx.nd.array([1, 1])], [mx.nd.array([[0.2, 0.8], [0.4, 0.6]])])
    # tp 3, fp 1, fn 1, tn 1: precision = recall = 3/4.
    np.testing.assert_allclose(micro.get()[1], 0.75)
    assert micro.num_inst == 6


def test_mcc_by_hand():
    mcc = mx.metric.MCC(average="micro")
    # tp 2, fp 1, fn 1, tn 2: (4 - 1) / sqrt(3 * 3 * 3 * 3) = 1/3.
    scores = mx.nd.array([[0.1, 0.9]] * 3 + [[0.9, 0.1]] * 3)
    mcc.update([mx.nd.array([1, 1, 0, 1, 0, 0])], [scores])
    np.testing.assert_allclose(mcc.get()[1], 1 / 3)


def test_perplexity_by_hand():
    ppl = mx.metric.Perplexity(ignore_label=None)
    ppl.update([mx.nd.array([0, 1, 1])], [mx.nd.array([[0.3, 0.7], [0.0, 1.0], [0.4, 0.6]])])
    np.testing.assert_allclose(ppl.get()[1], math.exp(-(math.log(0.3) + math.log(0.6)) / 3),
                               rtol=1e-6)
    # ignore_label: that row counts neither in the sum nor in the count.
    ppl = mx.metric.Perplexity(ignore_label=1)
    ppl.update([mx.nd.array([0, 1, 1])], [mx.nd.array([[0.3, 0.7], [0.0, 1.0], [0.4, 0.6]])])
    np.testing.assert_allclose(ppl.get()[1], 1 / 0.3, rtol=1e-6)
    assert ppl.num_inst == 1
    # Classes along the last axis of a 3-d output (MXNet takes only 2-d ones).
    probs = np.random.RandomState(0).dirichlet([1, 1, 1], size=(2, 4)).astype(np.float32)
    labels = np.array([[0, 1, 2, 1], [2, 2, 0, 1]], dtype=np.float32)
    ppl = mx.metric.Perplexity(None)
    ppl.update([labels], [probs])
    picked = np.take_along_axis(probs, labels.astype(int)[..., None], -1)
    np.testing.assert_allclose(ppl.get()[1], np.exp(-np.log(picked).mean()), rtol=1e-5)


def test_regression_by_hand():
    label, pred = mx.nd.array([1.0, 2.0, 4.0]), mx.nd.array([[2.0], [2.0], [1.0]])
    for name, want in (("mae", 4 / 3), ("mse", 10 / 3), ("rmse", math.sqrt(10 / 3))):
        metric = mx.metric.create(name)
        metric.update([label], [pred])
        np.testing.assert_allclose(metric.get()[1], want, rtol=1e-6)


def test_mse_averages_batches():
    mse = mx.metric.MSE()
    mse.update([mx.nd.array([0.0])], [mx.nd.array([2.0])])              # 4
    mse.update([mx.nd.array([0.0, 0.0, 0.0])], [mx.nd.array([1, 1, 1])])  # 1
    assert mse.get() == ("mse", 2.5)  # (4 + 1) / 2 batches, not 7 / 4 rows


def test_cross_entropy_by_hand():
    ce = mx.metric.CrossEntropy()
    ce.update([mx.nd.array([1, 0])], [mx.nd.array([[0.5, 0.5], [0.25, 0.75]])])
    np.testing.assert_allclose(ce.get()[1], (math.log(2) + math.log(4)) / 2, rtol=1e-6)
    nll = mx.metric.NegativeLogLikelihood(eps=0.0)
    nll.update([mx.nd.array([1, 0])], [mx.nd.array([[0.5, 0.5], [0.25, 0.75]])])
    assert nll.get()[1] == ce.get()[1]


def test_pearson_by_hand():
    label = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    pred = np.array([2.0, 4.0, 5.0, 9.0], dtype=np.float32)
    want = np.corrcoef(label, pred)[0, 1]
    macro = mx.metric.PearsonCorrelation()
    macro.update([mx.nd.array(label)], [mx.nd.array(pred)])
    np.testing.assert_allclose(macro.get()[1], want, rtol=1e-12)
    # micro over two batches: the correlation of everything seen.
    micro = mx.metric.PearsonCorrelation(average="micro")
    micro.update([label[:1]], [pred[:1]])
    micro.update([label[1:]], [pred[1:]])
    np.testing.assert_allclose(micro.get()[1], want, rtol=1e-12)
    assert micro.get_global() == ("pearsonr", 0.0)  # MXNet's micro-mode global value


def test_pcc_by_hand():
    pcc = mx.metric.PCC()
    pcc.update([mx.nd.array([0, 1, 2, 2])], [mx.nd.array([0, 1, 2, 1])])
    assert pcc.k == 3 and pcc.lcm.shape == (3, 3)
    # Two classes: PCC is MCC (tp 1, tn 2, fp 1, fn 0 with 1 as positive).
    binary = mx.metric.PCC()
    mcc = mx.metric.MCC()
    scores = mx.nd.array([[0.1, 0.9], [0.2, 0.8], [0.9, 0.1], [0.7, 0.3]])
    labels = mx.nd.array([1, 0, 0, 0])
    binary.update([labels], [scores])
    mcc.update([labels], [scores])
    np.testing.assert_allclose(binary.get()[1], mcc.get()[1], rtol=1e-12)
    # num_inst counts update calls, not samples.
    binary.update([labels, labels], [scores, scores])
    assert binary.num_inst == 2


def test_loss_by_hand():
    for cls, name in ((mx.metric.Loss, "loss"), (mx.metric.Torch, "torch"),
                      (mx.metric.Caffe, "caffe")):
        loss = cls()
        loss.update(None, [mx.nd.array([1.0, 2.0]), mx.nd.array([[3.0, 6.0]])])
        assert loss.get() == (name, 3.0)
        assert loss.num_inst == 4
        assert isinstance(loss, mx.metric.Loss)


def test_custom_metric_by_hand():
    seen = []

    def feval(label, pred):
        seen.append((type(label), type(pred)))
        return (float(label.sum()), 4)

    custom = mx.metric.CustomMetric(feval)
    custom.update([mx.nd.array([1, 2])], [mx.nd.array([0, 0])])
    assert custom.get() == ("feval", 0.75)
    assert seen == [(np.ndarray, np.ndarray)]
    with pytest.raises(ValueError, match="does not match"):
        custom.update([mx.nd.array([1])], [mx.nd.array([1]), mx.nd.array([2])])
    extra = mx.metric.np(lambda label, pred: float(pred.sum()), allow_extra_outputs=True)
    assert extra.name == "custom(<lambda>)"
    extra.update([mx.nd.array([0])], [mx.nd.array([5]), mx.nd.array([7])])  # extra ignored
    assert extra.get()[1] == 5.0
    named = mx.metric.np(mean_abs, name="abs")
    assert named.name == "abs"
    assert mx.metric.np(mean_abs).name == "mean_abs"
    with pytest.raises(NotImplementedError, match="cannot be serialized"):
        named.get_config()


# ------------------------------------------------------------------ errors

def test_mismatched_counts():
    with pytest.raises(ValueError, match="does not match"):
        mx.metric.Accuracy().update([mx.nd.array([0]), mx.nd.array([1])],
                                    [mx.nd.array([[1.0, 0.0]])])


@pytest.mark.parametrize("make,labels,preds,error,match", [
    (lambda: mx.metric.Accuracy(), [[0, 1, 1]], [[[1, 0], [0, 1]]], ValueError,
     "2 predicted classes for 3 labels"),
    (lambda: mx.metric.Accuracy(axis=2), [[0, 1]], [[[1, 0], [0, 1], [1, 1]]], ValueError,
     "axis 2 is out of range"),
    (lambda: mx.metric.TopKAccuracy(top_k=4), [[0, 1]], [[[1, 0, 0], [0, 1, 0]]], ValueError,
     "top_k=4 is more than the 3 scores"),
    (lambda: mx.metric.TopKAccuracy(top_k=2), [[0]], [[[[1, 0, 0]]]], ValueError,
     "at most 2 dims"),
    (lambda: mx.metric.TopKAccuracy(top_k=2), [[0, 1, 2]], [[[1, 0, 0], [0, 1, 0]]], ValueError,
     "3 labels for 2 predictions"),
    (lambda: mx.metric.F1(), [[0, 1, 2]], [[[1, 0], [0, 1], [1, 0]]], ValueError,
     "only supports binary classification"),
    (lambda: mx.metric.MCC(), [[0, 1, 2]], [[[1, 0], [0, 1], [1, 0]]], ValueError,
     "only supports binary classification"),
    (lambda: mx.metric.F1(), [[0, 1]], [[1, 0]], ValueError, "shape \\(2,\\)"),
    (lambda: mx.metric.F1(), [[0, 1, 1]], [[[1, 0], [0, 1]]], ValueError, "does not match"),
    (lambda: mx.metric.Perplexity(None), [[0, 1, 1]], [[[0.5, 0.5], [0.5, 0.5]]], ValueError,
     "shape mismatch"),
    (lambda: mx.metric.MSE(), [[0, 1, 1]], [[0.5, 0.5]], ValueError, "do not broadcast"),
    (lambda: mx.metric.CrossEntropy(), [[0, 1, 1]], [[[0.5, 0.5], [0.5, 0.5]]], ValueError,
     "3 labels for 2 prediction rows"),
    (lambda: mx.metric.CrossEntropy(), [[0, 2]], [[[0.5, 0.5], [0.5, 0.5]]], ValueError,
     "class indices below 2"),
    (lambda: mx.metric.NegativeLogLikelihood(), [[0, 1]], [[0.5, 0.5]], ValueError,
     "must be \\(samples, classes\\)"),
    (lambda: mx.metric.PearsonCorrelation(), [[1, 2, 3]], [[[1, 2, 3]]], ValueError,
     "does not match"),
    (lambda: mx.metric.PCC(), [[0, -1]], [[[1, 0], [0, 1]]], ValueError, "must not be negative"),
    (lambda: mx.metric.PCC(), [[0, 1, 1]], [[[1, 0], [0, 1]]], ValueError,
     "2 predicted classes for 3 labels"),
])
def test_bad_update(make, labels, preds, error, match):
    with pytest.raises(error, match=match):
        make().update([np.array(x, dtype=np.float32) for x in labels],
                      [np.array(x, dtype=np.float32) for x in preds])


def test_bad_inputs_types():
    with pytest.raises(TypeError, match="labels\\[0\\]"):
        mx.metric.Accuracy().update(["abc"], [np.zeros((1, 2))])
    with pytest.raises(TypeError, match="preds\\[0\\]"):
        mx.metric.MSE().update([np.zeros(2)], [object()])
    with pytest.raises(TypeError, match="lists of arrays"):
        mx.metric.MAE().update(3, 4)
    with pytest.raises(TypeError, match="preds\\[0\\]"):
        mx.metric.Loss().update(None, [{"a": 1}])
    with pytest.raises(TypeError, match="feval must return a number"):
        mx.metric.CustomMetric(lambda l, p: "high").update([np.zeros(1)], [np.zeros(1)])
    with pytest.raises(ValueError, match="tuple of 3"):
        mx.metric.CustomMetric(lambda l, p: (1, 2, 3)).update([np.zeros(1)], [np.zeros(1)])


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="top_k must be more than 1"):
        mx.metric.TopKAccuracy()
    with pytest.raises(ValueError, match="top_k must be more than 1"):
        mx.metric.create("top_k_acc", top_k=1)
    with pytest.raises(TypeError, match="top_k must be an int"):
        mx.metric.TopKAccuracy(top_k=2.5)
    with pytest.raises(TypeError, match="axis must be an int"):
        mx.metric.Accuracy(axis="1")
    with pytest.raises(ValueError, match="average must be one of 'macro', 'micro'"):
        mx.metric.F1(average="weighted")
    with pytest.raises(ValueError, match="average must be one of"):
        mx.metric.MCC(average="binary")
    with pytest.raises(ValueError, match="average must be one of"):
        mx.metric.create("pearsonr", average="mean")
    with pytest.raises(TypeError, match="ignore_label"):
        mx.metric.Perplexity("pad")
    with pytest.raises(TypeError):
        mx.metric.create("perplexity")  # ignore_label has no default, as in MXNet
    with pytest.raises(TypeError, match="eps must be a number"):
        mx.metric.CrossEntropy(eps="small")
    with pytest.raises(TypeError, match="feval must be callable"):
        mx.metric.CustomMetric(3)
    with pytest.raises(TypeError, match="numpy_feval must be callable"):
        mx.metric.np("mae")


# -------------------------------------------------------------- Module use

def test_module_fit_and_score_with_metrics():
    # A softmax classifier trained by Module with a list of metrics; score()
    # with a by-name metric gives the same accuracy as the metric fed by hand.
    rng = np.random.RandomState(0)
    data = rng.randn(40, 3).astype(np.float32)
    label = (data[:, 0] + data[:, 1] > 0).astype(np.float32)
    it = mx.io.NDArrayIter(data, label, batch_size=10, shuffle=False)
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2),
                               name="softmax")
    mod = mx.mod.Module(net, context=mx.cpu())
    train_metric = mx.metric.create(["acc", "ce", mx.metric.F1(), "pcc"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mod.fit(it, eval_metric=train_metric, optimizer="sgd",
                optimizer_params={"learning_rate": 0.5}, num_epoch=3)
    names = [n for n, _ in train_metric.get_name_value()]
    assert names == ["accuracy", "cross-entropy", "f1", "pcc"]
    scored = dict(mod.score(it, "acc"))
    by_hand = mx.metric.Accuracy()
    it.reset()
    for batch in it:
        mod.forward(batch, is_train=False)
        mod.update_metric(by_hand, batch.label)
    assert scored["accuracy"] == by_hand.get()[1]
    assert scored["accuracy"] > 0.8
