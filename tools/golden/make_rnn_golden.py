"""Writes tests/python/golden/rnn_golden.json with MXNet 1.9.1's mx.rnn results.

Run with an MXNet 1.9.1 venv (see make_golden.sh for how one is made):

    $venv/bin/python tools/golden/make_rnn_golden.py

tests/python/test_rnn.py replays every case with symx, without MXNet:
  - cells: a cell described as JSON (build() below; the test has the same
    builder), unrolled with the case's length, layout, inputs (one symbol or
    a list), begin_state and merge_outputs; MXNet's list_arguments,
    list_outputs, every internal output name, attr_dict, state_info and
    infer_shape of the outputs grouped with the flattened final states, and
    the forward (inference) outputs for inputs and parameters drawn in
    list_arguments order from np.random.RandomState(seed).uniform(-0.5, 0.5)
    (the legacy generator's stream is fixed, so the test redraws them
    instead of the file holding them). "unfuse" cases run the unfused cell
    on the fused cell's drawn vector, unpacked and repacked;
  - pack: unpack_weights / pack_weights of drawn arrays (names, shapes,
    values);
  - checkpoint: a checkpoint MXNet's save_rnn_checkpoint wrote (the
    symbol's JSON and the .params bytes in base64), and the forward of the
    graph load_rnn_checkpoint returns it with;
  - bucket_iter: BucketSentenceIter's buckets and batches over two epochs
    for a fixed corpus, after random.seed / np.random.seed;
  - encode: encode_sentences' ids and vocab (in insertion order).
Values are float32 written as their shortest text; regenerating gives the
same bytes.
"""
import base64
import json
import os
import random
import sys
import tempfile
import warnings

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "tests", "python", "golden", "rnn_golden.json")

N = 2  # batch size of every cell case


def _list(a):
    """Nested lists; float32 values as their shortest float32 text."""
    a = np.asarray(a)
    if a.dtype != np.float32:
        return a.tolist()

    def short(x):
        if isinstance(x, list):
            return [short(v) for v in x]
        return float(np.format_float_scientific(np.float32(x), unique=True))
    return short(a.tolist())


def _jsonable(x):
    """state_info and the like: tuples as lists."""
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


# ------------------------------------------------------------------ builder

def build(spec, pool):
    """A cell from [kind, kwargs, children]; kwargs "params": P shares the
    case's RNNParams(P) (``pool``)."""
    kind, kwargs = spec[0], dict(spec[1])
    children = [build(c, pool) for c in (spec[2] if len(spec) > 2 else [])]
    if "params" in kwargs:
        prefix = kwargs["params"]
        kwargs["params"] = pool.setdefault(prefix, mx.rnn.RNNParams(prefix))
    for key, value in kwargs.items():  # JSON's lists were tuples (input_shape, kernels)
        if isinstance(value, list):
            kwargs[key] = tuple(value)
    if kind == "unfuse":
        return children[0].unfuse()
    if kind == "SequentialRNNCell":
        cell = mx.rnn.SequentialRNNCell(**kwargs)
        for c in children:
            cell.add(c)
        return cell
    return getattr(mx.rnn, kind)(*children, **kwargs)


def _flatten(states):
    out = []
    for s in states:
        if isinstance(s, list):
            out.extend(_flatten(s))
        else:
            out.append(s)
    return out


def _draw(rng, shapes):
    return [rng.uniform(-0.5, 0.5, s).astype(np.float32) for s in shapes]


def _unroll(case, cell):
    length, layout = case["length"], case["layout"]
    if case["inputs"] == "symbol":
        inputs = mx.sym.Variable("data")
        t_axis = layout.find("T")
        shape = [0, 0] + case["step_shape"]
        shape[t_axis], shape[1 - t_axis] = length, N
        data_shapes = {"data": tuple(shape)}
    else:
        inputs = [mx.sym.Variable("d%d" % i) for i in range(length)]
        data_shapes = {"d%d" % i: (N,) + tuple(case["step_shape"]) for i in range(length)}
    begin = None
    if case.get("begin_state") == "variable":
        begin = cell.begin_state(func=mx.sym.Variable)
    kwargs = {"layout": layout}
    if "merge_outputs" in case:
        kwargs["merge_outputs"] = case["merge_outputs"]
    outputs, states = cell.unroll(length, inputs, begin_state=begin, **kwargs)
    return outputs, states, data_shapes


