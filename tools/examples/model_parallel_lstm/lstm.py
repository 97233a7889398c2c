"""A stacked LSTM split across devices by layer, as MXNet's
example/model-parallel/lstm places it: each layer is a ctx_group, and
group2ctxs maps the groups onto GPUs, CPU devices, or the processes of an
mpirun job, so a model too large for one device trains on several.

    python lstm.py                          # one device
    python lstm.py --gpus 0,1               # layers over two GPUs
    mpirun -np 2 python lstm.py --ranks     # layers over two processes

The task is synthetic: sequences a, a + s, a + 2s, ... (mod --vocab) with a
random start a and stride s in 1..3; the network predicts each next token.
Every process runs the same script (the bind is collective); the process
holding the output layer logs the metric; the loss equals a one-device
run's (the split moves tensors, it does not change arithmetic).
"""
import argparse
import logging

import numpy as np

import symx as mx


def sequences(count, length, vocab, seed):
    rng = np.random.RandomState(seed)
    start = rng.randint(0, vocab, size=(count, 1))
    stride = rng.randint(1, 4, size=(count, 1))
    tokens = (start + stride * np.arange(length + 1)) % vocab
    return tokens[:, :-1].astype(np.float32), tokens[:, 1:].astype(np.float32)


def stacked_lstm(num_layers, hidden, vocab, length):
    """Layer i in ctx_group 'layer<i>'; the embedding with the first layer and
    the output with the last."""
    data = mx.sym.Variable("data")
    with mx.AttrScope(ctx_group="layer0"):
        x = mx.sym.Embedding(data, input_dim=vocab, output_dim=hidden, name="embed")
    for i in range(num_layers):
        with mx.AttrScope(ctx_group="layer%d" % i):
            cell = mx.rnn.LSTMCell(num_hidden=hidden, prefix="lstm%d_" % i)
            x, _ = cell.unroll(length, inputs=x, layout="NTC", merge_outputs=True)
    with mx.AttrScope(ctx_group="layer%d" % (num_layers - 1)):
        pred = mx.sym.FullyConnected(mx.sym.reshape(x, shape=(-1, hidden)), num_hidden=vocab,
                                     name="pred")
        label = mx.sym.reshape(mx.sym.Variable("softmax_label"), shape=(-1,))
        return mx.sym.SoftmaxOutput(pred, label, name="softmax")


def placement(args):
    """ctx_group -> Context: layers in equal blocks over the devices."""
    if args.gpus:
        devices = [mx.gpu(int(i)) for i in args.gpus.split(",")]
    elif args.ranks:
        from symx import kvstore
        ranks = kvstore.job_ranks()
        count = 1 if ranks is None else ranks.size
        devices = [mx.cpu(0, rank=r) for r in range(count)]
    else:
        devices = [mx.cpu(i) for i in range(args.cpus)]
    n = len(devices)
    return {"layer%d" % i: devices[i * n // args.num_layers] for i in range(args.num_layers)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--num-layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--vocab", type=int, default=32)
    ap.add_argument("--seq-len", type=int, default=12)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--num-examples", type=int, default=2048)
    ap.add_argument("--num-epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--gpus", default="", help="GPU ids to spread the layers over")
    ap.add_argument("--cpus", type=int, default=1, help="CPU devices to spread them over")
    ap.add_argument("--ranks", action="store_true",
                    help="spread them over the processes of the mpirun job")
    args = ap.parse_args()

    group2ctxs = placement(args)
    from symx import kvstore
    # Module.fit logs on one process (the one holding the outputs).
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    mx.random.seed(7)
    x, y = sequences(args.num_examples, args.seq_len, args.vocab, seed=3)
    vx, vy = sequences(256, args.seq_len, args.vocab, seed=4)
    train = mx.io.NDArrayIter(x, y, batch_size=args.batch_size)
    val = mx.io.NDArrayIter(vx, vy, batch_size=args.batch_size)
    net = stacked_lstm(args.num_layers, args.hidden, args.vocab, args.seq_len)
    mod = mx.mod.Module(net, context=mx.cpu(0), group2ctxs=group2ctxs)
    if kvstore.job_rank() == 0:
        logging.info("layers placed: %s", {k: str(v) for k, v in sorted(group2ctxs.items())})
    metric = mx.metric.Perplexity(ignore_label=None)
    mod.fit(train, eval_data=val, eval_metric=metric, num_epoch=args.num_epochs,
            optimizer="adam", optimizer_params={"learning_rate": args.lr},
            initializer=mx.init.Xavier(), kvstore=None)
    # Every forward of a split model is collective: every process scores.
    score = dict(mod.score(val, mx.metric.Perplexity(ignore_label=None)))
    if kvstore.logs_here():
        print("final validation perplexity=%.6f" % score["perplexity"], flush=True)


if __name__ == "__main__":
    main()
