"""mx.rnn's cells: recurrent layers written as symbols, one step at a time
(RNNCell, LSTMCell, GRUCell, the convolutional ones) or fused over the whole
sequence (FusedRNNCell, on the RNN operator), and cells built from cells
(SequentialRNNCell, BidirectionalCell, DropoutCell, ZoneoutCell,
ResidualCell).

Every node and variable gets the name MXNet 1.9.1's mx.rnn gives it
("lstm_l0_i2h_weight", "lstm_t0_out", "lstm_begin_state_0", even the
automatic "_plus0" / "split0" ones), so checkpoints written with MXNet's
cells load into graphs built with these, and the other way round.

Where MXNet asserts, symx raises an error that is both an MXNetError and an
AssertionError, so scripts catching either keep working; stepping a cell that
cannot step raises one that is both an MXNetError and a NotImplementedError.
"""
import warnings

import numpy as np

from ..base import MXNetError, _core, string_types, numeric_types
from .. import symbol
from .. import ndarray
from .. import initializer as init

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
           "SequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell", "BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]
# (The convolutional cells live in conv_rnn_cell.py and are imported at the
# end, so mx.rnn.rnn_cell.ConvLSTMCell is where MXNet has it.)


class RNNUsageError(MXNetError, AssertionError):
    """A call MXNet's mx.rnn refuses with an assert (symx says why)."""


class RNNNotSteppableError(MXNetError, NotImplementedError):
    """A cell asked to do what it cannot (step a fused or bidirectional cell)."""


def _auto_name(hint):
    """The next automatic node name for ``hint`` in the current NameManager.

    MXNet names an unnamed node after the Python function that made it, so
    mx.sym.split gives "split0" and mx.sym.swapaxes "swapaxes0"; symx's op
    functions use the canonical op name (SliceChannel, SwapAxis) instead, so
    the cells name those nodes themselves, from the same counters."""
    return _core.make_name("", hint)


def _zeros(shape=None, dtype=None, name=None, **kwargs):
    """MXNet's mx.sym.zeros, begin_state's default: a _zeros node (its 0 dims
    are inferred from where the state is used), float32 unless told."""
    return symbol._internal._zeros(shape=shape, dtype=np.float32 if dtype is None else dtype,
                                   name=name, **kwargs)


def _time_axis(layout):
    """The time axis of an unroll layout. The cells put batch and time first
    (Concat and SliceChannel across them assume so): 'NTC' or 'TNC', or the
    same with more trailing axes ('NTCHW' for convolutional cells)."""
    if not isinstance(layout, string_types) or layout[:2] not in ("NT", "TN") \
            or layout.count("T") != 1 or layout.count("N") != 1:
        raise MXNetError("unroll: layout %r is not supported; use 'NTC' (batch major) or 'TNC' "
                         "(time major)" % (layout,))
    return layout.find("T")


def _check_length(length):
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise RNNUsageError("unroll: length must be a positive integer, got %r" % (length,))
    return int(length)


def _normalize_sequence(length, inputs, layout, merge):
    """``inputs`` as a list of per-step symbols (merge False), one symbol with
    a time axis (merge True), or as they are (merge None); and the time axis."""
    if inputs is None:
        raise RNNUsageError("unroll(inputs=None) is not supported (MXNet deprecated it): create "
                            "the input variables outside unroll and pass them")
    axis = _time_axis(layout)
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise RNNUsageError("unroll: a grouped symbol (%d outputs) is not a sequence; "
                                    "pass list(inputs) or one symbol with a time axis"
                                    % len(inputs.list_outputs()))
            inputs = list(symbol.split(inputs, axis=axis, num_outputs=_check_length(length),
                                       squeeze_axis=1, name=_auto_name("split")))
        return inputs, axis
    if not isinstance(inputs, (list, tuple)) or \
            not all(isinstance(s, symbol.Symbol) for s in inputs):
        raise RNNUsageError("unroll: inputs must be a Symbol or a list of Symbols, got %r"
                            % (inputs,))
    if length is not None and len(inputs) != length:
        raise RNNUsageError("unroll: %d input symbols for length=%d" % (len(inputs), length))
    inputs = list(inputs)
    if merge is True:
        inputs = symbol.Concat(*[symbol.expand_dims(s, axis=axis) for s in inputs], dim=axis)
    return inputs, axis