def run_cell_case(case):
    with mx.name.NameManager():
        pool = {}
        cell = build(case["cell"], pool)
        outputs, states, data_shapes = _unroll(case, cell)
    merged = isinstance(outputs, mx.sym.Symbol)
    flat = _flatten(states)
    group = mx.sym.Group(([outputs] if merged else list(outputs)) + flat)
    arg_shapes, out_shapes, aux_shapes = group.infer_shape(**data_shapes)
    args = group.list_arguments()
    rng = np.random.RandomState(case["seed"])
    if case["cell"][0] == "unfuse":
        # The fused cell's vector, drawn, then unpacked and repacked for the
        # unfused cell: what a user does to run a fused model's weights on CPU.
        with mx.name.NameManager():
            fused = build(case["cell"][2][0], {})
            f_out, f_states, _ = _unroll(dict(case, merge_outputs=True), fused)
        f_group = mx.sym.Group([f_out] + _flatten(f_states))
        f_shapes, _, _ = f_group.infer_shape(**data_shapes)
        drawn = dict(zip(f_group.list_arguments(), _draw(rng, f_shapes)))
        values = {k: mx.nd.array(v) for k, v in drawn.items() if k in data_shapes}
        params = {k: mx.nd.array(v) for k, v in drawn.items() if k not in data_shapes}
        values.update(cell.pack_weights(fused.unpack_weights(params)))
        values = {k: values[k] for k in args}
    else:
        values = {k: mx.nd.array(v) for k, v in zip(args, _draw(rng, arg_shapes))}
    exe = group.bind(mx.cpu(), args=values, grad_req="null")
    forward = [_list(o.asnumpy()) for o in exe.forward(is_train=False)]
    return {
        "arguments": args,
        "outputs": group.list_outputs(),
        "internals": group.get_internals().list_outputs(),
        "attrs": {k: v for k, v in sorted(group.attr_dict().items())},
        "state_info": _jsonable(cell.state_info),
        "merged": merged,
        "num_states": [len(s) if isinstance(s, list) else None for s in states],
        "arg_shapes": _jsonable(arg_shapes),
        "out_shapes": _jsonable(out_shapes),
        "aux_shapes": _jsonable(aux_shapes),
        "forward": forward,
    }


def _c(kind, kwargs=None, children=None):
    spec = [kind, kwargs or {}]
    if children:
        spec.append(children)
    return spec


