"""mx.init: value ranges and statistics of the random initializers, and
against MXNet 1.9.1's numbers (golden/train_golden.json, from
tools/golden/make_python_train_golden.py): dumps() strings, create(), the
arrays the deterministic initializers fill (Bilinear, LSTMBias, FusedRNN,
Mixed, Load, the name-suffix and __init__ dispatch, the legacy str rules).
Orthogonal is checked by its properties; register/alias, errors, verbosity
and mx.random.seed here too.
"""
import json
import logging
import math
import os
import warnings

import numpy as np
import pytest

import symx as mx

with open(os.path.join(os.path.dirname(__file__), "golden", "train_golden.json")) as _f:
    GOLDEN = json.load(_f)["initializer"]

# 180k values: a sample std is within ~0.2% of the true one, so 2% cannot
# flake (the checks below want 90k values or more).
CONV = (200, 100, 3, 3)
FAN_IN, FAN_OUT = 100 * 9, 200 * 9
BIG = (300, 300)
STD_RTOL = 0.02


@pytest.fixture(autouse=True)
def _seeded():
    mx.random.seed(0)


def _init(initializer, name, shape, dtype="float32"):
    """Initializes a zero array named ``name`` (an InitDesc: MXNet's current rules)."""
    arr = mx.nd.zeros(shape, dtype=dtype)
    initializer(name if isinstance(name, mx.init.InitDesc) else mx.init.InitDesc(name), arr)
    return arr.asnumpy()


def _check_uniform(x, bound):
    assert np.abs(x).max() <= bound
    assert np.abs(x).max() > 0.99 * bound  # the whole range is used
    assert abs(x.mean()) < 6 * bound / math.sqrt(3 * x.size)  # 6 standard errors
    np.testing.assert_allclose(x.std(), bound / math.sqrt(3), rtol=STD_RTOL)


def _check_gaussian(x, std):
    assert abs(x.mean()) < 6 * std / math.sqrt(x.size)
    np.testing.assert_allclose(x.std(), std, rtol=STD_RTOL)


# ------------------------------------------------------------- statistics

@pytest.mark.parametrize("scale", [0.02, 0.5])
def test_uniform(scale):
    _check_uniform(_init(mx.init.Uniform(scale), "fc_weight", CONV), scale)


def test_uniform_default_scale():
    _check_uniform(_init(mx.init.Uniform(), "fc_weight", BIG), 0.07)


@pytest.mark.parametrize("sigma", [0.05, 2.0])
def test_normal(sigma):
    _check_gaussian(_init(mx.init.Normal(sigma), "fc_weight", CONV), sigma)


def test_normal_default_sigma():
    _check_gaussian(_init(mx.init.Normal(), "fc_weight", BIG), 0.01)


@pytest.mark.parametrize("rnd_type", ["uniform", "gaussian"])
@pytest.mark.parametrize("factor_type", ["avg", "in", "out"])
def test_xavier(rnd_type, factor_type):
    # scale = sqrt(magnitude / factor), factor from fan_in = C*kh*kw, fan_out = N*kh*kw.
    factor = {"avg": (FAN_IN + FAN_OUT) / 2.0, "in": FAN_IN, "out": FAN_OUT}[factor_type]
    scale = math.sqrt(2.5 / factor)
    x = _init(mx.init.Xavier(rnd_type=rnd_type, factor_type=factor_type, magnitude=2.5),
              "conv_weight", CONV)
    if rnd_type == "uniform":
        _check_uniform(x, scale)
    else:
        _check_gaussian(x, scale)


def test_xavier_2d_fans():
    # A (out, in) matrix: fan_in = shape[1], fan_out = shape[0].
    x = _init(mx.init.Xavier(factor_type="in", magnitude=3), "fc_weight", (300, 600))
    _check_uniform(x, math.sqrt(3.0 / 600))


def test_xavier_needs_two_dims():
    with pytest.raises(mx.MXNetError, match="fc_weight.*2D"):
        _init(mx.init.Xavier(), "fc_weight", (5,))


@pytest.mark.parametrize("kwargs", [{"rnd_type": "triangle"}, {"factor_type": "both"}])
def test_xavier_bad_arguments(kwargs):
    with pytest.raises(mx.MXNetError, match=list(kwargs.values())[0]):
        _init(mx.init.Xavier(**kwargs), "fc_weight", (3, 3))


