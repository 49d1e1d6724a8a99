#!/usr/bin/env bash
# The torch engine end to end: targets listed, a campaign on eager PyTorch that
# finds the #144861 class (aliased shift, silently wrong) and minimizes it,
# replay of the finding, corpus expectations with torch version ranges, and a
# worker that crashes, hangs, prints garbage or is not a torch python at all.
set -u
. "$(dirname "$0")/lib/common.sh"

# Interpreters that are not torch workers: each must give one clear reason.
printf '#!/bin/sh\nexit 0\n' >"$tmp/py-exits"
printf '#!/bin/sh\necho hello from a python that is not one\nsleep 5\n' >"$tmp/py-garbage"
printf '#!/bin/sh\nsleep 30\n' >"$tmp/py-silent"
chmod +x "$tmp"/py-*
case_file=corpus/torch-144861-eager-shift-inner-4x6.json
expect_rc "no such python: exit 3" 3 "$SSFUZZ" --python "$tmp/nope" replay -t torch:eager-cpu:setitem "$case_file"
grep -q "cannot run $tmp/nope" "$tmp/out" "$tmp/err" && pass "no such python: says so" || fail "no such python: says so" "$(cat "$tmp/out")"
expect_rc "python that exits: exit 3" 3 "$SSFUZZ" --python "$tmp/py-exits" replay -t torch:eager-cpu:setitem "$case_file"
expect_rc "python that prints garbage: exit 3" 3 "$SSFUZZ" --python "$tmp/py-garbage" replay -t torch:eager-cpu:setitem "$case_file"
grep -q "bad frame magic" "$tmp/out" "$tmp/err" && pass "garbage: names the protocol error" || fail "garbage: names the protocol error" "$(cat "$tmp/out")"
SSFUZZ_TORCH_START_TIMEOUT=1 expect_rc "silent python: exit 3" 3 "$SSFUZZ" --python "$tmp/py-silent" replay -t torch:eager-cpu:setitem "$case_file"
grep -q "did not answer within 1 s" "$tmp/out" "$tmp/err" && pass "silent python: times out with the limit" || fail "silent python: times out" "$(cat "$tmp/out")"
expect_rc "--python without a value: exit 2" 2 "$SSFUZZ" targets --python

py=""
for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then py=$(command -v "$cand"); break; fi
done
if [ -z "$py" ]; then echo "skip torch-engine: no python3 with torch (apt-get install python3-torch)"; exit 0; fi
export SSFUZZ_PYTHON=$py

"$SSFUZZ" targets >"$tmp/targets" 2>&1
for t in torch:eager-cpu:setitem torch:compile-cpu:setitem-clone torch:compile-dynamic-cuda:index-put; do
    grep -q "^$t " "$tmp/targets" && pass "targets lists $t" || fail "targets lists $t"
done
grep -q "^torch:eager-cpu:setitem .*available" "$tmp/targets" && pass "eager-cpu available" || fail "eager-cpu available" "$(grep eager-cpu "$tmp/targets" | head -1)"
if ! "$py" -c 'import torch, sys; sys.exit(0 if hasattr(torch, "compile") else 1)'; then
    # the shared reason is one note line; each compile target refers to it
    note=$(sed -n 's/^# note \([0-9]*\): torch .*has no torch.compile.*/\1/p' "$tmp/targets")
    grep -q "^torch:compile-cpu:setitem .*unavailable (note $note)" "$tmp/targets" && [ -n "$note" ] &&
        pass "compile targets say why not (one note)" \
        || fail "compile targets say why not (one note)" "$(grep -e compile-cpu:setitem -e '^# note' "$tmp/targets" | head -3)"
fi

# The campaign: the first findings come within a few seconds; the case cap keeps CI short.
out=$tmp/campaign
"$SSFUZZ" fuzz --target torch:eager-cpu:setitem --seed 1 --cases 150 --minimize-time 10 -q -o "$out" >"$tmp/fuzz.out" 2>&1
rc=$?
[ "$rc" = 1 ] && pass "eager campaign finds something (exit 1)" || fail "eager campaign exit" "exit $rc: $(tail -5 "$tmp/fuzz.out")"
grep -q "refused by the target" "$tmp/fuzz.out" && pass "refusals are counted, not findings" || fail "refusals counted" "$(tail -5 "$tmp/fuzz.out")"
small=$("$py" - "$out" <<'EOF'
import glob, json, sys
best = None
for path in sorted(glob.glob(sys.argv[1] + "/mismatch-torch_eager-cpu_setitem-*.json")):
    c = json.load(open(path))
    numel = c["storage"]["numel"] + (c.get("src_storage") or {}).get("numel", 0)
    if (c["src"]["storage"] == "input" and len(c["input"]["sizes"]) <= 2 and numel <= 12
            and c["meta"]["signature"] == "mismatch"):
        best = path
print(best or "")
EOF
)
if [ -n "$small" ]; then pass "aliased mismatch minimized to <= 2 dims, <= 12 elements"; else
    fail "aliased mismatch minimized" "$(ls "$out")"; fi
