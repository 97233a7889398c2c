#!/usr/bin/env bash
# Fine-tunes LeNet on real handwritten digits through RecordIO, the way an
# MXNet user would with im2rec and ImageRecordIter:
#   1. writes scikit-learn's handwritten digits (1797 8x8 scans from UCI,
#      shipped inside the scikit-learn wheel) as PNG files, a folder per class;
#   2. `symx im2rec --list --recursive`: a class per folder, 80/20 split;
#      `symx im2rec`: packs both lists into .rec/.idx, each digit enlarged
#      to 28x28;
#   3. `symx train --model lenet`: LeNet trained on symx's synthetic digits;
#   4. `symx train lenet-symbol.json --params ...`: that checkpoint
#      fine-tuned on the real digits (random crops and mirrors off: digits
#      are not symmetric), printing top-1/top-5 on the held-out 20% per epoch.
# scikit-learn comes from PyPI into a venv of its own (~/.cache/symx/digits-venv).
# Output: ${SYMX_OUT:-/tmp/symx_digits}.
#   bash tools/examples/finetune_digits/run.sh [--epochs N]
set -euo pipefail
cd "$(dirname "$0")/../../.."
epochs=8
if [ "${1:-}" = "--epochs" ]; then epochs=$2; fi
bash tools/setup.sh
bazel build --config=opt //tools/symx
symx="$PWD/bazel-bin/tools/symx/symx"
out="${SYMX_OUT:-/tmp/symx_digits}"
rm -rf "$out"
mkdir -p "$out/images"
venv="$HOME/.cache/symx/digits-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import sklearn" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q scikit-learn
fi

echo "== 1. scikit-learn's handwritten digits as PNG files"
"$venv/bin/python" tools/examples/finetune_digits/write_digits.py "$out/images"

echo
echo "== 2. im2rec: list (a class per folder) and pack"
"$symx" im2rec "$out/digits" "$out/images" --list --recursive --train-ratio 0.8 --seed 1 | tail -1
"$symx" im2rec "$out/digits" "$out/images" --resize 28 --encoding .png --color 0

echo
echo "== 3. LeNet on symx's synthetic digits"
"$symx" train --model lenet --epochs 2 --prefix "$out/lenet"

echo
echo "== 4. fine-tuned on the real digits"
"$symx" train tools/examples/lenet-symbol.json --params "$out/lenet-0002.params" \
  --train-rec "$out/digits_train.rec" --val-rec "$out/digits_val.rec" --data-shape 1,28,28 \
  --scale 0.00390625 --batch-size 32 --epochs "$epochs" --lr 0.02 --prefix "$out/digits_lenet"
