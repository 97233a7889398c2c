"""mx.rnn: MXNet 1.9.1's symbolic RNN API (cells, unroll, bucketing data,
checkpoints with unpacked weights)."""
from . import rnn_cell
from .rnn_cell import *  # noqa: F401,F403
from . import rnn
from .rnn import *  # noqa: F401,F403
from . import io
from .io import *  # noqa: F401,F403

__all__ = rnn_cell.__all__ + rnn.__all__ + io.__all__