@pytest.mark.parametrize("factor_type,slope", [("avg", 0.25), ("in", 0.0)])
def test_msraprelu(factor_type, slope):
    # Xavier gaussian with magnitude 2 / (1 + slope^2).
    factor = {"avg": (FAN_IN + FAN_OUT) / 2.0, "in": FAN_IN}[factor_type]
    x = _init(mx.init.MSRAPrelu(factor_type=factor_type, slope=slope), "conv_weight", CONV)
    _check_gaussian(x, math.sqrt(2.0 / (1 + slope ** 2) / factor))


@pytest.mark.parametrize("initializer,value", [(mx.init.Zero(), 0.0), (mx.init.One(), 1.0),
                                               (mx.init.Constant(3), 3.0),
                                               (mx.init.Constant(-0.5), -0.5)])
def test_constants(initializer, value):
    x = _init(initializer, "fc_weight", (4, 5))
    np.testing.assert_array_equal(x, np.full((4, 5), value, np.float32))


def test_float64_arrays():
    x = _init(mx.init.Normal(2.0), "fc_weight", BIG, dtype="float64")
    assert x.dtype == np.float64
    _check_gaussian(x, 2.0)


# ------------------------------------------------------------------ golden

class NameCode(mx.init.Initializer):
    """The generator's NameCode: values that tell which block of which
    parameter they went to (weights code + k/100, biases the negation)."""

    def _init_weight(self, name, arr):
        arr[:] = self._values(name, arr.shape)

    def _init_bias(self, name, arr):
        arr[:] = -self._values(name, arr.shape)

    @staticmethod
    def _values(name, shape):
        code = sum((i + 1) * ord(ch) for i, ch in enumerate(str(name))) % 1000
        return code + np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) / 100


def _make_init(spec):
    """[class, kwargs] or, for FusedRNN, [class, kwargs, inner spec or None]."""
    cls = NameCode if spec[0] == "NameCode" else getattr(mx.init, spec[0])
    if len(spec) == 3:
        return cls(None if spec[2] is None else _make_init(spec[2]), **spec[1])
    return cls(**spec[1])


def _case_id(case):
    return "%s-%s-%s" % (case["call"][0], case["name"], "x".join(map(str, case["shape"])))


@pytest.mark.parametrize("case", GOLDEN["built"], ids=lambda c: c["dumps"])
def test_dumps_matches_mxnet(case):
    spec = [case["class"], case["kwargs"]] + ([case["inner"]] if "inner" in case else [])
    assert _make_init(spec).dumps() == case["dumps"]


@pytest.mark.parametrize("case", GOLDEN["created"], ids=lambda c: c["dumps"])
def test_create_matches_mxnet(case):
    init = mx.init.create(*case["args"], **case["kwargs"])
    assert init.dumps() == case["dumps"]
    # And the dumps string makes the same initializer again.
    assert mx.init.create(case["dumps"]) == init


@pytest.mark.parametrize("case", GOLDEN["arrays"], ids=_case_id)
def test_arrays_match_mxnet(case):
    init = _make_init(case["call"])
    dtype = case.get("dtype", "float32")
    arr = mx.nd.array(np.full(case["shape"], 7.0), dtype=dtype)  # every value gets written
    if case.get("legacy"):
        with pytest.warns(DeprecationWarning, match="InitDesc"):
            init(case["name"], arr)
    else:
        attrs = case.get("attrs", {})
        if "attr_init" in case:
            # The string MXNet stored is what symx's own dumps() writes.
            assert _make_init(case["attr_init"]).dumps() == attrs["__init__"]
        init(mx.init.InitDesc(case["name"], dict(attrs)), arr)
    got = arr.asnumpy()
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.array(case["out"], dtype=dtype))


@pytest.mark.parametrize("case", GOLDEN["mixed"], ids=lambda c: ",".join(c["patterns"]))
def test_mixed_matches_mxnet(case):
    mixed = mx.init.Mixed(case["patterns"], [_make_init(s) for s in case["inits"]])
    for name, shape in case["params"]:
        arr = mx.nd.array(np.full(shape, 7.0))
        mixed(mx.init.InitDesc(name), arr)
        np.testing.assert_array_equal(arr.asnumpy(), np.array(case["out"][name], np.float32),
                                      err_msg=name)
    for name in case["unmatched"]:
        with pytest.raises(ValueError, match="%s did not match any pattern" % name):
            mixed(mx.init.InitDesc(name), mx.nd.zeros((2,)))


