"""Golden cases of the control-flow family (graph/ops/control_flow.cc): _foreach,
_cond and _while_loop as MXNet 1.9.1 writes them, their bodies in the node's
"subgraphs". A hybridized
Gluon RNN cell unrolled with F.contrib.foreach and saved by HybridBlock.export
(the model case, forward and every gradient), and symbol-level loops with two
data inputs and two states (swapped from step to step), a 1-d data input (its
rows are (1,) as MXNet slices them), a body that ignores a state, and float64
(see golden_lib.py for what a Case holds). _cond with either branch taken
(both differentiated), and _while_loop counting up to a bound, stopped by its
condition or by max_iterations. MXNet 1.9.1 has no shape function for _cond
and _while_loop (its symbolic infer_shape leaves their outputs unknown and
bind settles them at run time), so those cases infer partially; and as MXNet
leaves the rows of steps a while_loop did not take uninitialized, its cases
take every step (symx zeroes those rows; control_flow_test.cc checks them)."""
import os
import tempfile

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable


class _Unrolled(mx.gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = mx.gluon.rnn.RNNCell(4, input_size=3)

    def hybrid_forward(self, F, x, h):
        outs, states = F.contrib.foreach(lambda data, st: self.cell(data, st), x, [h])
        return outs, states[0]


def _exported_rnn_cell():
    net = _Unrolled(prefix="unrolled_")
    net.initialize()
    net.hybridize()
    net(mx.nd.zeros((5, 2, 3)), mx.nd.zeros((2, 4)))
    with tempfile.TemporaryDirectory() as d:
        net.export(os.path.join(d, "net"))
        return mx.sym.load(os.path.join(d, "net-symbol.json"))


def _two_data_two_states():
    def body(data, states):
        x, y = data
        a, b = states
        out = mx.sym.FullyConnected(x, num_hidden=3, weight=V("w"), no_bias=True) * b + y
        return [out, a * 0.5], [b, mx.sym.tanh(out + a)]

    outs, states = mx.sym.contrib.foreach(body, [V("x"), V("y")], [V("a"), V("b")])
    return mx.sym.Group(outs + states)


def _one_dim_data():
    def body(x, s):
        nxt = s[0] * x + mx.sym.sin(V("c"))
        return nxt * 2, [nxt]

    outs, states = mx.sym.contrib.foreach(body, V("x"), [V("s")])
    return mx.sym.Group([outs, states[0]])


def _unused_state():
    def body(x, s):
        return mx.sym.exp(x) * V("w"), [s[0] + 1]

    outs, states = mx.sym.contrib.foreach(body, V("x"), [V("s")])
    return mx.sym.Group([outs, states[0]])


class _RunTimeShapes:
    """A symbol whose output shapes MXNet settles only at run time: run_case
    needs its argument shapes, which partial inference gives."""

    def __init__(self, sym):
        self._sym = sym

    def infer_shape(self, **shapes):
        return self._sym.infer_shape_partial(**shapes)

    def __getattr__(self, name):
        return getattr(self._sym, name)


def _cond(pred):
    a, b = V("a"), V("b")
    outs = mx.sym.contrib.cond(mx.sym.sum(a) * pred > 0,
                               lambda: [mx.sym.FullyConnected(a, V("w"), num_hidden=2,
                                                              no_bias=True), a * b],
                               lambda: [mx.sym.tanh(mx.sym.dot(a, V("w"), transpose_b=True)),
                                        b - a])
    return _RunTimeShapes(mx.sym.Group(outs))


def _counting_loop(bound, max_iterations):
    def cond(i, s):
        return i < bound

    def func(i, s):
        return [s * V("w"), mx.sym.sin(s)], [i + 1, mx.sym.broadcast_mul(s, mx.sym.cos(i)) + 0.5]

    outs, states = mx.sym.contrib.while_loop(cond, func, [V("i"), V("s")],
                                             max_iterations=max_iterations)
    return _RunTimeShapes(mx.sym.Group(outs + states))


def cases():
    return [
        Case("control_flow_foreach_gluon_rnn_cell", _exported_rnn_cell(),
             {"data0": (5, 2, 3), "data1": (2, 4)}),
        Case("control_flow_foreach_two_data_two_states", _two_data_two_states(),
             {"x": (4, 2, 5), "y": (4, 2, 3), "a": (2, 3), "b": (2, 3), "w": (3, 5)}),
        Case("control_flow_foreach_one_dim_data", _one_dim_data(),
             {"x": (6,), "s": (1,), "c": (1,)}),
        Case("control_flow_foreach_unused_state_float64", _unused_state(),
             {"x": (3, 2), "s": (2,), "w": (2,)},
             dtypes={"x": "float64", "s": "float64", "w": "float64"}, rtol=1e-10, atol=1e-12),
        Case("control_flow_cond_then", _cond(1.0), {"a": (3, 4), "b": (3, 4), "w": (2, 4)},
             values={"a": [[0.5 + 0.1 * k for k in range(4)]] * 3}),
        Case("control_flow_cond_else", _cond(-1.0), {"a": (3, 4), "b": (3, 4), "w": (2, 4)},
             values={"a": [[0.5 + 0.1 * k for k in range(4)]] * 3}),
        Case("control_flow_while_loop_counting", _counting_loop(4, 4),
             {"i": (1,), "s": (2, 3), "w": (2, 3)}, values={"i": [0.0]}, no_grad=("i",)),
        Case("control_flow_while_loop_max_iterations", _counting_loop(100, 3),
             {"i": (1,), "s": (2, 3), "w": (2, 3)}, values={"i": [0.0]}, no_grad=("i",)),
    ]
