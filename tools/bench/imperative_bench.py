"""Per-call cost of imperative calls (mx.nd.<op>, NDArray arithmetic): symx
against MXNet 1.9.1, side by side on one machine.

Runs under the MXNet venv's Python (tools/bench/imperative_bench.sh makes it
and stages symx's package). Each case is a small call, where the cost is the
call itself rather than the arithmetic: MXNet's ctypes call and engine push
against symx's plan-cache lookup and kernel. Per round, MXNet and symx each
run every case in a fresh process (alternating, same thread count); a case
times `calls` calls and then waits for every result (MXNet's calls are
asynchronous, so its cost per call is its throughput), and reports the median
over `reps` such samples. Printed: microseconds per call for each engine and
the ratio MXNet / symx (above 1: symx's call is cheaper), median over rounds,
and the geometric mean. The goal of issue 30: a ratio of at least 1.

  python imperative_bench.py --symx-path DIR [--threads 1] [--rounds 3]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

# name -> (setup, call): Python run with `mx` and `np` bound; setup defines
# the arrays, call is one imperative call.
CASES = {
    "relu (1 element)": ("x = mx.nd.ones((1,))", "mx.nd.relu(x)"),
    "x + 1 (1 element)": ("x = mx.nd.ones((1,))", "x + 1"),
    "x += 1 (1 element)": ("x = mx.nd.ones((1,))", "x.__iadd__(1)"),
    "broadcast x + y (4x4, 4)": ("x = mx.nd.ones((4, 4)); y = mx.nd.ones((4,))", "x + y"),
    "dot (16x16)": ("a = mx.nd.ones((16, 16))", "mx.nd.dot(a, a)"),
    "FullyConnected (8x32 -> 16)": (
        "d = mx.nd.ones((8, 32)); w = mx.nd.ones((16, 32)); b = mx.nd.ones((16,))",
        "mx.nd.FullyConnected(d, w, b, num_hidden=16)"),
    "sum(axis=1) (8x8)": ("x = mx.nd.ones((8, 8))", "x.sum(axis=1)"),
    "clip (64 elements)": ("x = mx.nd.ones((64,))", "mx.nd.clip(x, 0, 0.5)"),
    # One optimizer update through get_updater: each engine runs its fused
    # update operator (multi_sgd_mom_update, adam_update) with the Python
    # bookkeeping around it.
    "SGD momentum update (4096)": (
        "upd = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=1e-3, momentum=0.9, "
        "wd=1e-4)); w = mx.nd.ones((4096,)); g = mx.nd.ones((4096,))",
        "upd(0, g, w)"),
    "Adam update (4096)": (
        "upd = mx.optimizer.get_updater(mx.optimizer.Adam(learning_rate=1e-3, wd=1e-4)); "
        "w = mx.nd.ones((4096,)); g = mx.nd.ones((4096,))",
        "upd(0, g, w)"),
}


def child(engine, calls, reps):
    """Times every case in this process; prints {case: us per call}."""
    if engine == "mxnet":
        import mxnet as mx
    else:
        import symx as mx
    import numpy as np  # noqa: F401 (the cases may use it)
    result = {}
    for name, (setup, call) in CASES.items():
        scope = {"mx": mx, "np": np}
        exec(setup, scope)
        body = compile("for _ in range(%d):\n    %s\nmx.nd.waitall()" % (calls, call), name, "exec")
        exec(body, scope)  # warm-up: the first call builds symx's plan
        samples = []
        for _ in range(reps):
            start = time.perf_counter()
            exec(body, scope)
            samples.append((time.perf_counter() - start) / calls * 1e6)
        samples.sort()
        result[name] = samples[len(samples) // 2]
    print(json.dumps(result))


def run(engine, args):
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads),
               SYMX_CPU_THREADS=str(args.threads))
    if engine == "symx":
        env["PYTHONPATH"] = args.symx_path + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, __file__, "--child", engine, str(args.calls),
                          str(args.reps)], env=env, check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--symx-path", required=True, help="a directory holding the symx package")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    per = {"mxnet": {}, "symx": {}}
    for _ in range(args.rounds):
        for engine in ("mxnet", "symx"):
            for name, us in run(engine, args).items():
                per[engine].setdefault(name, []).append(us)
    print(f"threads {args.threads}, {args.calls} calls x {args.reps} samples x {args.rounds} "
          f"rounds per engine; ratio = MXNet us / symx us (above 1: symx's call is cheaper)")
    print(f"{'case':30} {'MXNet us':>9} {'symx us':>9} {'ratio':>7}")
    ratios = []
    for name in CASES:
        m, s = median(per["mxnet"][name]), median(per["symx"][name])
        ratios.append(m / s)
        print(f"{name:30} {m:9.2f} {s:9.2f} {m / s:7.2f}")
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean of ratios: {geo:.2f}  (lowest {min(ratios):.2f})")


if __name__ == "__main__":
    main()
