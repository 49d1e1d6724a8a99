#!/usr/bin/env bash
# Two campaigns at once into one --out: summary.json keeps both (one `campaigns` entry each,
# totals summed), neither overwrites the other; a third, later run adds itself too.
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"
command -v python3 >/dev/null || { echo "skip concurrent summaries: python3 not installed"; exit 0; }

out="$tmp/out"
"$SSFUZZ" fuzz --target emu:mut-alias-unchecked --cases 4000 --seed 21 --out "$out" -q >"$tmp/a.log" 2>&1 &
a=$!
"$SSFUZZ" fuzz --target emu:reinplace --cases 3000 --seed 22 --out "$out" -q >"$tmp/b.log" 2>&1 &
b=$!
wait $a; ra=$?
wait $b; rb=$?
[ "$ra" = 1 ] && [ "$rb" = 0 ] && pass "two campaigns ran side by side (exit 1 and 0)" || fail "two campaigns" "exits $ra $rb"
check() {   # name python-expression over d (summary.json)
    if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$out/summary.json" 2>"$tmp/py.err"
    then pass "$1"; else fail "$1" "$(head -c 400 "$out/summary.json" | tr '\n' ' ') $(tail -1 "$tmp/py.err")"; fi
}
check "summary.json keeps both campaigns" 'sorted(c["seed"] for c in d["campaigns"]) == ["21", "22"]'
check "totals: cases summed, seeds and targets merged" \
    'd["cases"] == 7000 and sorted(d["seed"].split(",")) == ["21", "22"] and set(d["targets"].split(",")) == {"emu:mut-alias-unchecked", "emu:reinplace"}'
check "findings of the finding campaign survive" \
    'any(f["target"] == "emu:mut-alias-unchecked" and f["hits"] > 0 for f in d["findings"])'
check "aliasing kinds sampled over both" 'd["aliasing"]["sampled_cases"] == 7000'
"$SSFUZZ" fuzz --target emu:index --cases 500 --seed 23 --out "$out" -q >/dev/null 2>&1
check "a later campaign adds itself" 'len(d["campaigns"]) == 3 and d["cases"] == 7500'
