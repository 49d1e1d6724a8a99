#!/usr/bin/env bash
# bench_files.sh - reproducer files per bug: for each emu mutant, one fixed-seed campaign; how many files it writes and how many findings (hits) they stand for.
# Knobs: SSFUZZ (default build/ssfuzz), BENCH_FILES_TIME (s per campaign, default 10), BENCH_FILES_SEED (default 1).
set -u
SSFUZZ=${SSFUZZ:-build/ssfuzz}
T=${BENCH_FILES_TIME:-10}
SEED=${BENCH_FILES_SEED:-1}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mutants=$("$SSFUZZ" targets 2>/dev/null | awk '$1 ~ /^emu:mut-/ {print $1}')
[ -n "$mutants" ] || { echo "bench-files: no emu:mut-* targets listed by $SSFUZZ"; exit 2; }
echo "$SSFUZZ fuzz --target M --seed $SEED --time $T --jobs 1 --quiet, per emu mutant M"
printf '| mutant | reproducer files | findings (hits) | kinds |\n|---|---|---|---|\n'
for m in $mutants; do
    out="$tmp/${m#emu:}"
    "$SSFUZZ" fuzz --target "$m" --seed "$SEED" --time "$T" --jobs 1 --quiet --out "$out" >"$tmp/log" 2>&1
    files=$(find "$out" -maxdepth 1 -name '*.json' ! -name summary.json | wc -l)
    # "fuzz: N cases in T s (R cases/s), H findings in ..." (before) or "..., U unique findings (H hits) in ..."
    hits=$(sed -n 's/^fuzz: .*), \([0-9]*\) findings* in.*/\1/p; s/^fuzz: .*(\([0-9]*\) hits*) in.*/\1/p' "$tmp/log" | head -1)
    kinds=$(find "$out" -maxdepth 1 -name '*.json' ! -name summary.json -printf '%f\n' | sed 's/-emu_.*//' | sort | uniq -c |
            awk '{print $1 " " $2}' | paste -sd, - | sed 's/,/, /g')
    printf '| %s | %s | %s | %s |\n' "$m" "$files" "${hits:-?}" "${kinds:--}"
done
