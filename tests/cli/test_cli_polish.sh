#!/usr/bin/env bash
# Command-line polish: -t everywhere --target is, help CMD, version, targets' notes,
# --json for replay and regress, output paths checked first, errors that say where and what.
set -u
. "$(dirname "$0")/lib/common.sh"

for cmd in fuzz replay minimize regress explain triage; do
    "$SSFUZZ" "$cmd" --help 2>&1 | grep -q -- '-t, --target' && pass "$cmd --help offers -t, --target" ||
        fail "$cmd --help offers -t, --target"
done
expect_rc "replay -t works" 0 "$SSFUZZ" replay -q -t emu:reinplace corpus/shift-right-1d.json
expect_rc "regress -t works" 0 "$SSFUZZ" regress -q -t emu:reinplace corpus/shift-right-1d.json
expect_rc "explain -t works" 0 "$SSFUZZ" explain --color never -t emu:reinplace corpus/shift-right-1d.json

cmds=$("$SSFUZZ" help | awk '/^  [a-z]/ {print $1}')
for cmd in $cmds; do
    [ "$cmd" = help ] && continue
    "$SSFUZZ" help "$cmd" >"$tmp/a" 2>&1; rc=$?
    "$SSFUZZ" "$cmd" --help >"$tmp/b" 2>&1
    [ "$rc" = 0 ] && [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && pass "help $cmd = $cmd --help" || fail "help $cmd" "exit $rc"
done
expect_rc "help of an unknown command is a usage error" 2 "$SSFUZZ" help nope
"$SSFUZZ" version >"$tmp/v" 2>&1; rc=$?
[ "$rc" = 0 ] && grep -q '^ssfuzz [0-9][0-9.]*$' "$tmp/v" && "$SSFUZZ" --version | cmp -s - "$tmp/v" &&
    pass "version (and --version)" || fail "version" "exit $rc: $(cat "$tmp/v")"

"$SSFUZZ" targets --help | grep -q -- '--schedule' && fail "targets --help does not mention --schedule" || pass "targets --help does not mention --schedule"
"$SSFUZZ" targets >"$tmp/t" 2>&1
# each reason once, as a note (no nvcc, no device torch sees): never on a target's own line
n=$(grep 'CUDA' "$tmp/t" | grep -vc '^# note ')
d=$(grep '^# note .*CUDA' "$tmp/t" | sed 's/^# note [0-9]*: //' | sort | uniq -d | wc -l)
[ "$n" = 0 ] && [ "$d" = 0 ] && pass "targets: a CUDA reason at most once" || fail "targets: a CUDA reason at most once" "$n target lines, $d repeated notes"
if ! grep -q '^cuda:reinplace .*available$' "$tmp/t"; then
    note=$(sed -n 's/^# note \([0-9]*\): .*CUDA.*/\1/p' "$tmp/t")
    [ -n "$note" ] && [ "$(grep -c "unavailable (note $note)" "$tmp/t")" -ge 2 ] && pass "cuda targets refer to one note" ||
        fail "cuda targets refer to one note" "$(grep -m2 -e '^# note' -e '^cuda:' "$tmp/t")"
fi

"$SSFUZZ" replay --json corpus/shift-right-1d.json >"$tmp/j" 2>"$tmp/err"; rc=$?
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "ssfuzz-replay" and d["summary"]["agree"] == 1, d["summary"]
c = d["cases"][0]
assert c["result"] == "agree" and len(c["runs"]) == 15 and all(r["verdict"] == "agree" for r in c["runs"]), c' "$tmp/j" 2>>"$tmp/err" &&
    [ "$rc" = 0 ] && pass "replay --json: one document, every run" || fail "replay --json" "exit $rc: $(tail -2 "$tmp/err")"
"$SSFUZZ" regress --json corpus/shift-right-1d.json >"$tmp/j" 2>"$tmp/err"; rc=$?
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "ssfuzz-regress" and d["summary"]["failed"] == 0 and d["summary"]["held"] >= 3, d["summary"]
assert all(c["case"] == "corpus/shift-right-1d.json" and c["status"] in ("held", "skipped") for c in d["checks"])' "$tmp/j" 2>>"$tmp/err" &&
    [ "$rc" = 0 ] && pass "regress --json: one document, every check" || fail "regress --json" "exit $rc: $(tail -2 "$tmp/err")"

"$SSFUZZ" regress corpus/ --junit "$tmp/no/such/dir/r.xml" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && ! grep -q '^ok ' "$tmp/out" && grep -q -- '--junit .*does not exist' "$tmp/err" &&
    pass "regress --junit: an unwritable path is refused before any case runs" || fail "regress --junit checked first" "exit $rc: $(head -2 "$tmp/err")"
expect_rc "regress --sarif into a directory is refused" 2 "$SSFUZZ" regress corpus/ --sarif "$tmp"

printf '{\n  "format": "ssfuzz-case",\n  "version": 1,\n  "dtype": "float32",,\n}\n' >"$tmp/syn.json"
"$SSFUZZ" replay "$tmp/syn.json" >/dev/null 2>"$tmp/err"
grep -q 'syntax error at line 4:22 (byte 66)' "$tmp/err" && pass "JSON errors say line:column" || fail "JSON errors say line:column" "$(cat "$tmp/err")"
python3 - "$tmp" <<'PY'
import json, sys
c = json.load(open("corpus/shift-right-1d.json"))
json.dump(dict(c, **{"$schema": "../schema/ssfuzz-case.schema.json"}), open(sys.argv[1] + "/schema.json", "w"))
json.dump(dict(c, dtype="float33"), open(sys.argv[1] + "/dtype.json", "w"))
json.dump(dict(c, storage={"numel": 3}), open(sys.argv[1] + "/short.json", "w"))
PY
expect_rc "a top-level \$schema key is accepted" 0 "$SSFUZZ" replay -q "$tmp/schema.json"
"$SSFUZZ" replay "$tmp/dtype.json" >/dev/null 2>"$tmp/err"
grep -q 'unknown dtype "float33" (one of: bool, uint8, .*, complex128)' "$tmp/err" && pass "an unknown dtype lists the valid ones" ||
    fail "an unknown dtype lists the valid ones" "$(cat "$tmp/err")"
"$SSFUZZ" replay "$tmp/short.json" >/dev/null 2>"$tmp/err"
grep -q 'input: view reaches element [0-9]* .*storage has 3 elements: numel must be >= [0-9]*' "$tmp/err" &&
    pass "a plan error names the element and the numel needed" || fail "plan error names the numel" "$(cat "$tmp/err")"

"$SSFUZZ" fuzz -t emu:reinplace --time 1 --seed 1 -q -o "$tmp/f" >"$tmp/out" 2>&1
grep -q '^fuzz: seed 1, 1 target (emu:reinplace), time limit 1 s, out ' "$tmp/out" && pass "fuzz header shows the limit" ||
    fail "fuzz header shows the limit" "$(head -1 "$tmp/out")"
if command -v script >/dev/null; then   # the progress line needs a terminal
    script -qec "$SSFUZZ fuzz -t emu:reinplace --time 2 --seed 1 -o $tmp/f" /dev/null >"$tmp/tty" 2>&1
    grep -q 'fuzz: [0-9]* cases, [0-9]*/s, 0 unique findings (0 hits), [0-9]/2 s' "$tmp/tty" && pass "progress shows elapsed/limit" ||
        fail "progress shows elapsed/limit" "$(tr '\r' '\n' <"$tmp/tty" | grep -m1 cases/s)"
else
    echo "skip progress line: no script(1)"
fi
