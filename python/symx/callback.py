"""mx.callback: per-batch speed, metric and progress lines and per-epoch
checkpoints for Module.fit, with MXNet 1.9.1's messages."""
import logging
import math
import time

from . import model as _model
from .kvstore import logs_here

__all__ = ["Speedometer", "do_checkpoint", "module_checkpoint", "log_train_metric",
           "ProgressBar", "LogValidationMetricsCallback"]


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


def log_train_metric(period, auto_reset=False):
    """A batch-end callback logging the training metric every ``period``
    batches (and resetting its local statistic with auto_reset)."""
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name,
                             value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """Logs samples/sec (and the metric) every ``frequent`` batches; with
    auto_reset the metric's local statistic restarts after each line (the
    epoch's line uses the global one). In an mpirun job only rank 0 logs."""

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
        if count % self.frequent != 0:
            return
        elapsed = time.time() - self.tic
        if not logs_here():
            if param.eval_metric is not None and self.auto_reset:
                param.eval_metric.reset_local()
            self.tic = time.time()
            return
        speed = self.frequent * self.batch_size / elapsed if elapsed > 0 else float("inf")
        if param.eval_metric is not None:
            name_value = param.eval_metric.get_name_value()
            pairs = sum((tuple(p) for p in name_value), ())
            if self.auto_reset:
                param.eval_metric.reset_local()
                logging.info("Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec"
                             + "\t%s=%f" * len(name_value),
                             param.epoch, count - self.frequent, count, speed, *pairs)
            else:
                logging.info("Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec"
                             + "\t%s=%f" * len(name_value), param.epoch, count, speed, *pairs)
        else:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count,
                         speed)
        self.tic = time.time()


class ProgressBar:
    """Logs a bar of ``length`` characters filled by the share of ``total``
    batches done in the epoch."""

    def __init__(self, total, length=80):
        if total <= 0:
            raise ValueError("ProgressBar: total must be positive, got %r" % (total,))
        self.total = total
        self.bar_len = length

    def __call__(self, param):
        count = param.nbatch
        filled = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        logging.info("[%s] %s%s\r", "=" * filled + "-" * (self.bar_len - filled), percents, "%")


class LogValidationMetricsCallback:
    """An eval-end callback logging the validation metric."""

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)
