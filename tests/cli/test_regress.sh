#!/usr/bin/env bash
# `ssfuzz regress`: the corpus holds every expectation; JUnit and SARIF are well formed;
# a wrong expectation fails with exit 1 and a SARIF result; usage and invalid cases exit 2.
set -u
. "$(dirname "$0")/lib/common.sh"
py=$(command -v python3 || command -v /usr/bin/python3)

expect_rc "regress corpus/ holds every expectation" 0 "$SSFUZZ" regress corpus/ --junit "$tmp/c.xml" --sarif "$tmp/c.sarif"
grep -q '^regress: .* 0 failed' "$tmp/out" && pass "summary line" || fail "summary line" "$(tail -1 "$tmp/out")"
expect_rc "regress corpus/ under ASan+UBSan" 0 "$SSFUZZ_ASAN" regress -q corpus/

# Every mutant is named as failing by at least one corpus case, and that expectation held.
for m in $("$SSFUZZ" targets | awk '$1 ~ /^emu:/ && $2 == "mutant" {print $1}'); do
    if grep -q "name=\"$m\" time=\"[0-9.]*\"/>" "$tmp/c.xml" && grep -l "\"$m\": \"" corpus/*.json >/dev/null; then
        pass "corpus kills $m"
    else fail "corpus kills $m"; fi
done

check_junit() {   # file want_failures
    "$py" - "$1" "$2" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
cases = root.findall("./testsuite/testcase")
assert cases and int(root.get("tests")) == len(cases), "testcase count"
for c in cases:
    assert c.get("classname") and c.get("name") and float(c.get("time")) >= 0, c.attrib
fails = root.findall("./testsuite/testcase/failure")
assert len(fails) == int(sys.argv[2]) == int(root.get("failures")), "failures %d" % len(fails)
for f in fails:
    assert f.get("type") and f.get("message"), f.attrib
PY
}
check_sarif() {   # file want_results [ruleId]
    "$py" - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "2.1.0" and "sarif-2.1.0" in d["$schema"], "version/schema"
run = d["runs"][0]
drv = run["tool"]["driver"]
assert drv["name"] == "ssfuzz" and drv["version"] and drv["rules"], "driver"
ids = {r["id"] for r in drv["rules"]}
res = run["results"]
assert len(res) == int(sys.argv[2]), "results %d" % len(res)
for r in res:
    assert r["ruleId"] in ids and r["level"] == "error" and r["message"]["text"], r
    assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r
if len(sys.argv) > 3:
    assert any(r["ruleId"] == sys.argv[3] for r in res), [r["ruleId"] for r in res]
PY
}
if [ -z "$py" ]; then echo "skip junit/sarif well-formedness: no python3"; else
    check_junit "$tmp/c.xml" 0 && pass "JUnit well formed (xml.etree)" || fail "JUnit well formed (xml.etree)"
    check_sarif "$tmp/c.sarif" 0 && pass "SARIF 2.1.0 well formed, no results" || fail "SARIF 2.1.0 well formed, no results"
fi

# A wrong expectation: the mutant is said to crash, but it mismatches; and a name with XML specials.
mkdir -p "$tmp/bad"
sed 's/"emu:mut-alias-same-ptr": "mismatch"/"emu:mut-alias-same-ptr": "crash"/' corpus/shift-right-1d.json >"$tmp/bad/wrong-sig.json"
sed 's/"emu:mut-alias-unchecked": "mismatch"/"emu:mut-step-ignored": "mismatch"/' corpus/shift-right-1d.json >"$tmp/bad/survivor <&\">.json"
expect_rc "a failed expectation exits 1" 1 "$SSFUZZ" regress "$tmp/bad" --junit "$tmp/b.xml" --sarif "$tmp/b.sarif"
grep -q "^FAIL .*wrong-sig.json emu:mut-alias-same-ptr: expected crash" "$tmp/out" && pass "failure names case, target and signature (stdout)" \
    || fail "failure names case, target and signature" "$(head -2 "$tmp/err")"
if [ -n "$py" ]; then
    check_junit "$tmp/b.xml" 2 && pass "JUnit failures escaped and counted" || fail "JUnit failures escaped and counted"
    check_sarif "$tmp/b.sarif" 2 missed-expected-failure && pass "SARIF results for failed expectations" \
        || fail "SARIF results for failed expectations"
    grep -q 'storage index 2, logical index \[2\]' "$tmp/b.xml" && grep -q 'differing elements: ' "$tmp/b.xml" \
        && pass "JUnit failure shows the first differing element" || fail "JUnit failure shows the first differing element"
fi

# Usage and invalid cases: exit 2, one line.
expect_rc "no case is a usage error" 2 "$SSFUZZ" regress
expect_rc "unknown target is a usage error" 2 "$SSFUZZ" regress --target emu:nope corpus/
expect_rc "missing path is a usage error" 2 "$SSFUZZ" regress "$tmp/nope"
printf '%s' '{"format": "ssfuzz-case"' >"$tmp/broken.json"
expect_rc "unreadable case exits 2" 2 "$SSFUZZ" regress "$tmp/broken.json"
sed 's/"emu:mut-alias-same-ptr": "mismatch"/"emu:mut-alias-smae-ptr": "mismatch"/' corpus/shift-right-1d.json >"$tmp/typo.json"
expect_rc "misspelt target in expect exits 2" 2 "$SSFUZZ" regress "$tmp/typo.json"
[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q 'expect.fail.emu:mut-alias-smae-ptr' "$tmp/err" && pass "invalid expect: one line naming the field" \
    || fail "invalid expect: one line naming the field" "$(cat "$tmp/err")"
# A torch version range on a target whose engine has no version, and on a name
# no target has: each refused naming its own field.
sed 's/"emu:mut-alias-same-ptr": "mismatch"/"emu:mut-alias-same-ptr": {"signature": "mismatch", "torch": ">=2.0"}/' \
    corpus/shift-right-1d.json >"$tmp/range.json"
expect_rc "a torch range on an emu target exits 2" 2 "$SSFUZZ" regress "$tmp/range.json"
grep -q 'expect.fail.emu:mut-alias-same-ptr.torch: a torch version range applies to torch:\* targets only' "$tmp/err" \
    && pass "a torch range on an emu target names its .torch field" || fail "a torch range on an emu target names its .torch field" "$(cat "$tmp/err")"
sed 's/"emu:mut-alias-same-ptr"/"emu:nope"/' "$tmp/range.json" >"$tmp/range2.json"
expect_rc "a torch range on an unknown target exits 2" 2 "$SSFUZZ" regress "$tmp/range2.json"
grep -q 'expect.fail.emu:nope: unknown target' "$tmp/err" \
    && pass "a torch range on an unknown target names the target" || fail "a torch range on an unknown target names the target" "$(cat "$tmp/err")"
sed 's/"mismatch"/"wrong answer"/' corpus/shift-right-1d.json >"$tmp/badsig.json"
expect_rc "unknown signature exits 2" 2 "$SSFUZZ" regress "$tmp/badsig.json"
expect_rc "unwritable --junit exits 2" 2 "$SSFUZZ" regress corpus/shift-right-1d.json --junit /proc/nope/x.xml
for f in tests/hostile/*.json; do
    [ -f "$f" ] || continue
    "$SSFUZZ_ASAN" regress -q "$f" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ]; then :; else fail "hostile $(basename "$f")" "exit $rc: $(head -c 200 "$tmp/err")"; hostile_bad=1; fi
done
[ -z "${hostile_bad:-}" ] && pass "hostile cases: exit 2, one line each (ASan)"

# A requested target that cannot run here: exit 3 (skipped in JUnit), when one exists.
un=$("$SSFUZZ" targets | awk '$2 == "kernel" && $3 != "available" {print $1; exit}')
if [ -n "$un" ]; then
    expect_rc "requested unavailable target exits 3" 3 "$SSFUZZ" regress corpus/shift-right-1d.json --target "$un" --junit "$tmp/u.xml"
    grep -q '<skipped message="unavailable' "$tmp/u.xml" && pass "unavailable target is skipped in JUnit" || fail "unavailable target is skipped in JUnit"
else
    echo "skip requested unavailable target: every target is available here"
fi
# --target with a mutant the case does not name: skipped, exit 0.
expect_rc "mutant not named by expect is skipped" 0 "$SSFUZZ" regress corpus/kv-cache-separate.json --target emu:mut-step-ignored --target emu:reinplace

# JUnit stays well-formed XML when a file name holds U+FFFE / U+FFFF (valid
# UTF-8, but not XML characters): they become U+FFFD.
mkdir -p "$tmp/nonchar"
cp corpus/shift-right-1d.json "$tmp/nonchar/a$(printf '\xef\xbf\xbe')b$(printf '\xef\xbf\xbf').json"
"$SSFUZZ" regress -q "$tmp/nonchar" --junit "$tmp/nonchar.xml" >/dev/null 2>&1
if python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$tmp/nonchar.xml" 2>"$tmp/err"
then pass "junit with U+FFFE/U+FFFF in a file name is well-formed XML"
else fail "junit with U+FFFE/U+FFFF in a file name is well-formed XML" "$(tail -1 "$tmp/err")"; fi

# An expect entry naming an unavailable non-mutant (cuda:reinplace without a
# GPU) is reported as skipped, not dropped.
if "$SSFUZZ" targets | grep -q '^cuda:reinplace .*available$'; then
    echo "skip expect.fail on an unavailable target: cuda:reinplace is available here"
else
    python3 - "$tmp/cudafail.json" <<'PY'
import json, sys
c = json.load(open("corpus/shift-right-1d.json"))
c["expect"] = {"fail": {"cuda:reinplace": "mismatch"}}
json.dump(c, open(sys.argv[1], "w"))
PY
    "$SSFUZZ" regress "$tmp/cudafail.json" --junit "$tmp/cudafail.xml" >"$tmp/out" 2>&1; rc=$?
    if [ "$rc" = 0 ] && grep -q ', 1 skipped,' "$tmp/out" && grep -q 'name="cuda:reinplace"' "$tmp/cudafail.xml"; then
        pass "expect.fail on an unavailable target is reported skipped"
    else fail "expect.fail on an unavailable target is reported skipped" "exit $rc: $(tail -1 "$tmp/out")"; fi
fi
