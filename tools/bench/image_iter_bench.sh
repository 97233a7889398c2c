#!/usr/bin/env bash
# ImageRecordIter's speed against MXNet 1.9.1's (issue 33): decode +
# augment images/s on the same .rec, options and threads, the two engines
# alternating in one run (a process each), medians and the ratio symx/MXNet
# per case (goal >= 1.2). The .rec holds N JPEGs of about 500x375 made from
# scikit-image's sample photographs (random crops, flips and scales, quality
# 90) by MXNet's own pack_img; it is made once under ~/.cache/symx.
#   bash tools/bench/image_iter_bench.sh [--threads T] [--rounds R] [--images N]
#        [--cases train,val,rrc]
# Needs the MXNet venv (~/.cache/symx/mxnet-venv, made by cnn_bench.sh) and
# installs opencv-python-headless and scikit-image into it for the photos.
set -euo pipefail
cd "$(dirname "$0")/../.."
threads=2 rounds=3 images=400 cases=train,val,rrc
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --images) images=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    *) echo "image_iter_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
venv="$HOME/.cache/symx/mxnet-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "mxnet==1.9.1" "numpy<1.24"
fi
"$venv/bin/python" -c "import cv2, skimage" 2>/dev/null ||
  "$venv/bin/pip" install -q "opencv-python-headless<4.9" "scikit-image<0.22"
python=/usr/bin/python3
bazel build --config=opt --repo_env=SYMX_PYTHON="$python" //python:_symx.so
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp -r python/symx "$stage/symx"
cp "$(bazel info --config=opt --repo_env=SYMX_PYTHON="$python" bazel-bin)/python/_symx.so" \
  "$stage/symx/_symx.so"
rec="$HOME/.cache/symx/image_iter_bench_$images.rec"
if [ ! -s "$rec" ]; then
  "$venv/bin/python" - "$rec" "$images" <<'PY'
import os, sys
import cv2, numpy as np, skimage, skimage.io
import mxnet as mx
path, n = sys.argv[1], int(sys.argv[2])
data = os.path.join(os.path.dirname(skimage.__file__), "data")
photos = []
for name in ("astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png",
             "hubble_deep_field.jpg", "retina.jpg", "ihc.png", "color.png", "brick.png"):
    img = skimage.io.imread(os.path.join(data, name))
    if img.ndim == 2:
        img = np.stack([img] * 3, axis=2)
    photos.append(np.ascontiguousarray(img[:, :, 2::-1]))  # RGB(A) -> BGR
rng = np.random.RandomState(0)
rec = mx.recordio.MXRecordIO(path + ".tmp", "w")
for i in range(n):
    img = photos[i % len(photos)]
    h, w = img.shape[:2]
    s = rng.uniform(0.6, 1.0)
    ch, cw = int(h * s), int(w * s)
    y, x = rng.randint(0, h - ch + 1), rng.randint(0, w - cw + 1)
    crop = img[y:y + ch, x:x + cw]
    if rng.rand() < 0.5:
        crop = crop[:, ::-1]
    crop = cv2.resize(np.ascontiguousarray(crop), (500, 375), interpolation=cv2.INTER_AREA)
    rec.write(mx.recordio.pack_img(mx.recordio.IRHeader(0, float(i % 10), i, 0), crop,
                                   quality=90))
rec.close()
os.rename(path + ".tmp", path)
PY
fi
echo "image_iter_bench: $images JPEGs of 500x375 in $rec, $threads decode threads, batch 32"
results="$stage/results.jsonl"
for case in ${cases//,/ }; do
  for r in $(seq 1 "$rounds"); do
    # Alternate which engine goes first.
    order=(mxnet symx)
    if [ $((r % 2)) = 0 ]; then order=(symx mxnet); fi
    for engine in "${order[@]}"; do
      if [ "$engine" = mxnet ]; then
        OMP_NUM_THREADS="$threads" "$venv/bin/python" tools/bench/image_iter_bench.py \
          --engine mxnet --rec "$rec" --case "$case" --threads "$threads" >>"$results" 2>/dev/null
      else
        PYTHONPATH="$stage" SYMX_CPU_THREADS="$threads" "$python" tools/bench/image_iter_bench.py \
          --engine symx --rec "$rec" --case "$case" --threads "$threads" >>"$results"
      fi
    done
  done
done
"$python" - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ratios = []
print("%-6s %14s %14s %8s" % ("case", "mxnet img/s", "symx img/s", "ratio"))
for case in dict.fromkeys(r["case"] for r in rows):
    m = statistics.median(r["images_per_s"] for r in rows if r["case"] == case and r["engine"] == "mxnet")
    s = statistics.median(r["images_per_s"] for r in rows if r["case"] == case and r["engine"] == "symx")
    ratios.append(s / m)
    print("%-6s %14.1f %14.1f %8.2f" % (case, m, s, s / m))
print("geometric mean ratio symx/mxnet: %.2f" % statistics.geometric_mean(ratios))
PY
