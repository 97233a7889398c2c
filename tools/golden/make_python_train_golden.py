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
    mx.init.create, and the arrays the deterministic ones (Bilinear, LSTMBias,
    FusedRNN, Mixed, Load, the name-suffix rules) fill;
  - metric: update() calls with their labels and predictions, and get() /
    get_name_value() after each;
  - iterator: NDArrayIter's batches (data, label, pad) over a few epochs, and
    provide_data / provide_label;
  - states: MXNet's .states bytes (Updater.get_states, with and without the
    pickled optimizer) after a few updates, and the weights MXNet computes
    resuming from them.
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
        elif kind == "update_all":
            # One updater call with every index, as MXNet's one-device Module
            # makes it (the aggregated optimizers update them in groups).
            indices = [i for i, _ in action[1]]
            updater(indices, [mx.nd.array(g, dtype=dtype) for _, g in action[1]],
                    [weights[i] for i in indices])
            after.extend(_list(weights[i].asnumpy()) for i in indices)
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
    # The optimizers symx writes on its imperative ops, each with weight
    # decay, rescaling and clipping where MXNet applies them.
    cases += [
        single("nag_momentum_wd", "nag", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.05},
               steps=4),
        single("nag_plain_clip", "nag", {"learning_rate": 0.1, "clip_gradient": 0.3}),
        single("rmsprop_default", "rmsprop", {}, steps=4),
        single("rmsprop_all", "rmsprop",
               {"learning_rate": 0.01, "gamma1": 0.8, "epsilon": 1e-6, "wd": 0.1,
                "rescale_grad": 0.5, "clip_gradient": 0.4, "clip_weights": 0.9}, steps=4),
        single("rmsprop_centered", "rmsprop",
               {"learning_rate": 0.01, "centered": True, "gamma1": 0.95, "gamma2": 0.8,
                "wd": 0.1, "clip_weights": 0.5}, steps=4),
        single("adagrad_wd_clip", "adagrad",
               {"learning_rate": 0.1, "eps": 1e-6, "wd": 0.1, "clip_gradient": 0.5}, steps=4),
        single("adadelta_wd_clip", "adadelta",
               {"rho": 0.8, "epsilon": 1e-4, "wd": 0.1, "clip_gradient": 0.5}, steps=4),
        single("adamax_wd_rescale", "adamax", {"wd": 0.1, "rescale_grad": 0.5}, steps=4),
        single("nadam_all", "nadam",
               {"learning_rate": 0.01, "beta1": 0.8, "schedule_decay": 0.01, "wd": 0.1,
                "clip_gradient": 0.6}, steps=4),
        single("signum_wd_lh", "signum", {"learning_rate": 0.05, "wd": 0.1, "wd_lh": 0.01},
               steps=4),
        single("signsgd", "signum", {"learning_rate": 0.05, "momentum": 0.0, "wd": 0.1}),
        single("ftrl_wd_clip", "ftrl",
               {"lamda1": 0.05, "beta": 0.5, "wd": 0.1, "clip_gradient": 0.5}, steps=4),
        single("ftml_wd", "ftml", {"learning_rate": 0.1, "wd": 0.1, "beta1": 0.5}, steps=4),
        single("dcasgd_plain", "dcasgd", {"learning_rate": 0.1, "lamda": 0.1, "wd": 0.05},
               steps=4),
        single("nag_float64", "nag", {"learning_rate": 0.1, "momentum": 0.9}, dtype="float64"),
        scheduled("rmsprop_factor", "rmsprop", {"learning_rate": 0.01}, "FactorScheduler",
                  {"step": 1, "factor": 0.5}, steps=4),
    ]
    # The rest of MXNet's family, and float16 weights with and without
    # multi_precision (a float32 master copy).
    cases += [
        single("ccsgd_momentum", "ccsgd", {"learning_rate": 0.1, "momentum": 0.9}),
        single("test_optimizer", "test", {"rescale_grad": 0.5}),
        {"name": "lars_momentum_by_name", "optimizer": "lars",
         "kwargs": {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01, "eta": 0.01,
                    "rescale_grad": 0.5}, "dtype": "float32",
         "idx2name": names4, "weights": four, "actions": round_of(range(4)) * 2},
        scheduled("lars_momentum_correction", "lars",
                  {"learning_rate": 0.2, "momentum": 0.9, "eta": 0.1, "eps": 1e-3,
                   "clip_gradient": 0.5}, "FactorScheduler", {"step": 1, "factor": 0.5}, steps=4),
        single("lbsgd_linear_warmup", "lbsgd",
               {"learning_rate": 0.1, "momentum": 0.9, "batch_scale": 2, "warmup_epochs": 1,
                "updates_per_epoch": 4}, steps=6),
        single("lbsgd_lars", "lbsgd",
               {"learning_rate": 0.1, "warmup_strategy": "lars", "wd": 0.01}, steps=3),
        single("lamb_default", "lamb", {}, steps=4),
        single("lamb_all", "lamb",
               {"learning_rate": 0.01, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-5, "wd": 0.1,
                "rescale_grad": 0.5, "clip_gradient": 0.3, "lower_bound": 0.5,
                "upper_bound": 2.0}, steps=4),
        single("lamb_no_bias_correction", "lamb",
               {"learning_rate": 0.01, "bias_correction": False, "wd": 0.05}, steps=3),
        single("groupadagrad", "groupadagrad", {"learning_rate": 0.1, "clip_gradient": 0.4},
               steps=4),
        single("sgd_float16", "sgd", {"learning_rate": 0.1, "momentum": 0.9}, dtype="float16"),
        single("sgd_mp_momentum", "sgd",
               {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.05, "multi_precision": True},
               steps=4, dtype="float16"),
        single("sgd_mp_plain_clip", "sgd",
               {"learning_rate": 0.1, "clip_gradient": 0.3, "multi_precision": True},
               dtype="float16"),
        single("nag_mp_momentum", "nag",
               {"learning_rate": 0.1, "momentum": 0.9, "multi_precision": True}, dtype="float16"),
        single("adam_mp", "adam", {"learning_rate": 0.05, "wd": 0.01, "multi_precision": True},
               steps=4, dtype="float16"),
        single("lamb_mp", "lamb", {"learning_rate": 0.01, "multi_precision": True}, steps=3,
               dtype="float16"),
        single("rmsprop_mp", "rmsprop", {"learning_rate": 0.01, "multi_precision": True},
               dtype="float16"),
    ]
    # Lists of indices through the Updater, as a one-device Module gives
    # them: SGD and LARS update in groups of 4 (MXNet's aggregation size);
    # LARS's momentum correction follows the schedule per group.
    six = [[i, w()] for i in range(6)]
    names6 = [[i, "p%d_weight" % i] for i in range(6)]

    def all_at_once(rounds):
        return [["update_all", [[i, g()] for i in range(6)]] for _ in range(rounds)]

    cases += [
        {"name": "sgd_momentum_lists", "optimizer": "sgd",
         "kwargs": {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}, "dtype": "float32",
         "idx2name": names6, "weights": six, "actions": all_at_once(3)},
        {"name": "lars_lists_schedule", "optimizer": "lars",
         "kwargs": {"learning_rate": 0.2, "momentum": 0.9, "eta": 0.1, "wd": 0.01},
         "lr_scheduler": {"class": "FactorScheduler", "kwargs": {"step": 1, "factor": 0.5}},
         "dtype": "float32", "idx2name": names6, "weights": six, "actions": all_at_once(3)},
        {"name": "sgd_mp_lists", "optimizer": "sgd",
         "kwargs": {"learning_rate": 0.1, "momentum": 0.9, "multi_precision": True},
         "dtype": "float16", "idx2name": names6, "weights": six, "actions": all_at_once(2)},
    ]
    for case in cases:
        case.update(run_optimizer_case(case))
    return cases


