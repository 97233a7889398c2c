"""Golden cases of the control-flow family (graph/ops/control_flow.cc): _foreach
as MXNet 1.9.1 writes it, its body in the node's "subgraphs". A hybridized
Gluon RNN cell unrolled with F.contrib.foreach and saved by HybridBlock.export
(the model case, forward and every gradient), and symbol-level loops with two
data inputs and two states (swapped from step to step), a 1-d data input (its
rows are (1,) as MXNet slices them), a body that ignores a state, and float64
(see golden_lib.py for what a Case holds)."""
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
    ]
