#!/usr/bin/env bash
# The symx binary: exit codes and one-line errors as a user sees them.
set -u
SYMX="$1"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
MLP=tools/examples/mlp-symbol.json
LENET=tools/examples/lenet-symbol.json
fail=0
check() {  # check EXPECTED_CODE PATTERN -- ARGS...
  local want=$1 pattern=$2
  shift 3
  local err code
  err=$("$SYMX" "$@" 2>&1 >/dev/null)
  code=$?
  if [ "$code" != "$want" ] || ! grep -q -- "$pattern" <<<"$err"; then
    echo "FAIL: symx $* -> exit $code (want $want), stderr: $err"
    fail=1
  elif [ "$want" != 2 ] && [ "$(wc -l <<<"$err")" != 1 ]; then
    echo "FAIL: symx $* -> the cause is not one line: $err"
    fail=1
  fi
}
expect_file() {
  [ -s "$1" ] || { echo "FAIL: $2 did not write $1"; fail=1; }
}

check 2 "usage: symx" -- 
check 2 "unknown command 'frobnicate'" -- frobnicate
check 3 "not available in this build yet" -- viz model-symbol.json
check 1 "cannot open file" -- inspect /nonexistent-symbol.json
check 1 "malformed JSON" -- inspect tests/testdata/bad_json/truncated.json
out=$("$SYMX" inspect tools/examples/resnet_block-symbol.json --shape data=1,3,224,224 --json)
if [ $? != 0 ] || ! grep -q '"num_parameters": 148520' <<<"$out"; then
  echo "FAIL: inspect --json on the ResNet block"; fail=1
fi
"$SYMX" --help | grep -q "inspect MODEL-symbol.json" || { echo "FAIL: --help"; fail=1; }
"$SYMX" --help | grep -q "train   \[--model mlp|lenet\]" || { echo "FAIL: --help lists train"; fail=1; }

# run
check 1 "cannot open file" -- run /nonexistent-symbol.json --shape data=1,784
check 2 "unknown option --frob" -- run $MLP --frob
check 2 "expected a MODEL-symbol.json" -- run
check 2 "expected NAME=D0,D1" -- run $MLP --shape data=2,x
check 2 "invalid context 'bogus'" -- run $MLP --shape data=2,784 --ctx bogus
check 1 "cannot decide shapes" -- run $MLP --out-dir "$TMP/none"
check 1 "'foo' is not an input" -- run $MLP --shape foo=1,2
check 3 "group2ctx" -- run $MLP --shape data=2,784 --group2ctx dev1="cpu(1)" --out-dir "$TMP/none"
printf 'not a numpy file' >"$TMP/bad.npy"
check 1 "bad.npy" -- run $MLP --input data="$TMP/bad.npy"
check 1 "missing.npy" -- run $MLP --input data="$TMP/missing.npy"
check 1 "'nope' is not an argument" -- run $MLP --input nope="$TMP/bad.npy"
check 1 "missing.params" -- run $MLP --params "$TMP/missing.params" --shape data=2,784
"$SYMX" run $MLP --shape data=2,784 --train --seed 3 --out-dir "$TMP/run" >/dev/null ||
  { echo "FAIL: run --train"; fail=1; }
expect_file "$TMP/run/softmax_output.npy" "run"
expect_file "$TMP/run/fc1_weight_grad.npy" "run --train"
expect_file "$TMP/run/data_grad.npy" "run --train"
# An output fed back as an input: the shape comes from the .npy file.
"$SYMX" run $MLP --input data="$TMP/run/data_grad.npy" --out-dir "$TMP/run2" >/dev/null ||
  { echo "FAIL: run --input"; fail=1; }
expect_file "$TMP/run2/softmax_output.npy" "run --input"

# bench
check 2 "--iters must be at least 1" -- bench $MLP --shape data=8,784 --iters 0
check 2 "unknown option --out-dir" -- bench $MLP --shape data=8,784 --out-dir x
check 1 "cannot open file" -- bench /nonexistent-symbol.json --shape data=8,784
out=$("$SYMX" bench $MLP --shape data=8,784 --iters 3 --train --json)
if [ $? != 0 ] || ! grep -q '^{"ms_per_iter":{"median":.*"min":.*"max":.*},"iters":3,"bytes_planned":[0-9]*,"bytes_allocated":[0-9]*}$' <<<"$out"; then
  echo "FAIL: bench --json: $out"; fail=1
