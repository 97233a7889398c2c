"""Scores an MXNet checkpoint of a digit classifier from Python with
`import symx as mx`, as an MXNet 1.x script would (the main job's step 4).

    python score_checkpoint.py PREFIX EPOCH [--seed 42]

The test digits are the engine's synthetic set with `symx train`'s defaults
(10000 train / 2000 test, seed 42), so the accuracy is the one `symx train`
printed for that epoch. Inference runs data parallel on cpu(0) and cpu(1).
"""
import argparse
import sys

import symx as mx


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix")
    parser.add_argument("epoch", type=int)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--min-accuracy", type=float, default=0.95)
    args = parser.parse_args()

    digits = mx.io.synthetic_digits(10000, 2000, seed=args.seed)
    test = mx.io.NDArrayIter(digits["test_data"], digits["test_label"], batch_size=100)
    mod = mx.mod.Module.load(args.prefix, args.epoch, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=test.provide_data, label_shapes=test.provide_label, for_training=False)
    (name, accuracy), = mod.score(test, mx.metric.Accuracy())
    print("%s-%04d.params from Python: test %s %.4f over %d digits (2 devices)"
          % (args.prefix, args.epoch, name, accuracy, len(digits["test_label"])))
    if accuracy < args.min_accuracy:
        print("accuracy below %.2f" % args.min_accuracy, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