def _check_begin_state(cell, states):
    if not isinstance(states, (list, tuple)):
        raise RNNUsageError("%s: begin_state must be a list of symbols, got %r"
                            % (type(cell).__name__, states))
    want = len(cell.state_info)
    if len(states) != want:
        raise RNNUsageError("%s: begin_state holds %d states, the cell has %d"
                            % (type(cell).__name__, len(states), want))
    return list(states)


def _concat_rows(arrays):
    """The arrays (NDArrays) stacked along axis 0, as one new array."""
    return ndarray.Concat(*arrays, dim=0, num_args=len(arrays))


def _pop(args, name, who):
    if name not in args:
        raise MXNetError("%s: parameter %s is not in the given dict" % (who, name))
    return args.pop(name)


def _cells_state_info(cells):
    return [info for c in cells for info in c.state_info]


def _cells_begin_state(cells, **kwargs):
    return [s for c in cells for s in c.begin_state(**kwargs)]


def _cells_unpack_weights(cells, args):
    for cell in cells:
        args = cell.unpack_weights(args)
    return args


def _cells_pack_weights(cells, args):
    for cell in cells:
        args = cell.pack_weights(args)
    return args


class RNNParams:
    """The variables of one or more cells, by name: cells given the same
    RNNParams share their weights. Names get the container's prefix."""

    def __init__(self, prefix=""):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable prefix+name, made on first use (with ``kwargs`` for
        mx.sym.Variable: init, shape, attr, ...), the same one afterwards."""
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = symbol.Variable(name, **kwargs)
        return self._params[name]


class BaseRNNCell:
    """Base class of the cells.

    prefix: the start of every node name (and, when the cell makes its own
    RNNParams, of every weight name). params: an RNNParams to share weights
    with other cells.
    """

    def __init__(self, prefix="", params=None):
        if params is None:
            params = RNNParams(prefix)
            self._own_params = True
        elif not isinstance(params, RNNParams):
            raise MXNetError("%s: params must be an RNNParams, got %r"
                             % (type(self).__name__, params))
        else:
            self._own_params = False
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def reset(self):
        """Restarts the step and begin-state counters (names count from t0
        again), here and in the cells inside; unroll calls it."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", ()):
            cell.reset()

    def __call__(self, inputs, states):
        """One step: (output, next states) from this step's input and the
        previous states."""
        raise RNNNotSteppableError("%s does not define a step (__call__)" % type(self).__name__)

    @property
    def params(self):
        """The cell's RNNParams. Handing them out means they are shared now,
        so a container cell may no longer fill them from its own (MXNet's
        rule, kept for the same assertions)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        """[{'shape': ..., '__layout__': ...}] for each state (0: the batch size)."""
        raise RNNNotSteppableError("%s does not define state_info" % type(self).__name__)

    @property
    def state_shape(self):
        return [info["shape"] for info in self.state_info]

    @property
    def _gate_names(self):
        return ()

    def begin_state(self, func=_zeros, **kwargs):
        """The first step's states, one ``func(name=..., shape=..., __layout__=...,
        **kwargs)`` each: zeros by default, mx.sym.Variable to feed them."""
        if self._modified:
            raise RNNUsageError("%s has been wrapped by a modifier cell (DropoutCell, ZoneoutCell, "
                                "ResidualCell): call the modifier instead" % type(self).__name__)
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                # MXNet keeps adding each state's info to the same kwargs.
                kwargs.update(info)
            states.append(func(name="%sbegin_state_%d" % (self._prefix, self._init_counter),
                               **kwargs))
        return states

    def unpack_weights(self, args):
        """A copy of ``args`` (name -> NDArray) with each gate-stacked
        i2h/h2h weight and bias split into one array per gate
        (lstm_i2h_weight -> lstm_i2h_i_weight, ..._f_, ..._c_, ..._o_)."""
        args = dict(args)
        gates = self._gate_names
        if not gates:
            return args
        h = self._num_hidden
        for group in ("i2h", "h2h"):
            weight = _pop(args, "%s%s_weight" % (self._prefix, group), "unpack_weights")
            bias = _pop(args, "%s%s_bias" % (self._prefix, group), "unpack_weights")
            if weight.shape[0] != h * len(gates) or bias.shape[0] != h * len(gates):
                raise MXNetError("unpack_weights: %s%s_weight %s / _bias %s do not stack %d gates "
                                 "of %d" % (self._prefix, group, weight.shape, bias.shape,
                                            len(gates), h))
            for j, gate in enumerate(gates):
                args["%s%s%s_weight" % (self._prefix, group, gate)] = weight[j*h:(j+1)*h].copy()
                args["%s%s%s_bias" % (self._prefix, group, gate)] = bias[j*h:(j+1)*h].copy()
        return args

    def pack_weights(self, args):
        """The reverse of unpack_weights: per-gate arrays stacked back into
        the i2h/h2h weight and bias the cell's graph uses."""
        args = dict(args)
        gates = self._gate_names
        if not gates:
            return args
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                parts = [_pop(args, "%s%s%s_%s" % (self._prefix, group, gate, kind),
                              "pack_weights") for gate in gates]
                args["%s%s_%s" % (self._prefix, group, kind)] = _concat_rows(parts)
        return args

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """The cell run over ``length`` steps.

        inputs: one symbol with batch and time axes as ``layout`` says, or a
        list of ``length`` per-step symbols. begin_state: the first states
        (default: begin_state()). merge_outputs: True gives one symbol with a
        time axis, False a list per step, None whichever is at hand.
        Returns (outputs, final states).
        """
        self.reset()
        length = _check_length(length)
        inputs, _ = _normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None \
            else _check_begin_state(self, begin_state)
        outputs = []
        for step in range(length):
            output, states = self(inputs[step], states)
            outputs.append(output)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        """An Activation for a string act_type, else ``activation`` called on inputs."""
        if isinstance(activation, string_types):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        if not callable(activation):
            raise MXNetError("%s: activation must be an act_type string or a callable, got %r"
                             % (type(self).__name__, activation))
        return activation(inputs, **kwargs)


