"""The Python front over the ranks of an mpirun job (issue 31): mx.kv's
distributed stores, Module.fit(kvstore='dist_sync') against a one-process
run on the global batch, and the faults (a hung rank, a dead rank, ranks
that bind different models) ending the job with the rank named.

Each test launches `mpirun -np 2 python tests/python/mpi/worker.py CASE`
through tests/distributed/mpirun.sh (the C++ multi-rank tests' launcher:
root and oversubscription flags, a hard timeout)."""
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import symx as mx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "mpi"))
import worker  # noqa: E402  (the ranks' script; its model and data for the reference run)

pytestmark = pytest.mark.skipif(shutil.which("mpirun") is None,
                                reason="Open MPI's mpirun is not installed (tools/setup.sh)")


def _mpirun_cmd(np_, script_and_args, env=None):
    """mpirun of this interpreter on np_ ranks, forwarding the variables of
    ``env`` (default: this process's) the ranks need: PYTHONPATH to import
    this build, the sanitizer runtimes of the ASan run, symx's settings."""
    env = os.environ if env is None else env
    forward = []
    for var in ("PYTHONPATH", "LD_PRELOAD", "ASAN_OPTIONS", "SYMX_COMM_TIMEOUT",
                "SYMX_NUM_CPU_DEVICES", "SYMX_CPU_THREADS"):
        if var in env:
            forward += ["-x", var]
    return (["bash", os.path.join(ROOT, "tests/distributed/mpirun.sh"), str(np_)] + forward
            + [sys.executable] + list(script_and_args))


def _mpirun(case, out, np_=2, timeout=120, env=None):
    """Runs the worker on np_ ranks; (returncode, stdout + stderr, seconds)."""
    environ = dict(os.environ)
    environ.update(env or {})
    environ["SYMX_MPIRUN_TIMEOUT"] = str(timeout)
    environ.setdefault("SYMX_CPU_THREADS", "1")
    cmd = _mpirun_cmd(np_, [os.path.join(HERE, "mpi", "worker.py"), case, str(out)], environ)
    tic = time.time()
    proc = subprocess.run(cmd, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=timeout + 30)
    return proc.returncode, proc.stdout.decode(errors="replace"), time.time() - tic


def test_kvstore_api_over_two_ranks(tmp_path):
    rc, log, _ = _mpirun("kv", tmp_path)
    assert rc == 0, log
    assert "rank 0 of 2: kv ok" in log and "rank 1 of 2: kv ok" in log, log


def _reference():
    """One process, one context, the global batch of 8."""
    x, y = worker.training_data()
    return worker.fit(x, y, 8, [mx.cpu(0)], "local", worker.initial_params())


@pytest.mark.parametrize("case", ["fit", "fit_two_contexts"])
def test_module_fit_dist_sync_follows_one_process_on_the_global_batch(tmp_path, case):
    rc, log, _ = _mpirun(case, tmp_path)
    assert rc == 0, log
    want = _reference()
    for r in (0, 1):
        got = np.load(str(tmp_path / ("fit_rank%d.npz" % r)))
        assert len(got.files) == 4 * len(want)
        for epoch, params in enumerate(want):
            for name, value in params.items():
                np.testing.assert_allclose(got["%d_%s" % (epoch, name)], value, rtol=1e-5,
                                           atol=1e-6, err_msg="rank %d, epoch %d, %s"
                                           % (r, epoch, name))
    # Rank 0 checkpoints and logs; rank 1 neither.
    assert (tmp_path / "rank0-symbol.json").exists() and (tmp_path / "rank0-0003.params").exists()
    assert not (tmp_path / "rank1-0003.params").exists()
    assert log.count("Epoch[2] Time cost") == 1, log


def test_a_hung_rank_is_named_and_the_job_ends(tmp_path):
    rc, log, seconds = _mpirun("hang", tmp_path, env={"SYMX_COMM_TIMEOUT": "3"})
    assert rc != 0, log
    assert "MXNetError" in log and "rank 1" in log, log
    assert seconds < 60, (seconds, log)


def test_a_dead_rank_ends_the_job(tmp_path):
    rc, log, seconds = _mpirun("die", tmp_path, env={"SYMX_COMM_TIMEOUT": "20"})
    assert rc != 0, log
    assert seconds < 60, (seconds, log)


def test_ranks_on_one_host_share_its_cores(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "SYMX_CPU_THREADS"}
    cmd = _mpirun_cmd(2, [os.path.join(HERE, "mpi", "worker.py"), "threads", str(tmp_path)], env)
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=120)
    log = proc.stdout.decode(errors="replace")
    assert proc.returncode == 0 and log.count("threads ok") == 2, log


