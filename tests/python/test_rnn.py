"""mx.rnn: the cells, unroll, weight packing, checkpoints and the bucketing
iterator against MXNet 1.9.1, and symx's errors for what they refuse.

The golden cases (golden/rnn_golden.json, from tools/golden/make_rnn_golden.py)
describe each cell as JSON; build() makes the same cell here, and the unrolled
graph must have MXNet's names (arguments, outputs, every internal node),
attributes, shapes and forward values. Inputs and parameters are redrawn from
np.random.RandomState(seed) in list_arguments order, as the script drew them.
"""
import base64
import json
import os
import random
import warnings

import numpy as np
import pytest

import symx as mx
from symx.base import MXNetError

with open(os.path.join(os.path.dirname(__file__), "golden", "rnn_golden.json")) as _f:
    _GOLDEN = json.load(_f)

N = _GOLDEN["batch"]
CELLS = {c["name"]: c for c in _GOLDEN["cells"]}
PACK = {c["name"]: c for c in _GOLDEN["pack"]}
CHECKPOINT = {c["name"]: c for c in _GOLDEN["checkpoint"]}
ENCODE = {c["name"]: c for c in _GOLDEN["encode"]}
BUCKET = {c["name"]: c for c in _GOLDEN["bucket_iter"]}

# Step cells chain small kernels whose summation order differs from MXNet's.
TOL = dict(rtol=1e-4, atol=1e-5)


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


def build(spec, pool):
    """The cell of a golden spec [kind, kwargs, children] (as the script's)."""
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
        out.extend(_flatten(s) if isinstance(s, list) else [s])
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