@pytest.mark.parametrize("from_file", [False, True])
def test_load_matches_mxnet(from_file, tmp_path):
    case = GOLDEN["load"][0]
    param = {k: mx.nd.array(v) for k, v in case["param"].items()}
    if from_file:
        fname = str(tmp_path / "net-0001.params")
        mx.nd.save(fname, param)
        param = fname
    load = mx.init.Load(param, default_init=_make_init(case["default_init"]))
    assert sorted(load.param) == sorted(name for name, _ in case["calls"][:3])
    for name, shape in case["calls"]:
        arr = mx.nd.zeros(shape)
        load(mx.init.InitDesc(name), arr)
        np.testing.assert_array_equal(arr.asnumpy(), np.array(case["out"][name], np.float32))


# ------------------------------------------------------------------ create

def test_created_initializer_fills():
    np.testing.assert_array_equal(_init(mx.init.create("constant", value=2.5), "w_weight", (3,)),
                                  [2.5, 2.5, 2.5])
    x = _init(mx.init.create('["uniform", {"scale": 0.2}]'), "w_weight", BIG)
    _check_uniform(x, 0.2)
    xavier = mx.init.Xavier()
    assert mx.init.create(xavier) is xavier


@pytest.mark.parametrize("args,kwargs,error,match", [
    (["glorot"], {}, ValueError, "unknown initializer 'glorot'.*orthogonal"),
    (["mixed"], {}, ValueError, "unknown initializer 'mixed'"),
    (['["xavier", {"magnitude": 2}'], {}, ValueError, "not valid JSON"),
    (['["xavier"]'], {}, ValueError, "not of the form"),
    (['["xavier", {}]'], {"magnitude": 2}, ValueError, "extra arguments"),
    ([mx.init.One()], {"value": 2}, ValueError, "already an initializer"),
    ([3], {}, TypeError, "got 3"),
    ([], {}, TypeError, "needs an initializer"),
    (["uniform"], {"sigma": 1}, TypeError, "sigma"),
])
def test_create_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        mx.init.create(*args, **kwargs)


def test_fusedrnn_dumps_round_trip_with_an_inner_init():
    # MXNet 1.9.1 cannot do this (its FusedRNN looks the inner name up in the
    # wrong registry); symx parses the inner dumps() string with create().
    fused = mx.init.FusedRNN(mx.init.Xavier(rnd_type="gaussian", magnitude=2), 4, 2, "gru",
                             bidirectional=True)
    again = mx.init.create(fused.dumps())
    assert again == fused and again.dumps() == fused.dumps()
    size = _rnn_param_size("gru", 4, 2, True, 3)
    mx.random.seed(5)
    first = _init(fused, "rnn_weight", (size,))
    mx.random.seed(5)
    np.testing.assert_array_equal(_init(again, "rnn_weight", (size,)), first)


# ---------------------------------------------------------- register, alias

@pytest.fixture
def registry():
    saved = dict(mx.init._REGISTRY)
    yield
    mx.init._REGISTRY.clear()
    mx.init._REGISTRY.update(saved)


def test_register_and_alias(registry):
    @mx.init.register
    @mx.init.alias("halves", "HALF")
    class HalfInit(mx.init.Initializer):
        def __init__(self, offset=0.0):
            super().__init__(offset=offset)
            self.offset = offset

        def _init_weight(self, _, arr):
            arr[:] = 0.5 + self.offset

        def _init_bias(self, _, arr):
            arr[:] = -1

    for name in ("halfinit", "HalfInit", "halves", "half"):
        assert type(mx.init.create(name)) is HalfInit
    init = mx.init.create("half", offset=1.0)
    assert init.dumps() == '["halfinit", {"offset": 1.0}]'  # the class name, not the alias
    assert mx.init.create(init.dumps()) == init
    # The dispatch calls the overridden hooks: weights, biases; gamma as the base.
    np.testing.assert_array_equal(_init(init, "fc_weight", (2,)), [1.5, 1.5])
    np.testing.assert_array_equal(_init(init, "fc_bias", (2,)), [-1, -1])
    np.testing.assert_array_equal(_init(init, "bn_gamma", (2,)), [1, 1])
    # A variable's __init__ naming it, under another global initializer.
    var = mx.sym.Variable("w", init=HalfInit(2.0))
    desc = mx.init.InitDesc("w", var.attr_dict()["w"])
    np.testing.assert_array_equal(_init(mx.init.Zero(), desc, (3,)), [2.5] * 3)


