#!/usr/bin/env bash
# symx im2rec and symx train MODEL on real images, as a user runs them: a
# folder of photos (tests/testdata/recordio/photos, two classes and one file
# that is not an image) listed and packed into RecordIO, read back by
# ImageRecordIter while fine-tuning LeNet's checkpoint on it (a new 2-class
# output layer, frozen convolutions), on one process and on two mpirun ranks
# that each read their shard; then every bad input's one-line error.
set -u
SYMX="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
MPIRUN="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"   # tests/distributed/mpirun.sh
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
PHOTOS="$PWD/tests/testdata/recordio/photos"
LENET="$PWD/tools/examples/lenet-symbol.json"
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }
check() {  # check EXPECTED_CODE PATTERN -- ARGS...
  local want=$1 pattern=$2
  shift 3
  local err code
  err=$("$SYMX" "$@" 2>&1 >/dev/null)
  code=$?
  if [ "$code" != "$want" ] || ! grep -q -- "$pattern" <<<"$err"; then
    say_fail "symx $* -> exit $code (want $want), stderr: $err"
  fi
}

# --- im2rec -----------------------------------------------------------------
out=$("$SYMX" im2rec "$TMP/photos" "$PHOTOS" --list --recursive --train-ratio 0.75 --seed 3) ||
  say_fail "im2rec --list: exit $?"
grep -q "^animals 0$" <<<"$out" && grep -q "^space 1$" <<<"$out" ||
  say_fail "im2rec --list: classes not printed: $out"
grep -q "9 images listed" <<<"$out" || say_fail "im2rec --list: $out"
[ "$(wc -l <"$TMP/photos_train.lst")" = 6 ] || say_fail "im2rec: 6 training images expected"
[ "$(wc -l <"$TMP/photos_val.lst")" = 3 ] || say_fail "im2rec: 3 validation images expected"
awk -F'\t' 'NF == 3 && $1 ~ /^[0-9]+$/ && $2 == "1.000000" && $3 ~ /^space\//' \
  "$TMP/photos_train.lst" "$TMP/photos_val.lst" | grep -q . ||
  say_fail "im2rec: list lines are not index<TAB>label<TAB>path"
out=$("$SYMX" im2rec "$TMP/photos" "$PHOTOS" --resize 32 --quality 90 --num-thread 2 2>"$TMP/pack.err") ||
  say_fail "im2rec pack: exit $?"
for f in photos_train.rec photos_train.idx photos_val.rec photos_val.idx; do
  [ -s "$TMP/$f" ] || say_fail "im2rec did not write $f"
done
[ ! -e "$TMP/photos_train.rec.partial" ] || say_fail "im2rec left a .partial file"
packed=$(grep -o '[0-9]* images packed' <<<"$out" | awk '{s += $1} END {print s}')
[ "$packed" = 8 ] || say_fail "im2rec: 8 images packed expected, got '$packed': $out"
grep -q "skipped space/broken.jpg: cannot decode an image" "$TMP/pack.err" ||
  say_fail "im2rec: the broken file is not named: $(cat "$TMP/pack.err")"

# --- train MODEL: fine-tune a checkpoint on the packed photos ------------------
"$SYMX" train --model lenet --epochs 1 --prefix "$TMP/lenet" >/dev/null 2>&1 ||
  say_fail "train --model lenet: exit $?"
tune=(train "$LENET" --train-rec "$TMP/photos_train.rec" --val-rec "$TMP/photos_val.rec"
      --data-shape 1,28,28 --resize 28 --batch-size 2 --epochs 2 --params "$TMP/lenet-0001.params"
      --num-classes 2 --fixed-params 'conv.*' --mean-rgb 128,128,128 --std-rgb 64,64,64
      --rand-mirror --iter max_random_scale=1.1 --iter min_random_scale=0.9 --lr 0.02)
"$SYMX" "${tune[@]}" --prefix "$TMP/tuned" >"$TMP/tune.log" 2>&1 ||
  { say_fail "train MODEL: exit $?"; cat "$TMP/tune.log"; }
[ "$(grep -c '^epoch .* train top-1 .* top-5 .* val top-1 .* waiting for data' "$TMP/tune.log")" = 2 ] ||
  { say_fail "train MODEL: two epoch lines with top-1/top-5 and the data wait"; cat "$TMP/tune.log"; }