class RNNCell(BaseRNNCell):
    """The plain recurrent cell: out = act(i2h(x) + h2h(h)).
    activation: an act_type ('tanh', 'relu', ...) or a callable(data, name=)."""

    def __init__(self, num_hidden, activation="tanh", prefix="rnn_", params=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._activation = activation
        self._iW = self.params.get("i2h_weight")
        self._iB = self.params.get("i2h_bias")
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self):
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self):
        return ("",)

    def __call__(self, inputs, states):
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden, name="%si2h" % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden, name="%sh2h" % name)
        output = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return output, [output]


class LSTMCell(BaseRNNCell):
    """The LSTM cell. Its i2h/h2h weights stack the gates in the order
    input, forget, cell, output (one SliceChannel into four); ``forget_bias``
    is where the i2h bias's initializer (LSTMBias) starts the forget gate."""

    def __init__(self, num_hidden, prefix="lstm_", params=None, forget_bias=1.0):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._hW = self.params.get("h2h_weight")
        # Only the i2h bias carries forget_bias: the gate sums both biases.
        self._iB = self.params.get("i2h_bias", init=init.LSTMBias(forget_bias=forget_bias))
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self):
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"},
                {"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self):
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs, states):
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        h4 = self._num_hidden * 4
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=h4,
                                    name="%si2h" % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=h4, name="%sh2h" % name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, name="%sslice" % name)
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name="%si" % name)
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name="%sf" % name)
        in_transform = symbol.Activation(gates[2], act_type="tanh", name="%sc" % name)
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name="%so" % name)
        next_c = symbol._internal._plus(forget_gate * states[1], in_gate * in_transform,
                                        name="%sstate" % name)
        next_h = symbol._internal._mul(out_gate, symbol.Activation(next_c, act_type="tanh"),
                                       name="%sout" % name)
        return next_h, [next_h, next_c]


