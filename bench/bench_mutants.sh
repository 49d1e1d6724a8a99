#!/usr/bin/env bash
# bench_mutants.sh - detection power: for each emu mutant, a fixed-seed one-core campaign under the old and the new size mix; cases and seconds to the first finding, the reproducer's size and whether re-minimizing shrinks it; then a campaign on the correct targets that must find nothing.
# Knobs: SSFUZZ, BENCH_MUTANT_TIME (s, default 10), BENCH_SEEDS (default "1"), BENCH_BEFORE_ARGS
# (the "before" size mix, default "--large-per-mille 3"), BENCH_FUZZ_ARGS (added to "after"),
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

# Each mutant under two size mixes, side by side: "before" (BENCH_BEFORE_ARGS,
# the old default of 3 large cases per mille) and "after" (the target set's
# default, plus BENCH_FUZZ_ARGS): detection must not drop with fewer large cases.
BEFORE=${BENCH_BEFORE_ARGS:---large-per-mille 3}
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); --jobs 1, ${T}s per campaign"
echo "size mix: before = '$BEFORE', after = the target set's default${BENCH_FUZZ_ARGS:+ + '$BENCH_FUZZ_ARGS'}"
printf '| mutant | seed | mix | cases to first finding | seconds (incl. minimizing) | signatures | reproducer: rank | storage numel | storage bytes | 1-minimal |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
killed=0 total=0 worse=0
declare -A first_secs repro_bytes
run_one() {   # mutant seed mix args...
    local m=$1 s=$2 mix=$3; shift 3
    total=$((total + 1))
    local out="$tmp/out-${m#emu:}-$s-$mix"
    "$SSFUZZ" fuzz --target "$m" --seed "$s" --time "$T" --jobs 1 --quiet --out "$out" "$@" >"$tmp/log" 2>&1
    # "finding (0.01 s, case 3): mismatch on T (forward): ... -> PATH"
    local first
    first=$(grep -m1 '^finding (' "$tmp/log")
    if [ -z "$first" ]; then
        printf '| %s | %s | %s | not killed | - | 0 | - | - | - | - |\n' "$m" "$s" "$mix"
        first_secs[$m/$s/$mix]=inf
        return
    fi
    killed=$((killed + 1))
    local secs idx repro sigs rank numel bytes dtype kind minimal again="$tmp/again.json"
    secs=$(echo "$first" | sed -n 's/^finding (\([0-9.]*\) s, case \([0-9]*\)).*/\1/p')
    idx=$(echo "$first" | sed -n 's/^finding (\([0-9.]*\) s, case \([0-9]*\)).*/\2/p')
    repro=$(echo "$first" | sed -n 's/.* -> \([^;]*\.json\).*/\1/p')
    sigs=$(grep -c '^finding (' "$tmp/log")
    read -r rank numel bytes dtype kind < <(case_shape "$repro")
    # 1-minimal: minimizing the reproducer again changes nothing.
    if "$SSFUZZ" minimize "$repro" --target "$m" --time 20 -o "$again" >/dev/null 2>&1 &&
       [ "$(case_core "$repro")" = "$(case_core "$again")" ]; then minimal=yes; else minimal=no; fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s (%s, %s) | %s |\n' "$m" "$s" "$mix" "$((idx + 1))" \
        "$secs" "$sigs" "$rank" "$numel" "$bytes" "$dtype" "$kind" "$minimal"
    first_secs[$m/$s/$mix]=$secs
    repro_bytes[$m/$s/$mix]=$bytes
}
for m in $mutants; do
    for s in $SEEDS; do
        # shellcheck disable=SC2086  # the mixes are option lists
        run_one "$m" "$s" before $BEFORE
        # shellcheck disable=SC2086
        run_one "$m" "$s" after ${BENCH_FUZZ_ARGS:-}
        b=${first_secs[$m/$s/before]} a=${first_secs[$m/$s/after]}
        # worse: not killed after, killed more than 1 s later, or a larger reproducer
        if [ "$a" = inf ] && [ "$b" != inf ]; then worse=$((worse + 1))
        elif [ "$a" != inf ] && [ "$b" != inf ] &&
             { awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > b + 1) }' ||
               [ "${repro_bytes[$m/$s/after]}" -gt "${repro_bytes[$m/$s/before]}" ]; }; then
            worse=$((worse + 1))
        fi
    done
done
echo "before -> after: $worse mutant campaign(s) found later, not at all, or with a larger reproducer under the new size mix"
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