grep -q "6 arrays loaded, 2 initialized (fc2_bias, fc2_weight)" "$TMP/tune.log" ||
  say_fail "train MODEL: the fresh output layer is not reported"
grep -q "4 parameters kept fixed" "$TMP/tune.log" || say_fail "train MODEL: fixed parameters"
for f in tuned-symbol.json tuned-0001.params tuned-0002.params; do
  [ -s "$TMP/$f" ] || say_fail "train MODEL did not write $f"
done
# The frozen convolution weights are the checkpoint's, byte for byte: the
# fine-tuned file's conv1_weight record equals the original's.
"$SYMX" run "$TMP/tuned-symbol.json" --params "$TMP/tuned-0002.params" --shape data=1,1,28,28 \
  --out-dir "$TMP/tuned_run" >/dev/null 2>&1 || say_fail "the fine-tuned checkpoint does not run"
grep -q '"num_hidden": "2"' "$TMP/tuned-symbol.json" || say_fail "the saved symbol has 2 classes"

# Two ranks, each reading its shard of the .rec.
"$MPIRUN" 2 "$SYMX" "${tune[@]}" --prefix "$TMP/tuned2" >"$TMP/tune2.log" 2>&1 ||
  { say_fail "train MODEL under mpirun: exit $?"; cat "$TMP/tune2.log"; }
grep -q "data parallel: 2 ranks" "$TMP/tune2.log" || say_fail "mpirun: not data parallel"
[ -s "$TMP/tuned2-0002.params" ] || say_fail "mpirun: no checkpoint from rank 0"

# A rank whose shard is empty (a one-image set over two ranks) fails at once
# on both ranks, saying why, instead of leaving the other waiting.
head -1 "$TMP/photos_train.lst" >"$TMP/one.lst"
"$SYMX" im2rec "$TMP/one" "$PHOTOS" --resize 32 >/dev/null 2>&1 || say_fail "im2rec one.lst"
start=$(date +%s)
"$MPIRUN" 2 "$SYMX" train "$LENET" --train-rec "$TMP/one.rec" --data-shape 1,28,28 --resize 28 \
  --batch-size 2 --epochs 1 --comm-timeout 60 --prefix "$TMP/one_out" >"$TMP/one.log" 2>&1 &&
  say_fail "mpirun with an empty shard succeeded"
grep -q "holds no records in part 1 of 2" "$TMP/one.log" ||
  { say_fail "mpirun: the empty shard is not named"; cat "$TMP/one.log"; }
[ $(($(date +%s) - start)) -lt 40 ] || say_fail "mpirun: the failure took the comm timeout"

# --- bad input --------------------------------------------------------------
check 2 "MODEL needs --train-rec and --data-shape" -- train "$LENET" --data-shape 1,28,28
check 2 "--train-rec needs a MODEL-symbol.json" -- train --train-rec x.rec
check 2 "--model is for the built-in examples" -- train "$LENET" --model mlp
check 1 "cannot open RecordIO file $TMP/none.rec" -- \
  train "$LENET" --train-rec "$TMP/none.rec" --data-shape 1,28,28
check 2 "unknown parameter 'max_random_scal'" -- \
  train "$LENET" --train-rec "$TMP/photos_train.rec" --data-shape 1,28,28 --iter max_random_scal=2
check 2 "data_shape=\"1,28\": expected (channels, height, width)" -- \
  train "$LENET" --train-rec "$TMP/photos_train.rec" --data-shape 1,28
check 1 "conv1_weight has shape \[20,1,5,5\] but the model's is \[20,3,5,5\]" -- \
  train "$LENET" --train-rec "$TMP/photos_train.rec" --data-shape 3,28,28 --resize 28 \
  --params "$TMP/lenet-0001.params" --prefix "$TMP/bad"
check 1 "fixed_params '(' is not a regular expression" -- \
  train "$LENET" --train-rec "$TMP/photos_train.rec" --data-shape 1,28,28 --resize 28 \
  --fixed-params '(' --prefix "$TMP/bad"
check 1 "image root $TMP/nowhere is not a directory" -- im2rec "$TMP/x" "$TMP/nowhere" --list
check 1 "no $TMP/nolist\*.lst list to pack" -- im2rec "$TMP/nolist" "$PHOTOS"
check 1 "encoding '.gif': expected .jpg or .png" -- im2rec "$TMP/photos" "$PHOTOS" --encoding .gif
check 2 "expected PREFIX and ROOT" -- im2rec "$TMP/photos"

exit $fail
