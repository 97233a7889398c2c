"""Writes tests/python/golden/train_golden.json with MXNet 1.9.1's numbers.

Run with an MXNet 1.9.1 venv (see make_golden.sh for how one is made):

    $venv/bin/python tools/golden/make_python_train_golden.py

The JSON holds each case's inputs next to MXNet's results, so the symx tests
(tests/python/test_{optimizer,initializer,metric,io}.py) replay the very same
case without MXNet:
  - optimizer: a list of actions (update, set_lr_mult, set_learning_rate,
    setattr, ...) played on MXNet's optimizer through get_updater, with the
    updated weight after every update and the final num_update; a case may
    give the optimizer an lr_scheduler ({"class", "kwargs"});
  - lr_scheduler: schedulers called with a sequence of update counts
    (rising, repeated, falling: they keep state), after an optional base_lr
    assignment (what an optimizer given learning_rate does), and the rates;
  - initializer: the dumps() strings of initializers built directly and by
    mx.init.create;
  - metric: update() calls with their labels and predictions, and get() /
    get_name_value() after each;
  - iterator: NDArrayIter's batches (data, label, pad) over a few epochs, and
    provide_data / provide_label.
Inputs are small and drawn from fixed numpy seeds, so the file stays small and
regenerating it gives the same bytes.
"""
import json
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "python", "golden", "train_golden.json")


def _list(a):
    """Nested lists; float32 values written as their shortest float32 text
    (exact, and about half the length of a float64's)."""
    a = np.asarray(a)
    if a.dtype != np.float32:
        return a.tolist()

    def short(x):
        if isinstance(x, list):
            return [short(v) for v in x]
        return float(np.format_float_scientific(np.float32(x), unique=True))
    return short(a.tolist())


# ---------------------------------------------------------------- optimizer

def _fc_symbol(var_attrs):
    """FullyConnected named 'fc' whose weight/bias variables carry var_attrs."""
    weight = mx.sym.Variable("fc_weight", **var_attrs.get("fc_weight", {}))
    bias = mx.sym.Variable("fc_bias", **var_attrs.get("fc_bias", {}))
    return mx.sym.FullyConnected(mx.sym.Variable("data"), weight=weight, bias=bias,
                                 num_hidden=3, name="fc")


def _mults(pairs):
    # JSON keeps int and str keys apart only inside lists: [[key, value], ...].
    return {k: v for k, v in pairs}


def run_optimizer_case(case):
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
            after.append(_list(weights[index].asnumpy()))
        elif kind in ("set_lr_mult", "set_wd_mult"):
            getattr(opt, kind)(_mults(action[1]))
        elif kind == "set_learning_rate":
            opt.set_learning_rate(action[1])
        elif kind == "setattr":
            setattr(opt, action[1], action[2])
        else:
            raise ValueError(kind)
    return {"after": after, "num_update": opt.num_update}


def optimizer_cases():
    rng = np.random.RandomState(3)
    shape = (2, 3)

    def w():
        return _list(rng.uniform(-1, 1, shape).astype(np.float32))

    def g(scale=1.0):
        return _list((rng.uniform(-1, 1, shape) * scale).astype(np.float32))

    def single(name, optimizer, kwargs, steps=3, dtype="float32", extra=None):
        actions = [["update", 0, g()] for _ in range(steps)]
        if extra:
            actions = actions[:1] + extra + actions[1:]
        return {"name": name, "optimizer": optimizer, "kwargs": kwargs, "dtype": dtype,
                "weights": [[0, w()]], "actions": actions}

    cases = [
        single("sgd_plain", "sgd", {"learning_rate": 0.1}),
        single("sgd_momentum", "sgd", {"learning_rate": 0.1, "momentum": 0.9}, steps=4),
        single("sgd_wd_rescale", "sgd", {"learning_rate": 0.1, "wd": 0.05, "rescale_grad": 0.5}),
        single("sgd_clip", "sgd", {"learning_rate": 0.1, "clip_gradient": 0.3}),
        single("sgd_momentum_wd_rescale_clip", "sgd",
               {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.05, "rescale_grad": 2.0,
                "clip_gradient": 0.5}, steps=4),
        single("sgd_momentum_float64", "sgd", {"learning_rate": 0.1, "momentum": 0.9},
               dtype="float64"),
        single("adam_default", "adam", {}, steps=4),
        single("adam_lr", "adam", {"learning_rate": 0.05}, steps=4),
        single("adam_all", "adam",
               {"learning_rate": 0.05, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6, "wd": 0.05,
                "rescale_grad": 0.5, "clip_gradient": 0.2}, steps=4),
        single("adam_float64", "adam", {"learning_rate": 0.05}, dtype="float64"),
        # Attributes changed between updates take effect on the next one.
        single("sgd_set_learning_rate", "sgd", {"learning_rate": 0.1, "momentum": 0.9},
               extra=[["set_learning_rate", 0.02]]),
        single("sgd_setattr_lr", "sgd", {"learning_rate": 0.1},
               extra=[["setattr", "lr", 0.3]]),
        single("adam_setattr_rescale_grad", "adam", {"learning_rate": 0.05},
               extra=[["setattr", "rescale_grad", 0.25]]),
        single("sgd_setattr_wd", "sgd", {"learning_rate": 0.1, "wd": 0.05},
               extra=[["setattr", "wd", 0.5]]),
        single("sgd_setattr_clip_gradient", "sgd", {"learning_rate": 0.1},
               extra=[["setattr", "clip_gradient", 0.1]]),
        # Adam's bias correction counts from begin_num_update.
        single("adam_begin_num_update", "adam",
               {"learning_rate": 0.05, "begin_num_update": 10}),
    ]

    names4 = [[0, "fc_weight"], [1, "fc_bias"], [2, "bn_gamma"], [3, "bn_beta"]]
    four = [[i, w()] for i in range(4)]

    def round_of(indices):
        return [["update", i, g()] for i in indices]

    cases += [
        # With names, weight decay only on *_weight and *_gamma.
        {"name": "sgd_wd_by_name", "optimizer": "sgd",
         "kwargs": {"learning_rate": 0.1, "wd": 0.1}, "dtype": "float32",
         "idx2name": names4, "weights": four, "actions": round_of(range(4)) * 2},
        # Without names, on everything.
        {"name": "sgd_wd_no_names", "optimizer": "sgd",
         "kwargs": {"learning_rate": 0.1, "wd": 0.1}, "dtype": "float32",
         "weights": four, "actions": round_of(range(4))},
        {"name": "adam_wd_by_name", "optimizer": "adam",
         "kwargs": {"learning_rate": 0.05, "wd": 0.1}, "dtype": "float32",
         "idx2name": names4, "weights": four, "actions": round_of(range(4)) * 2},
        # The symbol's __lr_mult__ / __wd_mult__ (wd_mult overrides the name rule).
        {"name": "sgd_sym_mults", "optimizer": "sgd",
         "kwargs": {"learning_rate": 0.1, "wd": 0.1, "momentum": 0.5}, "dtype": "float32",
         "idx2name": [[0, "fc_weight"], [1, "fc_bias"]],
         "sym": {"fc_weight": {"lr_mult": 2.0}, "fc_bias": {"wd_mult": 0.5, "lr_mult": 0.5}},
         "weights": four[:2], "actions": round_of([0, 1]) * 2},
        # set_lr_mult / set_wd_mult by name, over the symbol's attributes, then
        # by index (which MXNet looks up before the name).
        {"name": "sgd_set_mults", "optimizer": "sgd",
         "kwargs": {"learning_rate": 0.1, "wd": 0.1}, "dtype": "float32",
         "idx2name": [[0, "fc_weight"], [1, "fc_bias"]], "sym": {"fc_weight": {"lr_mult": 2.0}},
         "weights": four[:2],
         "actions": round_of([0, 1])
         + [["set_lr_mult", [["fc_bias", 3.0]]], ["set_wd_mult", [["fc_bias", 1.0]]]]
         + round_of([0, 1])
         + [["set_lr_mult", [[0, 0.5]]], ["set_wd_mult", [[0, 0.0]]]]
         + round_of([0, 1])},
        # num_update is the largest per-index count, not the number of calls.
        {"name": "adam_num_update", "optimizer": "adam",
         "kwargs": {"learning_rate": 0.05}, "dtype": "float32",
         "weights": four[:2], "actions": round_of([0, 1, 0, 0, 1])},
    ]
    # Schedules: the rate each update uses comes from the scheduler at the
    # update count after that update (num_update starts at 1).
    def scheduled(name, optimizer, kwargs, sched_class, sched_kwargs, steps):
        case = single(name, optimizer, kwargs, steps=steps)
        case["lr_scheduler"] = {"class": sched_class, "kwargs": sched_kwargs}
        return case

    cases += [
        scheduled("sgd_factor", "sgd", {"learning_rate": 0.5, "momentum": 0.9}, "FactorScheduler",
                  {"step": 2, "factor": 0.5}, steps=7),
        # No learning_rate: SGD keeps the scheduler's base_lr.
        scheduled("sgd_multifactor_base_lr", "sgd", {}, "MultiFactorScheduler",
                  {"step": [2, 4], "factor": 0.1, "base_lr": 0.3}, steps=6),
        # Adam's own default (0.001) overrides the scheduler's base_lr.
        scheduled("adam_poly_warmup", "adam", {}, "PolyScheduler",
                  {"max_update": 6, "base_lr": 0.1, "pwr": 2, "warmup_steps": 2,
                   "warmup_begin_lr": 0.01}, steps=8),
        scheduled("sgd_cosine", "sgd", {"learning_rate": 0.2}, "CosineScheduler",
                  {"max_update": 5, "base_lr": 0.2, "final_lr": 0.01}, steps=7),
    ]
    for case in cases:
        case.update(run_optimizer_case(case))
    return cases


