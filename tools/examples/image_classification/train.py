"""Image classification, as MXNet's example/image-classification scripts
train: one script for one device, several devices and several processes.

    python train.py --network lenet                       # one CPU
    python train.py --network lenet --cpus 2              # two CPU devices
    python train.py --network lenet --gpus 0,1            # two GPUs (NCCL)
    mpirun -np 4 python train.py --kv-store dist_sync     # four processes

The data is symx's built-in 10-class digits (28x28, no files needed;
--num-examples of them), or MNIST's idx files in --data-dir through
mx.io.MNISTIter. Under a distributed kvstore each process reads its part of
the training set (MNISTIter's num_parts=kv.num_workers, part_index=kv.rank)
and trains on --batch-size rows per step, as MXNet's scripts do; gradients
are summed over every device of every process, rank 0 logs and writes the
checkpoint.
"""
import argparse
import logging
import os


import symx as mx


def mlp(num_classes):
    net = mx.sym.Flatten(mx.sym.Variable("data"))
    for i, hidden in enumerate([128, 64]):
        net = mx.sym.FullyConnected(net, num_hidden=hidden, name="fc%d" % (i + 1))
        net = mx.sym.Activation(net, act_type="relu", name="relu%d" % (i + 1))
    net = mx.sym.FullyConnected(net, num_hidden=num_classes, name="fc3")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def lenet(num_classes):
    net = mx.sym.Variable("data")
    for i, filters in enumerate([20, 50]):
        net = mx.sym.Convolution(net, kernel=(5, 5), num_filter=filters, name="conv%d" % (i + 1))
        net = mx.sym.Activation(net, act_type="tanh")
        net = mx.sym.Pooling(net, pool_type="max", kernel=(2, 2), stride=(2, 2))
    net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=500, name="fc1")
    net = mx.sym.Activation(net, act_type="tanh")
    net = mx.sym.FullyConnected(net, num_hidden=num_classes, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def resnet(num_classes, units=(1, 1, 1), filters=(16, 32, 64)):
    """A small pre-activation ResNet for 28x28 inputs (MXNet's symbols/resnet.py layout)."""
    def unit(x, channels, stride, name):
        bn = mx.sym.BatchNorm(x, fix_gamma=False, eps=2e-5, name=name + "_bn1")
        act = mx.sym.Activation(bn, act_type="relu")
        conv = mx.sym.Convolution(act, num_filter=channels, kernel=(3, 3), stride=stride,
                                  pad=(1, 1), no_bias=True, name=name + "_conv1")
        bn = mx.sym.BatchNorm(conv, fix_gamma=False, eps=2e-5, name=name + "_bn2")
        conv = mx.sym.Convolution(mx.sym.Activation(bn, act_type="relu"), num_filter=channels,
                                  kernel=(3, 3), pad=(1, 1), no_bias=True, name=name + "_conv2")
        short = x if stride == (1, 1) and name != "stage1_unit1" else mx.sym.Convolution(
            act, num_filter=channels, kernel=(1, 1), stride=stride, no_bias=True,
            name=name + "_sc")
        return conv + short

    net = mx.sym.Convolution(mx.sym.Variable("data"), num_filter=filters[0], kernel=(3, 3),
                             pad=(1, 1), no_bias=True, name="conv0")
    for s, (n, channels) in enumerate(zip(units, filters)):
        for u in range(n):
            stride = (2, 2) if s > 0 and u == 0 else (1, 1)
            net = unit(net, channels, stride, "stage%d_unit%d" % (s + 1, u + 1))
    net = mx.sym.Activation(mx.sym.BatchNorm(net, fix_gamma=False, name="bn_last"),
                            act_type="relu")
    net = mx.sym.Pooling(net, global_pool=True, pool_type="avg", kernel=(7, 7))
    net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=num_classes, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax")


NETWORKS = {"mlp": mlp, "lenet": lenet, "resnet": resnet}


def data_iters(args, kv):
    """(train, val) iterators: each process reads its part of the training set
    (MXNet's num_parts/part_index); validation is whole everywhere."""
    if args.data_dir:
        def path(name):
            p = os.path.join(args.data_dir, name)
            return p if os.path.exists(p) else p + ".gz"
        train = mx.io.MNISTIter(image=path("train-images-idx3-ubyte"),
                                label=path("train-labels-idx1-ubyte"),
                                batch_size=args.batch_size, shuffle=True, seed=args.seed,
                                num_parts=kv.num_workers, part_index=kv.rank)
        val = mx.io.MNISTIter(image=path("t10k-images-idx3-ubyte"),
                              label=path("t10k-labels-idx1-ubyte"),
                              batch_size=args.batch_size, shuffle=False)
        return train, val
    d = mx.io.synthetic_digits(num_train=args.num_examples, num_test=1000, seed=42)
    n = len(d["train_data"]) // kv.num_workers
    rows = slice(kv.rank * n, (kv.rank + 1) * n)
    train = mx.io.NDArrayIter(d["train_data"][rows], d["train_label"][rows],
                              batch_size=args.batch_size, shuffle=True)
    val = mx.io.NDArrayIter(d["test_data"], d["test_label"], batch_size=args.batch_size)
    return train, val


def contexts(args):
    if args.gpus:
        return [mx.gpu(int(i)) for i in args.gpus.split(",")]
    return [mx.cpu(i) for i in range(args.cpus)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--network", choices=sorted(NETWORKS), default="lenet")
    ap.add_argument("--gpus", default="", help="GPU ids, e.g. 0,1 (default: CPU)")
    ap.add_argument("--cpus", type=int, default=1, help="CPU devices without --gpus")
    ap.add_argument("--kv-store", default="device",
                    help="local, device, nccl, dist_sync, dist_device_sync")
    ap.add_argument("--batch-size", type=int, default=64, help="rows per step per process")
    ap.add_argument("--num-epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--mom", type=float, default=0.9)
    ap.add_argument("--wd", type=float, default=1e-4)
    ap.add_argument("--num-examples", type=int, default=6000,
                    help="built-in digits to train on (without --data-dir)")
    ap.add_argument("--data-dir", default="", help="MNIST idx files (default: built-in digits)")
    ap.add_argument("--model-prefix", default="", help="checkpoint prefix (rank 0 writes it)")
    ap.add_argument("--disp-batches", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    kv = mx.kv.create(args.kv_store)
    logging.basicConfig(level=logging.INFO if kv.rank == 0 else logging.WARNING,
                        format="%(asctime)s %(message)s")
    mx.random.seed(args.seed)
    train, val = data_iters(args, kv)
    logging.info("%s on %s x %d process(es), kvstore %s, part %d of %d of the training set",
                 args.network, [str(c) for c in contexts(args)], kv.num_workers, kv.type,
                 kv.rank, kv.num_workers)

    mod = mx.mod.Module(NETWORKS[args.network](10), context=contexts(args))
    checkpoint = (mx.callback.do_checkpoint(args.model_prefix)
                  if args.model_prefix and kv.rank == 0 else None)
    mod.fit(train, eval_data=val, eval_metric="acc", kvstore=kv, num_epoch=args.num_epochs,
            optimizer="sgd",
            optimizer_params={"learning_rate": args.lr, "momentum": args.mom, "wd": args.wd},
            initializer=mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2),
            batch_end_callback=mx.callback.Speedometer(args.batch_size, args.disp_batches),
            epoch_end_callback=checkpoint)
    accuracy = dict(mod.score(val, "acc"))["accuracy"]
    if kv.rank == 0:
        print("final validation accuracy=%.4f" % accuracy, flush=True)


if __name__ == "__main__":
    main()
