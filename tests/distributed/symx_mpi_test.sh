#!/usr/bin/env bash
# symx under mpirun, as a user runs it: data-parallel training over ranks and
# devices equal to one process (per-epoch metrics to 3 decimals), a model
# split across ranks writing exactly what one process writes (bitwise), the
# split as a pipeline (GPipe and 1F1B, and 2 stages x 2 replicas), bench and viz across ranks, and the
# faults: a hung rank (also in a pipeline), a killed rank, ranks that bound
# different graphs or pipelines, bad flags. Every case must end in seconds.
set -u
SYMX="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
MPIRUN="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"   # tests/distributed/mpirun.sh
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
LENET="$PWD/tools/examples/lenet-symbol.json"
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }

# The per-epoch metrics of a train log: "epoch loss train-accuracy test-accuracy".
metrics() { grep '^epoch ' "$1" | awk '{print $2, $4, $7, $10}'; }
# Equal to 3 decimals (within 1e-3): summation order differs between layouts.
same_metrics() {
  paste -d' ' <(metrics "$1") <(metrics "$2") | awk '
    NF != 8 || $1 != $5 { bad = 1 }
    { for (i = 2; i <= 4; ++i) { d = $i - $(i + 4); if (d < 0) d = -d; if (d > 1e-3) bad = 1 } }
    END { exit bad || NR == 0 }'
}

train_case() {  # train_case NAME NP [train flags...]: metrics equal to one process
  local name=$1 np=$2
  shift 2
  if [ "$np" = 1 ]; then
    "$SYMX" train "$@" --prefix "$TMP/$name" >"$TMP/$name.log" 2>&1
  else
    "$MPIRUN" "$np" "$SYMX" train "$@" --prefix "$TMP/$name" >"$TMP/$name.log" 2>&1
  fi || { say_fail "$name: exit $?"; cat "$TMP/$name.log"; return; }
  if ! same_metrics "$TMP/single.log" "$TMP/$name.log"; then
    say_fail "$name: metrics differ from one process"
    diff <(metrics "$TMP/single.log") <(metrics "$TMP/$name.log")
  fi
  [ -s "$TMP/$name-0002.params" ] || say_fail "$name: no checkpoint"
}

# --- data parallel ----------------------------------------------------------
TRAIN=(--model mlp --epochs 2 --batch-size 64)
"$SYMX" train "${TRAIN[@]}" --prefix "$TMP/single" >"$TMP/single.log" 2>&1 \
  || { say_fail "single-process training"; cat "$TMP/single.log"; }
train_case dp2 2 "${TRAIN[@]}"
train_case dp4 4 "${TRAIN[@]}"
train_case devices2 1 "${TRAIN[@]}" --ctx 'cpu(0),cpu(1)'
train_case ranks2x2 2 "${TRAIN[@]}" --ctx 'cpu(0),cpu(1)' --bucket-mb 0.05
grep -q "trained on data parallel: 2 ranks x 2 devices (cpu(0), cpu(1)), 4 replicas" \
  "$TMP/ranks2x2.log" || say_fail "ranks2x2: layout line"
# Rank 0 alone reports.
[ "$(grep -c '^epoch 2/2' "$TMP/dp4.log")" = 1 ] || say_fail "dp4: epoch lines from several ranks"

# --- a model split across ranks ---------------------------------------------
# Bitwise what one process writes, with the same intra-op threads per device.
run_args=("$LENET" --shape data=8,1,28,28 --shape softmax_label=8 --train --seed 3)
SYMX_CPU_THREADS=1 "$SYMX" run "${run_args[@]}" --out-dir "$TMP/run1" >/dev/null \
  || say_fail "run on one process"
SYMX_CPU_THREADS=1 "$MPIRUN" 2 "$SYMX" run "${run_args[@]}" --out-dir "$TMP/run2" \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1' >"$TMP/run2.log" 2>&1 \
  || { say_fail "run across ranks"; cat "$TMP/run2.log"; }
