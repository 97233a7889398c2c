"""mx.model: MXNet checkpoints (PREFIX-symbol.json and PREFIX-NNNN.params)."""
from .base import MXNetError
from . import ndarray as nd
from . import symbol as sym

__all__ = ["save_checkpoint", "load_checkpoint", "load_params"]


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Writes prefix-symbol.json (when symbol is given) and prefix-%04d.params."""
    if symbol is not None:
        symbol.save("%s-symbol.json" % prefix)
    save_dict = {("arg:%s" % k): v for k, v in arg_params.items()}
    save_dict.update({("aux:%s" % k): v for k, v in aux_params.items()})
    nd.save("%s-%04d.params" % (prefix, epoch), save_dict)


def load_params(prefix, epoch):
    """(arg_params, aux_params) of prefix-%04d.params, in the file's order.

    Not the engine's SplitArgAux: that returns sorted maps, and MXNet keeps
    the file's order, which save_checkpoint then writes back byte for byte.
    """
    fname = "%s-%04d.params" % (prefix, epoch)
    save_dict = nd.load(fname)
    if not isinstance(save_dict, dict):
        raise MXNetError("%s: a checkpoint holds a dict of arrays, this file holds a list" % fname)
    arg_params, aux_params = {}, {}
    for k, v in save_dict.items():
        tp, sep, name = k.partition(":")
        if not sep or tp not in ("arg", "aux"):
            raise MXNetError("%s: key '%s' is neither arg:<name> nor aux:<name>" % (fname, k))
        (arg_params if tp == "arg" else aux_params)[name] = v
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """(symbol, arg_params, aux_params) of a checkpoint written by save_checkpoint or MXNet."""
    symbol = sym.load("%s-symbol.json" % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params