# ------------------------------------------------------------- lr_scheduler

def lr_scheduler_cases():
    rising = list(range(0, 25))
    revisits = [0, 3, 9, 9, 4, 12, 2, 30, 7]
    built = [
        ["FactorScheduler", {"step": 3}, None, rising],
        ["FactorScheduler", {"step": 3, "factor": 0.5, "base_lr": 1.0}, None, rising + revisits],
        ["FactorScheduler", {"step": 2, "factor": 0.1, "stop_factor_lr": 1e-4, "base_lr": 1.0},
         None, rising],
        ["FactorScheduler", {"step": 4, "factor": 0.5, "base_lr": 0.8, "warmup_steps": 5,
                             "warmup_begin_lr": 0.1}, None, rising],
        ["FactorScheduler", {"step": 4, "factor": 0.5, "base_lr": 0.8, "warmup_steps": 5,
                             "warmup_begin_lr": 0.1, "warmup_mode": "constant"}, None, rising],
        ["FactorScheduler", {"step": 2, "factor": 0.5, "base_lr": 0.8, "warmup_steps": 3}, 0.4,
         rising],
        ["MultiFactorScheduler", {"step": [3, 7, 12], "factor": 0.5, "base_lr": 1.0}, None,
         rising + revisits],
        ["MultiFactorScheduler", {"step": [5], "factor": 0.1, "warmup_steps": 3,
                                  "warmup_begin_lr": 0.001}, 0.05, rising],
        ["PolyScheduler", {"max_update": 20}, None, rising],
        ["PolyScheduler", {"max_update": 15, "base_lr": 0.5, "pwr": 1, "final_lr": 0.05,
                           "warmup_steps": 4, "warmup_begin_lr": 0.1}, None, rising + revisits],
        ["PolyScheduler", {"max_update": 10, "base_lr": 0.5, "pwr": 3}, 0.9, rising],
        ["CosineScheduler", {"max_update": 20, "base_lr": 1.0}, None, rising + revisits],
        ["CosineScheduler", {"max_update": 12, "base_lr": 0.4, "final_lr": 0.02,
                             "warmup_steps": 4, "warmup_begin_lr": 0.05,
                             "warmup_mode": "constant"}, 0.3, rising],
    ]
    out = []
    for cls, kwargs, base_lr, queries in built:
        sched = getattr(mx.lr_scheduler, cls)(**kwargs)
        if base_lr is not None:
            sched.base_lr = base_lr
        out.append({"class": cls, "kwargs": kwargs, "set_base_lr": base_lr, "queries": queries,
                    "values": [float(sched(n)) for n in queries]})
    return out


# -------------------------------------------------------------- initializer