if [ -n "$small" ]; then
    expect_rc "the finding replays (exit 1)" 1 "$SSFUZZ" replay -t torch:eager-cpu:setitem "$small"
    grep -q "MISMATCH torch:eager-cpu:setitem" "$tmp/out" "$tmp/err" && pass "replay names the target" || fail "replay names the target"
    grep -q '"torch":' "$small" && grep -q '"spelling":	"setitem"' "$small" && pass "meta records torch version and spelling" \
        || fail "meta records torch" "$(grep -A8 '"torch"' "$small" | head -8)"
    # Another torch than the finder's: said in one note; the file's python is never run.
    "$py" - "$small" "$tmp/other.json" <<'EOF2'
import json, sys
c = json.load(open(sys.argv[1]))
c["meta"]["torch"] = {"version": "0.0.1", "python": "/nonexistent/evil-python", "mode": 7}
json.dump(c, open(sys.argv[2], "w"))
EOF2
    "$SSFUZZ" replay -t torch:eager-cpu:setitem "$tmp/other.json" >"$tmp/out" 2>"$tmp/err"
    if grep -q "note: found with torch 0.0.1 (/nonexistent/evil-python), replayed on torch" "$tmp/err" \
       && grep -q "MISMATCH torch:eager-cpu:setitem" "$tmp/out"; then pass "a reproducer from another torch: noted, replayed here"
    else fail "reproducer from another torch" "$(cat "$tmp/err" | head -3)"; fi
fi

# Corpus expectations: eager's #144861 fails on every torch >= 1.13.dev0 (Debian's
# 1.13.0a0 too). "Holds" counts only if the eager expectation really ran (a held
# testcase in the JUnit, not a skipped one); compile expectations are skipped,
# with the reason, where torch has no compile, and nothing is skipped where it has.
"$SSFUZZ" regress --junit "$tmp/r.xml" corpus/torch-*.json >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" = 0 ] && "$py" - "$tmp/r.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
held = [t for t in ET.parse(sys.argv[1]).iter("testcase")
        if t.get("name") == "torch:eager-cpu:setitem" and len(t) == 0]   # no failure/skipped/error child
sys.exit(0 if held else 1)
EOF
then pass "regress on the torch corpus cases holds, the eager expectation checked"
else fail "regress on the torch corpus cases holds, the eager expectation checked" "exit $rc: $(tail -2 "$tmp/out") $(grep -A1 'eager-cpu:setitem"' "$tmp/r.xml" | head -2)"; fi
compile_named=$("$py" - corpus/torch-*.json <<'EOF'
import json, sys
for path in sys.argv[1:]:
    e = json.load(open(path)).get("expect", {})
    agree = e.get("agree") if isinstance(e.get("agree"), list) else []
    for name in list(e.get("fail", {})) + agree:
        if name.startswith(("torch:compile", "torch:aot-eager", "torch:dynamo-eager")):   # modes of torch.compile
            print(path, name)
EOF
)
if "$py" -c 'import torch, sys; sys.exit(0 if hasattr(torch, "compile") else 1)'; then
    ! grep -q '^SKIP \|, [1-9][0-9]* skipped' "$tmp/out" && pass "torch with compile: no expectation skipped" \
        || fail "torch with compile: no expectation skipped" "$(grep '^SKIP \|skipped' "$tmp/out" | head -3)"
else
    n=0 missing=""
    while read -r path target; do
        [ -n "$target" ] || continue
        n=$((n + 1))
        grep -q "^SKIP $path $target: unavailable: torch .* has no torch.compile" "$tmp/out" || missing="$missing $target"
    done <<<"$compile_named"
    [ "$n" -gt 0 ] && [ -z "$missing" ] && grep -q "^regress: .*, $n skipped," "$tmp/out" \
        && pass "torch without compile: its $n compile expectations reported skipped, with the reason" \
        || fail "torch without compile: compile expectations reported skipped" "missing:$missing; $(grep '^SKIP \|^regress' "$tmp/out" | head -4)"
fi
# Worker crashes, hangs, errors and every other verdict class: test_torch_verdicts.sh.