def _unrolled(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FusedRNNCell's NTC advice
        with mx.name.NameManager():
            cell = build(case["cell"], {})
            outputs, states, data_shapes = _unroll(case, cell)
    return cell, outputs, states, data_shapes


@pytest.mark.parametrize("name", sorted(CELLS))
def test_cell_matches_mxnet(name):
    case = CELLS[name]
    cell, outputs, states, data_shapes = _unrolled(case)
    merged = isinstance(outputs, mx.sym.Symbol)
    assert merged == case["merged"]
    assert [len(s) if isinstance(s, list) else None for s in states] == case["num_states"]
    group = mx.sym.Group(([outputs] if merged else list(outputs)) + _flatten(states))
    args = group.list_arguments()
    assert args == case["arguments"]
    assert group.list_outputs() == case["outputs"]
    assert group.get_internals().list_outputs() == case["internals"]
    assert group.attr_dict() == case["attrs"]
    assert _jsonable(cell.state_info) == case["state_info"]
    arg_shapes, out_shapes, aux_shapes = group.infer_shape(**data_shapes)
    assert _jsonable(arg_shapes) == case["arg_shapes"]
    assert _jsonable(out_shapes) == case["out_shapes"]
    assert _jsonable(aux_shapes) == case["aux_shapes"]

    rng = np.random.RandomState(case["seed"])
    if case["cell"][0] == "unfuse":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
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
    got = exe.forward(is_train=False)
    assert len(got) == len(case["forward"])
    for i, (g, want) in enumerate(zip(got, case["forward"])):
        np.testing.assert_allclose(g.asnumpy(), np.array(want, dtype=np.float32),
                                   err_msg="%s: output %d" % (name, i), **TOL)


@pytest.mark.parametrize("name", sorted(PACK))
def test_pack_unpack_match_mxnet(name):
    case = PACK[name]
    cell = build(case["cell"], {})
    args = {k: mx.nd.array(np.array(v, dtype=np.float32)) for k, v in case["packed_in"]}
    unpacked = cell.unpack_weights(args)
    assert list(unpacked) == [k for k, _ in case["unpacked"]]
    for k, want in case["unpacked"]:
        np.testing.assert_array_equal(unpacked[k].asnumpy(), np.array(want, dtype=np.float32),
                                      err_msg=k)
    repacked = cell.pack_weights(unpacked)
    assert list(repacked) == [k for k, _ in case["repacked"]]
    for k, want in case["repacked"]:
        np.testing.assert_array_equal(repacked[k].asnumpy(), np.array(want, dtype=np.float32),
                                      err_msg=k)
    # Unpacked arrays are copies: changing them leaves the packed input alone.
    for k, v in unpacked.items():
        if k not in args:
            v[:] = 7
    for k, want in case["packed_in"]:
        np.testing.assert_array_equal(args[k].asnumpy(), np.array(want, dtype=np.float32))


@pytest.mark.parametrize("name", sorted(CHECKPOINT))
def test_loads_mxnet_rnn_checkpoint(name, tmp_path):
    case = CHECKPOINT[name]
    prefix = str(tmp_path / "ck")
    with open(prefix + "-symbol.json", "w") as f:
        f.write(case["symbol_json"])
    with open(prefix + "-%04d.params" % case["epoch"], "wb") as f:
        f.write(base64.b64decode(case["params_b64"]))
    cell = build(case["cell"], {})
    _, saved, _ = mx.model.load_checkpoint(prefix, case["epoch"])
    assert sorted("arg:" + k for k in saved) == case["saved_keys"]
    sym, arg, aux = mx.rnn.load_rnn_checkpoint(cell, prefix, case["epoch"])
    assert aux == {}
    rng = np.random.RandomState(case["seed"])
    arg["data"] = mx.nd.array(_draw(rng, [tuple(case["data_shape"])])[0])
    assert sorted(arg) == case["loaded_keys"]
    exe = sym.bind(mx.cpu(), args=arg, grad_req="null")
    for g, want in zip(exe.forward(is_train=False), case["forward"]):
        np.testing.assert_allclose(g.asnumpy(), np.array(want, dtype=np.float32), **TOL)


@pytest.mark.parametrize("name", sorted(ENCODE))
def test_encode_sentences_matches_mxnet(name):
    case = ENCODE[name]
    vocab = dict(case["vocab_in"]) if case["vocab_in"] is not None else None
    ids, vocab = mx.rnn.encode_sentences(case["sentences"], vocab=vocab, **case["kwargs"])
    assert ids == case["ids"]
    assert list(vocab.items()) == [tuple(p) for p in case["vocab"]]


@pytest.mark.parametrize("name", sorted(BUCKET))
def test_bucket_sentence_iter_matches_mxnet(name, capsys):
    case = BUCKET[name]
    random.seed(case["seed"])
    np.random.seed(case["seed"])
    kwargs = dict(case["kwargs"])
    if "buckets" in kwargs:
        kwargs["buckets"] = list(kwargs["buckets"])
    it = mx.rnn.BucketSentenceIter(_GOLDEN["bucket_sentences"], **kwargs)
    assert "WARNING: discarded" in capsys.readouterr().out
    assert it.buckets == case["buckets"]
    assert it.default_bucket_key == case["default_bucket_key"]

    def desc(ds):
        return [[d.name, list(d.shape), d.layout] for d in ds]
    assert desc(it.provide_data) == case["provide_data"]
    assert desc(it.provide_label) == case["provide_label"]
    for epoch, want_batches in enumerate(case["epochs"]):
        batches = list(it)
        assert len(batches) == len(want_batches), "epoch %d" % epoch
        for got, want in zip(batches, want_batches):
            assert np.dtype(got.data[0].dtype).name == want["dtype"]
            np.testing.assert_array_equal(got.data[0].asnumpy(), np.array(want["data"]))
            np.testing.assert_array_equal(got.label[0].asnumpy(), np.array(want["label"]))
            assert got.bucket_key == want["bucket_key"]
            assert got.pad == want["pad"]
            assert desc(got.provide_data) == want["provide_data"]
            assert desc(got.provide_label) == want["provide_label"]
        it.reset()


# ----------------------------------------------------------- symx by itself

def test_public_names():
    for name in ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
                 "SequentialRNNCell", "BidirectionalCell", "DropoutCell", "ModifierCell",
                 "ZoneoutCell", "ResidualCell", "BaseConvRNNCell", "ConvRNNCell",
                 "ConvLSTMCell", "ConvGRUCell", "encode_sentences", "BucketSentenceIter",
                 "save_rnn_checkpoint", "load_rnn_checkpoint", "do_rnn_checkpoint",
                 "rnn_unroll", "rnn_cell", "io", "rnn"]:
        assert hasattr(mx.rnn, name), name


