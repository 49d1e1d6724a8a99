#!/usr/bin/env bash
# bench_campaign.sh - the default campaign (`ssfuzz fuzz` on the default targets) under the old
# size mix and the new default, side by side in one run: cases/s, the ratio, and where each
# spent its time by size class (the summary's own line). The default campaign of a baseline
# build runs first, for a before/after of the code too: BENCH_BASELINE_SSFUZZ (an older
# build's binary), else BENCH_BASELINE_REV (a commit, default c240531: before the campaign
# efficiency work) built from `git archive` in a scratch directory (without nvcc; skipped,
# saying why, outside a git checkout or when it does not build).
# Knobs: SSFUZZ, BENCH_CAMPAIGN_CASES (default 50000), BENCH_CAMPAIGN_SEED (default 3),
# BENCH_BEFORE_ARGS (the old mix, default "--large-per-mille 3"), BENCH_BASELINE_SSFUZZ,
# BENCH_BASELINE_REV ("" for none).
set -u
SSFUZZ=${SSFUZZ:-build/ssfuzz}
N=${BENCH_CAMPAIGN_CASES:-50000}
SEED=${BENCH_CAMPAIGN_SEED:-3}
BEFORE=${BENCH_BEFORE_ARGS:---large-per-mille 3}
BASE=${BENCH_BASELINE_SSFUZZ:-}
REV=${BENCH_BASELINE_REV-c240531}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

if [ -z "$BASE" ] && [ -n "$REV" ]; then
    if ! git rev-parse --verify -q "$REV^{commit}" >/dev/null 2>&1; then
        echo "baseline: skipped: $REV is not a commit of this checkout"
    elif mkdir -p "$tmp/base" && git archive "$REV" | tar -x -C "$tmp/base" &&
         make -C "$tmp/base" NVCC= build/ssfuzz >"$tmp/base.log" 2>&1; then
        BASE=$tmp/base/build/ssfuzz
        echo "baseline: commit $REV, built in a scratch directory"
    else
        echo "baseline: skipped: commit $REV does not build here ($(tail -1 "$tmp/base.log" 2>/dev/null))"
    fi
fi

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); --jobs 1, seed $SEED, $N cases"
run() {   # label binary args...: prints the campaign's summary lines; its rate goes to $tmp/label.rate
    local label=$1 bin=$2; shift 2
    "$bin" fuzz --seed "$SEED" --cases "$N" --jobs 1 --quiet --out "$tmp/$label" "$@" >"$tmp/$label.log" 2>&1
    local rc=$?
    if [ "$rc" != 0 ]; then echo "bench-campaign: $label: exit $rc"; cat "$tmp/$label.log"; return 1; fi
    echo "$label: $(grep -m1 '^fuzz: [0-9]* cases' "$tmp/$label.log")"
    grep -m1 '^  sizes' "$tmp/$label.log"
    grep -m1 '^reproduce:' "$tmp/$label.log" | sed 's/^/  /'
    sed -n 's/^fuzz: [0-9]* cases in [0-9.]* s (\([0-9]*\) cases\/s).*/\1/p' "$tmp/$label.log" >"$tmp/$label.rate"
}
ratio() { awk -v a="$2" -v b="$1" 'BEGIN { printf "%d -> %d cases/s, %.1fx", b, a, (b > 0 ? a / b : 0) }'; }
if [ -n "$BASE" ]; then run baseline "$BASE" || exit 1; fi
# shellcheck disable=SC2086  # BEFORE is an option list
run old-mix "$SSFUZZ" $BEFORE || exit 1
run new-default "$SSFUZZ" || exit 1
echo "size mix alone (this build, old mix -> default): $(ratio "$(cat "$tmp/old-mix.rate")" "$(cat "$tmp/new-default.rate")")"
if [ -n "$BASE" ]; then
    echo "default campaign, baseline build -> this build: $(ratio "$(cat "$tmp/baseline.rate")" "$(cat "$tmp/new-default.rate")") (aim: >= 5x)"
else
    echo "(no baseline build: set BENCH_BASELINE_SSFUZZ or BENCH_BASELINE_REV for the code's before/after too)"
fi
