"""One rank of the Python front's multi-rank tests (tests/python/test_dist.py
launches it: mpirun -np N python worker.py CASE OUTDIR). Each case checks
what it can on its own rank with asserts, and writes what the test compares
with a one-process run into OUTDIR (rank 0 only, as a training script
checkpoints). An assert that fails ends the job (kvstore's excepthook)."""
import logging
import os
import sys
import time

import numpy as np

import symx as mx


def case_kv(out):
    kv = mx.kv.create("dist_sync")
    r, n = kv.rank, kv.num_workers
    assert kv.type == "dist_sync" and n == 2 and r in (0, 1), (kv.type, r, n)
    # init: every rank keeps rank 0's value (MXNet's servers do).
    kv.init(3, mx.nd.ones((2, 3)) * (r + 1))
    got = mx.nd.zeros((2, 3))
    kv.pull(3, out=got)
    np.testing.assert_array_equal(got.asnumpy(), 1.0)
    # push: the devices' values, then the ranks' sums: (1 + 2) * 2 ranks.
    kv.push(3, [mx.nd.ones((2, 3), ctx=mx.cpu(0)), mx.nd.ones((2, 3), ctx=mx.cpu(1)) * 2])
    kv.pull(3, out=[got, mx.nd.zeros((2, 3), ctx=mx.cpu(1))])
    np.testing.assert_array_equal(got.asnumpy(), 6.0)
    # str keys, lists, pushpull: rank r pushes r + 1, the sum is 3 everywhere.
    kv.init(["a", "b"], [mx.nd.zeros((4,)), mx.nd.zeros((2, 2))])
    a, b = mx.nd.ones((4,)) * (r + 1), mx.nd.ones((2, 2)) * (r + 1) * 10
    kv.pushpull(["a", "b"], [a, b])
    np.testing.assert_array_equal(a.asnumpy(), 3.0)
    np.testing.assert_array_equal(b.asnumpy(), 30.0)
    # broadcast: rank 0's value.
    bc = mx.nd.zeros((3,))
    kv.broadcast("c", mx.nd.arange(3) + r * 100, out=bc)
    np.testing.assert_array_equal(bc.asnumpy(), [0, 1, 2])
    # set_optimizer: every rank steps its copy with the same summed gradient.
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.5))
    w = mx.nd.zeros((2, 3))
    for _ in range(2):
        kv.push(3, mx.nd.ones((2, 3)) * (r + 1))
    kv.pull(3, out=w)
    # 6 - 0.1*3 = 5.7; momentum: m = 0.5*(-0.3) - 0.3 = -0.45 -> 5.25
    np.testing.assert_allclose(w.asnumpy(), 5.25, rtol=1e-6)
    path = os.path.join(out, "kv%d.states" % r)
    kv.save_optimizer_states(path)
    kv.load_optimizer_states(path)
    kv.barrier()
    # 2-bit compression of each rank's push: 0.7 goes as 0.5 and keeps 0.2.
    kv2 = mx.kv.create("dist_device_sync")
    kv2.set_gradient_compression({"type": "2bit", "threshold": 0.5})
    kv2.init(9, mx.nd.zeros((5,)))
    sums = []
    for value in (0.7, 0.4):
        kv2.push(9, mx.nd.ones((5,)) * value)
        g = mx.nd.zeros((5,))
        kv2.pull(9, out=g)
        sums.append(float(g.asnumpy()[0]))
    # pushes: 0.7 -> 0.5 (0.2 left), 0.4 + 0.2 -> 0.5 (0.1 left); two ranks.
    assert sums == [1.0, 1.0], sums
    try:
        kv.pull("never", out=mx.nd.zeros((1,)))
    except mx.base.MXNetError as e:
        assert "has not been initialized" in str(e)
    else:
        raise AssertionError("pull of an unknown key did not fail")
    print("rank %d of %d: kv ok" % (r, n), flush=True)