def test_fused_and_unfused_agree():
    """A fused LSTM's vector, unpacked for its unfused stack, gives the same outputs."""
    fused = mx.rnn.FusedRNNCell(3, num_layers=2, mode="lstm", bidirectional=True,
                                prefix="f_")
    data = mx.sym.Variable("data")
    f_out, _ = fused.unroll(3, data, layout="TNC", merge_outputs=True)
    stack = fused.unfuse()
    u_out, _ = stack.unroll(3, data, layout="TNC", merge_outputs=True)
    shapes, _, _ = f_out.infer_shape(data=(3, 2, 4))
    rng = np.random.RandomState(0)
    values = {k: mx.nd.array(v) for k, v in zip(f_out.list_arguments(), _draw(rng, shapes))}
    want = f_out.bind(mx.cpu(), args=values, grad_req="null").forward()[0].asnumpy()
    params = stack.pack_weights(fused.unpack_weights(
        {k: v for k, v in values.items() if k != "data"}))
    params["data"] = values["data"]
    got = u_out.bind(mx.cpu(), args=params, grad_req="null").forward()[0].asnumpy()
    np.testing.assert_allclose(got, want, **TOL)
    # And back: the stack's arrays pack into the very same vector.
    back = fused.pack_weights(stack.unpack_weights({k: v for k, v in params.items()
                                                    if k != "data"}))
    np.testing.assert_array_equal(back["f_parameters"].asnumpy(),
                                  values["f_parameters"].asnumpy())


def test_step_by_step_equals_unroll():
    cell = mx.rnn.LSTMCell(3, prefix="s_")
    x = [mx.sym.Variable("x%d" % i) for i in range(2)]
    states = cell.begin_state()
    outs = []
    for xi in x:
        out, states = cell(xi, states)
        outs.append(out)
    assert [o.name for o in outs] == ["s_t0_out", "s_t1_out"]
    assert [s.name for s in states] == ["s_t1_out", "s_t1_state"]
    cell.reset()
    unrolled, _ = cell.unroll(2, x)
    assert [o.name for o in unrolled] == ["s_t0_out", "s_t1_out"]


def test_begin_state_func_and_kwargs():
    cell = mx.rnn.LSTMCell(3, prefix="b_")
    states = cell.begin_state(func=mx.sym.Variable)
    assert [s.name for s in states] == ["b_begin_state_0", "b_begin_state_1"]
    assert states[0].attr("__layout__") == "NC"
    zeros = cell.begin_state(dtype="float16")
    assert [s.name for s in zeros] == ["b_begin_state_2", "b_begin_state_3"]
    assert zeros[0].attr("dtype") == "float16"
    assert cell.state_shape == [(0, 3), (0, 3)]
    fused = mx.rnn.FusedRNNCell(4, num_layers=3, bidirectional=True, mode="gru")
    assert fused.state_shape == [(6, 0, 4)]
    assert fused.state_info[0]["__layout__"] == "LNC"


def test_params_are_shared_between_cells():
    params = mx.rnn.RNNParams("w_")
    a = mx.rnn.GRUCell(3, prefix="a_", params=params)
    b = mx.rnn.GRUCell(3, prefix="b_", params=params)
    assert a._iW is b._iW
    assert params.get("i2h_weight") is a._iW
    out, _ = b.unroll(2, a.unroll(2, mx.sym.Variable("data"))[0])
    assert sorted(out[-1].list_arguments()) == ["data", "w_h2h_bias", "w_h2h_weight",
                                                "w_i2h_bias", "w_i2h_weight"]


def test_lstm_bias_initializer_sets_forget_gate():
    cell = mx.rnn.LSTMCell(2, prefix="i_", forget_bias=2.5)
    out, _ = cell.unroll(1, mx.sym.Variable("data"), merge_outputs=True)
    mod = mx.mod.Module(out, data_names=["data"], label_names=None)
    mod.bind(data_shapes=[("data", (1, 1, 3))], for_training=False)
    mod.init_params(mx.init.Xavier())
    bias = mod.get_params()[0]["i_i2h_bias"].asnumpy()
    np.testing.assert_array_equal(bias, [0, 0, 2.5, 2.5, 0, 0, 0, 0])