class GRUCell(BaseRNNCell):
    """The GRU cell as cuDNN computes it (the reset gate scales h2h's
    candidate part after the product); gates stacked r, z, candidate."""

    def __init__(self, num_hidden, prefix="gru_", params=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get("i2h_weight")
        self._iB = self.params.get("i2h_bias")
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    @property
    def state_info(self):
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self):
        return ["_r", "_z", "_o"]

    def __call__(self, inputs, states):
        self._counter += 1
        # MXNet's GRU names have a doubled underscore ("gru_t0__i2h"); kept.
        name = "%st%d_" % (self._prefix, self._counter)
        prev_h = states[0]
        h3 = self._num_hidden * 3
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=h3,
                                    name="%s_i2h" % name)
        h2h = symbol.FullyConnected(data=prev_h, weight=self._hW, bias=self._hB, num_hidden=h3,
                                    name="%s_h2h" % name)
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name="%s_i2h_slice" % name)
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name="%s_h2h_slice" % name)
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type="sigmoid", name="%s_r_act" % name)
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type="sigmoid",
                                        name="%s_z_act" % name)
        candidate = symbol.Activation(i2h + reset_gate * h2h, act_type="tanh",
                                      name="%s_h_act" % name)
        next_h = symbol._internal._plus((1. - update_gate) * candidate, update_gate * prev_h,
                                        name="%sout" % name)
        return next_h, [next_h]


_FUSED_GATES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"],
                "gru": ["_r", "_z", "_o"]}