def test_register_overriding_warns(registry):
    with pytest.warns(UserWarning, match="name uniform is overriding"):
        @mx.init.register
        class Uniform(mx.init.Initializer):  # pylint: disable=unused-variable
            def _init_weight(self, _, arr):
                arr[:] = 9
    np.testing.assert_array_equal(_init(mx.init.create("uniform"), "w_weight", (2,)), [9, 9])


def test_register_needs_an_initializer_class(registry):
    with pytest.raises(TypeError, match="subclasses of mx.init.Initializer"):
        mx.init.register(dict)
    with pytest.raises(TypeError, match="subclasses of mx.init.Initializer"):
        mx.init.alias("x")(mx.init.Mixed)


def test_base_initializer_has_no_weight_rule():
    with pytest.raises(NotImplementedError, match="Initializer does not define _init_weight"):
        _init(mx.init.Initializer(), "fc_weight", (2,))
    np.testing.assert_array_equal(_init(mx.init.Initializer(), "fc_bias", (2,)), [0, 0])


def test_equality():
    assert mx.init.Uniform(0.1) == mx.init.Uniform(0.1)
    assert mx.init.Uniform(0.1) != mx.init.Uniform(0.2)
    assert mx.init.Uniform(0.1) != mx.init.Normal(0.1)
    assert mx.init.create("zeros") == mx.init.Zero()


# -------------------------------------------------------------- dispatch

def test_initdesc():
    desc = mx.init.InitDesc("fc_weight")
    assert desc == "fc_weight" and isinstance(desc, str)
    assert desc.attrs == {} and desc.global_init is None
    init = mx.init.One()
    init(desc, mx.nd.zeros((2,)))
    assert desc.global_init is init  # the first initializer called becomes the fallback
    mx.init.Zero()(desc, mx.nd.zeros((2,)))
    assert desc.global_init is init


@pytest.mark.parametrize("name", ["bn_moving_mean", "bn_moving_var", "fc_scale", "x_moving_avg"])
def test_unknown_suffix(name):
    # InitDesc names follow MXNet's current rules, which leave the moving
    # statistics to their variables' __init__ (BatchNorm sets one).
    with pytest.raises(ValueError, match="Unknown initialization pattern for %s" % name):
        _init(mx.init.Uniform(), name, (3,))


def test_batchnorm_statistics_come_from_their_init_attribute():
    bn = mx.sym.BatchNorm(mx.sym.Variable("data"), name="bn")
    attrs = bn.attr_dict()
    arr = mx.nd.array([5.0, 5.0])
    mx.init.Constant(7)(mx.init.InitDesc("bn_moving_var", attrs["bn_moving_var"]), arr)
    np.testing.assert_array_equal(arr.asnumpy(), [1, 1])
    mx.init.Constant(7)(mx.init.InitDesc("bn_moving_mean", attrs["bn_moving_mean"]), arr)
    np.testing.assert_array_equal(arr.asnumpy(), [0, 0])


def test_legacy_str_names_warn_and_follow_the_old_rules():
    arr = mx.nd.array([3.0, 3.0])
    with pytest.warns(DeprecationWarning):
        mx.init.Constant(5)("bn_moving_var", arr)
    np.testing.assert_array_equal(arr.asnumpy(), [1, 1])
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="fc_scale"):
        mx.init.Constant(5)("fc_scale", arr)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="stn_loc_bias.*6"):
        mx.init.Constant(5)("stn_loc_bias", mx.nd.zeros((4,)))


def test_bad_arguments_to_call():
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="str or InitDesc"):
        mx.init.One()(3, mx.nd.zeros((2,)))
    with pytest.raises(TypeError, match="NDArray, got ndarray"):
        mx.init.One()(mx.init.InitDesc("fc_weight"), np.zeros(2))


def test_variable_init_attribute_wins():
    var = mx.sym.Variable("w", init=mx.init.Constant(3))
    desc = mx.init.InitDesc("w", var.attr_dict()["w"])
    assert desc == "w" and str(desc) == "w"
    np.testing.assert_array_equal(_init(mx.init.Uniform(), desc, (2, 2)), np.full((2, 2), 3.0))