def cell_cases():
    lstm = lambda h, p, **kw: _c("LSTMCell", dict(num_hidden=h, prefix=p, **kw))  # noqa: E731
    gru = lambda h, p, **kw: _c("GRUCell", dict(num_hidden=h, prefix=p, **kw))  # noqa: E731
    rnn = lambda h, p, **kw: _c("RNNCell", dict(num_hidden=h, prefix=p, **kw))  # noqa: E731

    def fused(h, layers, mode, bidir=False, state=False, **kw):
        return _c("FusedRNNCell", dict(num_hidden=h, num_layers=layers, mode=mode,
                                       bidirectional=bidir, get_next_state=state, **kw))

    def case(name, cell, length=2, layout="NTC", inputs="symbol", step=(3,), **kw):
        out = {"name": name, "cell": cell, "length": length, "layout": layout,
               "inputs": inputs, "step_shape": list(step), "seed": len(name) * 7 + length}
        out.update(kw)
        return out

    conv_in = dict(input_shape=[N, 2, 3, 3], num_hidden=2)
    cases = [
        case("rnn_tanh_default", _c("RNNCell", dict(num_hidden=4))),
        case("rnn_relu_tnc_merged", rnn(4, "r_", activation="relu"), layout="TNC",
             merge_outputs=True),
        case("rnn_list_inputs", rnn(3, "rl_"), inputs="list", merge_outputs=False),
        case("lstm_default", _c("LSTMCell", dict(num_hidden=4))),
        case("lstm_ntc_merged", lstm(4, "lstm_", forget_bias=0.5), length=3,
             merge_outputs=True),
        case("lstm_tnc_list", lstm(3, "l_"), layout="TNC", inputs="list", merge_outputs=False),
        case("lstm_variable_states", lstm(3, "lv_"), begin_state="variable",
             merge_outputs=True),
        case("gru_default", _c("GRUCell", dict(num_hidden=4)), merge_outputs=True),
        case("gru_tnc_list", gru(3, "g_"), layout="TNC", inputs="list"),
        case("sequential_stack",
             _c("SequentialRNNCell", {}, [lstm(4, "s0_"), _c("DropoutCell", dict(dropout=0.5)),
                                          gru(3, "s1_"), rnn(2, "s2_")]),
             merge_outputs=True),
        case("sequential_shared_params",
             _c("SequentialRNNCell", {}, [lstm(3, "a_", params="shared_"),
                                          lstm(3, "b_", params="shared_")])),
        case("bidirectional_merged",
             _c("BidirectionalCell", {}, [lstm(3, "l_"), lstm(3, "r_")]), merge_outputs=True),
        case("bidirectional_list", length=3, cell=
             _c("BidirectionalCell", dict(output_prefix="bd_"), [gru(2, "gl_"), rnn(3, "rr_")]),
             inputs="list"),
        case("bidirectional_tnc_unmerged",
             _c("BidirectionalCell", {}, [rnn(2, "l_"), rnn(2, "r_")]), layout="TNC",
             merge_outputs=False),
        case("bidirectional_fused_sides",
             _c("BidirectionalCell", {}, [fused(2, 1, "gru", prefix="fl_"),
                                          lstm(2, "lr_")])),
        case("sequential_bidirectional",
             _c("SequentialRNNCell", {}, [
                 _c("BidirectionalCell", dict(output_prefix="bi0_"), [rnn(3, "l0_"),
                                                                      rnn(3, "r0_")]),
                 lstm(3, "top_")]), merge_outputs=True),
        case("fused_lstm_1", fused(4, 1, "lstm"), merge_outputs=True),
        case("fused_lstm_2_bi_states", fused(3, 2, "lstm", bidir=True, state=True), length=3,
             merge_outputs=False),
        case("fused_gru_2_tnc_states", fused(3, 2, "gru", state=True), layout="TNC"),
        case("fused_rnn_relu_bi_list", fused(3, 1, "rnn_relu", bidir=True), inputs="list",
             merge_outputs=True),
        case("fused_rnn_tanh_2_tnc", fused(2, 2, "rnn_tanh", prefix="ft_"), layout="TNC",
             merge_outputs=False),
        case("fused_lstm_variable_states", fused(3, 1, "lstm", state=True),
             begin_state="variable", layout="TNC"),
        case("unfuse_lstm_1", _c("unfuse", {}, [fused(4, 1, "lstm")]), merge_outputs=True),
        case("unfuse_lstm_2_bi", _c("unfuse", {}, [fused(3, 2, "lstm", bidir=True)]),
             merge_outputs=True),
        case("unfuse_gru_2_dropout", _c("unfuse", {}, [fused(3, 2, "gru", dropout=0.5)]),
             layout="TNC", merge_outputs=True),
        case("unfuse_rnn_relu_bi", _c("unfuse", {}, [fused(2, 1, "rnn_relu", bidir=True)]),
             merge_outputs=True),
        case("unfuse_rnn_tanh_2", _c("unfuse", {}, [fused(3, 2, "rnn_tanh", prefix="t_")]),
             layout="TNC", merge_outputs=True),
        case("dropout_symbol", _c("DropoutCell", dict(dropout=0.3))),
        case("dropout_list", _c("DropoutCell", dict(dropout=0.3)), inputs="list"),
        case("dropout_zero_merged", _c("DropoutCell", dict(dropout=0.0)), inputs="list",
             merge_outputs=True),
        case("zoneout_lstm", _c("ZoneoutCell", dict(zoneout_outputs=0.3, zoneout_states=0.4),
                                [lstm(3, "z_")]), inputs="list"),
        case("zoneout_gru_outputs_only", _c("ZoneoutCell", dict(zoneout_outputs=0.5),
                                            [gru(3, "zg_")]), merge_outputs=True),
        case("zoneout_none", _c("ZoneoutCell", {}, [rnn(3, "zn_")])),
        case("residual_merged", _c("ResidualCell", {}, [rnn(3, "res_")]), merge_outputs=True),
        case("residual_list", _c("ResidualCell", {}, [gru(3, "rg_")]), inputs="list"),
        case("residual_default_merge", _c("ResidualCell", {}, [lstm(3, "rd_")])),
        case("residual_fused", _c("ResidualCell", {}, [fused(3, 1, "lstm", prefix="rf_")])),
        case("residual_bidirectional",
             _c("ResidualCell", {}, [_c("BidirectionalCell", {}, [gru(2, "rl_"),
                                                                  gru(2, "rr_")])]),
             inputs="list", step=(4,), merge_outputs=False),
        case("residual_bidirectional_merged",
             _c("ResidualCell", {}, [_c("BidirectionalCell", dict(output_prefix="rb_"),
                                        [lstm(2, "bl_"), rnn(2, "br_")])]),
             step=(4,), merge_outputs=True),
        case("residual_step_in_stack",
             _c("SequentialRNNCell", {}, [lstm(3, "b0_"),
                                          _c("ResidualCell", {}, [lstm(3, "b1_")])]),
             merge_outputs=True),
        case("zoneout_in_stack",
             _c("SequentialRNNCell", {}, [_c("ZoneoutCell", dict(zoneout_states=0.2),
                                             [gru(3, "q0_")]), rnn(2, "q1_")]),
             layout="TNC"),
        case("conv_rnn", _c("ConvRNNCell", conv_in), length=2, step=(2, 3, 3)),
        case("conv_lstm", _c("ConvLSTMCell", conv_in), length=2, step=(2, 3, 3),
             merge_outputs=True),
        case("conv_lstm_tanh", _c("ConvLSTMCell", dict(conv_in, activation="tanh",
                                                        prefix="cl_")),
             length=2, step=(2, 3, 3), inputs="list"),
        case("conv_gru", _c("ConvGRUCell", dict(conv_in, h2h_kernel=[1, 1])), length=2,
             step=(2, 3, 3), layout="TNC"),
        case("conv_rnn_strided", _c("ConvRNNCell", dict(
            input_shape=[N, 2, 5, 5], num_hidden=3, i2h_kernel=[3, 3], i2h_stride=[2, 2],
            i2h_pad=[0, 0], h2h_kernel=[3, 3], h2h_dilate=[2, 2], prefix="cs_")),
             length=2, step=(2, 5, 5), merge_outputs=True),
    ]
    out = []
    for c in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            c.update(run_cell_case(c))
        out.append(c)
    return out


