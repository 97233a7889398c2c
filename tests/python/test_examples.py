"""The example scripts (tools/examples/) run as users run them: the image
classifier under mpirun with a distributed kvstore and on several devices of
one process, the model-parallel LSTM with its layers over two processes,
whose result must equal a one-process run's exactly."""
import os
import re
import subprocess
import sys

from test_dist import HERE, ROOT, _mpirun_cmd

EXAMPLES = os.path.join(ROOT, "tools", "examples")
TRAIN = os.path.join(EXAMPLES, "image_classification", "train.py")
LSTM = os.path.join(EXAMPLES, "model_parallel_lstm", "lstm.py")


ENV = dict(os.environ, SYMX_CPU_THREADS="1")


def _run(cmd, timeout=240, env=ENV):
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=timeout)
    log = proc.stdout.decode(errors="replace")
    assert proc.returncode == 0, log
    return log


def _value(log, name):
    found = re.findall(r"final validation %s=([0-9.]+)" % name, log)
    assert len(found) == 1, log  # one process prints it
    return found[0]


def test_image_classification_over_two_processes_with_dist_sync(tmp_path):
    prefix = str(tmp_path / "lenet")
    log = _run(_mpirun_cmd(2, [TRAIN, "--network", "lenet", "--kv-store", "dist_sync",
                               "--num-epochs", "2", "--num-examples", "2000",
                               "--model-prefix", prefix], ENV))
    assert float(_value(log, "accuracy")) > 0.9, log
    assert "x 2 process(es), kvstore dist_sync, 1000 training rows per process" in log
    assert os.path.exists(prefix + "-symbol.json") and os.path.exists(prefix + "-0002.params")


def test_image_classification_on_two_devices_of_one_process():
    log = _run([sys.executable, TRAIN, "--network", "mlp", "--cpus", "2", "--num-epochs", "2",
                "--num-examples", "2000"])
    assert float(_value(log, "accuracy")) > 0.9, log


def test_model_parallel_lstm_over_two_processes_equals_one():
    small = ["--num-layers", "2", "--hidden", "32", "--num-examples", "512", "--num-epochs", "2"]
    split = _run(_mpirun_cmd(2, [LSTM, "--ranks"] + small, ENV))
    alone = _run([sys.executable, LSTM] + small)
    assert "'layer0': 'cpu(0)@rank0', 'layer1': 'cpu(0)@rank1'" in split, split
    assert _value(split, "perplexity") == _value(alone, "perplexity"), (split, alone)
    assert float(_value(alone, "perplexity")) < 20, alone