def test_init_attribute_beats_suffix():
    # A *_bias name would get 0, a *_weight the default: __init__ decides both.
    bias = mx.sym.Variable("fc_bias", init=mx.init.One())
    got = _init(mx.init.Constant(5), mx.init.InitDesc("fc_bias", bias.attr_dict()["fc_bias"]),
                (4,))
    np.testing.assert_array_equal(got, np.ones(4))
    weight = mx.sym.Variable("fc_weight", init=mx.init.Uniform(0.01))
    got = _init(mx.init.Constant(5),
                mx.init.InitDesc("fc_weight", weight.attr_dict()["fc_weight"]), BIG)
    _check_uniform(got, 0.01)
    # A bare name, as MXNet's Variable(init='ones') stores it.
    got = _init(mx.init.Zero(), mx.init.InitDesc("x", {"__init__": "ones"}), (3,))
    np.testing.assert_array_equal(got, np.ones(3))
    # An array constant, as its dumps() writes it.
    attr = mx.init.Constant([[1, 2], [3, 4]]).dumps()
    got = _init(mx.init.Zero(), mx.init.InitDesc("x", {"__init__": attr}), (2, 2))
    np.testing.assert_array_equal(got, [[1, 2], [3, 4]])


def test_unknown_init_attribute():
    desc = mx.init.InitDesc("w", {"__init__": '["glorot", {}]'})
    with pytest.raises(ValueError, match="unknown initializer 'glorot'"):
        _init(mx.init.Uniform(), desc, (3, 3))


def test_quantized_weight_is_one_drawn_integer():
    got = _init(mx.init.Zero(), "fc_weight_quantize", (4, 5))
    assert np.all(got == got.flat[0]) and got.flat[0] == int(got.flat[0])
    assert -127 <= got.flat[0] < 127
    draws = set()
    for seed in range(12):
        mx.random.seed(seed)
        first = _init(mx.init.Zero(), "fc_weight_quantize", (2,))[0]
        mx.random.seed(seed)
        assert _init(mx.init.Zero(), "fc_weight_quantize", (2,))[0] == first
        draws.add(first)
    assert len(draws) > 6


def test_verbosity(caplog):
    init = mx.init.Constant(3).set_verbosity(True)
    with caplog.at_level(logging.INFO):
        init(mx.init.InitDesc("fc_weight"), mx.nd.zeros((2, 2)))
        init(mx.init.InitDesc("fc_bias"), mx.nd.zeros((2,)))
        init(mx.init.InitDesc("w", {"__init__": '["one", {}]'}), mx.nd.zeros((4,)))
    assert [r.getMessage() for r in caplog.records] == [
        "Initialized fc_weight as weight: 3.0", "Initialized fc_bias as bias: 0.0",
        'Initialized w as ["one", {}]: 1.0']
    caplog.clear()
    quiet = mx.init.Constant(3).set_verbosity(True, print_func=lambda x: "custom")
    with caplog.at_level(logging.INFO):
        quiet(mx.init.InitDesc("fc_weight"), mx.nd.zeros((2,)))
        mx.init.Constant(3)(mx.init.InitDesc("fc_weight"), mx.nd.zeros((2,)))
    assert [r.getMessage() for r in caplog.records] == ["Initialized fc_weight as weight: custom"]


# -------------------------------------------------------------- orthogonal

@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (8, 2, 3, 3), (3, 2, 2, 2)])
@pytest.mark.parametrize("rand_type", ["uniform", "normal"])
def test_orthogonal(shape, rand_type):
    scale = 1.7
    x = _init(mx.init.Orthogonal(scale=scale, rand_type=rand_type), "w_weight", shape,
              dtype="float64")
    assert x.shape == shape
    m = x.reshape(shape[0], -1)
    nout, nin = m.shape
    # Orthonormal columns (tall or square), else orthonormal rows; times scale.
    gram = m.T @ m if nout >= nin else m @ m.T
    np.testing.assert_allclose(gram, scale ** 2 * np.eye(min(nout, nin)), atol=1e-10)


def test_orthogonal_default_scale_float32():
    m = _init(mx.init.Orthogonal(), "w_weight", (50, 30))
    np.testing.assert_allclose(m.T @ m, 1.414 ** 2 * np.eye(30), atol=1e-5)


