#!/usr/bin/env bash
# The symx binary: exit codes and one-line errors as a user sees them.
set -u
SYMX="$1"
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
  fi
}
check 2 "usage: symx" -- 
check 2 "unknown command 'frobnicate'" -- frobnicate
check 3 "not available in this build yet" -- run model-symbol.json
check 3 "not available in this build yet" -- train
check 1 "cannot open file" -- inspect /nonexistent-symbol.json
check 1 "malformed JSON" -- inspect tests/testdata/bad_json/truncated.json
out=$("$SYMX" inspect tools/examples/resnet_block-symbol.json --shape data=1,3,224,224 --json)
if [ $? != 0 ] || ! grep -q '"num_parameters": 148520' <<<"$out"; then
  echo "FAIL: inspect --json on the ResNet block"; fail=1
fi
"$SYMX" --help | grep -q "inspect MODEL-symbol.json" || { echo "FAIL: --help"; fail=1; }
[ $fail = 0 ] && echo "symx CLI: all checks passed"
exit $fail
