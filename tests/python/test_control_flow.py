"""mx.sym.contrib.foreach / while_loop / cond and their mx.nd forms.

The symbolic loops are built here with the same Python code that made the
control-flow golden cases in MXNet 1.9.1 (tools/golden/cases_control_flow.py):
the traced node must carry MXNet's attributes (the inputs' locations in the
bodies), and bound with the golden inputs it must give MXNet's outputs and
gradients. The NDArray forms run the same bodies eagerly against the same
outputs."""
import json
import os

import numpy as np
import pytest

import symx as mx

V = mx.sym.Variable
CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "cases")


def _case(name):
    d = os.path.join(CASES, name)
    with open(os.path.join(d, "case.json")) as f:
        meta = json.load(f)
    loaded = mx.nd.load(os.path.join(d, "args.params"))
    args = {k.split(":", 1)[1]: v for k, v in loaded.items()}
    outs = [np.load(os.path.join(d, "out%d.npy" % j)) for j in range(meta["num_outputs"])]
    with open(os.path.join(d, "symbol.json")) as f:
        graph = json.load(f)
    return d, meta, args, outs, graph


def _loop_attrs(graph):
    node = [n for n in graph["nodes"] if n.get("subgraphs")][0]
    return node["op"], node["attrs"]


def _check_against_case(sym, name):
    d, meta, args, outs, graph = _case(name)
    op, attrs = _loop_attrs(json.loads(sym.tojson()))
    want_op, want_attrs = _loop_attrs(graph)
    assert (op, attrs) == (want_op, want_attrs)
    assert sorted(sym.list_arguments()) == sorted(args)
    grad_req = meta["grad_req"] if meta["grad"] else "null"
    exe = sym.simple_bind(mx.cpu(), grad_req=grad_req,
                          type_dict={k: v.dtype for k, v in args.items()},
                          **{k: v.shape for k, v in args.items()})
    for k, v in args.items():
        exe.arg_dict[k][:] = v
    exe.forward(is_train=meta["grad"])
    for j, want in enumerate(outs):
        np.testing.assert_allclose(exe.outputs[j].asnumpy(), want, rtol=meta["rtol"],
                                   atol=meta["atol"], err_msg="output %d" % j)
    if not meta["grad"]:
        return
    ograds = [mx.nd.array(np.load(os.path.join(d, "ograd%d.npy" % j)),
                          dtype=exe.outputs[j].dtype) for j in range(len(outs))]
    exe.backward(ograds)
    for k, req in meta["grad_req"].items():
        if req == "null":
            continue
        want = np.load(os.path.join(d, "grad_%s.npy" % k))
        np.testing.assert_allclose(exe.grad_dict[k].asnumpy(), want, rtol=meta["rtol"],
                                   atol=meta["atol"], err_msg="gradient of %s" % k)


# The golden cases' bodies, over mx.sym or mx.nd (F) and the weights given.
def _two_data_two_states_body(F, w):
    def body(data, states):
        x, y = data
        a, b = states
        out = F.FullyConnected(x, num_hidden=3, weight=w, no_bias=True) * b + y
        return [out, a * 0.5], [b, F.tanh(out + a)]
    return body


def _one_dim_body(F, c):
    def body(x, s):
        nxt = s[0] * x + F.sin(c)
        return nxt * 2, [nxt]
    return body


def _counting(F, bound, w):
    def cond(i, s):
        return i < bound

    def func(i, s):
        return [s * w, F.sin(s)], [i + 1, F.broadcast_mul(s, F.cos(i)) + 0.5]
    return cond, func


def test_foreach_two_data_two_states_is_mxnets_node():
    outs, states = mx.sym.contrib.foreach(_two_data_two_states_body(mx.sym, V("w")),
                                          [V("x"), V("y")], [V("a"), V("b")])
    _check_against_case(mx.sym.Group(outs + states), "control_flow_foreach_two_data_two_states")


def test_foreach_one_dim_data_cuts_nothing_and_keeps_outer_variables():
    outs, states = mx.sym.contrib.foreach(_one_dim_body(mx.sym, V("c")), V("x"), [V("s")])
    _check_against_case(mx.sym.Group([outs, states[0]]), "control_flow_foreach_one_dim_data")


def test_foreach_float64():
    def body(x, s):
        return mx.sym.exp(x) * V("w"), [s[0] + 1]
    outs, states = mx.sym.contrib.foreach(body, V("x"), [V("s")])
    _check_against_case(mx.sym.Group([outs, states[0]]),
                        "control_flow_foreach_unused_state_float64")