def test_orthogonal_is_seeded():
    def draw(rand_type="uniform"):
        return _init(mx.init.Orthogonal(rand_type=rand_type), "w_weight", (5, 7))
    mx.random.seed(3)
    first, second = draw(), draw()
    mx.random.seed(3)
    np.testing.assert_array_equal(draw(), first)
    np.testing.assert_array_equal(draw(), second)
    assert not np.allclose(first, second)
    mx.random.seed(3)
    assert not np.allclose(draw("normal"), first)


def test_orthogonal_bad_input():
    with pytest.raises(ValueError, match="rand_type.*'gaussian'"):
        mx.init.Orthogonal(rand_type="gaussian")
    with pytest.raises(ValueError, match="w_weight must have at least 2 dims.*\\(4,\\)"):
        _init(mx.init.Orthogonal(), "w_weight", (4,))


def test_orthogonal_as_a_variable_init():
    var = mx.sym.Variable("w", init=mx.init.Orthogonal(scale=0.5))
    m = _init(mx.init.Zero(), mx.init.InitDesc("w", var.attr_dict()["w"]), (4, 4))
    np.testing.assert_allclose(m @ m.T, 0.25 * np.eye(4), atol=1e-6)


# ------------------------------------------------------ bilinear, lstmbias

def test_bilinear_needs_4d():
    with pytest.raises(ValueError, match="up_weight must be 4-D.*\\(3, 3\\)"):
        _init(mx.init.Bilinear(), "up_weight", (3, 3))


def test_lstmbias_in_a_module():
    data = mx.sym.Variable("data")
    bias = mx.sym.Variable("fc_bias", init=mx.init.LSTMBias(forget_bias=2.0))
    net = mx.sym.FullyConnected(data, bias=bias, num_hidden=8, name="fc")
    mod = mx.mod.Module(net, data_names=["data"], label_names=None)
    mod.bind(data_shapes=[("data", (1, 3))])
    mod.init_params(mx.init.One())
    args = mod.get_params()[0]
    np.testing.assert_array_equal(args["fc_bias"].asnumpy(), [0, 0, 2, 2, 0, 0, 0, 0])
    np.testing.assert_array_equal(args["fc_weight"].asnumpy(), np.ones((8, 3)))


# -------------------------------------------------------------- fused rnn

def _rnn_param_size(mode, hidden, layers, bidirectional, num_input):
    """The RNN operator's parameter length, by its own shape inference."""
    states = {"rnn_state": (layers * (1 + bidirectional), 2, hidden)}
    names = ["data", "rnn_parameters", "rnn_state"]
    if mode == "lstm":
        states["rnn_state_cell"] = states["rnn_state"]
        names.append("rnn_state_cell")
    rnn = mx.sym.RNN(*[mx.sym.Variable(n) for n in names], state_size=hidden,
                     num_layers=layers, mode=mode, bidirectional=bidirectional, name="rnn")
    arg_shapes, _, _ = rnn.infer_shape(data=(5, 2, num_input), **states)
    return arg_shapes[1][0]


def _rnn_blocks(mode, hidden, layers, bidirectional, num_input):
    """(name, offset, shape) of each gate block: weights of every (layer,
    direction), i2h then h2h; then the biases in the same order."""
    gates = {"lstm": "ifco", "gru": "rzo"}.get(mode, [""])
    dirs = "lr" if bidirectional else "l"
    out, p = [], 0
    for kind in ("weight", "bias"):
        for layer in range(layers):
            for d in dirs:
                for conn in ("i2h", "h2h"):
                    cols = hidden if conn == "h2h" else (
                        num_input if layer == 0 else len(dirs) * hidden)
                    for g in gates:
                        shape = (hidden, cols) if kind == "weight" else (hidden,)
                        suffix = "_" + g if g else ""
                        out.append(("%s%d_%s%s_%s" % (d, layer, conn, suffix, kind), p, shape))
                        p += int(np.prod(shape))
    return out, p


@pytest.mark.parametrize("mode,hidden,layers,bidirectional,num_input", [
    ("lstm", 40, 1, False, 30), ("gru", 24, 2, True, 10), ("rnn_tanh", 32, 2, False, 16),
    ("rnn_relu", 20, 1, True, 20)])
