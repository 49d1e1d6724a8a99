#!/usr/bin/env bash
# `ssfuzz minimize` end to end: user meta survives, offsets and storages shrink
# together, and every mutant's seed-1 fuzz reproducer has the size docs/performance.md's
# detection-power table states.
set -u
. "$(dirname "$0")/lib/common.sh"
PY=${PYTHON:-python3}

# meta.upstream, meta.title and any other key the minimizer does not own are kept.
"$PY" - corpus/shift-right-1d.json "$tmp/in.json" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1]))
c.pop("expect", None)
c["meta"]["notes"] = {"ticket": 7}
json.dump(c, open(sys.argv[2], "w"))
PYEOF
if "$SSFUZZ" minimize "$tmp/in.json" -t emu:mut-alias-unchecked -o "$tmp/min.json" 2>"$tmp/err" &&
   "$PY" - "$tmp/in.json" "$tmp/min.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(p))["meta"] for p in sys.argv[1:])
for k in ("upstream", "title", "notes"):
    assert b.get(k) == a[k], (k, b.get(k))
assert b["target"] == "emu:mut-alias-unchecked" and b["signature"] == "mismatch", b
PYEOF
then pass "minimize keeps user meta (upstream, title, other keys)"
else fail "minimize keeps user meta (upstream, title, other keys)" "$(tail -2 "$tmp/err")"; fi

# Seed 5, case 33 on mut-end-unclamped: storage 213 with the view at offset 191;
# the write past the view needs the storage's tail, so offset and storage must
# shrink together. It ends at most at docs/targets.md's 3-element smallest case.
"$SSFUZZ" gen --seed 5 --index 33 -o "$tmp/g.json"
if "$SSFUZZ" minimize "$tmp/g.json" -t emu:mut-end-unclamped --schedule forward -o "$tmp/gm.json" 2>"$tmp/err" &&
   "$PY" - "$tmp/g.json" "$tmp/gm.json" <<'PYEOF'
import json, sys
g, m = (json.load(open(p)) for p in sys.argv[1:])
assert g["storage"]["numel"] == 213 and g["input"]["offset"] == 191, "gen changed: %r" % g["input"]
n = max(m["storage"]["numel"], m.get("src_storage", {}).get("numel", 0))
assert n <= 3 and m["input"]["offset"] == 0, (n, m["input"])
assert m["meta"]["minimized"] is True
PYEOF
then pass "minimize shrinks offset 191 / storage 213 (mut-end-unclamped) to <= 3 elements"
else fail "minimize shrinks offset 191 / storage 213 (mut-end-unclamped) to <= 3 elements" "$(tail -3 "$tmp/err")"; fi

# Detection power (docs/performance.md): each emu mutant's first seed-1
# reproducer under the default size mix (the table's "after" rows, which follow
# each mutant's "before" row) has the table's rank and storage numel, and is
# 1-minimal.
rows=$(sed -n '/^## Detection power/,/^## /p' docs/performance.md | awk -F'|' '
    $2 ~ /emu:mut-/ { m = $2 }
    $3 ~ /^ *after *$/ && m != "" { print m "|" $7 "|" $8; m = "" }')
[ "$(echo "$rows" | grep -c 'emu:mut-')" -ge 7 ] || fail "docs/performance.md detection-power table found" "rows: $rows"
while IFS='|' read -r m rank numel; do
    m=$(echo $m) rank=$(echo $rank) numel=$(echo $numel)
    out="$tmp/f-${m#emu:}"
    "$SSFUZZ" fuzz --target "$m" --seed 1 --cases 300 --jobs 1 -q --out "$out" >"$tmp/log" 2>&1
    repro=$(grep -m1 '^finding (' "$tmp/log" | sed -n 's/.* -> \([^;]*\.json\).*/\1/p')
    got=$([ -f "$repro" ] && "$PY" -c '
import json, sys
c = json.load(open(sys.argv[1])); n = c["storage"]["numel"]
s = c["src_storage"]["numel"] if c["src"]["storage"] == "separate" else 0
print(len(c["input"]["sizes"]), "%d+%d" % (n, s) if s else n)' "$repro")
    again="$tmp/again-${m#emu:}.json"
    "$SSFUZZ" minimize "$repro" --target "$m" -o "$again" >/dev/null 2>&1
    same=$("$PY" -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
a.pop("meta"); b.pop("meta"); print(a == b)' "$repro" "$again" 2>/dev/null)
    if [ "$got" = "$rank $numel" ] && [ "$same" = True ]; then pass "$m seed-1 reproducer is docs/performance.md's $numel elements, 1-minimal"
    else fail "$m seed-1 reproducer is docs/performance.md's $numel elements, 1-minimal" "got rank/numel '$got', re-minimize unchanged: $same"; fi
done <<<"$rows"
