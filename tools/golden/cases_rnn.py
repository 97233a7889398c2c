"""Golden cases for MXNet's fused RNN operator (issue 10): every mode
(rnn_relu, rnn_tanh, lstm, gru), one and two layers, bidirectional,
state_outputs, float32 and float64 (see golden_lib.py for what a Case holds).

Cases with gradients run the forward pass with is_train=True (MXNet's CPU RNN
keeps what its backward needs only in training; p=0 keeps it deterministic).

MXNet 1.9.1 quirks these cases steer around:
- rnn_relu in float64 differs from an exact float64 evaluation by ~1e-7 (MXNet
  seems to round part of that path through float32); its float64 case uses a
  looser tolerance.
- projection_size, lstm_state_clip_* and use_sequence_length are not covered:
  MXNet's CPU operator rejects clipping and (in training) sequence lengths as
  cuDNN-only and cannot train LSTM projection; symx rejects all three at parse
  time.
- Inputs are uniform in [-1, 1], so relu pre-activations sit away from 0 only
  by chance: the rnn_relu cases check gradients with the default tolerances,
  which a kink crossed by the seeded values would show.
"""
import numpy as np

import mxnet as mx
from golden_lib import Case

V = mx.sym.Variable

T, N, I, H = 4, 2, 3, 4


def _rnn(mode, layers, bidir, state_outputs, **kw):
    args = [V("data"), V("parameters"), V("state")]
    if mode == "lstm":
        args.append(V("state_cell"))
    return mx.sym.RNN(*args, mode=mode, state_size=H, num_layers=layers, bidirectional=bidir,
                      state_outputs=state_outputs, **kw)


def _case(mode, layers, bidir, state_outputs, seq=T, dtype="float32", grad=True, **kw):
    sym = _rnn(mode, layers, bidir, state_outputs, **kw)
    name = "RNN_%s_l%d%s%s_t%d_%s" % (mode, layers, "_bi" if bidir else "",
                                      "_states" if state_outputs else "", seq, dtype)
    if kw:
        name += "_" + "_".join(("%s%s" % (k, v)).replace(".", "") for k, v in sorted(kw.items()))
    shapes = {"data": (seq, N, I)}
    arg_shapes, _, _ = sym.infer_shape(data=(seq, N, I))
    for n, s in zip(sym.list_arguments(), arg_shapes):
        shapes[n] = s
    dtypes = {n: dtype for n in shapes}
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-6, atol=1e-8)
    if mode == "rnn_relu" and dtype == "float64":
        tol = dict(rtol=1e-5, atol=2e-6)
    return Case(name, sym, shapes, dtypes=dtypes, grad=grad, is_train=grad, **tol)


def cases():
    out = []
    for mode in ["rnn_relu", "rnn_tanh", "lstm", "gru"]:
        out.append(_case(mode, 1, False, False))
        out.append(_case(mode, 1, False, True, seq=3))
        out.append(_case(mode, 2, True, True))
        out.append(_case(mode, 2, False, True, seq=3))
        out.append(_case(mode, 1, True, False, seq=3))
        out.append(_case(mode, 2, True, True, dtype="float64"))
    # Inference with dropout between layers (no effect outside training).
    out.append(_case("lstm", 2, False, True, grad=False, p=0.5))
    out.append(_case("gru", 2, True, False, grad=False, p=0.3))
    return out