def test_fusedrnn_blocks_get_their_own_xavier(mode, hidden, layers, bidirectional, num_input):
    size = _rnn_param_size(mode, hidden, layers, bidirectional, num_input)
    blocks, total = _rnn_blocks(mode, hidden, layers, bidirectional, num_input)
    assert total == size
    init = mx.init.FusedRNN(mx.init.Xavier(magnitude=3), hidden, layers, mode, bidirectional,
                            forget_bias=1.5)
    flat = _init(init, "rnn_weight", (size,), dtype="float64")
    for name, offset, shape in blocks:
        block = flat[offset:offset + int(np.prod(shape))]
        if name.endswith("_f_bias"):
            np.testing.assert_array_equal(block, 1.5, err_msg=name)
        elif name.endswith("bias"):
            np.testing.assert_array_equal(block, 0, err_msg=name)
        else:
            # Xavier's bound from the block's own (hidden, cols) shape.
            bound = math.sqrt(3.0 / ((shape[0] + shape[1]) / 2.0))
            assert np.abs(block).max() <= bound, name
            assert np.abs(block).max() > 0.8 * bound, name


def test_fusedrnn_forget_bias_lands_on_the_operators_forget_gate():
    # Zero weights: i = o = sigmoid(0), g = tanh(0) = 0, f = sigmoid(2 * forget_bias)
    # (i2h and h2h forget biases both get it); so c1 = f * c0, h1 = o * tanh(c1).
    hidden, forget_bias = 3, 0.8
    size = _rnn_param_size("lstm", hidden, 1, False, 2)
    params = mx.nd.zeros((size,))
    mx.init.FusedRNN(mx.init.Zero(), hidden, 1, "lstm", forget_bias=forget_bias)(
        mx.init.InitDesc("rnn_weight"), params)
    c0 = np.full((1, 1, hidden), 0.9, np.float32)
    out = mx.nd.RNN(mx.nd.array(np.random.RandomState(0).randn(1, 1, 2)), params,
                    mx.nd.zeros((1, 1, hidden)), mx.nd.array(c0), state_size=hidden,
                    num_layers=1, mode="lstm")
    f = 1 / (1 + math.exp(-2 * forget_bias))
    np.testing.assert_allclose(out.asnumpy(), np.full((1, 1, hidden), 0.5 * math.tanh(f * 0.9)),
                               rtol=1e-5)


def test_fusedrnn_in_a_module():
    # As FusedRNNCell does it: the parameters variable carries FusedRNN(None),
    # whose blocks take the module's initializer.
    fused = mx.init.FusedRNN(None, 4, 2, "lstm", forget_bias=1.25)
    params = mx.sym.Variable("rnn_parameters", init=fused)
    net = mx.sym.RNN(mx.sym.Variable("data"), params, mx.sym.Variable("rnn_state"),
                     mx.sym.Variable("rnn_state_cell"), state_size=4, num_layers=2, mode="lstm",
                     name="rnn")
    mod = mx.mod.Module(net, data_names=["data", "rnn_state", "rnn_state_cell"],
                        label_names=None)
    # (Module wants one batch axis: seq_len 2 = layers 2 on axis 0.)
    mod.bind(data_shapes=[("data", (2, 3, 5)), ("rnn_state", (2, 3, 4)),
                          ("rnn_state_cell", (2, 3, 4))])
    mod.init_params(mx.init.Uniform(0.3))
    flat = mod.get_params()[0]["rnn_parameters"].asnumpy()
    blocks, total = _rnn_blocks("lstm", 4, 2, False, 5)
    assert flat.shape == (total,)
    for name, offset, shape in blocks:
        block = flat[offset:offset + int(np.prod(shape))]
        if name.endswith("weight"):
            assert 0 < np.abs(block).max() <= 0.3, name
        else:
            np.testing.assert_array_equal(block, 1.25 if "_f_" in name else 0, err_msg=name)


