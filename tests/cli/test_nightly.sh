#!/usr/bin/env bash
# Three nights of scripts/nightly.sh on a scratch git repository with a findings ledger:
# night 1 fuzzes a mutant and finds its bug (new: exit 1), night 2 finds it again (known:
# exit 0), night 3 runs the correct kernel instead (the "fix") and the known reproducers
# agree (fixed: exit 0). Each night's verdict.json, findings JUnit and SARIF are checked:
# the same bug keeps its SARIF fingerprint, and the history gets one line per night.
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"
root=$(pwd)
bin=$(cd "$(dirname "$SSFUZZ")" && pwd)/$(basename "$SSFUZZ")
command -v git >/dev/null || { echo "skip nightly: git not installed"; exit 0; }
command -v python3 >/dev/null || { echo "skip nightly: python3 not installed"; exit 0; }

repo="$tmp/repo"
mkdir -p "$repo/scripts" && cp scripts/nightly.sh "$repo/scripts/" && cp -r corpus "$repo/"
git -C "$repo" init -q && git -C "$repo" -c user.name=t -c user.email=t@t add -A &&
    git -C "$repo" -c user.name=t -c user.email=t@t commit -qm init || { fail "scratch repository"; exit 0; }

night() {   # date seed target [recheck-on]
    (cd "$repo" && NIGHTLY_SSFUZZ="$bin" NIGHTLY_DATE=$1 NIGHTLY_SEED=$2 NIGHTLY_GPUS=0 SS_NO_TORCH=1 \
        NIGHTLY_FUZZ_ARGS="--target $3 --cases 1500" NIGHTLY_RECHECK_ON="${4:-}" \
        bash scripts/nightly.sh 20 >"$tmp/night-$1.log" 2>&1)
}
# Checks of one night's outputs: prints "ok ..." / "not ok ..." lines.
check() {   # date expected-exit
    python3 - "$repo/reports/$1" "$2" <<'PY'
import json, sys, xml.etree.ElementTree as ET
d, want = sys.argv[1], int(sys.argv[2])
def ok(name, cond, why=""):
    print(("ok " if cond else "not ok ") + name + ("" if cond else ": " + why))
v = json.load(open(d + "/verdict.json"))
ok(f"{d[-10:]}: verdict exit {want}", v["exit"] == want, f"exit {v['exit']} ({v['verdict']})")
x = ET.parse(d + "/findings.xml").getroot()
cases = x.findall(".//testcase")
fails = [(c.get("name"), c.find("failure").get("type")) for c in cases if c.find("failure") is not None]
s = json.load(open(d + "/nightly.sarif"))
res = [r for r in s["runs"][0]["results"] if "ssfuzzFinding/v1" in r.get("partialFingerprints", {})]
fps = sorted(r["partialFingerprints"]["ssfuzzFinding/v1"] for r in res)
json.dump({"verdict": v, "fails": fails, "fingerprints": fps,
           "states": sorted(r.get("baselineState") for r in res)}, open(d + "/check.json", "w"))
ok(f"{d[-10:]}: one JUnit testcase per finding", len(cases) == sum(v["counts"][k] for k in v["counts"]),
   f"{len(cases)} testcases, counts {v['counts']}")
PY
}
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$repo/reports/$1/check.json" "$2"; }

# Night 1: the mutant's bug is new.
night 2026-01-01 11 emu:mut-alias-unchecked; rc=$?
[ "$rc" = 1 ] && pass "night 1 exits 1 (new finding)" || fail "night 1 exits 1" "exit $rc: $(tail -3 "$tmp/night-2026-01-01.log")"
check 2026-01-01 1
n1=$(field 2026-01-01 'd["verdict"]["counts"]["new"]')
[ "${n1:-0}" -ge 1 ] && [ "$(field 2026-01-01 'd["verdict"]["counts"]["known"]')" = 0 ] &&
    [ "$(field 2026-01-01 'all(t == "new" for _, t in d["fails"]) and len(d["fails"]) == '"$n1")" = True ] &&
    [ "$(field 2026-01-01 'set(d["states"]) == {"new"} and len(d["fingerprints"]) == '"$n1")" = True ] &&
    pass "night 1: $n1 new finding(s), failing JUnit testcases, SARIF results marked new" ||
    fail "night 1 findings" "$(cat "$repo/reports/2026-01-01/check.json")"
