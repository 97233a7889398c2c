"""symx against PyTorch on one GPU, side by side in one process tree.

Run by tools/gpu/bench.sh on the GPU machine (PyTorch and torchvision are
installed there; symx comes packed by tools/gpu/pack.sh). Cases:

- ResNet-50 v1 (the MXNet model zoo's, tools/gpu/models): a training step
  (forward + backward, batch 64 and 128) and inference (batch 1 and 64), in
  float32, bfloat16 and float16, and training in mixed precision ("amp
  bfloat16"/"amp float16": symx bench --mixed-precision, the rewrite `symx
  train --dtype` runs, against torch.autocast on a float32 model). symx:
  `symx bench --ctx gpu(0) --dtype ...`; PyTorch: torchvision's resnet50 in
  the same dtype (cudnn.benchmark on, NCHW), the training step being forward
  + cross-entropy + backward with no optimizer, as symx bench --train times.
  Each engine's median ms per iteration, images/s, and peak GPU memory
  (symx: the device allocator's peak; PyTorch: max_memory_allocated).
- A Transformer-style MLP block (LayerNorm, 4096 -> 16384 -> 4096 with GELU,
  residual) on 8192 tokens, training step in float32 and amp bfloat16.
- GEMM: an 8192x8192x8192 product, symx's FullyConnected (no bias) against
  PyTorch's matmul, whose bfloat16 TFLOP/s is the ceiling measured here.
- Host to device bandwidth from pageable memory: symx's CUDA device with and
  without its pinned staging, against PyTorch's pageable and pinned copies.

Ratios are PyTorch time / symx time (above 1: symx is faster).
  python3 bench.py --suite DIR --out DIR [--quick]
"""
import argparse
import json
import os
import statistics
import subprocess
import time

import torch
import torchvision

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
# "amp X": a float32 model computing in X (symx --mixed-precision X, torch.autocast).
AMP = {"amp bfloat16": "bfloat16", "amp float16": "float16"}
RESNET_CASES = [("train b64", 64, True), ("train b128", 128, True), ("infer b1", 1, False),
                ("infer b64", 64, False)]
MLP_TOKENS, MLP_HIDDEN, MLP_INNER = 8192, 4096, 16384
GEMM = 8192


def symx_ms(suite, model, shapes, dtype, train, iters):
    cmd = [os.path.join(suite, "tools", "symx"), "bench", model, "--ctx", "gpu(0)",
           "--iters", str(iters), "--json"]
    cmd += ["--mixed-precision", AMP[dtype]] if dtype in AMP else ["--dtype", dtype]
    for s in shapes:
        cmd += ["--shape", s]
    if train:
        cmd.append("--train")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=540)
    if p.returncode != 0:
        return None, (p.stderr or p.stdout).strip().splitlines()[-1:]
    doc = json.loads(p.stdout)
    return doc["ms_per_iter"]["median"], doc


def torch_ms(step, iters, warmup=5):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def symx_peak(detail):
    return max(detail.get("peak_bytes", {}).values(), default=None) if isinstance(detail, dict) \
        else None


def torch_run(model, x, loss_of, dtype, train, iters):
    """Median ms and peak bytes of a training step (forward, loss, backward)
    or an inference, with autocast for the amp dtypes."""
    amp = DTYPES[AMP[dtype]] if dtype in AMP else None
    if train:
        model.train()

        def step():
            model.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=amp, enabled=amp is not None):
                loss = loss_of(model(x))
            loss.backward()
    else:
        model.eval()

        def step():
            with torch.no_grad(), torch.autocast("cuda", dtype=amp, enabled=amp is not None):
                model(x)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    ms = torch_ms(step, iters)
    return ms, torch.cuda.max_memory_allocated()


def resnet_torch(batch, dtype, train, iters):
    storage = torch.float32 if dtype in AMP else DTYPES[dtype]
    model = torchvision.models.resnet50().cuda().to(storage)
    x = torch.randn(batch, 3, 224, 224, device="cuda", dtype=storage)
    y = torch.randint(0, 1000, (batch,), device="cuda")
    return torch_run(model, x, lambda out: torch.nn.functional.cross_entropy(out, y), dtype,
                     train, iters)


class MlpBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(MLP_HIDDEN)
        self.fc1 = torch.nn.Linear(MLP_HIDDEN, MLP_INNER)
        self.fc2 = torch.nn.Linear(MLP_INNER, MLP_HIDDEN)

    def forward(self, x):
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln(x))))


def mlp_torch(dtype, iters):
    storage = torch.float32 if dtype in AMP else DTYPES[dtype]
    model = MlpBlock().cuda().to(storage)
    x = torch.randn(MLP_TOKENS, MLP_HIDDEN, device="cuda", dtype=storage)
    target = torch.zeros_like(x)
    return torch_run(model, x, lambda out: torch.nn.functional.mse_loss(out.float(), target.float()),
                     dtype, True, iters)


def gemm_torch(dtype, iters):
    a = torch.randn(GEMM, GEMM, device="cuda", dtype=DTYPES[dtype])
    b = torch.randn(GEMM, GEMM, device="cuda", dtype=DTYPES[dtype])
    return torch_ms(lambda: a @ b, iters)