@pytest.mark.parametrize("pred,name", [(1.0, "control_flow_cond_then"),
                                       (-1.0, "control_flow_cond_else")])
def test_cond_cuts_the_outer_predicate(pred, name):
    a, b = V("a"), V("b")
    outs = mx.sym.contrib.cond(mx.sym.sum(a) * pred > 0,
                               lambda: [mx.sym.FullyConnected(a, V("w"), num_hidden=2,
                                                              no_bias=True), a * b],
                               lambda: [mx.sym.tanh(mx.sym.dot(a, V("w"), transpose_b=True)),
                                        b - a])
    _check_against_case(mx.sym.Group(outs), name)


@pytest.mark.parametrize("bound,steps,name", [(4, 4, "control_flow_while_loop_counting"),
                                              (100, 3, "control_flow_while_loop_max_iterations")])
def test_while_loop(bound, steps, name):
    cond, func = _counting(mx.sym, bound, V("w"))
    outs, states = mx.sym.contrib.while_loop(cond, func, [V("i"), V("s")], max_iterations=steps)
    _check_against_case(mx.sym.Group(outs + states), name)


def test_ndarray_forms_give_the_same_outputs():
    _, _, args, outs, _ = _case("control_flow_foreach_two_data_two_states")
    got, states = mx.nd.contrib.foreach(_two_data_two_states_body(mx.nd, args["w"]),
                                        [args["x"], args["y"]], [args["a"], args["b"]])
    for j, arr in enumerate(got + states):
        np.testing.assert_allclose(arr.asnumpy(), outs[j], rtol=1e-4, atol=1e-5)
    _, _, args, outs, _ = _case("control_flow_while_loop_max_iterations")
    cond, func = _counting(mx.nd, 100, args["w"])
    got, final = mx.nd.contrib.while_loop(cond, func, [args["i"], args["s"]], max_iterations=3)
    for j, arr in enumerate(got + final):
        np.testing.assert_allclose(arr.asnumpy(), outs[j], rtol=1e-4, atol=1e-5)
    a = mx.nd.array([1.0])
    assert mx.nd.contrib.cond(a * 2 < 5, lambda: a + 5, lambda: a - 5).asscalar() == 6.0
    assert mx.nd.contrib.cond(a * 9 < 5, lambda: a + 5, lambda: a - 5).asscalar() == -4.0


def test_ndarray_while_loop_pads_with_zeros():
    out, i = mx.nd.contrib.while_loop(lambda i: i < 2, lambda i: ([i * 10], [i + 1]),
                                      mx.nd.array([0.0]), max_iterations=4)
    assert out[0].asnumpy().ravel().tolist() == [0.0, 10.0, 0.0, 0.0]
    assert i.asscalar() == 2.0


def test_traced_loop_saves_and_loads_back():
    outs, states = mx.sym.contrib.foreach(_one_dim_body(mx.sym, V("c")), V("x"), [V("s")])
    sym = mx.sym.Group([outs, states[0]])
    again = mx.sym.load_json(sym.tojson())
    assert again.tojson() == sym.tojson()
    shapes = again.infer_shape(x=(6,), s=(1,), c=(1,))[1]
    assert shapes == [(6, 1), (1,)]


def test_builder_errors():
    with pytest.raises(ValueError, match="max_iterations"):
        mx.sym.contrib.while_loop(lambda i: i < 1, lambda i: ([], [i + 1]), [V("i")])
    with pytest.raises(ValueError, match="have to be used"):
        mx.sym.contrib.foreach(lambda x, s: (V("z") * 2, [s[0] + 1]), V("x"), [V("s")])
    with pytest.raises(ValueError, match="differs between then-branch and else-branch"):
        mx.sym.contrib.cond(V("p") > 0, lambda: [V("a"), V("a")], lambda: V("a"))
    with pytest.raises(TypeError, match="Symbol"):
        mx.sym.contrib.foreach(lambda x, s: (x, s), mx.nd.ones((2,)), [V("s")])
    with pytest.raises(ValueError, match="different format"):
        mx.sym.contrib.foreach(lambda x, s: (x, [s[0], s[0]]), V("x"), [V("s")])
    with pytest.raises(ValueError, match="max_iterations"):
        mx.nd.contrib.while_loop(lambda i: i < 1, lambda i: ([], [i + 1]), mx.nd.zeros((1,)))
