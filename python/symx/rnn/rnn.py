"""mx.rnn's checkpoints: save_checkpoint / load_checkpoint with the cells'
weights unpacked on disk (one array per gate, and FusedRNNCell's flat vector
split up), so a checkpoint serves fused and unfused cells alike."""
import warnings

from ..base import MXNetError
from ..model import save_checkpoint, load_checkpoint
from .rnn_cell import BaseRNNCell

__all__ = ["rnn_unroll", "save_rnn_checkpoint", "load_rnn_checkpoint", "do_rnn_checkpoint"]


def _as_cells(cells):
    if isinstance(cells, BaseRNNCell):
        return [cells]
    cells = list(cells)
    for cell in cells:
        if not isinstance(cell, BaseRNNCell):
            raise MXNetError("expected an RNN cell or a list of them, got %r" % (cell,))
    return cells


def rnn_unroll(cell, length, inputs=None, begin_state=None, input_prefix="", layout="NTC"):
    """Deprecated: cell.unroll(length, inputs, begin_state, layout).

    ``input_prefix`` named the input variables unroll used to make when
    inputs was None; MXNet dropped that (its rnn_unroll no longer runs at
    all), so symx takes only the empty default."""
    warnings.warn("rnn_unroll is deprecated. Please call cell.unroll directly.")
    if input_prefix:
        raise MXNetError("rnn_unroll: input_prefix is not supported (unroll no longer makes "
                         "input variables); create them and pass inputs")
    return cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout)


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """save_checkpoint (prefix-symbol.json, prefix-%04d.params) with the
    weights of ``cells`` (a cell or a list) unpacked first."""
    for cell in _as_cells(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """(symbol, arg_params, aux_params) of a checkpoint, with the weights of
    ``cells`` packed back into the form their graph uses."""
    sym, arg, aux = load_checkpoint(prefix, epoch)
    for cell in _as_cells(cells):
        arg = cell.pack_weights(arg)
    return sym, arg, aux


def do_rnn_checkpoint(cells, prefix, period=1):
    """An epoch-end callback (Module.fit's epoch_end_callback) that saves
    with save_rnn_checkpoint every ``period`` epochs."""
    period = int(max(1, period))
    cells = _as_cells(cells)

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback
