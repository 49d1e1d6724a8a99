#!/usr/bin/env bash
# One file per bug: a campaign writes one reproducer per dedup key (kind, target, schedule
# class, overlap class; never dtype or rank), counts the other shapes as hits, and writes
# them only with --keep-variants; the summary says "N unique findings (M hits)".
set -u
. "$(dirname "$0")/lib/common.sh"

run() {   # DIR ARGS...: a fixed campaign on the mutant with the most shapes of one bug
    local d=$1; shift
    "$SSFUZZ" fuzz -t emu:mut-end-unclamped --seed 1 --cases 20000 -q -o "$d" "$@" >"$d.log" 2>&1
}
run "$tmp/one"
run "$tmp/all" --keep-variants
n_one=$(ls "$tmp"/one/*.json | grep -vc summary.json)
n_all=$(ls "$tmp"/all/*.json | grep -vc summary.json)
keys=$(python3 -c 'import json, sys
ks = [json.load(open(f))["meta"]["dedup_key"] for f in sys.argv[1:] if not f.endswith("summary.json")]
print(len(ks), len(set(ks)))' "$tmp"/one/*.json)
[ "$keys" = "$n_one $n_one" ] && pass "one file per dedup key ($n_one files)" || fail "one file per dedup key" "files/keys: $keys"
ls "$tmp"/one | grep -q -- '-[0-9]d-' && fail "no rank in the names" "$(ls "$tmp/one" | head -3)" || pass "no rank or dtype in the names"
[ "$n_one" -le 3 ] && pass "at most one file per kind for one mutant ($n_one)" || fail "at most one file per kind for one mutant" "$n_one: $(ls "$tmp/one")"
[ "$n_all" -gt "$n_one" ] && ls "$tmp"/all | grep -q -- '-[0-9]d-' && pass "--keep-variants writes each shape ($n_all files)" ||
    fail "--keep-variants writes each shape" "$n_all vs $n_one"
line=$(grep '^fuzz: .* cases in' "$tmp/one.log")
u=$(echo "$line" | sed -n 's/.*, \([0-9]*\) unique findings* (\([0-9]*\) hits*).*/\1/p')
[ "$u" = "$n_one" ] && pass "summary: N unique findings (M hits), N = files" || fail "summary line" "$line"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["unique_findings"] == int(sys.argv[2]) and d["hits"] > d["unique_findings"], d' \
    "$tmp/one/summary.json" "$n_one" 2>"$tmp/err" && pass "summary.json: unique_findings and hits" || fail "summary.json counts" "$(tail -1 "$tmp/err")"