# ------------------------------------------------------------------- states

def states_cases():
    """Optimizer states as MXNet's Updater.get_states pickles them (.states
    files), base64, after `before` updates, and the weights MXNet computes
    when a fresh optimizer resumes from them (set_states) for `after` more:
    once from the states alone (update counts restart), once from the
    states with the pickled optimizer (dump_optimizer=True; counts go on)."""
    import base64
    rng = np.random.RandomState(11)
    shape = (2, 3)

    def case(name, optimizer, kwargs, dtype="float32", before=3, after=2):
        w0 = rng.uniform(-1, 1, shape).astype(np.float32)
        grads = [(rng.uniform(-1, 1, shape)).astype(np.float32) for _ in range(before + after)]
        opt = mx.optimizer.create(optimizer, **kwargs)
        updater = mx.optimizer.get_updater(opt)
        weight = mx.nd.array(w0, dtype=dtype)
        for g in grads[:before]:
            updater(0, mx.nd.array(g, dtype=dtype), weight)
        out = {"name": name, "optimizer": optimizer, "kwargs": kwargs, "dtype": dtype,
               "weight": _list(weight.asnumpy().astype(np.float32)),
               "grads": [_list(g) for g in grads[before:]],
               "states": base64.b64encode(updater.get_states()).decode(),
               "states_with_optimizer":
                   base64.b64encode(updater.get_states(dump_optimizer=True)).decode()}
        for key, blob in (("resumed", out["states"]),
                          ("resumed_with_optimizer", out["states_with_optimizer"])):
            fresh = mx.optimizer.get_updater(mx.optimizer.create(optimizer, **kwargs))
            fresh.set_states(base64.b64decode(blob))
            w = mx.nd.array(out["weight"], dtype=dtype)
            steps = []
            for g in grads[before:]:
                fresh(0, mx.nd.array(g, dtype=dtype), w)
                steps.append(_list(w.asnumpy().astype(np.float32)))
            out[key] = steps
            out[key + "_num_update"] = fresh.optimizer.num_update
        return out

    return [
        case("sgd_momentum", "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}),
        case("sgd_plain", "sgd", {"learning_rate": 0.1}),
        case("adam", "adam", {"learning_rate": 0.05}),
        case("rmsprop_centered", "rmsprop", {"learning_rate": 0.01, "centered": True}),
        # (MXNet 1.9.1's DCASGD with momentum fails: it tests an NDArray for truth.)
        case("dcasgd", "dcasgd", {"learning_rate": 0.1, "lamda": 0.1}),
        case("sgd_mp_float16", "sgd", {"learning_rate": 0.1, "momentum": 0.9,
                                       "multi_precision": True}, dtype="float16"),
        case("adam_mp_float16", "adam", {"learning_rate": 0.05, "multi_precision": True},
             dtype="float16"),
        case("lamb_float64", "lamb", {"learning_rate": 0.01}, dtype="float64"),
    ]


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

class NameCode(mx.init.Initializer):
    """A deterministic initializer whose values tell which block of which
    parameter they went to: weights code(name) + k / 100 and biases
    -(code(name) + k / 100) for the k-th value, code(name) = sum over the
    name's characters of (position + 1) * ord(character), modulo 1000.
    tests/python/test_initializer.py defines the same class, so FusedRNN's
    unpacking (block names, shapes, order) is compared value for value."""

    def _init_weight(self, name, arr):
        arr[:] = self._values(name, arr.shape)

    def _init_bias(self, name, arr):
        arr[:] = -self._values(name, arr.shape)

    @staticmethod
    def _values(name, shape):
        code = sum((i + 1) * ord(ch) for i, ch in enumerate(str(name))) % 1000
        return code + np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) / 100