n1=$(ls "$TMP/run1" | wc -l)
n2=$(ls "$TMP/run2" | wc -l)
[ "$n1" -gt 5 ] && [ "$n1" = "$n2" ] || say_fail "run across ranks wrote $n2 files, one process $n1"
for f in "$TMP"/run1/*.npy; do
  cmp -s "$f" "$TMP/run2/$(basename "$f")" || say_fail "run across ranks: $(basename "$f") differs"
done
grep -q "^rank 1: wrote .*softmax_output.npy" "$TMP/run2.log" || say_fail "rank 1 wrote the output"
grep -q "^rank 0: wrote .*conv1_weight_grad.npy" "$TMP/run2.log" || say_fail "rank 0 wrote conv1's gradient"

# Training split across ranks: the same metrics as one process.
train_case split2 2 "${TRAIN[@]}" \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1'
grep -q "trained on split over 2 ranks" "$TMP/split2.log" || say_fail "split2: layout line"

# The split as a pipeline of 4 micro-batches, in both orders, over MPI (whose
# sends of these sizes complete only once received: 1F1B must not wait for
# them at a phase's end). The sums differ from one process in rounding only.
for schedule in gpipe 1f1b; do
  train_case "pipe_$schedule" 2 "${TRAIN[@]}" --microbatches 4 --schedule "$schedule" \
    --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1'
  grep -q "pipelined: 2 stages (ranks 0, 1), 4 micro-batches of 16, $schedule" \
    "$TMP/pipe_$schedule.log" || say_fail "pipe_$schedule: layout line"
done
# 2 stages x 2 replicas on 4 ranks: replica 1 on ranks 2 and 3, each stage's
# replicas summing their gradients.
train_case pipe_x2 4 "${TRAIN[@]}" --microbatches 4 --schedule 1f1b --replicas 2 \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1'
grep -q "2 replicas of 2 ranks (this is replica 0), pipelined: 2 stages (ranks 0, 1), 4 micro-batches of 8" \
  "$TMP/pipe_x2.log" || say_fail "pipe_x2: layout line"
# Ranks given different pipelines (MPMD) fail at once, naming both.
"$MPIRUN" 1 "$SYMX" train "${TRAIN[@]}" --microbatches 4 --prefix "$TMP/pm" \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1' : \
  -np 1 "$SYMX" train "${TRAIN[@]}" --microbatches 2 --prefix "$TMP/pm" \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1' >"$TMP/pm.log" 2>&1 \
  && say_fail "different pipelines: exit 0"
grep -q "the ranks disagree on the pipeline: rank 0 runs 4 micro-batches (gpipe) in 1 replica, rank 1 runs 2 micro-batches (gpipe) in 1 replica" \
  "$TMP/pm.log" || { say_fail "different pipelines: message"; cat "$TMP/pm.log"; }

# bench across ranks reports every rank's devices.
out=$("$MPIRUN" 2 "$SYMX" bench "$LENET" --shape data=8,1,28,28 --iters 3 --json \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1' 2>&1)
grep -q '"ctx":"cpu(0)@rank0"' <<<"$out" && grep -q '"ctx":"cpu(0)@rank1"' <<<"$out" \
  || say_fail "bench across ranks: $out"

# viz shows each rank's part and the transfers (no mpirun needed).
"$SYMX" viz "$LENET" --shape data=8,1,28,28 -o "$TMP/split.dot" \
  --group2ctx 'stage1=cpu(0)' --group2ctx 'stage2=cpu(0)@rank1' >"$TMP/viz.log" 2>&1 \
  || say_fail "viz across ranks"
grep -q "cluster_rank1" "$TMP/split.dot" && grep -q "send to rank 1" "$TMP/split.dot" \
  && grep -q "recv from rank 0" "$TMP/split.dot" || say_fail "viz: ranks and transfers"
grep -q "of 2 ranks, 0 copies, 1 transfer between ranks" "$TMP/viz.log" || say_fail "viz summary: $(cat "$TMP/viz.log")"

# --- faults -------------------------------------------------------------------
# The pid of rank R of a running job of symx processes.
rank_pid() {
  for pid in $(pgrep -f "$SYMX train"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1"; then
      echo "$pid"
      return
    fi
  done
}
# A long training job whose rank 1 is stopped (SIGSTOP) or killed once it runs.
fault_case() {  # fault_case NAME SIGNAL MAX_SECONDS [train flags...]
  local name=$1 signal=$2 max=$3
  shift 3
  local start=$SECONDS
  SYMX_MPIRUN_TIMEOUT=120 "$MPIRUN" 2 "$SYMX" train --model mlp --epochs 200 --comm-timeout 3 \
    "$@" >"$TMP/$name.log" 2>&1 &
  local job=$!
  local pid=""
  for _ in $(seq 100); do
    pid=$(rank_pid 1)
    [ -n "$pid" ] && grep -q "^model mlp" "$TMP/$name.log" && break
    sleep 0.1
  done
  sleep 1
  [ -n "$pid" ] || { say_fail "$name: rank 1 not found"; kill "$job"; return; }
  kill "-$signal" "$pid"
  wait "$job"
  local code=$? elapsed=$((SECONDS - start))
  [ "$code" != 0 ] || say_fail "$name: the job exited 0"
  [ "$elapsed" -le "$max" ] || say_fail "$name: the job took ${elapsed}s (limit ${max}s)"
  kill -CONT "$pid" 2>/dev/null
}
fault_case hung STOP 40
# The wait reported is the operation's own, measured from when it started
# waiting: a bucket's deadline is shared by its operations, so it can read a
# hair under --comm-timeout (2.999s) on a loaded machine.
grep -qE "symx train: rank 0: .*did not complete within (2\.9[0-9]*|3[.0-9]*)s: waiting for rank 1, which does not answer" \
  "$TMP/hung.log" || say_fail "hung: rank 0 names rank 1"
cat "$TMP/hung.log"
grep -q "allreduce" "$TMP/hung.log" || say_fail "hung: the operation is named"
fault_case killed KILL 20
# A pipeline whose second stage stops: the first names it within the timeout.
fault_case pipe_hung STOP 40 --microbatches 4 --schedule 1f1b \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1'
grep -qE "symx train: rank 0: .*(rank 1|from 1)" "$TMP/pipe_hung.log" \
  || { say_fail "pipe_hung: rank 0 names rank 1"; cat "$TMP/pipe_hung.log"; }

# Ranks that bound different graphs (MPMD: another batch on rank 1): both name
# the ranks and the first difference, at once.
start=$SECONDS
SYMX_MPIRUN_TIMEOUT=60 "$MPIRUN" 1 "$SYMX" run "$LENET" --shape data=4,1,28,28 --out-dir "$TMP/mm" \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1' : \
  -np 1 "$SYMX" run "$LENET" --shape data=5,1,28,28 --out-dir "$TMP/mm" \
  --group2ctx 'stage1=cpu(0)@rank0' --group2ctx 'stage2=cpu(0)@rank1' >"$TMP/mismatch.log" 2>&1 \
  && say_fail "mismatched graphs: exit 0"
[ $((SECONDS - start)) -le 20 ] || say_fail "mismatched graphs took $((SECONDS - start))s"
grep -q "bind: ranks 0 and 1 differ at line .*'shape data=\[4,1,28,28\]'.*'shape data=\[5,1,28,28\]'" \
  "$TMP/mismatch.log" || { say_fail "mismatched graphs: message"; cat "$TMP/mismatch.log"; }

# A context of a rank the job does not have; a bad --comm-timeout.
"$MPIRUN" 2 "$SYMX" run "$LENET" --shape data=4,1,28,28 --out-dir "$TMP/x" \
  --group2ctx 'stage1=cpu(0)' --group2ctx 'stage2=cpu(0)@rank3' >"$TMP/rank3.log" 2>&1 \
  && say_fail "rank 3 of 2: exit 0"
grep -q "belongs to rank 3, but this job has 2 ranks (0 to 1)" "$TMP/rank3.log" \
  || { say_fail "rank 3 of 2: message"; cat "$TMP/rank3.log"; }
"$SYMX" train --comm-timeout 0 >"$TMP/t0.log" 2>&1
[ $? = 2 ] && grep -q "comm-timeout must be a positive number of seconds" "$TMP/t0.log" \
  || say_fail "--comm-timeout 0"

if [ "$fail" = 0 ]; then echo "PASS"; fi
exit "$fail"