def test_rnn_checkpoint_round_trip(tmp_path):
    cell = mx.rnn.SequentialRNNCell()
    cell.add(mx.rnn.LSTMCell(3, prefix="c0_"))
    cell.add(mx.rnn.FusedRNNCell(2, num_layers=1, mode="gru", prefix="c1_"))
    out, _ = cell.unroll(2, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    shapes, _, _ = out.infer_shape(data=(2, 2, 4))
    rng = np.random.RandomState(3)
    args = {k: mx.nd.array(v) for k, v in zip(out.list_arguments(), _draw(rng, shapes))
            if k != "data"}
    prefix = str(tmp_path / "model")
    mx.rnn.save_rnn_checkpoint(cell, prefix, 7, out, args, {})
    _, on_disk, _ = mx.model.load_checkpoint(prefix, 7)
    # On disk the weights are per gate (what MXNet writes, what unfused cells use).
    assert "c0_i2h_f_weight" in on_disk and "c1_l0_h2h_z_bias" in on_disk
    assert "c0_i2h_weight" not in on_disk and "c1_parameters" not in on_disk
    sym, arg, aux = mx.rnn.load_rnn_checkpoint(cell, prefix, 7)
    assert sym.list_arguments() == out.list_arguments()
    assert sorted(arg) == sorted(args) and aux == {}
    for k, v in args.items():
        np.testing.assert_array_equal(arg[k].asnumpy(), v.asnumpy(), err_msg=k)

    callback = mx.rnn.do_rnn_checkpoint([cell], prefix + "-cb", period=2)
    for epoch in range(4):
        callback(epoch, out, args, {})
    written = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("model-cb"))
    assert written == ["model-cb-0002.params", "model-cb-0004.params", "model-cb-symbol.json"]


def test_rnn_unroll_is_deprecated_unroll():
    cell = mx.rnn.RNNCell(2, prefix="d_")
    with pytest.warns(UserWarning, match="deprecated"):
        outputs, _ = mx.rnn.rnn_unroll(cell, 2, mx.sym.Variable("data"))
    assert [o.name for o in outputs] == ["d_t0_out", "d_t1_out"]
    with pytest.warns(UserWarning), pytest.raises(MXNetError, match="input_prefix"):
        mx.rnn.rnn_unroll(cell, 2, mx.sym.Variable("data"), input_prefix="in_")


def test_bucket_iter_drives_a_bucketing_module():
    """The iterator's batches drive BucketingModule with cells unrolled per bucket."""
    random.seed(0)
    np.random.seed(0)
    sents = [[1, 2, 3], [2, 3, 1], [3, 1, 2, 3, 1], [1, 1, 2, 2, 3], [2, 2], [3, 3]]
    it = mx.rnn.BucketSentenceIter(sents, 2, buckets=[2, 3, 5], invalid_label=0)

    def sym_gen(length):
        cell = mx.rnn.LSTMCell(4, prefix="lm_")
        embed = mx.sym.Embedding(mx.sym.Variable("data"), input_dim=4, output_dim=3,
                                 name="embed")
        out, _ = cell.unroll(length, embed, merge_outputs=True)
        pred = mx.sym.FullyConnected(mx.sym.Reshape(out, shape=(-1, 4)), num_hidden=4,
                                     name="pred")
        label = mx.sym.Reshape(mx.sym.Variable("softmax_label"), shape=(-1,))
        return mx.sym.SoftmaxOutput(pred, label, name="softmax"), ("data",), ("softmax_label",)

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=it.default_bucket_key)
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.init_params(mx.init.Xavier())
    keys = []
    for batch in it:
        mod.forward(batch, is_train=True)
        mod.backward()
        keys.append(batch.bucket_key)
        assert mod.get_outputs()[0].shape == (2 * batch.bucket_key, 4)
    assert sorted(keys) == [2, 3, 5]


# ------------------------------------------------------------------- errors

def _data():
    return mx.sym.Variable("data")


@pytest.mark.parametrize("layout", ["NCT", "CTN", "TC", "NTNC", 3])
def test_unroll_rejects_layouts(layout):
    for cell in (mx.rnn.LSTMCell(2), mx.rnn.FusedRNNCell(2),
                 mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2, prefix="l_"),
                                          mx.rnn.GRUCell(2, prefix="r_"))):
        with pytest.raises(MXNetError, match="layout"):
            cell.unroll(2, _data(), layout=layout)


def test_unroll_length_mismatch():
    cell = mx.rnn.RNNCell(2)
    inputs = [mx.sym.Variable("x%d" % i) for i in range(3)]
    with pytest.raises(MXNetError, match="3 input symbols for length=2"):
        cell.unroll(2, inputs)
    # MXNet asserts there; scripts catching AssertionError keep working.
    with pytest.raises(AssertionError):
        mx.rnn.FusedRNNCell(2).unroll(4, inputs)
    # A sequence symbol's time axis is checked when shapes are known.
    outputs, _ = cell.unroll(2, _data(), merge_outputs=True)
    with pytest.raises(MXNetError):
        outputs.infer_shape(data=(2, 3, 4))