def _make_init(spec):
    """An initializer from [class, kwargs] or, for FusedRNN, [class, kwargs,
    inner spec or None] (the inner initializer is built, not given as a
    string: MXNet 1.9.1's FusedRNN cannot parse its own init strings)."""
    cls = NameCode if spec[0] == "NameCode" else getattr(mx.init, spec[0])
    if len(spec) == 3:
        return cls(None if spec[2] is None else _make_init(spec[2]), **spec[1])
    return cls(**spec[1])


def _init_array_cases():
    """Arrays MXNet's deterministic initializers fill. A case calls the
    initializer "call" on a zero array of "shape"/"dtype" named "name": a plain
    str when "legacy" (MXNet's older rules), else an InitDesc with "attrs"
    ({"__init__": the dumps() of "attr_init"}, when given)."""
    fused = [
        # mode, num_hidden, num_layers, bidirectional, input size, inner init
        ["lstm", 2, 1, False, 3, ["One", {}]],
        ["lstm", 2, 2, True, 3, ["NameCode", {}]],
        ["gru", 3, 2, False, 2, ["NameCode", {}]],
        ["rnn_tanh", 2, 1, True, 4, ["NameCode", {}]],
        ["rnn_relu", 1, 3, False, 2, ["Constant", {"value": 0.3}]],
        ["lstm", 3, 1, False, 2, ["LSTMBias", {"forget_bias": 4.0}]],
    ]
    cases = [
        {"call": ["Bilinear", {}], "name": "up_weight", "shape": [2, 3, 4, 4]},
        {"call": ["Bilinear", {}], "name": "up_weight", "shape": [1, 2, 3, 5]},
        {"call": ["Bilinear", {}], "name": "up_weight", "shape": [1, 1, 6, 3]},
        # float64: the kernel is stored as float32 values all the same.
        {"call": ["Bilinear", {}], "name": "up_weight", "shape": [1, 1, 5, 5],
         "dtype": "float64"},
        {"call": ["Bilinear", {}], "name": "up_bias", "shape": [3]},
        {"call": ["LSTMBias", {}], "name": "lstm_weight", "shape": [8]},
        {"call": ["LSTMBias", {"forget_bias": 2.5}], "name": "lstm_weight", "shape": [12, 2]},
        {"call": ["LSTMBias", {"forget_bias": 2.5}], "name": "lstm_weight", "shape": [6]},
        # A *bias name gets the usual 0; the variable's init= gets the forget bias.
        {"call": ["LSTMBias", {"forget_bias": 2.5}], "name": "lstm_i2h_bias", "shape": [8]},
        {"call": ["Uniform", {}], "name": "lstm_i2h_bias", "shape": [8],
         "attr_init": ["LSTMBias", {"forget_bias": 1.5}]},
        {"call": ["Zero", {}], "name": "deconv_weight", "shape": [1, 2, 2, 4],
         "attr_init": ["Bilinear", {}]},
        {"call": ["Constant", {"value": 5}], "name": "stat", "shape": [2, 2],
         "attr_init": ["Constant", {"value": -1.5}]},
    ]
    for suffix in ["weight", "bias", "gamma", "beta", "min", "max", "bias_quantize"]:
        cases.append({"call": ["Constant", {"value": 5}], "name": "x_" + suffix, "shape": [2, 3]})
    for name, shape in [("upsampling0_weight", [1, 1, 4, 4]), ("upsampling1_bias", [1, 1, 2, 3]),
                        ("stn_loc_weight", [6, 4]), ("stn_loc_bias", [6]), ("fc_weight", [2, 2]),
                        ("fc_bias", [2]), ("bn_gamma", [2]), ("bn_beta", [2]),
                        ("bn_moving_mean", [2]), ("bn_moving_var", [2]),
                        ("bn_moving_inv_var", [2]), ("x_moving_avg", [2]), ("q_min", [2]),
                        ("q_max", [2])]:
        cases.append({"call": ["Constant", {"value": 5}], "name": name, "shape": shape,
                      "legacy": True})
    for mode, hidden, layers, bidir, num_input, inner in fused:
        dirs, gates = 1 + bidir, {"lstm": 4, "gru": 3}.get(mode, 1)
        size = (dirs * gates * hidden * (num_input + hidden + 2)
                + (layers - 1) * dirs * gates * hidden * (dirs * hidden + hidden + 2))
        kwargs = {"num_hidden": hidden, "num_layers": layers, "mode": mode,
                  "bidirectional": bidir, "forget_bias": 0.75}
        # Called as a *weight (its own rule), and through a variable's init=
        # under a global initializer (which FusedRNN(None) falls back on).
        cases.append({"call": ["FusedRNN", kwargs, inner], "name": "rnn_weight", "shape": [size]})
        if inner[0] != "NameCode":
            cases.append({"call": inner, "name": "rnn_parameters", "shape": [size],
                          "attr_init": ["FusedRNN", kwargs, None]})
    for c in cases:
        init = _make_init(c["call"])
        arr = mx.nd.zeros(c["shape"], dtype=c.get("dtype", "float32"))
        if c.get("legacy"):
            init(c["name"], arr)
        else:
            attrs = {}
            if "attr_init" in c:
                attrs["__init__"] = _make_init(c["attr_init"]).dumps()
                c["attrs"] = attrs
            init(mx.init.InitDesc(c["name"], attrs), arr)
        c["out"] = _list(arr.asnumpy())
    return cases


