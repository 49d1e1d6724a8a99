#!/usr/bin/env bash
# bench_batch.sh - compile targets with batches (the default --batch) against one
# compile per case (--batch 1), side by side in one run: the same targets, the
# same time, one job each, new seeds so no case repeats an earlier compile (the
# inductor cache stays warm for both: what a campaign sees after its first).
# Prints each run's cases/s and the ratio.
#   BENCH_PYTHON  a python with torch.compile (default: the newest build/torch-*/bin/python)
#   BENCH_TARGETS space-separated targets (default: torch:compile-cpu:setitem)
#   BENCH_SECONDS per run (default 120); BENCH_BATCH the batched run's --batch (default: the target's)
#   BENCH_KEEP    where each run's reproducers are kept (default build/bench-findings/RUN-SEED)
set -u
ssfuzz=${SSFUZZ:-build/ssfuzz}
py=${BENCH_PYTHON:-$(ls -d build/torch-*/bin/python 2>/dev/null | sort -V | tail -1)}
secs=${BENCH_SECONDS:-120}
targets=${BENCH_TARGETS:-torch:compile-cpu:setitem}
[ -n "$py" ] && [ -x "$py" ] || { echo "bench_batch: no python with torch (make torch-env; or BENCH_PYTHON)"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=()
for t in $targets; do args+=(-t "$t"); done
seed=$(( $(date +%s) % 1000000 ))
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); torch $("$py" -c 'import torch; print(torch.__version__)'); one job per run, $secs s each"
run() {   # label seed [batch options]: one campaign, then its line
    local label=$1 s=$2; shift 2
    "$ssfuzz" --python "$py" fuzz "${args[@]}" --seed "$s" --time "$secs" -q -o "$out/$label" "$@" >"$out/$label.log" 2>&1
    grep '^finding' "$out/$label.log" | sed "s/^/  $label (seed $s): /"
    if ls "$out/$label"/*-*.json >/dev/null 2>&1; then   # a finding outlives the bench's temporary directory
        local keep=${BENCH_KEEP:-build/bench-findings}/$label-$s
        mkdir -p "$keep" && cp "$out/$label"/*.json "$keep"/ && echo "  $label (seed $s): reproducers kept in $keep"
    fi
    python3 - "$out/$label/summary.json" "$label" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
b = s.get("batch", {})
print("%-8s %5d cases in %6.1f s: %5.2f cases/s (batch max %s, %s batches, %.1f runs each; %d findings, %d refused, %d errors)"
      % (sys.argv[2], s["cases"], s["seconds"], s["cases_per_second"], b.get("max", 1), b.get("batches", 0),
         b.get("mean", 0), s["unique_findings"], s["refused"], s["errors"]))
PY
}
rate() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cases_per_second"])' "$out/$1/summary.json"; }
run batch-1 "$seed" --batch 1
run batched $((seed + 1)) ${BENCH_BATCH:+--batch "$BENCH_BATCH"}
python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print('batched / --batch 1: %.2fx' % (b / a if a else 0))" \
    "$(rate batch-1)" "$(rate batched)"
