"""Checks by hand that MXNet 1.9.1 resumes from optimizer states symx wrote.

The tests check that symx resumes from MXNet's .states bytes
(tests/python/test_optimizer_states.py); this, the other way, needs both
MXNet and symx in one interpreter, so it is not a test. Run with the MXNet
venv (tools/golden/make_golden.sh makes it) and symx importable:

    PYTHONPATH=<dir holding symx> $venv/bin/python tools/golden/check_states_interop.py

For several optimizers and dtypes, with and without the optimizer pickled
(dump_optimizer, which MXNet then steps as its own class with symx's
settings and counts): two updates in symx, get_states(), then MXNet's
set_states() and symx's from the same bytes, two more updates each;
prints the largest difference between the two weights (0 or a float64
rounding) and exits 1 if one is over 1e-6.
"""
import sys

import mxnet as mx
import numpy as np
import symx

CASES = [("sgd", {"momentum": 0.9, "learning_rate": 0.1}, "float32"),
         ("sgd", {"momentum": 0.9, "multi_precision": True}, "float16"),
         ("nag", {"momentum": 0.9, "multi_precision": True}, "float16"),
         ("adam", {"learning_rate": 0.05, "multi_precision": True}, "float16"),
         ("lamb", {}, "float64"),
         ("rmsprop", {"centered": True}, "float32"),
         ("ftml", {}, "float32"),
         ("signum", {"wd_lh": 0.01}, "float32"),
         ("nadam", {}, "float32"),
         ("lars", {"momentum": 0.9, "eta": 0.01}, "float32"),
         ("sgd", {"momentum": 0.9, "lr_scheduler": "factor"}, "float32"),
         ("adam", {"lr_scheduler": "poly"}, "float32")]


def _kwargs(lib, kwargs):
    kwargs = dict(kwargs)
    if kwargs.get("lr_scheduler") == "factor":
        kwargs["lr_scheduler"] = lib.lr_scheduler.FactorScheduler(step=1, factor=0.5,
                                                                  base_lr=0.1)
    elif kwargs.get("lr_scheduler") == "poly":
        kwargs["lr_scheduler"] = lib.lr_scheduler.PolyScheduler(max_update=6, base_lr=0.05,
                                                                warmup_steps=1)
    return kwargs


def main():
    worst = 0.0
    for (name, kwargs, dtype), dump in [(c, d) for c in CASES for d in (False, True)]:
        rng = np.random.RandomState(1)
        w0 = rng.rand(2, 3).astype(np.float32)
        grads = [rng.rand(2, 3).astype(np.float32) for _ in range(4)]
        ours = symx.optimizer.get_updater(symx.optimizer.create(name, **_kwargs(symx, kwargs)))
        w = symx.nd.array(w0, dtype=dtype)
        for g in grads[:2]:
            ours(0, symx.nd.array(g, dtype=dtype), w)
        blob = ours.get_states(dump_optimizer=dump)
        theirs = mx.optimizer.get_updater(mx.optimizer.create(name, **_kwargs(mx, kwargs)))
        theirs.set_states(blob)
        if dump:
            assert type(theirs.optimizer).__module__.startswith("mxnet."), theirs.optimizer
        again = symx.optimizer.get_updater(symx.optimizer.create(name, **_kwargs(symx, kwargs)))
        again.set_states(blob)
        mw = mx.nd.array(w.asnumpy(), dtype=dtype)
        sw = symx.nd.array(w.asnumpy(), dtype=dtype)
        for g in grads[2:]:
            theirs(0, mx.nd.array(g, dtype=dtype), mw)
            again(0, symx.nd.array(g, dtype=dtype), sw)
        diff = float(np.abs(mw.asnumpy().astype(np.float64) - sw.asnumpy()).max())
        worst = max(worst, diff)
        print("%-8s %-8s %-5s %s: MXNet and symx differ by %g after resuming"
              % (name, dtype, "dump" if dump else "", kwargs, diff))
    return 0 if worst <= 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
