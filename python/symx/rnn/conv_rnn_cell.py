"""mx.rnn's convolutional cells: RNN, LSTM and GRU cells whose i2h and h2h
transforms are 2-D Convolutions (Shi et al.'s ConvLSTM), with MXNet 1.9.1's
names and defaults (see rnn_cell.py for the naming rules they share)."""
from ..base import MXNetError
from .. import symbol
from .. import initializer as init
from .rnn_cell import BaseRNNCell, RNNNotSteppableError, RNNUsageError

__all__ = ["BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]


def _leaky_relu(data, **kwargs):
    """The convolutional cells' default activation: LeakyReLU, slope 0.2."""
    return symbol.LeakyReLU(data, act_type="leaky", slope=0.2, **kwargs)


def _pair(value, what):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise MXNetError("ConvRNN cells: %s must be a pair of ints (2-D convolutions), got %r"
                         % (what, value))
    return tuple(int(v) for v in value)


class BaseConvRNNCell(BaseRNNCell):
    """Base class of the convolutional cells: i2h and h2h are 2-D
    Convolutions instead of FullyConnected. The state has the shape of the
    i2h convolution's output for ``input_shape`` (one step's input, batch
    included); h2h pads to keep it."""

    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride,
                 i2h_pad, i2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, activation, prefix="", params=None,
                 conv_layout="NCHW"):
        super().__init__(prefix=prefix, params=params)
        if conv_layout != "NCHW":
            raise MXNetError("%s: conv_layout %r is not supported; symx's Convolution has "
                             "channel-first layouts only, so the cells take 'NCHW'"
                             % (type(self).__name__, conv_layout))
        self._h2h_kernel = _pair(h2h_kernel, "h2h_kernel")
        if self._h2h_kernel[0] % 2 != 1 or self._h2h_kernel[1] % 2 != 1:
            raise RNNUsageError("Only support odd number, get h2h_kernel= %s" % str(h2h_kernel))
        self._h2h_dilate = _pair(h2h_dilate, "h2h_dilate")
        # 'same' padding, so the state keeps its size step after step.
        self._h2h_pad = (self._h2h_dilate[0] * (self._h2h_kernel[0] - 1) // 2,
                         self._h2h_dilate[1] * (self._h2h_kernel[1] - 1) // 2)
        self._i2h_kernel = _pair(i2h_kernel, "i2h_kernel")
        self._i2h_stride = _pair(i2h_stride, "i2h_stride")
        self._i2h_pad = _pair(i2h_pad, "i2h_pad")
        self._i2h_dilate = _pair(i2h_dilate, "i2h_dilate")
        self._num_hidden = num_hidden
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout
        self._activation = activation

        # The state's shape is what i2h makes of one step's input. MXNet
        # builds that (automatically named) Convolution too, so the later
        # automatic names count the same.
        probe = symbol.Convolution(data=symbol.Variable("data"), num_filter=self._num_hidden,
                                   kernel=self._i2h_kernel, stride=self._i2h_stride,
                                   pad=self._i2h_pad, dilate=self._i2h_dilate,
                                   layout=conv_layout)
        out_shape = probe.infer_shape(data=self._input_shape)[1][0]
        self._state_shape = (0,) + tuple(out_shape[1:])

        self._iW = self.params.get("i2h_weight", init=i2h_weight_initializer)
        self._hW = self.params.get("h2h_weight", init=h2h_weight_initializer)
        self._iB = self.params.get("i2h_bias", init=i2h_bias_initializer)
        self._hB = self.params.get("h2h_bias", init=h2h_bias_initializer)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    @property
    def state_info(self):
        return [{"shape": self._state_shape, "__layout__": self._conv_layout}]

    def _conv_forward(self, inputs, states, name):
        filters = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name="%si2h" % name, data=inputs, num_filter=filters,
                                 kernel=self._i2h_kernel, stride=self._i2h_stride,
                                 pad=self._i2h_pad, dilate=self._i2h_dilate, weight=self._iW,
                                 bias=self._iB, layout=self._conv_layout)
        h2h = symbol.Convolution(name="%sh2h" % name, data=states[0], num_filter=filters,
                                 kernel=self._h2h_kernel, dilate=self._h2h_dilate,
                                 pad=self._h2h_pad, stride=(1, 1), weight=self._hW,
                                 bias=self._hB, layout=self._conv_layout)
        return i2h, h2h

    def __call__(self, inputs, states):
        raise RNNNotSteppableError("BaseConvRNNCell is abstract: use ConvRNNCell, ConvLSTMCell "
                                   "or ConvGRUCell")