class FusedRNNCell(BaseRNNCell):
    """A whole (multi-layer, optionally bidirectional) RNN as one RNN
    operator over the sequence, its weights in one flat vector
    "<prefix>parameters" (initialized by mx.init.FusedRNN).

    mode: 'rnn_relu', 'rnn_tanh', 'lstm' or 'gru'. dropout: between layers,
    in training. get_next_state: also return the final states. unfuse()
    gives the same network as step cells; unpack_weights/pack_weights
    convert the flat vector to and from their per-gate arrays.
    """

    def __init__(self, num_hidden, num_layers=1, mode="lstm", bidirectional=False, dropout=0.,
                 get_next_state=False, forget_bias=1.0, prefix=None, params=None):
        if mode not in _FUSED_GATES:
            raise MXNetError("FusedRNNCell: mode %r is not supported; use one of %s"
                             % (mode, ", ".join(sorted(_FUSED_GATES))))
        if prefix is None:
            prefix = "%s_" % mode
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ["l", "r"] if bidirectional else ["l"]
        initializer = init.FusedRNN(None, num_hidden, num_layers, mode, bidirectional,
                                    forget_bias)
        self._parameter = self.params.get("parameters", init=initializer)

    @property
    def state_info(self):
        copies = 2 if self._bidirectional else 1
        count = 2 if self._mode == "lstm" else 1
        return [{"shape": (copies * self._num_layers, 0, self._num_hidden), "__layout__": "LNC"}
                for _ in range(count)]

    @property
    def _gate_names(self):
        return _FUSED_GATES[self._mode]

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def _slice_weights(self, arr, num_input, h):
        """{per-gate name: view of ``arr``} in the RNN operator's layout:
        each (layer, direction)'s i2h weights gate by gate then its h2h
        weights, and after all weights the biases in the same order."""
        views, p = {}, 0
        b = len(self._directions)
        for layer in range(self._num_layers):
            cols = num_input if layer == 0 else b * h
            for d in self._directions:
                for group, width in (("i2h", cols), ("h2h", h)):
                    for gate in self._gate_names:
                        name = "%s%s%d_%s%s_weight" % (self._prefix, d, layer, group, gate)
                        views[name] = arr[p:p + h * width].reshape((h, width))
                        p += h * width
        for layer in range(self._num_layers):
            for d in self._directions:
                for group in ("i2h", "h2h"):
                    for gate in self._gate_names:
                        name = "%s%s%d_%s%s_bias" % (self._prefix, d, layer, group, gate)
                        views[name] = arr[p:p + h]
                        p += h
        if p != arr.size:
            raise MXNetError("FusedRNNCell: a parameter vector of %d values does not fit "
                             "%d layer(s) of %s with num_hidden=%d and input size %d (%d values)"
                             % (arr.size, self._num_layers, self._mode, h, num_input, p))
        return views

    def _total_size(self, num_input):
        b, m, h = len(self._directions), self._num_gates, self._num_hidden
        return (num_input + h + 2) * h * m * b + \
            (self._num_layers - 1) * m * h * (h + b * h + 2) * b

    def unpack_weights(self, args):
        args = dict(args)
        arr = _pop(args, self._parameter.name, "unpack_weights")
        if arr.ndim != 1:
            raise MXNetError("unpack_weights: %s must be 1-D, got shape %s"
                             % (self._parameter.name, arr.shape))
        b, m, h = len(self._directions), self._num_gates, self._num_hidden
        num_input = arr.size // b // h // m - (self._num_layers - 1) * (h + b * h + 2) - h - 2
        if num_input < 1:
            raise MXNetError("unpack_weights: %s has %d values, too few for %d layer(s) of %s "
                             "with num_hidden=%d" % (self._parameter.name, arr.size,
                                                     self._num_layers, self._mode, h))
        for name, view in self._slice_weights(arr, num_input, h).items():
            args[name] = view.copy()
        return args

    def pack_weights(self, args):
        args = dict(args)
        first = "%sl0_i2h%s_weight" % (self._prefix, self._gate_names[0])
        if first not in args:
            raise MXNetError("pack_weights: parameter %s is not in the given dict" % first)
        w0 = args[first]
        num_input = w0.shape[1]
        arr = ndarray.zeros((self._total_size(num_input),), ctx=w0.context, dtype=w0.dtype)
        for name, view in self._slice_weights(arr, num_input, self._num_hidden).items():
            value = _pop(args, name, "pack_weights")
            if tuple(value.shape) != tuple(view.shape):
                raise MXNetError("pack_weights: %s has shape %s, the fused layout needs %s"
                                 % (name, tuple(value.shape), tuple(view.shape)))
            view[:] = value
        args[self._parameter.name] = arr
        return args

    def __call__(self, inputs, states):
        raise RNNNotSteppableError("FusedRNNCell cannot be stepped: use unroll, or unfuse() "
                                   "into step cells")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        length = _check_length(length)
        inputs, axis = _normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn("NTC layout detected. Consider using TNC for FusedRNNCell for faster "
                          "speed")
            # The RNN operator reads time-major data.
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1, name=_auto_name("swapaxes"))
        states = self.begin_state() if begin_state is None \
            else _check_begin_state(self, begin_state)
        named = {"state": states[0]}
        if self._mode == "lstm":
            named["state_cell"] = states[1]
        # MXNet marks the state outputs' node with the states' layout.
        attr = {"__layout__": "LNC"} if self._get_next_state else None
        rnn = symbol.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                         num_layers=self._num_layers, bidirectional=self._bidirectional,
                         p=self._dropout, state_outputs=self._get_next_state, mode=self._mode,
                         name=self._prefix + "rnn", attr=attr, **named)
        if not self._get_next_state:
            outputs, states = rnn, []
        elif self._mode == "lstm":
            outputs, states = rnn[0], [rnn[1], rnn[2]]
        else:
            outputs, states = rnn[0], [rnn[1]]
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1, name=_auto_name("swapaxes"))
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def unfuse(self):
        """The same network as a SequentialRNNCell of step cells (one per
        layer, BidirectionalCells when bidirectional, DropoutCells between
        layers), named so that unpack_weights' arrays are its weights."""
        def make(prefix):
            if self._mode in ("rnn_relu", "rnn_tanh"):
                return RNNCell(self._num_hidden, activation=self._mode[4:], prefix=prefix)
            if self._mode == "lstm":
                return LSTMCell(self._num_hidden, prefix=prefix)
            return GRUCell(self._num_hidden, prefix=prefix)

        stack = SequentialRNNCell()
        for layer in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make("%sl%d_" % (self._prefix, layer)),
                                            make("%sr%d_" % (self._prefix, layer)),
                                            output_prefix="%sbi_l%d_" % (self._prefix, layer)))
            else:
                stack.add(make("%sl%d_" % (self._prefix, layer)))
            if self._dropout > 0 and layer != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout,
                                      prefix="%s_dropout%d_" % (self._prefix, layer)))
        return stack