def _init_mixed_cases():
    """Mixed: each parameter goes to the first pattern that matches (re.match),
    with an InitDesc name as Module gives; "unmatched" names raise."""
    cases = [
        {"patterns": [".*bias", ".*gamma", "up", ".*"],
         "inits": [["Constant", {"value": 2}], ["One", {}], ["Bilinear", {}],
                   ["Constant", {"value": -0.5}]],
         "params": [["fc_bias", [3]], ["bn_gamma", [2]], ["up_weight", [1, 1, 3, 3]],
                    ["fc_weight", [2, 3]], ["bn_beta", [2]], ["x_upweight", [2]]],
         "unmatched": []},
        {"patterns": ["fc", "lstm_.*_bias$"],
         "inits": [["Zero", {}], ["LSTMBias", {"forget_bias": 3.0}]],
         "params": [["fc_weight", [2, 2]], ["fc_bias", [2]], ["lstm_i2h_bias", [8]]],
         "unmatched": ["conv_weight", "lstm_i2h_bias_x"]},
    ]
    for c in cases:
        mixed = mx.init.Mixed(c["patterns"], [_make_init(s) for s in c["inits"]])
        c["out"] = {}
        for name, shape in c["params"]:
            arr = mx.nd.zeros(shape)
            mixed(mx.init.InitDesc(name), arr)
            c["out"][name] = _list(arr.asnumpy())
        for name in c["unmatched"]:
            try:
                mixed(mx.init.InitDesc(name), mx.nd.zeros((2,)))
            except ValueError:
                continue
            raise AssertionError("Mixed matched %s" % name)
    return cases


def _init_load_cases():
    """Load from a dict ('arg:'/'aux:' prefixes dropped), default_init for the
    names it lacks."""
    rng = np.random.RandomState(11)
    param = {"arg:fc_weight": rng.uniform(-1, 1, (2, 3)).astype(np.float32),
             "aux:bn_moving_mean": rng.uniform(-1, 1, (3,)).astype(np.float32),
             "fc_bias": rng.uniform(-1, 1, (2,)).astype(np.float32)}
    calls = [["fc_weight", [2, 3]], ["bn_moving_mean", [3]], ["fc_bias", [2]],
             ["other_weight", [2, 2]], ["other_bias", [2]]]
    load = mx.init.Load({k: mx.nd.array(v) for k, v in param.items()},
                        default_init=mx.init.Constant(0.5))
    out = {}
    for name, shape in calls:
        arr = mx.nd.zeros(shape)
        load(mx.init.InitDesc(name), arr)
        out[name] = _list(arr.asnumpy())
    return [{"param": {k: _list(v) for k, v in param.items()},
             "default_init": ["Constant", {"value": 0.5}], "calls": calls, "out": out}]