@pytest.mark.parametrize("length", [0, -1, 1.5, None, True])
def test_unroll_rejects_bad_length(length):
    with pytest.raises(MXNetError, match="length"):
        mx.rnn.LSTMCell(2).unroll(length, _data())


def test_unroll_rejects_bad_inputs():
    cell = mx.rnn.GRUCell(2)
    with pytest.raises(MXNetError, match="inputs=None"):
        cell.unroll(2, None)
    with pytest.raises(MXNetError, match="grouped symbol"):
        cell.unroll(2, mx.sym.Group([_data(), mx.sym.Variable("other")]))
    with pytest.raises(MXNetError, match="Symbol or a list of Symbols"):
        cell.unroll(2, np.zeros((2, 2, 3)))
    with pytest.raises(MXNetError, match="Symbol or a list of Symbols"):
        cell.unroll(2, [_data(), "x"])
    with pytest.raises(MXNetError, match="begin_state holds 2 states, the cell has 1"):
        cell.unroll(2, _data(), begin_state=[_data(), _data()])


def test_cells_that_cannot_step():
    x, s = _data(), [mx.sym.Variable("s")]
    bi = mx.rnn.BidirectionalCell(mx.rnn.RNNCell(2, prefix="l_"), mx.rnn.RNNCell(2, prefix="r_"))
    for cell in (mx.rnn.FusedRNNCell(2), bi, mx.rnn.BaseRNNCell()):
        with pytest.raises(MXNetError, match="step"):
            cell(x, s)
        with pytest.raises(NotImplementedError):
            cell(x, s)
    stack = mx.rnn.SequentialRNNCell()
    stack.add(bi)
    with pytest.raises(MXNetError, match="BidirectionalCell"):
        stack(x, s + s)
    with pytest.raises(MXNetError, match="state_info"):
        mx.rnn.BaseRNNCell().state_info


def test_modifier_rules():
    base = mx.rnn.LSTMCell(2, prefix="m_")
    zone = mx.rnn.ZoneoutCell(base, zoneout_outputs=0.1)
    with pytest.raises(MXNetError, match="modifier"):
        base.begin_state()
    assert [s.name for s in zone.begin_state(func=mx.sym.Variable)] == ["m_begin_state_0",
                                                                         "m_begin_state_1"]
    with pytest.raises(MXNetError, match="unfuse"):
        mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(2))
    bi = mx.rnn.BidirectionalCell(mx.rnn.RNNCell(2, prefix="l_"), mx.rnn.RNNCell(2, prefix="r_"))
    with pytest.raises(MXNetError, match="BidirectionalCell"):
        mx.rnn.ZoneoutCell(bi)
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.BidirectionalCell(mx.rnn.RNNCell(2, prefix="l_"),
                                       mx.rnn.RNNCell(2, prefix="r_")))
    with pytest.raises(MXNetError, match="BidirectionalCell"):
        mx.rnn.ZoneoutCell(stack)
    with pytest.raises(MXNetError, match="base_cell"):
        mx.rnn.ResidualCell("lstm")


def test_modifiers_around_a_stack():
    """symx also takes a stack of step cells under ZoneoutCell, and a
    modifier's begin_state over a stack (MXNet 1.9.1 fails on both: its
    Zoneout check reads an attribute stacks lack, and its begin_state passes
    the stack a positional argument)."""
    def make_stack():
        stack = mx.rnn.SequentialRNNCell()
        stack.add(mx.rnn.GRUCell(3, prefix="g0_"))
        stack.add(mx.rnn.ResidualCell(mx.rnn.LSTMCell(3, prefix="g1_")))
        return stack
    cell = mx.rnn.ResidualCell(mx.rnn.ZoneoutCell(make_stack(), zoneout_outputs=0.5,
                                                  zoneout_states=0.5))
    states = cell.begin_state(func=mx.sym.Variable)
    assert [s.name for s in states] == ["g0_begin_state_0", "g1_begin_state_0",
                                        "g1_begin_state_1"]
    out, states = cell.unroll(2, mx.sym.Variable("data"), merge_outputs=True)
    assert out.name.endswith("_plus_residual")
    assert len(states) == 3
    shapes, out_shapes, _ = out.infer_shape(data=(2, 2, 3))
    assert out_shapes == [(2, 2, 3)]
    rng = np.random.RandomState(1)
    values = {k: mx.nd.array(v) for k, v in zip(out.list_arguments(), _draw(rng, shapes))}
    # At inference zoneout keeps every new value: the stack plus its input.
    got = out.bind(mx.cpu(), args=values, grad_req="null").forward()[0].asnumpy()
    plain, _ = make_stack().unroll(2, mx.sym.Variable("data"), merge_outputs=True)
    base = plain.bind(mx.cpu(), args={k: values[k] for k in plain.list_arguments()},
                      grad_req="null").forward()[0].asnumpy()
    np.testing.assert_allclose(got, base + values["data"].asnumpy(), **TOL)


