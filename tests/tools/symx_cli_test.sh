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
check 1 "cannot open file" -- inspect /nonexistent-symbol.json
check 1 "malformed JSON" -- inspect tests/testdata/bad_json/truncated.json
out=$("$SYMX" inspect tools/examples/resnet_block-symbol.json --shape data=1,3,224,224 --json)
if [ $? != 0 ] || ! grep -q '"num_parameters": 148520' <<<"$out"; then
  echo "FAIL: inspect --json on the ResNet block"; fail=1
fi
"$SYMX" --help | grep -q "inspect MODEL-symbol.json" || { echo "FAIL: --help"; fail=1; }
"$SYMX" --help | grep -q "train   \[--model mlp|lenet\]" || { echo "FAIL: --help lists train"; fail=1; }
"$SYMX" --help | grep -q "viz     MODEL-symbol.json" || { echo "FAIL: --help lists viz"; fail=1; }

# run
check 1 "cannot open file" -- run /nonexistent-symbol.json --shape data=1,784
check 2 "unknown option --frob" -- run $MLP --frob
check 2 "expected a MODEL-symbol.json" -- run
check 2 "expected NAME=D0,D1" -- run $MLP --shape data=2,x
check 2 "invalid context 'bogus'" -- run $MLP --shape data=2,784 --ctx bogus
check 1 "cannot decide shapes" -- run $MLP --out-dir "$TMP/none"
check 1 "'foo' is not an input" -- run $MLP --shape foo=1,2
check 1 "not found for group stage1" -- run $MLP --shape data=2,784 --group2ctx dev1="cpu(1)" \
  --out-dir "$TMP/none"
check 2 "--group2ctx expects NAME=VALUE" -- run $MLP --shape data=2,784 --group2ctx dev1
printf 'not a numpy file' >"$TMP/bad.npy"
check 1 "bad.npy" -- run $MLP --input data="$TMP/bad.npy"
check 1 "missing.npy" -- run $MLP --input data="$TMP/missing.npy"
check 1 "'nope' is not an argument" -- run $MLP --input nope="$TMP/bad.npy"
check 1 "missing.params" -- run $MLP --params "$TMP/missing.params" --shape data=2,784
check 2 "--allow-missing needs --params" -- run $MLP --allow-missing --shape data=2,784
# The SYMX_* variables are read once by main (tools/env/engine_env.h): a bad
# value is a usage error naming it, and a good one reaches the devices.
SYMX_FUSION=maybe check 2 "SYMX_FUSION='maybe' is not a switch" -- run $MLP --shape data=2,784
SYMX_CPU_THREADS=0 check 2 "SYMX_CPU_THREADS='0' is not a positive integer" -- \
  run $MLP --shape data=2,784
SYMX_NUM_CPU_DEVICES=2 check 1 "cpu(0) to cpu(1)" -- run $MLP --shape data=2,784 --ctx "cpu(2)" \
  --out-dir "$TMP/none"
"$SYMX" run $MLP --shape data=2,784 --train --seed 3 --out-dir "$TMP/run" >/dev/null ||
  { echo "FAIL: run --train"; fail=1; }
expect_file "$TMP/run/softmax_output.npy" "run"
expect_file "$TMP/run/fc1_weight_grad.npy" "run --train"
expect_file "$TMP/run/data_grad.npy" "run --train"
# An output fed back as an input: the shape comes from the .npy file.
"$SYMX" run $MLP --input data="$TMP/run/data_grad.npy" --out-dir "$TMP/run2" >/dev/null ||
  { echo "FAIL: run --input"; fail=1; }
expect_file "$TMP/run2/softmax_output.npy" "run --input"

