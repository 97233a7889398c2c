"""One timed run of ImageRecordIter, MXNet 1.9.1's or symx's (image_iter_bench.sh
alternates them): images/s decoding and augmenting a .rec with the same
options and threads, over `--epochs` passes after one warm-up batch.

  python image_iter_bench.py --engine mxnet|symx --rec FILE --case train|val
         --threads N --batch B --epochs E
Prints one JSON line: {"engine", "case", "images", "seconds", "images_per_s"}.
"""
import argparse
import json
import time

CASES = {
    # ImageNet training's usual augmentation.
    "train": dict(data_shape=(3, 224, 224), resize=256, rand_crop=True, rand_mirror=True,
                  mean_r=123.68, mean_g=116.28, mean_b=103.53, std_r=58.395, std_g=57.12,
                  std_b=57.375, shuffle=True),
    # Validation: shorter edge to 256, the centre 224.
    "val": dict(data_shape=(3, 224, 224), resize=256, mean_r=123.68, mean_g=116.28,
                mean_b=103.53, std_r=58.395, std_g=57.12, std_b=57.375),
    # Inception's random resized crop with colour jitter.
    "rrc": dict(data_shape=(3, 224, 224), random_resized_crop=True, min_random_area=0.08,
                max_aspect_ratio=4.0 / 3, min_aspect_ratio=3.0 / 4, rand_mirror=True,
                brightness=0.4, contrast=0.4, saturation=0.4, pca_noise=0.1, shuffle=True),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--engine", choices=["mxnet", "symx"], required=True)
    p.add_argument("--rec", required=True)
    p.add_argument("--case", choices=sorted(CASES), required=True)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--epochs", type=int, default=2)
    a = p.parse_args()
    if a.engine == "mxnet":
        import mxnet as mx
    else:
        import symx as mx
    kw = dict(CASES[a.case], path_imgrec=a.rec, batch_size=a.batch,
              preprocess_threads=a.threads, round_batch=False)
    if a.engine == "mxnet":
        kw["ctx"] = "cpu"  # MXNet's CPU-optimized iterator (no GPU staging)
        kw["verbose"] = False
    it = mx.io.ImageRecordIter(**kw)
    next(iter(it))  # warm-up: threads started, first batch made
    it.reset()
    images = 0
    start = time.perf_counter()
    for _ in range(a.epochs):
        for batch in it:
            batch.data[0].wait_to_read()
            images += a.batch - batch.pad
        it.reset()
    seconds = time.perf_counter() - start
    print(json.dumps({"engine": a.engine, "case": a.case, "images": images,
                      "seconds": round(seconds, 4), "images_per_s": round(images / seconds, 2)}))


if __name__ == "__main__":
    main()
