"""mx.mon: statistics of the values an executor computes, every N batches.

A Monitor installs itself as the executors' monitor callback
(Executor.set_monitor_callback): between tic() and toc() of an active batch
it keeps stat_func of every op output whose name matches ``pattern`` (with
monitor_all, of every op input too), then at toc() of every matching
argument and auxiliary state, and returns them as (batch, name, text) rows;
toc_print() logs them. Module.fit(monitor=...) calls tic() before each
batch's forward and toc_print() after its update, as MXNet's does.

The callback's array is only valid during the call, so the statistic is
computed at once (the default: the norm over sqrt(size), MXNet's).
"""
import logging
import math
import re

from .ndarray import NDArray

__all__ = ["Monitor"]


def _norm_stat(x):
    """MXNet's default statistic: ||x||_2 / sqrt(x.size)."""
    return x.norm() / math.sqrt(x.size)


class Monitor:
    """Collects stat_func of matching values every ``interval`` batches."""

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False, monitor_all=False):
        if int(interval) < 1:
            raise ValueError("Monitor: interval must be at least 1, got %r" % (interval,))
        self.interval = int(interval)
        self.stat_func = stat_func if stat_func is not None else _norm_stat
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []

        def stat_helper(name, array):
            if self.activated and self.re_prog.match(name):
                self.queue.append((self.step, name, self.stat_func(array)))
        self.stat_helper = stat_helper

    def install(self, exe):
        """Installs the callback on an Executor (several may share a Monitor)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Starts a batch: every ``interval``-th one is collected."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Ends a batch: [(batch, name, text)] for an active one, else []."""
        if not self.activated:
            return []
        for exe in self.exes:
            symbol = exe._symbol
            for names, arrays in ((symbol.list_arguments(), exe.arg_arrays),
                                  (symbol.list_auxiliary_states(), exe.aux_arrays)):
                for name, array in zip(names, arrays):
                    if array is not None and self.re_prog.match(name):
                        self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda row: row[1])
        rows = []
        for step, name, values in self.queue:
            if isinstance(values, NDArray):
                values = [values]
            if not isinstance(values, list) or not all(isinstance(v, NDArray) for v in values):
                raise TypeError("Monitor: stat_func must return an NDArray or a list of them, "
                                "got %s for %s" % (type(values).__name__, name))
            text = ""
            for v in values:
                text += (str(v.asscalar()) if v.shape == (1,) else str(v.asnumpy())) + "\t"
            rows.append((step, name, text))
        self.queue = []
        return rows

    def toc_print(self):
        """toc(), logged one row per line."""
        for step, name, text in self.toc():
            logging.info("Batch: {:7d} {:30s} {:s}".format(step, name, text))