grep -q '^new ' "$tmp/night-2026-01-01.log" && pass "night 1 prints the new list" || fail "night 1 prints the new list"
[ -f "$repo/known/ledger.json" ] && git -C "$repo" status --porcelain known | grep -q . &&
    pass "night 1 writes the ledger and its reproducers" || fail "night 1 writes the ledger"
# People review the new finding and commit the ledger.
git -C "$repo" add known && git -C "$repo" -c user.name=t -c user.email=t@t commit -qm "ledger: night 1"

# Night 2: the same bug, another seed: known, exit 0, the same fingerprints.
night 2026-01-02 12 emu:mut-alias-unchecked; rc=$?
[ "$rc" = 0 ] && pass "night 2 exits 0 (known findings only)" || fail "night 2 exits 0" "exit $rc: $(tail -3 "$tmp/night-2026-01-02.log")"
check 2026-01-02 0
[ "$(field 2026-01-02 'd["verdict"]["counts"]["new"]')" = 0 ] &&
    [ "$(field 2026-01-02 'd["verdict"]["counts"]["known"]')" = "$n1" ] &&
    [ "$(field 2026-01-02 'all(t == "known" for _, t in d["fails"]) and set(d["states"]) == {"unchanged"}')" = True ] &&
    pass "night 2: $n1 known, JUnit failures typed known, SARIF unchanged" ||
    fail "night 2 findings" "$(cat "$repo/reports/2026-01-02/check.json")"
[ "$(field 2026-01-01 'd["fingerprints"]')" = "$(field 2026-01-02 'd["fingerprints"]')" ] &&
    pass "SARIF fingerprints stable across nights" || fail "SARIF fingerprints stable across nights"
git -C "$repo" add known && git -C "$repo" -c user.name=t -c user.email=t@t commit -qm "ledger: night 2" -q

# Night 3: the fix: the correct kernel replaces the mutant; its known reproducers agree.
night 2026-01-03 13 emu:reinplace emu:reinplace; rc=$?
[ "$rc" = 0 ] && pass "night 3 exits 0" || fail "night 3 exits 0" "exit $rc: $(tail -3 "$tmp/night-2026-01-03.log")"
check 2026-01-03 0
[ "$(field 2026-01-03 'd["verdict"]["counts"]["fixed"]')" = "$n1" ] &&
    [ "$(field 2026-01-03 'd["verdict"]["counts"]["known"] + d["verdict"]["counts"]["new"]')" = 0 ] &&
    [ "$(field 2026-01-03 'len(d["fails"]) + len(d["fingerprints"])')" = 0 ] &&
    pass "night 3: $n1 fixed; JUnit testcases pass, no open SARIF result" ||
    fail "night 3 findings" "$(cat "$repo/reports/2026-01-03/check.json")"
grep -q '^fixed ' "$tmp/night-2026-01-03.log" && pass "night 3 prints the fixed list" || fail "night 3 prints the fixed list"
[ "$(grep -c '"status":.*"fixed"' "$repo/known/ledger.json")" = "$n1" ] &&
    pass "ledger marks them fixed" || fail "ledger marks them fixed" "$(grep status "$repo/known/ledger.json")"

lines=$(grep -c . "$repo/reports/history.jsonl" 2>/dev/null)
[ "$lines" = 3 ] && pass "history: one line per night" || fail "history: one line per night" "$lines lines"
grep -q '<svg id="trend"' "$repo/reports/2026-01-03/report.html" && pass "report.html has the trend plot" ||
    fail "report.html has the trend plot"
ls "$repo/reports/2026-01-01/explain/"*.txt >/dev/null 2>&1 && pass "explain output for each new finding" ||
    fail "explain output for each new finding"
cd "$root"
