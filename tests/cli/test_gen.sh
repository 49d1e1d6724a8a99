#!/usr/bin/env bash
# `ssfuzz gen`: case (seed, index) exactly as the campaign generates it, with
# the generation options that change it; usage errors.
set -u
. "$(dirname "$0")/lib/common.sh"
PY=${PYTHON:-python3}

# Every reproducer of a campaign names its (seed, index); gen regenerates the
# case it started from (same rank and largest storage as before_minimization).
"$SSFUZZ" fuzz --target emu:mut-end-unclamped --seed 5 --cases 200 --jobs 1 -q --out "$tmp/r" >"$tmp/log" 2>&1
ok=0 bad=0
for f in "$tmp"/r/*-*.json; do
    idx=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["meta"]["case_index"])' "$f")
    "$SSFUZZ" gen --seed 5 --index "$idx" -o "$tmp/g.json"
    if "$PY" - "$f" "$tmp/g.json" <<'PYEOF'
import json, sys
r, g = (json.load(open(p)) for p in sys.argv[1:])
b = r["meta"]["before_minimization"]
n = max(g["storage"]["numel"], g.get("src_storage", {}).get("numel", 0))
assert (b["numel"], b["ndim"]) == (n, len(g["input"]["sizes"])), (b, n)
PYEOF
    then ok=$((ok + 1)); else bad=$((bad + 1)); fi
done
if [ "$ok" -ge 3 ] && [ "$bad" = 0 ]; then pass "gen regenerates each campaign reproducer's starting case ($ok)"
else fail "gen regenerates each campaign reproducer's starting case" "$ok match, $bad differ"; fi
"$SSFUZZ" gen --seed 5 --index 33 -o "$tmp/g33.json"
if "$PY" - "$tmp/g33.json" <<'PYEOF'
import json, sys
g = json.load(open(sys.argv[1]))
m = g["meta"]
assert m["campaign_seed"] == "5" and m["case_index"] == "33", m
assert m["found_by"] == "ssfuzz gen --seed 5 --index 33", m
assert g["storage"]["numel"] == 213 and g["input"]["offset"] == 191, g["input"]
PYEOF
then pass "gen --seed 5 --index 33: meta and case"
else fail "gen --seed 5 --index 33: meta and case"; fi

# Same (seed, index), stdout vs -o: identical; generation options change the case and are recorded.
"$SSFUZZ" gen --seed 5 --index 33 >"$tmp/stdout.json"
if cmp -s <(tr -d '\n' <"$tmp/stdout.json") <(tr -d '\n' <"$tmp/g33.json"); then pass "gen stdout equals -o"
else fail "gen stdout equals -o"; fi
"$SSFUZZ" gen --seed 5 --index 33 --max-ndim 1 --max-numel 64 --no-swarm -o "$tmp/opt.json"
if "$PY" - "$tmp/opt.json" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1]))
assert len(c["input"]["sizes"]) == 1 and c["storage"]["numel"] <= 64, c["input"]
assert c["meta"]["found_by"] == "ssfuzz gen --seed 5 --index 33 --max-ndim 1 --max-numel 64 --no-swarm", c["meta"]
PYEOF
then pass "gen honours and records --max-ndim, --max-numel, --no-swarm"
else fail "gen honours and records --max-ndim, --max-numel, --no-swarm"; fi
expect_rc "gen output replays" 0 "$SSFUZZ" replay -q "$tmp/g33.json"

expect_rc "gen without --index is a usage error" 2 "$SSFUZZ" gen --seed 1
expect_rc "gen --max-ndim 0 is a usage error" 2 "$SSFUZZ" gen --seed 1 --index 0 --max-ndim 0
expect_rc "gen with an unknown option is a usage error" 2 "$SSFUZZ" gen --seed 1 --index 0 --bogus
expect_rc "gen into an unwritable place is a usage error" 2 "$SSFUZZ" gen --seed 1 --index 0 -o /proc/nope/x.json
