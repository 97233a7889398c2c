"""symx against MXNet 1.9.1 on standard CNNs, side by side on one machine.

Runs under the MXNet venv's Python (tools/bench/cnn_bench.sh makes it). Each
network is built by MXNet's own gluon.model_zoo.vision (pretrained=False,
random weights) and exported to symbol JSON + .params once; then, per case,
MXNet and symx alternate (two rounds each, every round a fresh process), both
on the same number of threads. Reported per case: the median forward (or
forward+backward) time of each engine (the median of its rounds' medians), the ratio
MXNet-time / symx-time (above 1: symx is faster), and memory: MXNet's
"Total N MB allocated" from Executor.debug_str() against symx's planned
intermediate memory. Then the geometric mean of the ratios.

With --bf16, symx's inference cases run their convolutions in bfloat16
(SYMX_ONEDNN_BF16=1; the CPU must have AVX512_BF16 or AMX) against MXNet's
float32: a speed comparison of symx's option, not of equal arithmetic.

  python cnn_bench.py --symx PATH [--threads 2] [--iters 5] [--models a,b] [--out DIR] [--bf16]
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

# (model, input size)
MODELS = [
    ("resnet50_v1", 224),
    ("mobilenetv2_1.0", 224),
    ("squeezenet1.1", 224),
    ("inceptionv3", 299),
    ("densenet121", 224),
    ("vgg16", 224),
]
# (label, batch, train); training only for resnet50_v1.
CASES = [("infer b1", 1, False), ("infer b16", 16, False)]
TRAIN_CASE = ("train b8", 8, True)


def export(model, size, out_dir):
    prefix = os.path.join(out_dir, model)
    if os.path.exists(prefix + "-symbol.json") and os.path.exists(prefix + "-0000.params"):
        return prefix
    import mxnet as mx
    from mxnet.gluon.model_zoo import vision
    net = vision.get_model(model, pretrained=False)
    net.initialize(mx.init.Xavier(), ctx=mx.cpu())
    net.hybridize()
    net(mx.nd.zeros((1, 3, size, size)))
    net.export(prefix)
    return prefix


def time_mxnet(prefix, batch, size, train, iters, warmup):
    """Runs in a child process (so its threads are set by the environment)."""
    import mxnet as mx
    import numpy as np
    sym = mx.sym.load(prefix + "-symbol.json")
    shape = (batch, 3, size, size)
    req = {name: ("write" if train and name != "data" else "null")
           for name in sym.list_arguments()}
    exe = sym.simple_bind(mx.cpu(), data=shape, grad_req=req)
    rng = np.random.default_rng(0)
    for name, arr in exe.arg_dict.items():
        arr[:] = rng.uniform(-0.1, 0.1, arr.shape)
    heads = [mx.nd.ones(o.shape) for o in exe.outputs]

    def step():
        exe.forward(is_train=train)
        if train:
            exe.backward(heads)
            for g in exe.grad_arrays:
                if g is not None:
                    g.wait_to_read()
        for o in exe.outputs:
            o.wait_to_read()

    for _ in range(warmup):
        step()
    ms = []
    for _ in range(iters):
        start = time.perf_counter()
        step()
        ms.append((time.perf_counter() - start) * 1000)
    match = re.search(r"Total (\d+) MB allocated", exe.debug_str())
    return {"ms": ms, "mb": int(match.group(1)) if match else None}


def run_mxnet(prefix, batch, size, train, iters, warmup, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run(
        [sys.executable, __file__, "--mxnet-child", json.dumps([prefix, batch, size, train, iters,
                                                                 warmup])],
        env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_symx(symx, prefix, batch, size, train, iters, warmup, threads, bf16=False):
    cmd = [symx, "bench", prefix + "-symbol.json", "--shape", f"data={batch},3,{size},{size}",
           "--iters", str(iters), "--warmup", str(warmup), "--threads", str(threads), "--json"]
    if train:
        cmd.append("--train")
    env = dict(os.environ, SYMX_CPU_THREADS=str(threads), SYMX_ONEDNN_BF16="1" if bf16 else "0")
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    doc = json.loads(out.strip().splitlines()[-1])
    return {"median": doc["ms_per_iter"]["median"], "mb": doc["bytes_planned"] / 2**20}


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--mxnet-child":
        prefix, batch, size, train, iters, warmup = json.loads(sys.argv[2])
        print(json.dumps(time_mxnet(prefix, batch, size, train, iters, warmup)))
        return
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--symx", required=True, help="the symx binary (an optimized build)")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--models", default=",".join(m for m, _ in MODELS))
    ap.add_argument("--out", default=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                  "symx-cnn-bench"))
    ap.add_argument("--bf16", action="store_true",
                    help="symx's inference convolutions in bfloat16 (SYMX_ONEDNN_BF16=1)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    wanted = args.models.split(",")
    unknown = [m for m in wanted if m not in dict(MODELS)]
    if unknown:
        sys.exit(f"cnn_bench: unknown model(s) {unknown}; known: {[m for m, _ in MODELS]}")
    print(f"threads {args.threads}, {args.iters} timed iterations x {args.rounds} rounds per "
          f"engine; ratio = MXNet ms / symx ms (above 1: symx faster)"
          + ("; symx inference in bfloat16, MXNet float32" if args.bf16 else ""))
    print(f"{'model':18} {'case':10} {'MXNet ms':>10} {'symx ms':>10} {'ratio':>7} "
          f"{'MXNet MB':>9} {'symx MB':>8}")
    ratios = []
    for model in wanted:
        size = dict(MODELS)[model]
        prefix = export(model, size, args.out)
        cases = CASES + ([TRAIN_CASE] if model == "resnet50_v1" else [])
        for label, batch, train in cases:
            mx_ms, sx_ms = [], []
            mx_mb = sx_mb = None
            for _ in range(args.rounds):
                r = run_mxnet(prefix, batch, size, train, args.iters, args.warmup, args.threads)
                mx_ms.append(median(r["ms"]))
                mx_mb = r["mb"]
                s = run_symx(args.symx, prefix, batch, size, train, args.iters, args.warmup,
                             args.threads, args.bf16)
                sx_ms.append(s["median"])
                sx_mb = s["mb"]
            m, s = median(mx_ms), median(sx_ms)
            ratios.append(m / s)
            print(f"{model:18} {label:10} {m:10.1f} {s:10.1f} {m / s:7.2f} "
                  f"{mx_mb if mx_mb is not None else '?':>9} {sx_mb:8.0f}", flush=True)
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean of ratios: {geo:.2f}  (lowest {min(ratios):.2f})")


if __name__ == "__main__":
    main()