def test_fusedrnn_bad_input():
    with pytest.raises(ValueError, match="mode must be one of.*'LSTM'"):
        mx.init.FusedRNN(None, 2, 1, "LSTM")
    with pytest.raises(ValueError, match="num_hidden must be a positive integer"):
        mx.init.FusedRNN(None, 0, 1, "gru")
    with pytest.raises(ValueError, match="num_layers must be a positive integer"):
        mx.init.FusedRNN(None, 2, 1.5, "gru")
    with pytest.raises(TypeError, match="init must be an Initializer"):
        mx.init.FusedRNN(mx.init.Mixed([], []), 2, 1, "gru")
    fused = mx.init.FusedRNN(mx.init.One(), 2, 1, "lstm")
    size = _rnn_param_size("lstm", 2, 1, False, 3)
    with pytest.raises(ValueError, match="rnn_weight has %d values.*mode=lstm" % (size + 1)):
        _init(fused, "rnn_weight", (size + 1,))
    with pytest.raises(ValueError, match="1-D"):
        _init(fused, "rnn_weight", (size // 2, 2))
    with pytest.raises(ValueError, match="no parameter vector"):
        _init(fused, "rnn_weight", (8,))  # too short for any input size
    # FusedRNN(None) as the global initializer has nothing to fall back on.
    with pytest.raises(ValueError, match="global initializer"):
        _init(mx.init.FusedRNN(None, 2, 1, "lstm"), "rnn_weight", (size,))


# ------------------------------------------------------------- mixed, load

def test_mixed_in_a_module():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=3, name="fc")
    net = mx.sym.BatchNorm(net, name="bn")
    mod = mx.mod.Module(net, data_names=["data"], label_names=None)
    mod.bind(data_shapes=[("data", (2, 4))])
    mod.init_params(mx.init.Mixed(["fc_b", ".*"], [mx.init.Constant(0.5), mx.init.One()]))
    args, aux = mod.get_params()
    np.testing.assert_array_equal(args["fc_weight"].asnumpy(), np.ones((3, 4)))
    np.testing.assert_array_equal(args["fc_bias"].asnumpy(), np.zeros(3))  # a bias: 0
    np.testing.assert_array_equal(aux["bn_moving_var"].asnumpy(), np.ones(3))


def test_mixed_bad_input():
    with pytest.raises(ValueError, match="2 patterns but 1 initializers"):
        mx.init.Mixed(["a", "b"], [mx.init.One()])
    with pytest.raises(ValueError, match="bad pattern '\\('"):
        mx.init.Mixed(["("], [mx.init.One()])
    with pytest.raises(TypeError, match="not callable"):
        mx.init.Mixed([".*"], ["one"])


def test_load_prefixes_and_verbose(caplog):
    load = mx.init.Load({"arg:a_weight": np.ones((2,)), "aux:b_moving_mean": mx.nd.ones((1,))},
                        default_init=mx.init.Constant(4), verbose=True)
    assert sorted(load.param) == ["a_weight", "b_moving_mean"]
    with caplog.at_level(logging.INFO):
        arr = mx.nd.zeros((2,))
        load(mx.init.InitDesc("a_weight"), arr)
        np.testing.assert_array_equal(arr.asnumpy(), [1, 1])
        load(mx.init.InitDesc("c_weight"), arr)
        np.testing.assert_array_equal(arr.asnumpy(), [4, 4])
    assert [r.getMessage() for r in caplog.records] == [
        "Initialized a_weight by loading", "Initialized c_weight by default"]


def test_load_bad_input(tmp_path):
    load = mx.init.Load({"w_weight": mx.nd.ones((2, 3))})
    with pytest.raises(ValueError, match="w_weight.*Shape mismatch, target \\(3, 2\\) vs loaded "
                                         "\\(2, 3\\)"):
        load(mx.init.InitDesc("w_weight"), mx.nd.zeros((3, 2)))
    with pytest.raises(ValueError, match="Cannot initialize v_weight.*no default"):
        load(mx.init.InitDesc("v_weight"), mx.nd.zeros((2,)))
    fname = str(tmp_path / "list.nd")
    mx.nd.save(fname, [mx.nd.ones((2,))])
    with pytest.raises(ValueError, match="list.nd holds a list"):
        mx.init.Load(fname)
    with pytest.raises(TypeError, match="file name or a dict.*list"):
        mx.init.Load([mx.nd.ones((2,))])


# ------------------------------------------------------------------- seed

def _draw():
    return _init(mx.init.Normal(1.0), "fc_weight", (8, 8))


def test_seed_reproducible():
    mx.random.seed(123)
    first, second = _draw(), _draw()
    mx.random.seed(123)
    np.testing.assert_array_equal(_draw(), first)
    np.testing.assert_array_equal(_draw(), second)
    # The stream moves on between draws.
    assert not np.array_equal(first, second)


def test_different_seeds_differ():
    mx.random.seed(1)
    a = _draw()
    mx.random.seed(2)
    assert not np.array_equal(a, _draw())