# --------------------------------------------------------------------- pack

def pack_cases():
    out = []
    rng = np.random.RandomState(11)

    def arrays(shapes):
        return {k: mx.nd.array(rng.uniform(-0.5, 0.5, s).astype(np.float32))
                for k, s in shapes}

    def record(args):
        return [[k, _list(v.asnumpy())] for k, v in args.items()]

    stacked = [
        ("lstm", _c("LSTMCell", dict(num_hidden=2, prefix="lstm_")),
         [("lstm_i2h_weight", (8, 3)), ("lstm_i2h_bias", (8,)), ("lstm_h2h_weight", (8, 2)),
          ("lstm_h2h_bias", (8,)), ("other", (2,))]),
        ("gru", _c("GRUCell", dict(num_hidden=2, prefix="g_")),
         [("g_i2h_weight", (6, 2)), ("g_i2h_bias", (6,)), ("g_h2h_weight", (6, 2)),
          ("g_h2h_bias", (6,))]),
        ("rnn", _c("RNNCell", dict(num_hidden=2, prefix="r_")),
         [("r_i2h_weight", (2, 2)), ("r_i2h_bias", (2,)), ("r_h2h_weight", (2, 2)),
          ("r_h2h_bias", (2,))]),
        ("bidirectional", _c("BidirectionalCell", {}, [
            _c("RNNCell", dict(num_hidden=1, prefix="bl_")),
            _c("GRUCell", dict(num_hidden=1, prefix="br_"))]),
         [("bl_i2h_weight", (1, 2)), ("bl_i2h_bias", (1,)), ("bl_h2h_weight", (1, 1)),
          ("bl_h2h_bias", (1,)), ("br_i2h_weight", (3, 2)), ("br_i2h_bias", (3,)),
          ("br_h2h_weight", (3, 1)), ("br_h2h_bias", (3,))]),
        ("zoneout", _c("ZoneoutCell", dict(zoneout_outputs=0.5),
                       [_c("LSTMCell", dict(num_hidden=1, prefix="zl_"))]),
         [("zl_i2h_weight", (4, 2)), ("zl_i2h_bias", (4,)), ("zl_h2h_weight", (4, 1)),
          ("zl_h2h_bias", (4,))]),
    ]
    for name, spec, shapes in stacked:
        cell = build(spec, {})
        args = arrays(shapes)
        unpacked = cell.unpack_weights(args)
        packed = cell.pack_weights(unpacked)
        out.append({"name": name, "cell": spec, "packed_in": record(args),
                    "unpacked": record(unpacked), "repacked": record(packed)})

    fused = [
        ("fused_lstm_1", dict(num_hidden=2, num_layers=1, mode="lstm"), 3),
        ("fused_gru_2_bi", dict(num_hidden=2, num_layers=2, mode="gru", bidirectional=True), 2),
        ("fused_rnn_relu_2", dict(num_hidden=1, num_layers=2, mode="rnn_relu",
                                  prefix="fr_"), 2),
        ("fused_rnn_tanh_bi", dict(num_hidden=2, num_layers=1, mode="rnn_tanh",
                                   bidirectional=True), 1),
    ]
    for name, kwargs, num_input in fused:
        spec = _c("FusedRNNCell", kwargs)
        cell = build(spec, {})
        pname = cell._parameter.name
        b = 2 if kwargs.get("bidirectional") else 1
        m = {"lstm": 4, "gru": 3}.get(kwargs["mode"], 1)
        h, layers = kwargs["num_hidden"], kwargs["num_layers"]
        size = (num_input + h + 2) * h * m * b + (layers - 1) * m * h * (h + b * h + 2) * b
        args = arrays([(pname, (size,)), ("other", (1,))])
        unpacked = cell.unpack_weights(args)
        packed = cell.pack_weights(unpacked)
        out.append({"name": name, "cell": spec, "packed_in": record(args),
                    "unpacked": record(unpacked), "repacked": record(packed)})
    return out