def initializer_cases():
    built = [
        ["Uniform", {}], ["Uniform", {"scale": 0.5}],
        ["Normal", {}], ["Normal", {"sigma": 2.0}],
        ["Xavier", {}], ["Xavier", {"rnd_type": "gaussian", "factor_type": "in", "magnitude": 2}],
        ["Xavier", {"rnd_type": "uniform", "factor_type": "out", "magnitude": 1.5}],
        ["MSRAPrelu", {}], ["MSRAPrelu", {"factor_type": "in", "slope": 0.1}],
        ["Zero", {}], ["One", {}], ["Constant", {"value": 3}], ["Constant", {"value": -0.5}],
    ]
    out = {"built": [], "created": []}
    for cls, kwargs in built:
        out["built"].append({"class": cls, "kwargs": kwargs,
                             "dumps": getattr(mx.init, cls)(**kwargs).dumps()})
    created = [
        [["xavier"], {}], [["xavier"], {"magnitude": 2, "rnd_type": "gaussian"}],
        [["uniform"], {"scale": 0.2}], [["normal"], {}], [["msraprelu"], {}],
        [["zeros"], {}], [["ones"], {}], [["constant"], {"value": 2.5}],
        [['["normal", {"sigma": 0.5}]'], {}],
        [['["xavier", {"rnd_type": "gaussian", "factor_type": "out", "magnitude": 3}]'], {}],
    ]
    for args, kwargs in created:
        out["created"].append({"args": args, "kwargs": kwargs,
                               "dumps": mx.init.create(*args, **kwargs).dumps()})
    return out


# ------------------------------------------------------------------- metric

def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def metric_cases():
    rng = np.random.RandomState(5)

    def probs(n, k=3):
        return _list(_softmax(rng.randn(n, k)))

    def labels(n, k=3):
        return _list(rng.randint(0, k, n).astype(np.float32))

    def reals(*shape):
        return _list(rng.randn(*shape).astype(np.float32))

    zero_prob = _softmax(rng.randn(3, 3))
    zero_prob[1, :] = [0.0, 0.5, 0.5]  # label 0 -> -log(eps)

    cases = [
        {"name": "acc_two_batches", "metric": "acc",
         "updates": [{"labels": [labels(4)], "preds": [probs(4)]},
                     {"labels": [labels(6)], "preds": [probs(6)]}]},
        {"name": "acc_two_outputs", "metric": "accuracy",
         "updates": [{"labels": [labels(4), labels(5)], "preds": [probs(4), probs(5)]}]},
        # Predictions already class indices (same shape as the labels).
        {"name": "acc_class_indices", "metric": "acc",
         "updates": [{"labels": [labels(6)], "preds": [labels(6)]}]},
        {"name": "acc_bare_arrays", "metric": "acc",
         "updates": [{"labels": labels(5), "preds": probs(5)}]},
        {"name": "ce_two_batches", "metric": "ce",
         "updates": [{"labels": [labels(4)], "preds": [probs(4)]},
                     {"labels": [labels(3)], "preds": [probs(3)]}]},
        {"name": "ce_zero_probability", "metric": "ce",
         "updates": [{"labels": [[0.0, 0.0, 2.0]], "preds": [_list(zero_prob)]}]},
        # MSE averages per-batch means: batches of 2 and 6 rows weigh the same.
        {"name": "mse_uneven_batches", "metric": "mse",
         "updates": [{"labels": [reals(2)], "preds": [reals(2, 1)]},
                     {"labels": [reals(6)], "preds": [reals(6)]},
                     {"labels": [reals(3, 2)], "preds": [reals(3, 2)]}]},
        {"name": "composite_list", "metric": ["acc", "ce", "mse"],
         "updates": [{"labels": [labels(4)], "preds": [probs(4)]},
                     {"labels": [labels(5)], "preds": [probs(5)]}]},
    ]
    for case in cases:
        metric = mx.metric.create(case["metric"])
        gets, name_values = [], []
        for u in case["updates"]:
            if isinstance(u["labels"][0], list):
                lab = [mx.nd.array(x) for x in u["labels"]]
                pred = [mx.nd.array(x) for x in u["preds"]]
            else:  # bare arrays, not in a list
                lab, pred = mx.nd.array(u["labels"]), mx.nd.array(u["preds"])
            metric.update(lab, pred)
            name, value = metric.get()
            gets.append([name, value])
            name_values.append([list(p) for p in metric.get_name_value()])
        case["get"] = gets
        case["name_value"] = name_values
    return cases


# ----------------------------------------------------------------- iterator

def _desc(d):
    return [d.name, list(d.shape), np.dtype(d.dtype).name]