class SequentialRNNCell(BaseRNNCell):
    """Cells stacked: each one's outputs are the next one's inputs; the
    states are all of theirs, in order. params: share one RNNParams with
    every cell added (then the cells must not have been given theirs)."""

    def __init__(self, params=None):
        super().__init__(prefix="", params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        """Appends ``cell`` to the stack."""
        if not isinstance(cell, BaseRNNCell):
            raise MXNetError("SequentialRNNCell.add: expected a cell, got %r" % (cell,))
        self._cells.append(cell)
        if self._override_cell_params:
            if not cell._own_params:
                raise RNNUsageError("Either specify params for SequentialRNNCell or child cells, "
                                    "not both.")
            cell.params._params.update(self.params._params)
        self.params._params.update(cell.params._params)

    @property
    def state_info(self):
        return _cells_state_info(self._cells)

    def begin_state(self, **kwargs):
        if self._modified:
            raise RNNUsageError("SequentialRNNCell has been wrapped by a modifier cell: call the "
                                "modifier instead")
        return _cells_begin_state(self._cells, **kwargs)

    def unpack_weights(self, args):
        return _cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return _cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        p = 0
        for cell in self._cells:
            if isinstance(cell, BidirectionalCell):
                raise RNNUsageError("SequentialRNNCell with a BidirectionalCell cannot be "
                                    "stepped: use unroll")
            n = len(cell.state_info)
            inputs, state = cell(inputs, states[p:p + n])
            p += n
            next_states.extend(state)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        length = _check_length(length)
        begin_state = self.begin_state() if begin_state is None \
            else _check_begin_state(self, begin_state)
        p = 0
        next_states = []
        last = len(self._cells) - 1
        for i, cell in enumerate(self._cells):
            n = len(cell.state_info)
            # Inner cells hand over whatever form is at hand; only the last
            # one's outputs take the caller's merge_outputs.
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=begin_state[p:p + n],
                                         layout=layout,
                                         merge_outputs=None if i < last else merge_outputs)
            p += n
            next_states.extend(states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on the inputs (fraction ``dropout`` dropped in training); no
    states. Its nodes are named automatically ("dropout0"), as in MXNet."""

    def __init__(self, dropout, prefix="dropout_", params=None):
        super().__init__(prefix, params)
        if isinstance(dropout, bool) or not isinstance(dropout, numeric_types + (np.number,)):
            raise RNNUsageError("dropout probability must be a number, got %r" % (dropout,))
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            # One Dropout over the whole sequence.
            return self(inputs, [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs)


class ModifierCell(BaseRNNCell):
    """Base class of cells wrapping another cell (``base_cell``) to change
    what it computes; the wrapped cell is then only used through the
    wrapper. Weights and states are the base cell's."""

    def __init__(self, base_cell):
        if not isinstance(base_cell, BaseRNNCell):
            raise MXNetError("%s: base_cell must be a cell, got %r"
                             % (type(self).__name__, base_cell))
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=_zeros, **kwargs):
        """The base cell's begin_state (``init_sym`` is its func; ``func=``
        is taken too, as the other cells call it)."""
        if self._modified:
            raise RNNUsageError("%s has been wrapped by another modifier cell: call that one "
                                "instead" % type(self).__name__)
        if "func" in kwargs:
            init_sym = kwargs.pop("func")
        self.base_cell._modified = False
        try:
            # By keyword: stacks take only keywords (MXNet passes it by
            # position, which a SequentialRNNCell base refuses).
            return self.base_cell.begin_state(func=init_sym, **kwargs)
        finally:
            self.base_cell._modified = True

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise RNNNotSteppableError("%s does not define a step (__call__)" % type(self).__name__)