_CONV_DOC = """
    input_shape: one step's input shape, batch included (N, C, H, W).
    h2h_kernel (odd sizes), h2h_dilate; i2h_kernel, i2h_stride, i2h_pad,
    i2h_dilate: the convolutions' settings. *_initializer: the weights'
    and biases' init (biases: 'zeros'). activation: an act_type or a
    callable(data, name=); LeakyReLU with slope 0.2 by default.
    conv_layout: 'NCHW' (the only one symx's Convolution takes).
"""


class ConvRNNCell(BaseConvRNNCell):
    __doc__ = "The plain recurrent cell with convolutions.\n" + _CONV_DOC

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1),
                 i2h_kernel=(3, 3), i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 activation=_leaky_relu, prefix="ConvRNN_", params=None, conv_layout="NCHW"):
        super().__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel,
                         i2h_stride, i2h_pad, i2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         activation, prefix=prefix, params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ("",)

    def __call__(self, inputs, states):
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    __doc__ = ("The LSTM cell with convolutions (Shi et al. 2015); gates i, f, c, o "
               "along the channels.\n" + _CONV_DOC)

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1),
                 i2h_kernel=(3, 3), i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 activation=_leaky_relu, prefix="ConvLSTM_", params=None, conv_layout="NCHW"):
        super().__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel,
                         i2h_stride, i2h_pad, i2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         activation, prefix=prefix, params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ["_i", "_f", "_c", "_o"]

    @property
    def state_info(self):
        return [{"shape": self._state_shape, "__layout__": self._conv_layout},
                {"shape": self._state_shape, "__layout__": self._conv_layout}]

    def __call__(self, inputs, states):
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4,
                                    axis=self._conv_layout.find("C"), name="%sslice" % name)
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name="%si" % name)
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name="%sf" % name)
        in_transform = self._get_activation(gates[2], self._activation, name="%sc" % name)
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name="%so" % name)
        next_c = symbol._internal._plus(forget_gate * states[1], in_gate * in_transform,
                                        name="%sstate" % name)
        next_h = symbol._internal._mul(out_gate, self._get_activation(next_c, self._activation),
                                       name="%sout" % name)
        return next_h, [next_h, next_c]


class ConvGRUCell(BaseConvRNNCell):
    __doc__ = ("The GRU cell with convolutions; gates r, z, candidate along the "
               "channels.\n" + _CONV_DOC)

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1),
                 i2h_kernel=(3, 3), i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 activation=_leaky_relu, prefix="ConvGRU_", params=None, conv_layout="NCHW"):
        super().__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel,
                         i2h_stride, i2h_pad, i2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         activation, prefix=prefix, params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ["_r", "_z", "_o"]

    def __call__(self, inputs, states):
        self._counter += 1
        name = "%st%d_" % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        # The channel axis is 1 in NCHW, SliceChannel's default: left
        # implicit, as in MXNet's graph.
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name="%s_i2h_slice" % name)
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name="%s_h2h_slice" % name)
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type="sigmoid", name="%s_r_act" % name)
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type="sigmoid",
                                        name="%s_z_act" % name)
        candidate = self._get_activation(i2h + reset_gate * h2h, self._activation,
                                         name="%s_h_act" % name)
        next_h = symbol._internal._plus((1. - update_gate) * candidate, update_gate * states[0],
                                        name="%sout" % name)
        return next_h, [next_h]
