#!/usr/bin/env bash
# `ssfuzz triage` beyond the three nights: a fixed finding that fails again is regressed
# (exit 1), an entry whose target was not fuzzed tonight is unchecked (skipped in JUnit),
# a campaign that could not run is a tool error (exit 2), a broken ledger is refused.
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"
command -v python3 >/dev/null || { echo "skip triage: python3 not installed"; exit 0; }

"$SSFUZZ" fuzz --target emu:mut-alias-unchecked --cases 800 --seed 31 --out "$tmp/n1" -q >/dev/null 2>&1
expect_rc "triage: first sight is new (exit 1)" 1 "$SSFUZZ" triage --found "$tmp/n1" --ledger "$tmp/k/ledger.json" --update -q
# Mark every entry fixed, as if a night had found them agreeing.
python3 - "$tmp/k/ledger.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
for e in d["findings"]: e["status"] = "fixed"; e["fixed_on"] = "2026-01-01"
json.dump(d, open(p, "w"))
PY
expect_rc "triage: a fixed finding found again is regressed (exit 1)" 1 "$SSFUZZ" triage --found "$tmp/n1" \
    --ledger "$tmp/k/ledger.json" --verdict "$tmp/v.json" --sarif "$tmp/s.sarif" -q
python3 -c "
import json,sys
v=json.load(open('$tmp/v.json')); s=json.load(open('$tmp/s.sarif'))
r=s['runs'][0]['results']
sys.exit(0 if v['counts']['regressed']>=1 and v['counts']['new']==0 and r and all(x['properties']['ledger']=='regressed' for x in r) else 1)" &&
    pass "regressed: in verdict.json and SARIF" || fail "regressed: in verdict.json and SARIF" "$(head -c 300 "$tmp/v.json")"

mkdir -p "$tmp/empty"
expect_rc "triage: entries of targets not fuzzed tonight are unchecked (exit 0)" 0 "$SSFUZZ" triage \
    --found "$tmp/empty" --target emu:index --ledger "$tmp/k/ledger.json" --junit "$tmp/j.xml" --verdict "$tmp/v2.json" -q
grep -q '<skipped message="emu:mut-alias-unchecked was not fuzzed tonight' "$tmp/j.xml" &&
    pass "unchecked: skipped in JUnit with the reason" || fail "unchecked: skipped in JUnit" "$(cat "$tmp/j.xml")"
expect_rc "triage: a campaign that did not run is a tool error (exit 2)" 2 "$SSFUZZ" triage --found "$tmp/empty" \
    --ledger "$tmp/none.json" --fuzz-exit 3 -q
echo '{"format": "ssfuzz-ledger", "findings": {}}' >"$tmp/bad.json"
expect_rc "triage: a broken ledger is refused (exit 2)" 2 "$SSFUZZ" triage --ledger "$tmp/bad.json"
grep -q 'findings must be an array' "$tmp/err" && pass "broken ledger: says why" || fail "broken ledger: says why" "$(cat "$tmp/err")"
expect_rc "triage: unknown target refused" 2 "$SSFUZZ" triage --target emu:nope