def initializer_cases():
    """dumps() of initializers built directly and by mx.init.create, and the
    arrays the deterministic ones fill (see the helpers above)."""
    built = [
        ["Uniform", {}], ["Uniform", {"scale": 0.5}],
        ["Normal", {}], ["Normal", {"sigma": 2.0}],
        ["Xavier", {}], ["Xavier", {"rnd_type": "gaussian", "factor_type": "in", "magnitude": 2}],
        ["Xavier", {"rnd_type": "uniform", "factor_type": "out", "magnitude": 1.5}],
        ["MSRAPrelu", {}], ["MSRAPrelu", {"factor_type": "in", "slope": 0.1}],
        ["Zero", {}], ["One", {}], ["Constant", {"value": 3}], ["Constant", {"value": -0.5}],
        ["Orthogonal", {}], ["Orthogonal", {"scale": 0.5, "rand_type": "normal"}],
        ["Bilinear", {}], ["LSTMBias", {}], ["LSTMBias", {"forget_bias": 2.5}],
    ]
    fused_built = [
        [{"num_hidden": 4, "num_layers": 2, "mode": "lstm"}, None],
        [{"num_hidden": 3, "num_layers": 1, "mode": "gru", "bidirectional": True,
          "forget_bias": 0.5}, ["Xavier", {"rnd_type": "gaussian"}]],
        [{"num_hidden": 2, "num_layers": 3, "mode": "rnn_tanh"}, ["Constant", {"value": 0.1}]],
    ]
    out = {"built": [], "created": []}
    for cls, kwargs in built:
        out["built"].append({"class": cls, "kwargs": kwargs,
                             "dumps": getattr(mx.init, cls)(**kwargs).dumps()})
    for kwargs, inner in fused_built:
        out["built"].append({"class": "FusedRNN", "kwargs": kwargs, "inner": inner,
                             "dumps": _make_init(["FusedRNN", kwargs, inner]).dumps()})
    created = [
        [["xavier"], {}], [["xavier"], {"magnitude": 2, "rnd_type": "gaussian"}],
        [["uniform"], {"scale": 0.2}], [["normal"], {}], [["msraprelu"], {}],
        [["zeros"], {}], [["ones"], {}], [["constant"], {"value": 2.5}],
        [['["normal", {"sigma": 0.5}]'], {}],
        [['["xavier", {"rnd_type": "gaussian", "factor_type": "out", "magnitude": 3}]'], {}],
        [["orthogonal"], {}], [["Orthogonal"], {"rand_type": "normal", "scale": 2}],
        [["bilinear"], {}], [["LSTMBias"], {"forget_bias": 0.25}],
        [["fusedrnn"], {"init": None, "num_hidden": 5, "num_layers": 1, "mode": "gru"}],
        [["ZERO"], {}], [["constant", 4], {}], [["orthogonal", 0.9, "normal"], {}],
        [[{"initializer": "uniform", "scale": 0.3}], {}], [[], {"initializer": "one"}],
        [['{"initializer": "lstmbias", "forget_bias": 2}'], {}],
        [['["bilinear", {}]'], {}], [['["lstmbias", {"forget_bias": 1.5}]'], {}],
        [['["orthogonal", {"scale": 1.1, "rand_type": "uniform"}]'], {}],
        [['["fusedrnn", {"init": null, "num_hidden": 2, "num_layers": 2, "mode": "lstm", '
          '"bidirectional": true, "forget_bias": 0.5}]'], {}],
    ]
    for args, kwargs in created:
        out["created"].append({"args": args, "kwargs": kwargs,
                               "dumps": mx.init.create(*args, **kwargs).dumps()})
    out["arrays"] = _init_array_cases()
    out["mixed"] = _init_mixed_cases()
    out["load"] = _init_load_cases()
    return out


# ------------------------------------------------------------------- metric

def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


# Custom metric functions a case names by key; tests/python/test_metric.py
# defines the same ones (same names: a CustomMetric is named after its feval).
def mean_abs(label, pred):
    return np.abs(label.reshape(pred.shape) - pred).mean()


def correct_and_count(label, pred):
    return float((pred.argmax(axis=1) == label.ravel()).sum()), label.size


def first_column_mean(label, pred):
    return float(pred[:, 0].mean())


FEVALS = {f.__name__: f for f in (mean_abs, correct_and_count, first_column_mean)}