# --------------------------------------------------------------- checkpoint

def checkpoint_cases():
    """MXNet's save_rnn_checkpoint of a fused LSTM (its vector unpacked on
    disk); load_rnn_checkpoint's symbol run on its packed parameters."""
    out = []
    for name, kwargs in [("fused_lstm_bi", dict(num_hidden=2, num_layers=1, mode="lstm",
                                                 bidirectional=True, prefix="ck_")),
                         ("fused_gru_2", dict(num_hidden=2, num_layers=2, mode="gru"))]:
        spec = _c("FusedRNNCell", kwargs)
        with mx.name.NameManager():
            cell = build(spec, {})
            outputs, _ = cell.unroll(3, mx.sym.Variable("data"), layout="TNC",
                                     merge_outputs=True)
        rng = np.random.RandomState(5)
        data_shape = (3, N, 2)
        arg_shapes, _, _ = outputs.infer_shape(data=data_shape)
        values = {k: mx.nd.array(v) for k, v in
                  zip(outputs.list_arguments(), _draw(rng, arg_shapes))}
        params = {k: v for k, v in values.items() if k != "data"}
        with tempfile.TemporaryDirectory() as tmp:
            prefix = os.path.join(tmp, "ck")
            mx.rnn.save_rnn_checkpoint(cell, prefix, 3, outputs, params, {})
            with open(prefix + "-symbol.json") as f:
                symbol_json = f.read()
            with open(prefix + "-0003.params", "rb") as f:
                params_bytes = f.read()
            sym, arg, aux = mx.rnn.load_rnn_checkpoint(cell, prefix, 3)
        saved = sorted(mx.nd.load_frombuffer(params_bytes).keys())
        arg["data"] = values["data"]
        exe = sym.bind(mx.cpu(), args=arg, grad_req="null")
        forward = [_list(o.asnumpy()) for o in exe.forward(is_train=False)]
        out.append({"name": name, "cell": spec, "epoch": 3, "data_shape": list(data_shape),
                    "seed": 5, "symbol_json": symbol_json,
                    "params_b64": base64.b64encode(params_bytes).decode("ascii"),
                    "saved_keys": saved, "loaded_keys": sorted(arg), "forward": forward})
    return out


# ----------------------------------------------------------------------- io

CORPUS = [
    "the cat sat on the mat", "a dog ran", "the dog sat", "birds fly high in the sky",
    "a cat ran fast", "it rained", "the sun came out again today", "we went home",
    "they sat on the bench by the river", "go", "cats chase mice", "the end of it",
    "a b", "c d", "e f g", "h i j", "k l m n", "o p q r", "s t u v w", "x y z",
    "one two three four five six seven eight nine ten eleven twelve",
]


