#!/usr/bin/env bash
# bench_campaign.sh - the default campaign (`ssfuzz fuzz` on the default targets) under the old
# size mix and the new default, side by side in one run: cases/s, the ratio, and where each
# spent its time by size class (the summary's own line).
# Knobs: SSFUZZ, BENCH_CAMPAIGN_CASES (default 50000), BENCH_CAMPAIGN_SEED (default 3),
# BENCH_BEFORE_ARGS (the old mix, default "--large-per-mille 3").
set -u
SSFUZZ=${SSFUZZ:-build/ssfuzz}
N=${BENCH_CAMPAIGN_CASES:-50000}
SEED=${BENCH_CAMPAIGN_SEED:-3}
BEFORE=${BENCH_BEFORE_ARGS:---large-per-mille 3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); --jobs 1"
run() {   # label args...: prints the campaign's rate (cases/s) on stdout, its summary lines on fd 3
    local label=$1; shift
    "$SSFUZZ" fuzz --seed "$SEED" --cases "$N" --jobs 1 --quiet --out "$tmp/$label" "$@" >"$tmp/$label.log" 2>&1
    local rc=$?
    if [ "$rc" != 0 ]; then echo "bench-campaign: $label: exit $rc" >&2; cat "$tmp/$label.log" >&2; return 1; fi
    { echo "$label: $(grep -m1 '^fuzz: [0-9]* cases' "$tmp/$label.log")"
      grep -m1 '^  sizes' "$tmp/$label.log"
      grep -m1 '^reproduce:' "$tmp/$label.log" | sed 's/^/  /'; } >&3
    sed -n 's/^fuzz: [0-9]* cases in [0-9.]* s (\([0-9]*\) cases\/s).*/\1/p' "$tmp/$label.log"
}
# shellcheck disable=SC2086  # BEFORE is an option list
before=$(run before $BEFORE 3>&1 >"$tmp/rate.before"; cat "$tmp/rate.before") || exit 1
echo "$before" | sed '$d'
b=$(echo "$before" | tail -1)
after=$(run after 3>&1 >"$tmp/rate.after"; cat "$tmp/rate.after") || exit 1
echo "$after" | sed '$d'
a=$(echo "$after" | tail -1)
awk -v a="$a" -v b="$b" 'BEGIN { printf "default campaign: %d -> %d cases/s, %.1fx (aim: >= 5x)\n", b, a, (b > 0 ? a / b : 0) }'