def _plain(x):
    """numpy scalars (np.float32 is no float subclass) as Python numbers, for JSON."""
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def make_metric(case):
    """The case's metric: by create(name/list, **kwargs), or a custom metric
    around a named feval: {"custom": "create" | "np" | "CustomMetric"}."""
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


def metric_cases():
    """Each case plays its "updates" (a {"labels", "preds"} update, or
    {"reset_local": true}) and records get(), get_name_value(), get_global()
    and get_global_name_value() after each, and get_config() (null for the
    custom metrics, which cannot give one)."""
    rng = np.random.RandomState(5)

    def probs(n, k=3):
        return _list(_softmax(rng.randn(n, k)))

    def labels(n, k=3):
        return _list(rng.randint(0, k, n).astype(np.float32))

    def reals(*shape):
        return _list(rng.randn(*shape).astype(np.float32))

    def up(lab, pred):  # lists of arrays, one per output
        return {"labels": lab, "preds": pred}

    def bare(lab, pred):  # single arrays, not in a list
        return {"labels": lab, "preds": pred, "bare": True}

    local = {"reset_local": True}

    zero_prob = _softmax(rng.randn(3, 3))
    zero_prob[1, :] = [0.0, 0.5, 0.5]  # label 0 -> -log(eps)

    cases = [
        {"name": "acc_two_batches", "metric": "acc",
         "updates": [up([labels(4)], [probs(4)]), up([labels(6)], [probs(6)])]},
        {"name": "acc_two_outputs", "metric": "accuracy",
         "updates": [up([labels(4), labels(5)], [probs(4), probs(5)])]},
        # Predictions already class indices (same shape as the labels).
        {"name": "acc_class_indices", "metric": "acc",
         "updates": [up([labels(6)], [labels(6)])]},
        {"name": "acc_bare_arrays", "metric": "acc", "updates": [bare(labels(5), probs(5))]},
        {"name": "ce_two_batches", "metric": "ce",
         "updates": [up([labels(4)], [probs(4)]), up([labels(3)], [probs(3)])]},
        {"name": "ce_zero_probability", "metric": "ce",
         "updates": [up([[0.0, 0.0, 2.0]], [_list(zero_prob)])]},
        # MSE averages per-batch means: batches of 2 and 6 rows weigh the same.
        {"name": "mse_uneven_batches", "metric": "mse",
         "updates": [up([reals(2)], [reals(2, 1)]), up([reals(6)], [reals(6)]),
                     up([reals(3, 2)], [reals(3, 2)])]},
        {"name": "composite_list", "metric": ["acc", "ce", "mse"],
         "updates": [up([labels(4)], [probs(4)]), up([labels(5)], [probs(5)])]},
    ]

    # Two-class scores and 0/1 labels for F1 / MCC.
    def scores(n):
        return probs(n, 2)

    def bits(n):
        return labels(n, 2)

    cases += [
        # reset_local: get() starts over, get_global() keeps counting.
        {"name": "acc_reset_local", "metric": "acc",
         "updates": [up([labels(4)], [probs(4)]), local, up([labels(3)], [probs(3)])]},
        # Classes along axis 0: the argmax of each column.
        {"name": "acc_axis0", "metric": "acc", "kwargs": {"axis": 0},
         "updates": [up([labels(4)], [_list(np.array(probs(4)).T.copy())])]},
        {"name": "topk_2_of_4", "metric": "top_k_accuracy", "kwargs": {"top_k": 2},
         "updates": [up([labels(5, 4)], [probs(5, 4)]), local, up([labels(4, 4)], [probs(4, 4)])]},
        # top_k equal to the number of classes: every sample counts.
        {"name": "topk_all_classes", "metric": "top_k_acc", "kwargs": {"top_k": 3},
         "updates": [bare(labels(4), probs(4))]},
        {"name": "topk_class_name", "metric": "TopKAccuracy", "kwargs": {"top_k": 3},
         "updates": [up([labels(3, 5), labels(2, 5)], [probs(3, 5), probs(2, 5)])]},
        # 1-d predictions: the partition's index order against the labels,
        # in the local statistic only.
        {"name": "topk_1d_quirk", "metric": "top_k_acc", "kwargs": {"top_k": 2},
         "updates": [up([[0.0, 3.0, 1.0, 1.0]], [[0.1, 0.9, 0.5, 0.3]]),
                     up([[3.0, 0.0, 2.0, 2.0, 1.0]], [[0.1, 0.9, 0.5, 0.3, 0.7]])]},
        {"name": "f1_macro", "metric": "f1",
         "updates": [up([bits(6)], [scores(6)]), up([bits(5)], [scores(5)]), local,
                     up([bits(4), bits(3)], [scores(4), scores(3)])]},
        {"name": "f1_micro", "metric": "f1", "kwargs": {"average": "micro"},
         "updates": [up([bits(6)], [scores(6)]), up([bits(5)], [scores(5)]), local,
                     bare(bits(4), scores(4))]},
        # No positive label, then no positive prediction either: F1 is 0.
        {"name": "f1_all_negative", "metric": "f1",
         "updates": [up([[0.0, 0.0, 0.0]], [[[0.2, 0.8], [0.7, 0.3], [0.4, 0.6]]]),
                     up([[0.0, 0.0]], [[[0.9, 0.1], [0.6, 0.4]]])]},
        {"name": "f1_micro_all_negative", "metric": "F1", "kwargs": {"average": "micro"},
         "updates": [up([[0.0, 0.0, 0.0]], [[[0.2, 0.8], [0.7, 0.3], [0.4, 0.6]]]),
                     up([[1.0, 0.0]], [[[0.3, 0.7], [0.6, 0.4]]])]},
        {"name": "mcc_macro", "metric": "mcc",
         "updates": [up([bits(6)], [scores(6)]), up([bits(5)], [scores(5)]), local,
                     up([bits(4)], [scores(4)])]},
        {"name": "mcc_micro", "metric": "mcc", "kwargs": {"average": "micro"},
         "updates": [up([bits(6)], [scores(6)]), up([bits(5)], [scores(5)]), local,
                     up([bits(4)], [scores(4)])]},
        # Zero margins: everything predicted positive, then all labels one class.
        {"name": "mcc_zero_denominators", "metric": "MCC",
         "updates": [up([[1.0, 0.0, 1.0]], [[[0.2, 0.8], [0.3, 0.7], [0.4, 0.6]]]),
                     up([[1.0, 1.0]], [[[0.2, 0.8], [0.6, 0.4]]]),
                     up([[0.0, 0.0]], [[[0.9, 0.1], [0.6, 0.4]]])]},
        {"name": "mcc_micro_zero_denominators", "metric": "mcc", "kwargs": {"average": "micro"},
         "updates": [up([[1.0, 1.0]], [[[0.2, 0.8], [0.3, 0.7]]]),
                     up([[1.0]], [[[0.4, 0.6]]])]},
        {"name": "perplexity_no_ignore", "metric": "perplexity",
         "kwargs": {"ignore_label": None},
         "updates": [up([labels(4)], [probs(4)]), local, bare(labels(3), probs(3))]},
        # ignore_label: those rows leave the mean; a batch all ignored adds nothing.
        {"name": "perplexity_ignore_label", "metric": "perplexity",
         "kwargs": {"ignore_label": -1},
         "updates": [up([[0.0, -1.0, 2.0, -1.0]], [probs(4)]),
                     up([[-1.0, -1.0]], [probs(2)]),
                     up([[1.0, 2.0], [-1.0]], [probs(2), probs(1)])]},
        # Labels outside the classes are clipped; a zero probability is floored.
        {"name": "perplexity_clip", "metric": "Perplexity", "kwargs": {"ignore_label": 2},
         "updates": [up([[5.0, -3.0, 2.0, 1.0]],
                        [[[0.1, 0.2, 0.7], [0.5, 0.5, 0.0], [0.3, 0.3, 0.4], [0.2, 0.0, 0.8]]])]},
        {"name": "perplexity_axis0", "metric": "perplexity",
         "kwargs": {"ignore_label": None, "axis": 0},
         "updates": [up([labels(3)], [_list(np.array(probs(3)).T.copy())])]},
        {"name": "mae_batches", "metric": "mae",
         "updates": [up([reals(3)], [reals(3, 1)]), up([reals(2, 2)], [reals(2, 2)]), local,
                     bare(reals(4), reals(4))]},
        {"name": "rmse_batches", "metric": "rmse",
         "updates": [up([reals(3)], [reals(3)]), up([reals(2, 3)], [reals(2, 3)]), local,
                     up([reals(2), reals(4)], [reals(2, 1), reals(4)])]},
        {"name": "mse_reset_local", "metric": "MSE",
         "updates": [up([reals(3)], [reals(3)]), local, up([reals(2)], [reals(2)])]},
        {"name": "ce_reset_local_eps", "metric": "CrossEntropy", "kwargs": {"eps": 1e-3},
         "updates": [up([labels(3)], [probs(3)]), local, bare(labels(2), probs(2))]},
        {"name": "nll_loss", "metric": "nll_loss",
         "updates": [up([labels(4)], [probs(4)]), up([labels(2), labels(3)], [probs(2), probs(3)])]},
        {"name": "nll_eps", "metric": "NegativeLogLikelihood", "kwargs": {"eps": 0.01},
         "updates": [up([[0.0, 1.0]], [[[0.0, 1.0], [0.5, 0.5]]])]},
        {"name": "pearsonr_macro", "metric": "pearsonr",
         "updates": [up([reals(5)], [reals(5)]), up([reals(2, 3)], [reals(2, 3)]), local,
                     bare(reals(4), reals(4))]},
        # micro: one running correlation; reset_local leaves it, get_global is 0.
        {"name": "pearsonr_micro", "metric": "PearsonCorrelation", "kwargs": {"average": "micro"},
         "updates": [up([reals(5)], [reals(5)]), up([reals(4), reals(3)], [reals(4), reals(3)]),
                     local, up([reals(3)], [reals(3)])]},
        {"name": "pcc_binary", "metric": "pcc",
         "updates": [up([bits(6)], [scores(6)]), up([bits(5)], [scores(5)])]},
        # The confusion matrix grows to the largest class seen (4 classes, then 6).
        {"name": "pcc_multiclass_grows", "metric": "PCC",
         "updates": [up([labels(8, 4)], [probs(8, 4)]), local,
                     up([labels(6, 6), labels(5, 4)], [probs(6, 6), probs(5, 4)]),
                     up([labels(4, 3)], [probs(4, 3)])]},
        # Class-index predictions; a first batch that predicts one class only is nan.
        {"name": "pcc_class_indices", "metric": "pcc",
         "updates": [up([[0.0, 1.0, 2.0]], [[1.0, 1.0, 1.0]]),
                     up([labels(5)], [labels(5)]), local, bare(labels(4), labels(4))]},
        {"name": "pcc_no_global_stats", "metric": "pcc", "kwargs": {"has_global_stats": False},
         "updates": [up([labels(5)], [probs(5)]), local, up([labels(4)], [probs(4)])]},
        # Loss: the mean of every output value; labels are not used.
        {"name": "loss_outputs", "metric": "loss",
         "updates": [up([labels(2)], [reals(2), reals(3, 2)]), local, bare(None, reals(4))]},
        {"name": "torch", "metric": "torch", "updates": [up([], [reals(3)]), up([], [reals(2, 2)])]},
        {"name": "caffe", "metric": "Caffe", "updates": [up([], [reals(5)])]},
        # A list item may be a config dict.
        {"name": "composite_global",
         "metric": ["f1", "pcc", {"metric": "top_k_acc", "top_k": 2}, "loss"],
         "updates": [up([bits(4)], [scores(4)]), local, up([bits(3)], [scores(3)])]},
        {"name": "composite_kwargs", "metric": ["top_k_acc", "TopKAccuracy"],
         "kwargs": {"top_k": 2}, "updates": [up([labels(4, 4)], [probs(4, 4)])]},
        {"name": "composite_name", "metric": "composite",
         "kwargs": {"metrics": ["acc", "mse"], "name": "both"},
         "updates": [up([labels(3)], [probs(3)])]},
        # A JSON config: [name, kwargs].
        {"name": "create_json", "metric": '["perplexity", {"ignore_label": 0}]',
         "updates": [up([labels(4)], [probs(4)])]},
        # Custom metrics around a named numpy function (see FEVALS).
        {"name": "custom_create", "metric": "mean_abs", "custom": "create",
         "updates": [up([reals(3)], [reals(3)]), up([reals(2), reals(2)], [reals(2), reals(2)]),
                     local, bare(reals(2), reals(2))]},
        {"name": "custom_tuple", "metric": "correct_and_count", "custom": "CustomMetric",
         "kwargs": {"name": "hits"},
         "updates": [up([labels(4)], [probs(4)]), up([labels(3)], [probs(3)])]},
        {"name": "custom_np_extra_outputs", "metric": "first_column_mean", "custom": "np",
         "kwargs": {"allow_extra_outputs": True},
         "updates": [up([labels(3)], [probs(3), reals(2)]), local, up([labels(2)], [probs(2)])]},
    ]
    for case in cases:
        metric = make_metric(case)
        rec = {"get": [], "name_value": [], "global": [], "global_name_value": []}
        for u in case["updates"]:
            if u.get("reset_local"):
                metric.reset_local()
            elif u.get("bare"):
                lab = None if u["labels"] is None else mx.nd.array(u["labels"])
                metric.update(lab, mx.nd.array(u["preds"]))
            else:
                metric.update([mx.nd.array(x) for x in u["labels"]],
                              [mx.nd.array(x) for x in u["preds"]])
            rec["get"].append(_plain(list(metric.get())))
            rec["name_value"].append([_plain(list(p)) for p in metric.get_name_value()])
            rec["global"].append(_plain(list(metric.get_global())))
            rec["global_name_value"].append(
                [_plain(list(p)) for p in metric.get_global_name_value()])
        case.update(rec)
        case["config"] = None if case.get("custom") else metric.get_config()
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
        "states": states_cases(),
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(golden, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print("wrote %s (%d bytes)" % (os.path.abspath(OUT), os.path.getsize(OUT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