def _mlp():
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=16, name="fc1")
    net = mx.sym.Activation(net, act_type="relu", name="relu1")
    net = mx.sym.FullyConnected(net, num_hidden=4, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def training_data(batch=8, batches=6, features=10):
    rng = np.random.RandomState(31)
    x = rng.uniform(-1, 1, size=(batch * batches, features)).astype(np.float32)
    y = (np.abs(x[:, :4]).argmax(axis=1)).astype(np.float32)
    return x, y


def initial_params(features=10):
    rng = np.random.RandomState(7)
    shapes = {"fc1_weight": (16, features), "fc1_bias": (16,), "fc2_weight": (4, 16),
              "fc2_bias": (4,)}
    return {k: mx.nd.array(rng.uniform(-0.5, 0.5, size=s)) for k, s in shapes.items()}


def fit(x, y, batch, contexts, kvstore, arg_params, epochs=3, prefix=None):
    """Module.fit as an MXNet script runs it; the parameters after each epoch."""
    mod = mx.mod.Module(_mlp(), context=contexts)
    it = mx.io.NDArrayIter(x, y, batch_size=batch, shuffle=False)
    seen = []
    mod.fit(it, num_epoch=epochs, kvstore=kvstore, optimizer="sgd",
            optimizer_params={"learning_rate": 0.5, "momentum": 0.9, "wd": 1e-3},
            arg_params=arg_params, aux_params={},
            epoch_end_callback=lambda e, s, a, aux: seen.append(
                {k: v.asnumpy() for k, v in a.items()}),
            batch_end_callback=mx.callback.Speedometer(batch, 2))
    if prefix is not None:
        mod.save_checkpoint(prefix, epochs)
    return seen


def case_fit(out, kvstore="dist_sync", contexts=None):
    """Each rank trains on its rows of every global batch of 8 (rank r: rows
    4r..4r+3), as a script shards its iterator by kv.rank/num_workers; the
    parameters must follow a one-process run on the global batch."""
    kv = mx.kv.create(kvstore)
    r, n = kv.rank, kv.num_workers
    x, y = training_data()
    per = 8 // n
    rows = np.concatenate([np.arange(b * 8 + r * per, b * 8 + (r + 1) * per)
                           for b in range(len(x) // 8)])
    # Rank 1 starts from other parameters: rank 0's must reach it.
    params = initial_params()
    if r == 1:
        params = {k: v * 3 for k, v in params.items()}
    seen = fit(x[rows], y[rows], per, contexts or [mx.cpu(0)], kv, params,
               prefix=os.path.join(out, "rank%d" % r) if r == 0 else None)
    np.savez(os.path.join(out, "fit_rank%d.npz" % r),
             **{"%d_%s" % (e, k): v for e, p in enumerate(seen) for k, v in p.items()})
    print("rank %d of %d: fit done" % (r, n), flush=True)


def case_fit_two_contexts(out):
    case_fit(out, contexts=[mx.cpu(0), mx.cpu(1)])


def case_hang(out):
    """Rank 1 stops answering before the first push; rank 0 must fail with
    an error naming it within SYMX_COMM_TIMEOUT, and the job must end."""
    kv = mx.kv.create("dist_sync")
    kv.init(1, mx.nd.ones((4,)))
    if kv.rank == 1:
        time.sleep(600)
    kv.push(1, mx.nd.ones((4,)))


def case_die(out):
    """Rank 1 dies (SIGKILL) before the first push: the job must end."""
    kv = mx.kv.create("dist_sync")
    kv.init(1, mx.nd.ones((4,)))
    if kv.rank == 1:
        os.kill(os.getpid(), 9)
    kv.push(1, mx.nd.ones((4,)))
    time.sleep(600)


def case_interrupt(out):
    """Rank 1 is interrupted (SIGINT, as Ctrl-C) while it waits in a push for
    rank 0, which is busy elsewhere for 120 s: rank 1 must stop waiting at
    once, and the job must end."""
    import signal
    import threading
    kv = mx.kv.create("dist_sync")
    kv.init(1, mx.nd.ones((4,)))
    if kv.rank == 0:
        time.sleep(120)
    else:
        threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
    kv.push(1, mx.nd.ones((4,)))


def case_threads(out):
    """Without SYMX_CPU_THREADS the host's cores are shared by its ranks."""
    import multiprocessing
    from symx.base import _core
    want = max(1, multiprocessing.cpu_count() // 2)
    assert _core.cpu_threads() == want, (_core.cpu_threads(), want)
    print("threads ok: %d" % want, flush=True)


def case_interrupt_handled(out):
    """A script with its own SIGINT handler (a stop flag) keeps its collective:
    the push waits for rank 0 (busy for 3 s) and completes."""
    import signal
    import threading
    seen = []
    signal.signal(signal.SIGINT, lambda sig, frame: seen.append(sig))
    kv = mx.kv.create("dist_sync")
    kv.init(1, mx.nd.zeros((4,)))
    if kv.rank == 0:
        time.sleep(3)
    else:
        threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
    kv.push(1, mx.nd.ones((4,)))
    got = mx.nd.zeros((4,))
    kv.pull(1, out=got)
    assert got.asnumpy().tolist() == [2.0] * 4, got.asnumpy()
    assert seen == ([signal.SIGINT] if kv.rank == 1 else []), seen
    print("rank %d: handled" % kv.rank, flush=True)


def case_bucketing_early(out):
    """A bucket bound before init_optimizer made the job's reducer would never
    sum over the ranks: refused on every rank, naming the buckets."""
    kv = mx.kv.create("dist_sync")

    def gen(key):
        data = mx.sym.Variable("data")
        net = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
        return mx.sym.SoftmaxOutput(net, name="softmax"), ("data",), ("softmax_label",)

    mod = mx.mod.BucketingModule(gen, default_bucket_key=8, context=mx.cpu())
    mod.bind([("data", (4, 8))], [("softmax_label", (4,))])
    mod.init_params()
    mod.switch_bucket(6, [("data", (4, 8))], [("softmax_label", (4,))])
    try:
        mod.init_optimizer(kvstore=kv)
    except mx.base.MXNetError as e:
        assert "buckets [6] were bound before init_optimizer" in str(e), str(e)
        print("rank %d: refused" % kv.rank, flush=True)
    else:
        raise AssertionError("init_optimizer took an early bucket")


def case_mismatch(out):
    """Rank 1 binds another model: Module's reducer names the difference."""
    kv = mx.kv.create("dist_sync")
    data = mx.sym.Variable("data")
    hidden = 16 if kv.rank == 0 else 12
    net = mx.sym.FullyConnected(data, num_hidden=hidden, name="fc1")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind([("data", (4, 10))], [("softmax_label", (4,))])
    mod.init_params()
    mod.init_optimizer(kvstore=kv)


def staged_mlp():
    """Two stages by ctx_group, as a model-parallel script places them."""
    data = mx.sym.Variable("data")
    with mx.AttrScope(ctx_group="stage1"):
        net = mx.sym.FullyConnected(data, num_hidden=16, name="fc1")
        net = mx.sym.Activation(net, act_type="tanh", name="tanh1")
    with mx.AttrScope(ctx_group="stage2"):
        net = mx.sym.FullyConnected(net, num_hidden=4, name="fc2")
        net = mx.sym.SoftmaxOutput(net, name="softmax")
    return net


STAGED_REQ = {"data": "write", "softmax_label": "null", "fc1_weight": "write",
              "fc1_bias": "write", "fc2_weight": "write", "fc2_bias": "write"}


def staged_values():
    x, y = training_data()
    values = {"data": x[:8], "softmax_label": y[:8]}
    values.update({k: v.asnumpy() for k, v in initial_params().items()})
    return values


def run_staged(exe, values, steps=2):
    """Forward and backward `steps` times with an SGD step in between; the
    defined outputs and gradients of the last step, by name."""
    for name, value in values.items():
        if exe.arg_dict[name] is not None:
            exe.arg_dict[name][:] = value
    out = {}
    for _ in range(steps):
        exe.forward(is_train=True)
        exe.backward()
        for name in ("fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"):
            w, g = exe.arg_dict[name], exe.grad_dict.get(name)
            if w is not None and g is not None:
                w[:] = w - 0.1 * g
    for i, o in enumerate(exe.outputs):
        if o is not None:
            out["out%d" % i] = o.asnumpy()
    for name, g in exe.grad_dict.items():
        if g is not None:
            out["grad_" + name] = g.asnumpy()
    return out


def case_group2ctx(out):
    """stage1 on rank 0's cpu(0), stage2 on rank 1's: each rank writes what
    it holds; the test compares it with one process bit for bit."""
    from symx import kvstore
    group2ctx = {"stage1": mx.cpu(0), "stage2": mx.cpu(0, rank=1)}
    exe = staged_mlp().simple_bind(mx.cpu(0), grad_req=STAGED_REQ, group2ctx=group2ctx,
                                   data=(8, 10), softmax_label=(8,))
    rank = kvstore.job_ranks().rank
    held = run_staged(exe, staged_values())
    np.savez(os.path.join(out, "staged_rank%d.npz" % rank), **held)
    print("rank %d: %s" % (rank, sorted(held)), flush=True)


def fit_staged(group2ctxs, epochs=3):
    """Module.fit of the staged MLP on the whole data (every rank feeds the
    same batches: the bind is SPMD); the gathered parameters after each epoch."""
    x, y = training_data()
    mod = mx.mod.Module(staged_mlp(), context=mx.cpu(0), group2ctxs=group2ctxs)
    seen = []
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=epochs, optimizer="sgd",
            optimizer_params={"learning_rate": 0.5, "momentum": 0.9, "wd": 1e-3},
            arg_params=initial_params(), aux_params={},
            epoch_end_callback=lambda e, s, a, aux: seen.append(
                {k: v.asnumpy() for k, v in a.items()}))
    return mod, seen


def case_module_group2ctx(out):
    from symx import kvstore
    mod, seen = fit_staged({"stage1": mx.cpu(0), "stage2": mx.cpu(0, rank=1)})
    rank = kvstore.job_rank()
    np.savez(os.path.join(out, "module_rank%d.npz" % rank),
             **{"%d_%s" % (e, k): v for e, p in enumerate(seen) for k, v in p.items()})
    outputs = mod.get_outputs()
    assert (outputs[0] is not None) == (rank == 1), outputs
    x, y = training_data()
    predicted = mod.predict(mx.io.NDArrayIter(x[:20], y[:20], batch_size=8))
    assert (predicted is None) == (rank == 0), predicted  # rank 1 holds the output
    if rank == 1:
        assert predicted.shape == (20, 4), predicted.shape
    print("rank %d: module fit done" % rank, flush=True)


def case_group2ctx_bad_rank(out):
    staged_mlp().simple_bind(mx.cpu(0), group2ctx={"stage1": mx.cpu(0),
                                                   "stage2": mx.cpu(0, rank=2)},
                             data=(8, 10), softmax_label=(8,))


def main():
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    case, out = sys.argv[1], sys.argv[2]
    globals()["case_" + case](out)


if __name__ == "__main__":
    main()