def iterator_cases():
    def rows(n, width=2, dtype=np.float32, start=0):
        return (np.arange(n * width).reshape(n, width) + start).astype(dtype)

    cases = [
        {"name": "pad", "data": rows(10), "label": np.arange(10), "batch_size": 4,
         "last_batch_handle": "pad", "epochs": 2},
        {"name": "pad_exact", "data": rows(10), "label": np.arange(10), "batch_size": 5,
         "last_batch_handle": "pad", "epochs": 1},
        # One batch larger than the data: padding repeats the data.
        {"name": "pad_batch_larger_than_data", "data": rows(3), "label": np.arange(3),
         "batch_size": 8, "last_batch_handle": "pad", "epochs": 2},
        {"name": "discard", "data": rows(10), "label": np.arange(10), "batch_size": 4,
         "last_batch_handle": "discard", "epochs": 2},
        {"name": "roll_over", "data": rows(10), "label": np.arange(10), "batch_size": 4,
         "last_batch_handle": "roll_over", "epochs": 3},
        {"name": "roll_over_bs3", "data": rows(10), "label": np.arange(10), "batch_size": 3,
         "last_batch_handle": "roll_over", "epochs": 4},
        {"name": "no_label", "data": rows(5, 3), "label": None, "batch_size": 2,
         "last_batch_handle": "pad", "epochs": 1},
        {"name": "names", "data": rows(6), "label": np.arange(6), "batch_size": 3,
         "last_batch_handle": "pad", "epochs": 1, "data_name": "x", "label_name": "y"},
        # Dicts are taken in name order; lists become _0_data, _1_data, ...
        {"name": "dict_inputs", "data": {"b": rows(5), "a": rows(5, 3, start=100)},
         "label": {"lab": np.arange(5)}, "batch_size": 2, "last_batch_handle": "pad",
         "epochs": 1},
        {"name": "list_inputs", "data": [rows(5), rows(5, 1, start=50)],
         "label": [np.arange(5), np.arange(5) * 2], "batch_size": 2,
         "last_batch_handle": "discard", "epochs": 1},
        # numpy inputs of other dtypes arrive as float32.
        {"name": "int_inputs", "data": rows(4, dtype=np.int64), "label": np.arange(4),
         "batch_size": 2, "last_batch_handle": "pad", "epochs": 1},
        # A batch taken, then reset: the next epoch starts over.
        {"name": "reset_mid_epoch", "data": rows(7), "label": np.arange(7), "batch_size": 3,
         "last_batch_handle": "pad", "epochs": 2, "first_epoch_batches": 1},
    ]

    def as_json(x):
        if x is None:
            return None
        if isinstance(x, dict):  # pairs: the file's keys are sorted, the dict's order matters
            return {"dict": [[k, np.dtype(v.dtype).name, _list(v)] for k, v in x.items()]}
        if isinstance(x, list):
            return [[np.dtype(v.dtype).name, _list(v)] for v in x]
        return [np.dtype(x.dtype).name, _list(x)]

    out = []
    for c in cases:
        kwargs = {"batch_size": c["batch_size"], "last_batch_handle": c["last_batch_handle"]}
        for key in ("data_name", "label_name"):
            if key in c:
                kwargs[key] = c[key]
        # Copies: MXNet's NDArrayIter replaces a dict's numpy values by NDArrays.
        copy = lambda x: dict(x) if isinstance(x, dict) else x  # noqa: E731
        it = mx.io.NDArrayIter(copy(c["data"]), copy(c["label"]), shuffle=False, **kwargs)
        epochs = []
        for e in range(c["epochs"]):
            batches = []
            for batch in it:
                arrays = batch.data + batch.label
                batches.append({"data": [_list(d.asnumpy()) for d in batch.data],
                                "dtypes": [np.dtype(a.dtype).name for a in arrays],
                                "label": [_list(l.asnumpy()) for l in batch.label],
                                "pad": batch.pad})
                if e == 0 and len(batches) == c.get("first_epoch_batches", -1):
                    break
            epochs.append(batches)
            it.reset()
        entry = {k: v for k, v in c.items() if k not in ("data", "label")}
        entry.update({"data": as_json(c["data"]), "label": as_json(c["label"]),
                      "provide_data": [_desc(d) for d in it.provide_data],
                      "provide_label": [_desc(d) for d in it.provide_label],
                      "epochs_out": epochs})
        out.append(entry)
    return out


def main():
    golden = {
        "about": "MXNet %s's results; made by tools/golden/make_python_train_golden.py"
                 % mx.__version__,
        "optimizer": optimizer_cases(),
        "lr_scheduler": lr_scheduler_cases(),
        "initializer": initializer_cases(),
        "metric": metric_cases(),
        "iterator": iterator_cases(),
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(golden, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print("wrote %s (%d bytes)" % (os.path.abspath(OUT), os.path.getsize(OUT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
