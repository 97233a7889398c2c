"""mx.callback: per-batch speed lines and per-epoch checkpoints for Module.fit."""
import logging
import time

from . import model as _model

__all__ = ["Speedometer", "do_checkpoint", "module_checkpoint"]


def do_checkpoint(prefix, period=1):
    """An epoch-end callback saving prefix-symbol.json and prefix-%04d.params every period."""
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            _model.save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


class Speedometer:
    """Logs samples/sec (and the metric) every ``frequent`` batches."""

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.auto_reset = auto_reset
        self.init = False
        self.tic = 0
        self.last_count = 0

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:
            self.init = False
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent == 0:
            speed = self.frequent * self.batch_size / max(time.time() - self.tic, 1e-9)
            msg = "Epoch[%d] Batch [%d]\tSpeed: %.2f samples/sec" % (param.epoch, count, speed)
            if param.eval_metric is not None:
                for name, value in param.eval_metric.get_name_value():
                    msg += "\t%s=%f" % (name, value)
                if self.auto_reset:
                    param.eval_metric.reset()
            logging.info(msg)
            self.tic = time.time()