def h2d_torch(mib, reps=10):
    out = {}
    for pinned in (False, True):
        host = torch.ones(mib << 20, dtype=torch.uint8)
        if pinned:
            host = host.pin_memory()
        dev = torch.empty_like(host, device="cuda")
        best = 1e30
        for r in range(reps + 1):
            t0 = time.perf_counter()
            dev.copy_(host, non_blocking=pinned)
            torch.cuda.synchronize()
            if r:
                best = min(best, time.perf_counter() - t0)
        out["pinned" if pinned else "pageable"] = (mib << 20) / best / 1e9
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--suite", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="fewer iterations and cases")
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    iters = 10 if args.quick else 30
    models = os.path.join(args.suite, "data", "tools", "gpu", "models")
    results = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "resnet50": [],
               "gemm": [], "h2d": {}}
    results["mlp_block"] = []
    lines = ["# symx vs PyTorch on " + results["gpu"], "",
             "| case | dtype | symx ms | PyTorch ms | PyTorch/symx | symx items/s | "
             "symx peak MiB | PyTorch peak MiB |", "|---|---|---|---|---|---|---|---|"]
    mib_of = lambda b: "%.0f" % (b / 2**20) if b else "-"

    def report(table, label, dtype, batch, ms, detail, tms, tpeak):
        ratio = tms / ms if ms else None
        peak = symx_peak(detail)
        results[table].append({"case": label, "dtype": dtype, "symx_ms": ms, "torch_ms": tms,
                               "ratio": ratio, "symx_items_per_s": batch * 1e3 / ms if ms else None,
                               "torch_items_per_s": batch * 1e3 / tms, "symx_peak_bytes": peak,
                               "torch_peak_bytes": tpeak, "symx_error": None if ms else detail})
        lines.append("| %s %s | %s | %s | %.2f | %s | %s | %s | %s |" % (
            "ResNet-50" if table == "resnet50" else "MLP block", label, dtype,
            "%.2f" % ms if ms else "failed: %s" % detail, tms, "%.2f" % ratio if ratio else "-",
            "%.0f" % (batch * 1e3 / ms) if ms else "-", mib_of(peak), mib_of(tpeak)))
        print(lines[-1], flush=True)

    dtypes = ["float32", "bfloat16", "amp bfloat16"] if args.quick else list(DTYPES) + list(AMP)
    for label, batch, train in RESNET_CASES:
        if args.quick and batch == 128:
            continue
        for dtype in dtypes:
            if dtype in AMP and not train:
                continue
            shapes = ["data=%d,3,224,224" % batch, "softmax_label=%d" % batch]
            ms, detail = symx_ms(args.suite, os.path.join(models, "resnet50_v1-symbol.json"),
                                 shapes, dtype, train, iters)
            tms, tpeak = resnet_torch(batch, dtype, train, iters)
            report("resnet50", label, dtype, batch, ms, detail, tms, tpeak)
            torch.cuda.empty_cache()
    for dtype in ["float32", "amp bfloat16"]:
        shapes = ["data=%d,%d" % (MLP_TOKENS, MLP_HIDDEN),
                  "out_label=%d,%d" % (MLP_TOKENS, MLP_HIDDEN)]
        ms, detail = symx_ms(args.suite, os.path.join(models, "mlp_block-symbol.json"), shapes,
                             dtype, True, iters)
        tms, tpeak = mlp_torch(dtype, iters)
        report("mlp_block", "train %d tokens" % MLP_TOKENS, dtype, MLP_TOKENS, ms, detail, tms,
               tpeak)
        torch.cuda.empty_cache()
    flops = 2.0 * GEMM ** 3
    ceiling = flops / gemm_torch("bfloat16", iters) / 1e9
    lines += ["", "GEMM %d^3, bf16 ceiling (PyTorch matmul) %.0f TFLOP/s" % (GEMM, ceiling), "",
              "| dtype | symx TFLOP/s | PyTorch TFLOP/s | symx / bf16 ceiling |", "|---|---|---|---|"]
    for dtype in ["bfloat16", "float16", "float32"]:
        ms, detail = symx_ms(args.suite, os.path.join(models, "gemm8192-symbol.json"),
                             ["data=%d,%d" % (GEMM, GEMM)], dtype, False, iters)
        t = flops / gemm_torch(dtype, iters) / 1e9
        s = flops / ms / 1e9 if ms else None
        results["gemm"].append({"dtype": dtype, "symx_tflops": s, "torch_tflops": t,
                                "ceiling_tflops": ceiling, "symx_error": None if ms else detail})
        lines.append("| %s | %s | %.0f | %s |" % (dtype, "%.0f" % s if s else "failed: %s" % detail,
                                                   t, "%.0f%%" % (100 * s / ceiling) if s else "-"))
        print(lines[-1], flush=True)
    mib = 256
    for staging in ("1", "0"):
        env = dict(os.environ, SYMX_PINNED_STAGING=staging)
        p = subprocess.run([os.path.join(args.suite, "tools", "h2d_bench"), str(mib)], env=env,
                           capture_output=True, text=True, timeout=300)
        results["h2d"]["symx_staging_" + staging] = (json.loads(p.stdout) if p.returncode == 0
                                                     else p.stderr.strip())
    results["h2d"]["torch"] = h2d_torch(mib)
    lines += ["", "Host to device, %d MiB from pageable memory (GB/s): %s" % (
        mib, json.dumps(results["h2d"]))]
    print(lines[-1])
    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(args.out, "bench.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
