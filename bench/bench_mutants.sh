#!/usr/bin/env bash
# bench_mutants.sh - detection power: for each emu mutant, a fixed-seed one-core campaign; cases and seconds to the first finding, the reproducer's size and whether re-minimizing shrinks it; then a campaign on the correct targets that must find nothing.
# Knobs: SSFUZZ, BENCH_MUTANT_TIME (s, default 10), BENCH_SEEDS (default "1"),
# BENCH_SURVIVE_TIME (s, default 60; 0 skips), BENCH_SURVIVE_SEED (default 1).
set -u
SSFUZZ=${SSFUZZ:-build/ssfuzz}
T=${BENCH_MUTANT_TIME:-10}
SEEDS=${BENCH_SEEDS:-1}
SURVIVE=${BENCH_SURVIVE_TIME:-60}
PY=${PYTHON:-python3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$SSFUZZ" fuzz --help >/dev/null 2>&1 || { echo "bench-mutants: '$SSFUZZ fuzz' is not available"; exit 2; }
mutants=$("$SSFUZZ" targets | awk '$1 ~ /^emu:mut-/ {print $1}')
[ -n "$mutants" ] || { echo "bench-mutants: no emu:mut-* targets listed"; exit 2; }

# rank numel bytes dtype kind of a case file (numel "IN+SRC" when src is separate;
# bytes: every storage).
case_shape() {
    "$PY" - "$1" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1]))
size = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float16": 2,
        "bfloat16": 2, "float32": 4, "float64": 8, "complex64": 8, "complex128": 16}[c["dtype"]]
n = c["storage"]["numel"]
src = c["src_storage"]["numel"] if c["src"]["storage"] == "separate" else 0
print(len(c["input"]["sizes"]), "%d+%d" % (n, src) if src else n, (n + src) * size, c["dtype"],
      "aliased" if c["src"]["storage"] == "input" else "separate src")
PYEOF
}

# The case without meta, for comparing a reproducer with its re-minimized self.
case_core() {
    "$PY" -c 'import json,sys; c=json.load(open(sys.argv[1])); c.pop("meta",None); print(json.dumps(c,sort_keys=True))' "$1"
}

echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); --jobs 1, ${T}s per campaign"
printf '| mutant | seed | cases to first finding | seconds (incl. minimizing) | signatures | reproducer: rank | storage numel | storage bytes | 1-minimal |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
killed=0 total=0
for m in $mutants; do
    for s in $SEEDS; do
        total=$((total + 1))
        out="$tmp/out-${m#emu:}-$s"
        "$SSFUZZ" fuzz --target "$m" --seed "$s" --time "$T" --jobs 1 --quiet --out "$out" ${BENCH_FUZZ_ARGS:-} >"$tmp/log" 2>&1
        # "finding (0.01 s, case 3): mismatch on T (forward): ... -> PATH"
        first=$(grep -m1 '^finding (' "$tmp/log")
        if [ -z "$first" ]; then
            printf '| %s | %s | not killed | - | 0 | - | - | - | - |\n' "$m" "$s"
            continue
        fi
        killed=$((killed + 1))
        secs=$(echo "$first" | sed -n 's/^finding (\([0-9.]*\) s, case \([0-9]*\)).*/\1/p')
        idx=$(echo "$first" | sed -n 's/^finding (\([0-9.]*\) s, case \([0-9]*\)).*/\2/p')
        repro=$(echo "$first" | sed -n 's/.* -> \([^;]*\.json\).*/\1/p')
        sigs=$(grep -c '^finding (' "$tmp/log")
        read -r rank numel bytes dtype kind < <(case_shape "$repro")
        # 1-minimal: minimizing the reproducer again changes nothing.
        again="$tmp/again.json"
        if "$SSFUZZ" minimize "$repro" --target "$m" --time 20 -o "$again" >/dev/null 2>&1 &&
           [ "$(case_core "$repro")" = "$(case_core "$again")" ]; then minimal=yes; else minimal=no; fi
        printf '| %s | %s | %s | %s | %s | %s | %s | %s (%s, %s) | %s |\n' "$m" "$s" "$((idx + 1))" \
            "$secs" "$sigs" "$rank" "$numel" "$bytes" "$dtype" "$kind" "$minimal"
    done
done
echo "killed: $killed of $total campaigns"

if [ "$SURVIVE" != 0 ]; then
    seed=${BENCH_SURVIVE_SEED:-1}
    "$SSFUZZ" fuzz --target emu:reinplace --target emu:functional --target emu:index --seed "$seed" \
        --time "$SURVIVE" --jobs 1 --quiet --out "$tmp/survive" >"$tmp/survive.log" 2>&1
    rc=$?
    line=$(grep -m1 '^fuzz: [0-9]* cases' "$tmp/survive.log")
    if [ "$rc" = 0 ]; then
        echo "correct targets (emu:reinplace, emu:functional, emu:index), seed $seed, ${SURVIVE}s: no finding; $line"
    else
        echo "correct targets, seed $seed, ${SURVIVE}s: FINDINGS (exit $rc):"
        cat "$tmp/survive.log"
        exit 1
    fi
fi
[ "$killed" = "$total" ]