fi
out=$("$SYMX" bench $MLP --shape data=8,784 --iters 3)
grep -q "ms per iter: median" <<<"$out" || { echo "FAIL: bench text: $out"; fail=1; }

# train
check 2 "--model must be mlp or lenet" -- train --model vgg
check 2 "--epochs expects an integer" -- train --epochs x
check 2 "--lr must be positive" -- train --lr -1
check 2 "unexpected argument" -- train extra
check 1 "cannot open /nonexistent/train-images-idx3-ubyte" -- train --data-dir /nonexistent
check 1 "larger than the training set" -- train --batch-size 100000 --prefix "$TMP/none"
out=$("$SYMX" train --epochs 1 --prefix "$TMP/ckpt" 2>/dev/null)
if [ $? != 0 ] || ! grep -q "epoch 1/1: loss .* test accuracy 0\.9" <<<"$out"; then
  echo "FAIL: train: $out"; fail=1
fi
grep -q "checkpoint: $TMP/ckpt-symbol.json $TMP/ckpt-0001.params" <<<"$out" ||
  { echo "FAIL: train does not print its checkpoint: $out"; fail=1; }
expect_file "$TMP/ckpt-symbol.json" "train"
expect_file "$TMP/ckpt-0001.params" "train"
# The checkpoint runs, and its parameters are checked against the model.
"$SYMX" run "$TMP/ckpt-symbol.json" --params "$TMP/ckpt-0001.params" --shape data=4,1,28,28 \
  --out-dir "$TMP/ckpt_run" >/dev/null || { echo "FAIL: run on the checkpoint"; fail=1; }
expect_file "$TMP/ckpt_run/softmax_output.npy" "run on the checkpoint"
check 1 "'fc1_weight' has shape \[128,784\]" -- run $MLP --params "$TMP/ckpt-0001.params" \
  --shape data=2,100
check 1 "names no argument" -- run $LENET --params "$TMP/ckpt-0001.params" --shape data=2,1,28,28

# MNIST idx files (a tiny all-zero set: 20 training, 10 test images).
mnist="$TMP/mnist"
mkdir -p "$mnist"
{ printf '\x00\x00\x08\x03\x00\x00\x00\x14\x00\x00\x00\x1c\x00\x00\x00\x1c'
  head -c $((20 * 784)) /dev/zero; } >"$mnist/train-images-idx3-ubyte"
{ printf '\x00\x00\x08\x01\x00\x00\x00\x14'; head -c 20 /dev/zero; } >"$mnist/train-labels-idx1-ubyte"
{ printf '\x00\x00\x08\x03\x00\x00\x00\x0a\x00\x00\x00\x1c\x00\x00\x00\x1c'
  head -c $((10 * 784)) /dev/zero; } >"$mnist/t10k-images-idx3-ubyte"
{ printf '\x00\x00\x08\x01\x00\x00\x00\x0a'; head -c 10 /dev/zero; } >"$mnist/t10k-labels-idx1-ubyte"
out=$("$SYMX" train --data-dir "$mnist" --batch-size 10 --epochs 1 --prefix "$TMP/mnist_ckpt" 2>&1)
if [ $? != 0 ] || ! grep -q "data MNIST in $mnist: 20 training / 10 test examples" <<<"$out"; then
  echo "FAIL: train on idx files: $out"; fail=1
fi
head -c 1000 "$mnist/t10k-images-idx3-ubyte" >"$mnist/short" && mv "$mnist/short" "$mnist/t10k-images-idx3-ubyte"
check 1 "t10k-images-idx3-ubyte: truncated" -- train --data-dir "$mnist" --batch-size 10 --prefix "$TMP/none"

[ $fail = 0 ] && echo "symx CLI: all checks passed"
exit $fail
