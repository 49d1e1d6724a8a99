#!/usr/bin/env bash
# bench_shards.sh - cases/s against the number of shards on one machine: for N in 1 2 4, N
# processes run shards 0..N-1 of one seed side by side (--jobs 1 each) for T seconds into one
# --out; prints each N's total cases/s (the shards' cases over the longest shard's seconds).
# Then the merge of 100 shard directories: 100 real small campaigns (shard i/100 of seed 1,
# each on one emu mutant in turn, so a few bugs found by many shards), merged three times.
# Knobs: SSFUZZ (default build/ssfuzz), BENCH_SHARDS_TIME (s, default 10), BENCH_SHARDS_TARGET
# (default emu:reinplace), BENCH_SHARDS_LIST (default "1 2 4"), BENCH_MERGE_DIRS (default 100).
set -u
SSFUZZ=${SSFUZZ:-build/ssfuzz}
T=${BENCH_SHARDS_TIME:-10}
TARGET=${BENCH_SHARDS_TARGET:-emu:reinplace}
DIRS=${BENCH_MERGE_DIRS:-100}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "cases/s by shards: $SSFUZZ fuzz --seed 1 --shard I/N --time $T --jobs 1 -t $TARGET, N side by side ($(nproc) CPUs)"
printf '| shards | cases | cases/s | per shard |\n|---|---|---|---|\n'
for n in ${BENCH_SHARDS_LIST:-1 2 4}; do
    out="$tmp/n$n"
    pids=()
    for i in $(seq 0 $((n - 1))); do
        "$SSFUZZ" fuzz --seed 1 --shard "$i/$n" --time "$T" --jobs 1 -t "$TARGET" --out "$out" -q >/dev/null 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}"
    python3 - "$out" "$n" <<'PY'
import glob, json, sys
runs = [json.load(open(p)) for p in glob.glob(sys.argv[1] + "/summary-shard-*.json")]
cases = sum(r["cases"] for r in runs)
secs = max(r["seconds"] for r in runs)
print(f"| {sys.argv[2]} | {cases} | {cases / secs:.0f} | {cases / secs / len(runs):.0f} |")
PY
done

echo
echo "merge of $DIRS shard directories (each: shard i/$DIRS of seed 1, --cases 2000, one emu mutant in turn)"
mutants=($("$SSFUZZ" targets 2>/dev/null | awk '$1 ~ /^emu:mut-/ {print $1}'))
t0=$(date +%s.%N)
for i in $(seq 0 $((DIRS - 1))); do
    "$SSFUZZ" fuzz --seed 1 --shard "$i/$DIRS" --cases 2000 -t "${mutants[$((i % ${#mutants[@]}))]}" \
        --out "$tmp/shards/shard-$i" -q >/dev/null 2>&1
done
files=$(find "$tmp/shards" -name '*.json' | wc -l)
echo "made in $(python3 -c "import time; print(round(time.time() - $t0, 1))") s: $files files ($(find "$tmp/shards" -name 'summary-shard-*' | wc -l) summaries)"
for k in 1 2 3; do
    rm -rf "$tmp/merged"
    s=$(date +%s.%N)
    "$SSFUZZ" merge -o "$tmp/merged" "$tmp"/shards/shard-* >"$tmp/merge.out" 2>&1
    e=$(date +%s.%N)
    echo "merge $k: $(python3 -c "print(round($e - $s, 3))") s wall; $(head -1 "$tmp/merge.out")"
done