def _has_bidirectional(cell):
    if isinstance(cell, BidirectionalCell):
        return True
    return any(_has_bidirectional(c) for c in getattr(cell, "_cells", ()))


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016) on a step cell: in training each unit
    of the output / states keeps its previous value with probability
    zoneout_outputs / zoneout_states; at inference the cell is unchanged."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        if isinstance(base_cell, FusedRNNCell):
            raise RNNUsageError("FusedRNNCell doesn't support zoneout. Please unfuse first.")
        if _has_bidirectional(base_cell):
            # MXNet refuses a BidirectionalCell (it cannot step); symx also
            # names the stacks holding one, which MXNet's check misses.
            raise RNNUsageError("ZoneoutCell needs a cell that can step; a BidirectionalCell "
                                "(or a stack holding one) cannot: add ZoneoutCell to the cells "
                                "underneath instead")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super().reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def mask(p, like):
            # Ones, dropped (zeroed) with probability p in training.
            return symbol.Dropout(symbol.ones_like(like), p=p)

        # Before the first step the previous output is zeros shaped by use;
        # made even when unused, as MXNet does (it numbers the nodes after).
        prev_output = self.prev_output if self.prev_output is not None else _zeros((0, 0))
        if self.zoneout_outputs != 0.:
            output = symbol.where(mask(self.zoneout_outputs, next_output), next_output,
                                  prev_output)
        else:
            output = next_output
        if self.zoneout_states != 0.:
            states = [symbol.where(mask(self.zoneout_states, new), new, old)
                      for new, old in zip(next_states, states)]
        else:
            states = next_states
        self.prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """The base cell's output plus its input (Wu et al. 2016): the input
    and output sizes must agree."""

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = symbol.elemwise_add(output, inputs, name="%s_plus_residual" % output.name)
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs,
                                                    begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            outputs = symbol.elemwise_add(outputs, inputs,
                                          name="%s_plus_residual" % outputs.name)
        else:
            outputs = [symbol.elemwise_add(out, inp, name="%s_plus_residual" % out.name)
                       for out, inp in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(BaseRNNCell):
    """``l_cell`` over the sequence forward and ``r_cell`` backward, their
    outputs concatenated per step (names "<output_prefix>t<i>", or
    "<output_prefix>out" merged). Its final states are the nested list
    [l_cell's, r_cell's], as MXNet returns them."""

    def __init__(self, l_cell, r_cell, params=None, output_prefix="bi_"):
        super().__init__("", params=params)
        for cell in (l_cell, r_cell):
            if not isinstance(cell, BaseRNNCell):
                raise MXNetError("BidirectionalCell: expected cells, got %r" % (cell,))
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        if self._override_cell_params:
            if not (l_cell._own_params and r_cell._own_params):
                raise RNNUsageError("Either specify params for BidirectionalCell or child cells, "
                                    "not both.")
            l_cell.params._params.update(self.params._params)
            r_cell.params._params.update(self.params._params)
        self.params._params.update(l_cell.params._params)
        self.params._params.update(r_cell.params._params)
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args):
        return _cells_unpack_weights(self._cells, args)

    def pack_weights(self, args):
        return _cells_pack_weights(self._cells, args)

    def __call__(self, inputs, states):
        raise RNNNotSteppableError("BidirectionalCell cannot be stepped: use unroll")

    @property
    def state_info(self):
        return _cells_state_info(self._cells)

    def begin_state(self, **kwargs):
        if self._modified:
            raise RNNUsageError("BidirectionalCell has been wrapped by a modifier cell: call the "
                                "modifier instead")
        return _cells_begin_state(self._cells, **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        length = _check_length(length)
        inputs, axis = _normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None \
            else _check_begin_state(self, begin_state)
        l_cell, r_cell = self._cells
        n_left = len(l_cell.state_info)
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=states[:n_left],
                                            layout=layout, merge_outputs=merge_outputs)
        r_outputs, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)),
                                            begin_state=states[n_left:], layout=layout,
                                            merge_outputs=merge_outputs)
        if merge_outputs is None:
            # Merged only when both sides already are; else both go per step.
            merge_outputs = isinstance(l_outputs, symbol.Symbol) and \
                isinstance(r_outputs, symbol.Symbol)
            if not merge_outputs:
                if isinstance(l_outputs, symbol.Symbol):
                    l_outputs = list(symbol.SliceChannel(l_outputs, axis=axis, num_outputs=length,
                                                         squeeze_axis=1))
                if isinstance(r_outputs, symbol.Symbol):
                    r_outputs = list(symbol.SliceChannel(r_outputs, axis=axis, num_outputs=length,
                                                         squeeze_axis=1))
        if merge_outputs:
            # r_cell ran backward: flip its outputs back into time order.
            outputs = symbol.Concat(l_outputs, symbol.reverse(r_outputs, axis=axis), dim=2,
                                    name="%sout" % self._output_prefix)
        else:
            outputs = [symbol.Concat(l_o, r_o, dim=1, name="%st%d" % (self._output_prefix, i))
                       for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed(r_outputs)))]
        return outputs, [l_states, r_states]


# The convolutional cells, defined on the classes above.
from .conv_rnn_cell import (BaseConvRNNCell, ConvRNNCell, ConvLSTMCell,  # noqa: E402
                            ConvGRUCell)