def test_ctrl_c_on_one_rank_ends_the_job(tmp_path):
    rc, log, seconds = _mpirun("interrupt", tmp_path, env={"SYMX_COMM_TIMEOUT": "90"})
    assert rc != 0, log
    assert "KeyboardInterrupt" in log and "rank 1 ends the job" in log, log
    assert seconds < 60, (seconds, log)  # rank 0 would sleep 120 s; the timeout is 60 s


def test_a_scripts_own_sigint_handler_keeps_the_collective(tmp_path):
    rc, log, _ = _mpirun("interrupt_handled", tmp_path, env={"SYMX_COMM_TIMEOUT": "60"})
    assert rc == 0 and log.count(": handled") == 2, log


def test_bucketing_buckets_bound_before_the_reducer_are_refused(tmp_path):
    rc, log, _ = _mpirun("bucketing_early", tmp_path)
    assert rc == 0 and log.count(": refused") == 2, log


def test_ranks_binding_different_models_name_the_difference(tmp_path):
    rc, log, _ = _mpirun("mismatch", tmp_path, env={"SYMX_COMM_TIMEOUT": "20"})
    assert rc != 0, log
    assert "MXNetError" in log and "rank" in log and "fc1_weight" in log, log


def test_group2ctx_across_ranks_equals_one_process_bit_for_bit(tmp_path):
    rc, log, _ = _mpirun("group2ctx", tmp_path)
    assert rc == 0, log
    exe = worker.staged_mlp().simple_bind(mx.cpu(0), grad_req=worker.STAGED_REQ, data=(8, 10),
                                          softmax_label=(8,))
    want = worker.run_staged(exe, worker.staged_values())
    held = [dict(np.load(str(tmp_path / ("staged_rank%d.npz" % r)))) for r in (0, 1)]
    # Stage 1's weights and the data gradient live on rank 0; stage 2's and
    # the output on rank 1; nothing is held twice or lost.
    assert set(held[0]) == {"grad_fc1_weight", "grad_fc1_bias", "grad_data"}, sorted(held[0])
    assert set(held[1]) == {"out0", "grad_fc2_weight", "grad_fc2_bias"}, sorted(held[1])
    for got in held:
        for name, value in got.items():
            np.testing.assert_array_equal(value, want[name], err_msg=name)


def test_module_with_group2ctxs_across_ranks_trains_as_one_process(tmp_path):
    rc, log, _ = _mpirun("module_group2ctx", tmp_path)
    assert rc == 0, log
    _, want = worker.fit_staged(None)
    for r in (0, 1):
        got = np.load(str(tmp_path / ("module_rank%d.npz" % r)))
        assert len(got.files) == 4 * len(want)
        for epoch, params in enumerate(want):
            for name, value in params.items():
                np.testing.assert_array_equal(got["%d_%s" % (epoch, name)], value,
                                              err_msg="rank %d, epoch %d, %s" % (r, epoch, name))
    # The rank holding the outputs (rank 1) logs the metric, once.
    assert log.count("Epoch[2] Train-accuracy") == 1, log


def test_group2ctx_naming_a_rank_outside_the_job_is_refused(tmp_path):
    rc, log, _ = _mpirun("group2ctx_bad_rank", tmp_path)
    assert rc != 0
    assert "cpu(0)@rank2 names rank 2, but the job has 2 ranks" in log, log


def test_another_ranks_device_needs_a_launcher():
    with pytest.raises(mx.base.MXNetError, match="cpu\\(0\\)@rank1 is a device of another "
                       "rank, but this process was not started by an MPI launcher"):
        worker.staged_mlp().simple_bind(mx.cpu(0), group2ctx={"stage1": mx.cpu(0),
                                                              "stage2": mx.cpu(0, rank=1)},
                                        data=(8, 10), softmax_label=(8,))
    assert str(mx.cpu(1, rank=3)) == "cpu(1)@rank3" and mx.cpu(1, rank=3) != mx.cpu(1)
    assert mx.context._from_string("gpu(2)@rank1") == mx.gpu(2, rank=1)


def test_a_dist_store_without_a_launcher_is_a_job_of_one():
    kv = mx.kv.create("dist_sync")
    assert (kv.rank, kv.num_workers) == (0, 1)
    kv.init("w", mx.nd.ones((3,)))
    kv.push("w", [mx.nd.ones((3,)), mx.nd.ones((3,))])
    out = mx.nd.zeros((3,))
    kv.pull("w", out=out)
    np.testing.assert_array_equal(out.asnumpy(), 2.0)
    kv.barrier()
    for name in ("dist_async", "horovod", "byteps"):
        with pytest.raises(mx.base.MXNetError, match="no parameter servers"):
            mx.kv.create(name)


def test_a_bad_timeout_is_refused(monkeypatch):
    from symx import kvstore
    monkeypatch.setenv("SYMX_COMM_TIMEOUT", "soon")
    with pytest.raises(mx.base.MXNetError, match="SYMX_COMM_TIMEOUT must be a positive number"):
        kvstore._comm_timeout()