def test_constructor_errors():
    with pytest.raises(MXNetError, match="mode 'lstmp'"):
        mx.rnn.FusedRNNCell(2, mode="lstmp")
    with pytest.raises(MXNetError, match="dropout"):
        mx.rnn.DropoutCell("0.5")
    with pytest.raises(MXNetError, match="RNNParams"):
        mx.rnn.LSTMCell(2, params={"i2h_weight": _data()})
    with pytest.raises(MXNetError, match="odd"):
        mx.rnn.ConvLSTMCell((1, 2, 4, 4), 2, h2h_kernel=(2, 3))
    with pytest.raises(MXNetError, match="conv_layout 'NHWC'"):
        mx.rnn.ConvRNNCell((1, 4, 4, 2), 2, conv_layout="NHWC")
    with pytest.raises(MXNetError, match="activation"):
        mx.rnn.RNNCell(2, activation=3).unroll(1, _data())
    # MXNet's rule: params for the stack or for the cells, not both (a cell
    # that made its weights has handed its params out).
    stack = mx.rnn.SequentialRNNCell(params=mx.rnn.RNNParams("s_"))
    with pytest.raises(MXNetError, match="not both"):
        stack.add(mx.rnn.RNNCell(2))
    with pytest.raises(MXNetError, match="expected a cell"):
        mx.rnn.SequentialRNNCell().add("cell")


def test_weight_errors():
    lstm = mx.rnn.LSTMCell(2, prefix="w_")
    with pytest.raises(MXNetError, match="w_i2h_weight is not in"):
        lstm.unpack_weights({})
    with pytest.raises(MXNetError, match="do not stack 4 gates"):
        lstm.unpack_weights({"w_i2h_weight": mx.nd.zeros((6, 3)), "w_i2h_bias": mx.nd.zeros(6),
                             "w_h2h_weight": mx.nd.zeros((8, 2)), "w_h2h_bias": mx.nd.zeros(8)})
    with pytest.raises(MXNetError, match="w_i2h_f_weight is not in"):
        lstm.pack_weights({"w_i2h_i_weight": mx.nd.zeros((2, 3))})
    fused = mx.rnn.FusedRNNCell(2, num_layers=2, mode="gru", prefix="f_")
    with pytest.raises(MXNetError, match="does not fit"):
        fused.unpack_weights({"f_parameters": mx.nd.zeros((200,))})
    with pytest.raises(MXNetError, match="too few"):
        fused.unpack_weights({"f_parameters": mx.nd.zeros((10,))})
    with pytest.raises(MXNetError, match="f_parameters is not in"):
        fused.unpack_weights({})
    good = fused.unpack_weights({"f_parameters": mx.nd.zeros((fused._total_size(3),))})
    good["f_l0_h2h_r_weight"] = mx.nd.zeros((2, 3))
    with pytest.raises(MXNetError, match="f_l0_h2h_r_weight has shape"):
        fused.pack_weights(good)
    with pytest.raises(MXNetError, match="f_l0_i2h_r_weight is not in"):
        fused.pack_weights({})


def test_io_errors(capsys):
    with pytest.raises(MXNetError, match="Unknown token zebra"):
        mx.rnn.encode_sentences([["a", "zebra"]], vocab={"a": 0})
    with pytest.raises(AssertionError):
        mx.rnn.encode_sentences([["zebra"]], vocab={"a": 0})
    with pytest.raises(ValueError, match="Invalid layout"):
        mx.rnn.BucketSentenceIter([[1, 2], [2, 1]], 1, layout="CT")
    with pytest.raises(ValueError, match="batch_size"):
        mx.rnn.BucketSentenceIter([[1, 2], [2, 1]], 0)
    with pytest.raises(ValueError, match="no sentence fits"):
        mx.rnn.BucketSentenceIter([[1, 2], [2, 1, 3]], 5)
    with pytest.raises(MXNetError, match="expected an RNN cell"):
        mx.rnn.save_rnn_checkpoint(["cell"], "x", 1, _data(), {}, {})
