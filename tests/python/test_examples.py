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
    assert "x 2 process(es), kvstore dist_sync, part 0 of 2 of the training set" in log
    assert os.path.exists(prefix + "-symbol.json") and os.path.exists(prefix + "-0002.params")


def test_image_classification_reads_mnist_files_in_parts(tmp_path):
    """--data-dir: MNIST idx files (here: the built-in digits written as such)
    through mx.io.MNISTIter, each process its part."""
    import gzip
    import struct
    import numpy as np
    import symx as mx
    d = mx.io.synthetic_digits(num_train=1200, num_test=300, seed=5)
    for kind, x, y in (("train", d["train_data"], d["train_label"]),
                       ("t10k", d["test_data"], d["test_label"])):
        pixels = np.clip(np.rint(x * 255), 0, 255).astype(np.uint8)
        with gzip.open(str(tmp_path / ("%s-images-idx3-ubyte.gz" % kind)), "wb") as f:
            f.write(struct.pack(">IIII", 2051, len(x), 28, 28) + pixels.tobytes())
        with gzip.open(str(tmp_path / ("%s-labels-idx1-ubyte.gz" % kind)), "wb") as f:
            f.write(struct.pack(">II", 2049, len(y)) + y.astype(np.uint8).tobytes())
    log = _run(_mpirun_cmd(2, [TRAIN, "--network", "mlp", "--kv-store", "dist_sync",
                               "--num-epochs", "3", "--data-dir", str(tmp_path)], ENV))
    assert float(_value(log, "accuracy")) > 0.85, log


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