# A model in two ctx_groups, written by hand in MXNet's format: (d1 + d2) * 3 in
# dev1, + d3 in dev2.
TWO="$TMP/two-symbol.json"
cat >"$TWO" <<'JSON'
{
  "nodes": [
    {"op": "null", "name": "d1", "attrs": {"__ctx_group__": "dev1"}, "inputs": []},
    {"op": "null", "name": "d2", "attrs": {"__ctx_group__": "dev1"}, "inputs": []},
    {"op": "elemwise_add", "name": "sum", "attrs": {"__ctx_group__": "dev1"},
     "inputs": [[0, 0, 0], [1, 0, 0]]},
    {"op": "_mul_scalar", "name": "times3", "attrs": {"__ctx_group__": "dev1", "scalar": "3"},
     "inputs": [[2, 0, 0]]},
    {"op": "null", "name": "d3", "attrs": {"__ctx_group__": "dev2"}, "inputs": []},
    {"op": "elemwise_add", "name": "out", "attrs": {"__ctx_group__": "dev2"},
     "inputs": [[3, 0, 0], [4, 0, 0]]}
  ],
  "arg_nodes": [0, 1, 4],
  "node_row_ptr": [0, 1, 2, 3, 4, 5, 6],
  "heads": [[5, 0, 0]],
  "attrs": {"mxnet_version": ["int", 10901]}
}
JSON
G2C_TWO=(--group2ctx "dev1=cpu(1)" --group2ctx "dev2=cpu(2)")
G2C_STAGES=(--group2ctx "stage1=cpu(1)" --group2ctx "stage2=cpu(2)")
same_outputs() {  # same_outputs DIR1 DIR2 WHAT: every .npy in DIR1 is in DIR2, byte for byte
  local n=0 f
  for f in "$1"/*.npy; do
    [ -e "$f" ] || break
    n=$((n + 1))
    cmp -s "$f" "$2/$(basename "$f")" || { echo "FAIL: $3: $(basename "$f") differs"; fail=1; }
  done
  [ "$n" -gt 0 ] || { echo "FAIL: $3: no outputs in $1"; fail=1; }
}
# Placed over two devices, run writes the same bytes as on one.
"$SYMX" run "$TWO" --shape d1=4,5 --train --seed 5 --out-dir "$TMP/two1" >/dev/null &&
  "$SYMX" run "$TWO" --shape d1=4,5 --train --seed 5 "${G2C_TWO[@]}" --out-dir "$TMP/two2" \
    >/dev/null || { echo "FAIL: run --group2ctx on the two-group model"; fail=1; }
same_outputs "$TMP/two1" "$TMP/two2" "run --group2ctx (two-group model)"
"$SYMX" run $MLP --shape data=2,784 --train --seed 3 "${G2C_STAGES[@]}" --out-dir "$TMP/run_g2c" \
  >/dev/null || { echo "FAIL: run --group2ctx on the MLP"; fail=1; }
same_outputs "$TMP/run" "$TMP/run_g2c" "run --group2ctx (MLP)"
check 1 "not found for group dev2" -- run "$TWO" --shape d1=4,5 --group2ctx "dev1=cpu(1)" \
  --out-dir "$TMP/none"

# bench
check 2 "--iters must be at least 1" -- bench $MLP --shape data=8,784 --iters 0
check 2 "unknown option --out-dir" -- bench $MLP --shape data=8,784 --out-dir x
check 1 "cannot open file" -- bench /nonexistent-symbol.json --shape data=8,784
out=$("$SYMX" bench $MLP --shape data=8,784 --iters 3 --train --json)
if [ $? != 0 ] || ! grep -q '^{"ms_per_iter":{"median":.*"min":.*"max":.*},"iters":3,"bytes_planned":[0-9]*,"bytes_allocated":[0-9]*,"peak_bytes":{"cpu(0)":[1-9][0-9]*}}$' <<<"$out"; then
  echo "FAIL: bench --json: $out"; fail=1
fi
# Mixed precision: the rewritten model, float32 parameters.
out=$("$SYMX" bench $MLP --shape data=8,784 --iters 2 --train --mixed-precision float16)
grep -q "ms per iter: median" <<<"$out" ||
  { echo "FAIL: bench --mixed-precision: $out"; fail=1; }
check 2 "--mixed-precision must be float16 or bfloat16, got 'int8'" -- bench $MLP \
  --shape data=8,784 --mixed-precision int8
check 2 "--mixed-precision and --dtype exclude each other" -- bench $MLP --shape data=8,784 \
  --mixed-precision bfloat16 --dtype float16
out=$("$SYMX" bench $MLP --shape data=8,784 --iters 3)
grep -q "ms per iter: median" <<<"$out" || { echo "FAIL: bench text: $out"; fail=1; }
# Two devices: the totals stay at the top level, "devices" has one entry per device.
totals='"bytes_planned":[0-9]*,"bytes_allocated":[0-9]*'
out=$("$SYMX" bench "$TWO" --shape d1=4,5 --iters 2 --train --json "${G2C_TWO[@]}")
if [ $? != 0 ] || ! grep -q "$totals,\"devices\":\\[" <<<"$out" ||
  [ "$(grep -o "{\"ctx\":\"cpu([0-9])\",$totals}" <<<"$out" | sort -u | wc -l)" != 2 ]; then
  echo "FAIL: bench --json --group2ctx has no two-entry devices list: $out"; fail=1
fi
out=$("$SYMX" bench "$TWO" --shape d1=4,5 --iters 2 --json)
grep -q '"devices"' <<<"$out" && { echo "FAIL: bench --json lists devices for one: $out"; fail=1; }
out=$("$SYMX" bench "$TWO" --shape d1=4,5 --iters 2 "${G2C_TWO[@]}")
if ! grep -q "memory on cpu(1):" <<<"$out" || ! grep -q "memory on cpu(2):" <<<"$out"; then
  echo "FAIL: bench text does not report each device: $out"; fail=1
fi

# viz
out=$("$SYMX" viz "$TWO" --shape d1=4,5 "${G2C_TWO[@]}" -o "$TMP/two.dot")
[ $? = 0 ] || { echo "FAIL: viz -o .dot: $out"; fail=1; }
dot_text=$(cat "$TMP/two.dot" 2>/dev/null)
grep -qF 'label="copy to cpu(2)"' <<<"$dot_text" || { echo "FAIL: viz: no copy node"; fail=1; }
grep -q 'times3.*(_CrossDeviceCopy) on cpu(2)' <<<"$dot_text" ||
  { echo "FAIL: viz: the copy's tooltip"; fail=1; }
grep -qF 'label="times3\n_mul_scalar", shape=box' <<<"$dot_text" ||
  { echo "FAIL: viz: ops are not boxes labelled name, op"; fail=1; }
grep -qF 'label="d3", shape=ellipse' <<<"$dot_text" || { echo "FAIL: viz: variables"; fail=1; }
grep -qF 'label="4x5"' <<<"$dot_text" || { echo "FAIL: viz: edge shapes"; fail=1; }
node_colors() { grep '^  n[0-9]* \[' <<<"$1" | grep -o 'fillcolor="#[0-9a-f]*"' | sort -u | wc -l; }
[ "$(node_colors "$dot_text")" = 2 ] ||
  { echo "FAIL: viz: not two device colors: $dot_text"; fail=1; }
for dev in "cpu(1)" "cpu(2)"; do
  grep -q "device[0-9] \[label=\"$dev\"" <<<"$dot_text" ||
    { echo "FAIL: viz: $dev missing from the legend"; fail=1; }
done
# Without group2ctx the groups are ignored: one device, no copies; unknown dims as "?".
"$SYMX" viz "$TWO" --shape d1=4,0 -o "$TMP/one.dot" >/dev/null || { echo "FAIL: viz"; fail=1; }
dot_text=$(cat "$TMP/one.dot" 2>/dev/null)
[ "$(node_colors "$dot_text")" = 1 ] || { echo "FAIL: viz: one device, one color"; fail=1; }
grep -q "copy to" <<<"$dot_text" && { echo "FAIL: viz: a copy on one device"; fail=1; }
grep -qF 'label="4x?"' <<<"$dot_text" || { echo "FAIL: viz: unknown dims"; fail=1; }
if command -v dot >/dev/null; then
  "$SYMX" viz "$TWO" --shape d1=4,5 "${G2C_TWO[@]}" -o "$TMP/two.svg" >/dev/null &&
    grep -q "<svg" "$TMP/two.svg" && grep -qF "copy to cpu(2)" "$TMP/two.svg" ||
    { echo "FAIL: viz -o .svg"; fail=1; }
  "$SYMX" viz $MLP -o "$TMP/mlp.png" >/dev/null &&
    [ "$(head -c 4 "$TMP/mlp.png" | tail -c 3)" = PNG ] || { echo "FAIL: viz -o .png"; fail=1; }
else
  echo "note: Graphviz's dot is not installed; viz .svg/.png not checked (bash tools/setup.sh)"
fi
err=$(PATH=/nonexistent "$SYMX" viz "$TWO" -o "$TMP/nodot.svg" 2>&1 >/dev/null)
code=$?
if [ $code != 1 ] || ! grep -q "install graphviz" <<<"$err" || [ "$(wc -l <<<"$err")" != 1 ]; then
  echo "FAIL: viz without dot -> exit $code: $err"; fail=1
fi
ls "$TMP"/nodot.svg* >/dev/null 2>&1 && { echo "FAIL: viz without dot left a file"; fail=1; }
check 2 "missing -o" -- viz "$TWO"
check 2 "must end in .dot, .svg or .png" -- viz "$TWO" -o "$TMP/two.jpg"
check 2 "expected a MODEL-symbol.json" -- viz -o "$TMP/x.dot"
check 2 "--group2ctx expects NAME=VALUE" -- viz "$TWO" --group2ctx dev1 -o "$TMP/x.dot"
check 1 "not found for group dev2" -- viz "$TWO" --group2ctx "dev1=cpu(1)" -o "$TMP/x.dot"
check 1 "malformed JSON" -- viz tests/testdata/bad_json/truncated.json -o "$TMP/x.dot"
check 1 "cannot open file" -- viz /nonexistent-symbol.json -o "$TMP/x.dot"
check 1 "cannot open $TMP/nodir/x.dot for writing" -- viz "$TWO" -o "$TMP/nodir/x.dot"

# train
check 2 "--model must be mlp or lenet" -- train --model vgg
check 2 "--epochs expects an integer" -- train --epochs x
check 2 "--lr must be positive" -- train --lr -1
check 2 "MODEL needs --train-rec and --data-shape" -- train extra
check 2 "unexpected argument 'b'" -- train a b
check 1 "cannot open /nonexistent/train-images-idx3-ubyte" -- train --data-dir /nonexistent
check 1 "larger than the training set" -- train --batch-size 100000 --prefix "$TMP/none"
check 2 "--dtype must be float32, float16 or bfloat16, got 'int8'" -- train --dtype int8
check 2 "unknown optimizer 'adamm' (known: adadelta" -- train --optimizer adamm
check 2 "optimizer 'adam' has no setting 'beta3'" -- train --optimizer adam:beta3=0.5
check 2 "lr schedule 'factor': step is required" -- train --lr-schedule factor:factor=0.5
check 2 "unknown lr schedule 'exp'" -- train --lr-schedule exp:step=2
check 2 "--clip-gradient must be positive" -- train --clip-gradient 0
MXNET_OPTIMIZER_AGGREGATION_SIZE=x check 2 \
  "MXNET_OPTIMIZER_AGGREGATION_SIZE must be a count, got 'x'" -- train --epochs 1
# Another optimizer with a schedule: the report names both.
out=$("$SYMX" train --epochs 1 --optimizer "nag:momentum=0.8" --lr 0.1 \
  --lr-schedule "multifactor:step=[50,80],factor=0.5" --prefix "$TMP/ckpt_nag" 2>/dev/null)
if [ $? != 0 ] || ! grep -q "epoch 1/1: loss .* test accuracy 0\.9" <<<"$out" ||
  ! grep -qF "nag(lr multifactor(x0.5 after updates 50,80, from 0.1), momentum 0.8, wd 0.0001)" \
    <<<"$out"; then
  echo "FAIL: train --optimizer nag --lr-schedule: $out"; fail=1
fi
# Mixed precision: float16 with loss scaling, float32 master weights in a
# float32 checkpoint that runs as any other.
out=$("$SYMX" train --epochs 1 --dtype float16 --prefix "$TMP/ckpt16" 2>/dev/null)
if [ $? != 0 ] || ! grep -q "epoch 1/1: loss .* test accuracy 0\.9.* loss scale [0-9]* (" <<<"$out" ||
  ! grep -q "float16 mixed precision (float32 master weights, loss scale from 65536)" \
    <<<"$out"; then
  echo "FAIL: train --dtype float16: $out"; fail=1
fi
"$SYMX" run "$TMP/ckpt16-symbol.json" --params "$TMP/ckpt16-0001.params" \
  --shape data=2,1,28,28 --out-dir "$TMP/ckpt16_run" >/dev/null ||
  { echo "FAIL: run on the float16-trained checkpoint"; fail=1; }
out=$("$SYMX" train --epochs 1 --prefix "$TMP/ckpt" 2>/dev/null)
if [ $? != 0 ] || ! grep -q "epoch 1/1: loss .* test accuracy 0\.9" <<<"$out"; then
  echo "FAIL: train: $out"; fail=1
fi
grep -q "checkpoint: $TMP/ckpt-symbol.json $TMP/ckpt-0001.params" <<<"$out" ||
  { echo "FAIL: train does not print its checkpoint: $out"; fail=1; }
expect_file "$TMP/ckpt-symbol.json" "train"
expect_file "$TMP/ckpt-0001.params" "train"
# Split over two devices, training gives the same loss and accuracy.
out_g2c=$("$SYMX" train --epochs 1 "${G2C_STAGES[@]}" --prefix "$TMP/ckpt_g2c" 2>/dev/null)
[ $? = 0 ] || { echo "FAIL: train --group2ctx: $out_g2c"; fail=1; }
epoch_lines() { grep '^epoch ' <<<"$1" | sed 's/  time .*//'; }
epochs=$(epoch_lines "$out")
if [ -z "$epochs" ] || [ "$epochs" != "$(epoch_lines "$out_g2c")" ]; then
  echo "FAIL: train --group2ctx differs: $out_g2c (without: $out)"; fail=1
fi
grep -qF "group2ctx stage1=cpu(1) stage2=cpu(2)" <<<"$out_g2c" ||
  { echo "FAIL: train does not print its placement: $out_g2c"; fail=1; }
check 1 "not found for group stage2" -- train --epochs 1 --group2ctx "stage1=cpu(1)" \
  --prefix "$TMP/none"
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