def encode_cases():
    sents = [s.split() for s in CORPUS]
    out = []
    specs = [
        ("new_vocab", {}),
        ("new_vocab_start_1", {"start_label": 1, "invalid_label": 0, "invalid_key": "<eos>"}),
        ("invalid_label_in_the_way", {"start_label": 0, "invalid_label": 2}),
    ]
    for name, kwargs in specs:
        ids, vocab = mx.rnn.encode_sentences(sents, **kwargs)
        out.append({"name": name, "kwargs": kwargs, "sentences": sents, "vocab_in": None,
                    "ids": ids, "vocab": list(vocab.items())})
    # A given vocabulary: unknown tokens map to unknown_token, numbered as MXNet does.
    base = [["the", 1], ["cat", 2], ["dog", 3], ["\n", -1]]
    ids, vocab = mx.rnn.encode_sentences(sents[:4], vocab=dict(base), unknown_token="<unk>",
                                         start_label=4)
    out.append({"name": "given_vocab_unknown", "kwargs": {"unknown_token": "<unk>",
                                                          "start_label": 4},
                "sentences": sents[:4], "vocab_in": base, "ids": ids,
                "vocab": list(vocab.items())})
    ids, vocab = mx.rnn.encode_sentences([["the", "cat"], ["cat"]], vocab=dict(base))
    out.append({"name": "given_vocab_known", "kwargs": {}, "sentences": [["the", "cat"],
                                                                          ["cat"]],
                "vocab_in": base, "ids": ids, "vocab": list(vocab.items())})
    return out


def bucket_sentences():
    """The corpus as ids: every bucket case's sentences."""
    return mx.rnn.encode_sentences([s.split() for s in CORPUS], start_label=1,
                                   invalid_label=0)[0]


def bucket_cases():
    sents = bucket_sentences()
    specs = [
        ("auto_buckets", {"batch_size": 2}),
        ("given_buckets_tn_int", {"batch_size": 2, "buckets": [9, 3, 5, 7], "layout": "TN",
                                  "dtype": "int32", "invalid_label": 0}),
        ("names_and_one_big_bucket", {"batch_size": 3, "buckets": [12],
                                      "data_name": "words", "label_name": "next"}),
        ("discards_long", {"batch_size": 2, "buckets": [2, 4, 6, 20, 30], "invalid_label": -1}),
    ]
    out = []
    for seed, (name, kwargs) in enumerate(specs):
        random.seed(seed)
        np.random.seed(seed)
        kw = dict(kwargs)
        if "buckets" in kw:
            kw["buckets"] = list(kw["buckets"])
        it = mx.rnn.BucketSentenceIter(sents, **kw)
        epochs = []
        for _ in range(2):
            batches = []
            for batch in it:
                batches.append({
                    "data": _list(batch.data[0].asnumpy()),
                    "label": _list(batch.label[0].asnumpy()),
                    "dtype": np.dtype(batch.data[0].dtype).name,
                    "bucket_key": batch.bucket_key, "pad": batch.pad,
                    "provide_data": [[d.name, list(d.shape), d.layout]
                                     for d in batch.provide_data],
                    "provide_label": [[d.name, list(d.shape), d.layout]
                                      for d in batch.provide_label]})
            epochs.append(batches)
            it.reset()
        out.append({"name": name, "seed": seed, "kwargs": kwargs,
                    "buckets": list(it.buckets), "default_bucket_key": it.default_bucket_key,
                    "provide_data": [[d.name, list(d.shape), d.layout] for d in it.provide_data],
                    "provide_label": [[d.name, list(d.shape), d.layout]
                                      for d in it.provide_label],
                    "epochs": epochs})
    return out


def main():
    golden = {
        "about": "MXNet %s's mx.rnn results; made by tools/golden/make_rnn_golden.py"
                 % mx.__version__,
        "batch": N,
        "cells": cell_cases(),
        "pack": pack_cases(),
        "checkpoint": checkpoint_cases(),
        "encode": encode_cases(),
        "bucket_sentences": bucket_sentences(),
        "bucket_iter": bucket_cases(),
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(golden, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print("wrote %s (%d bytes)" % (os.path.abspath(OUT), os.path.getsize(OUT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
