#!/usr/bin/env bash
# Reproducers replay themselves: replay, explain and minimize run a case's meta.target under
# its meta.schedule (and say so), --target overrides, and a crash is a finding (exit 1), not 3.
set -u
. "$(dirname "$0")/lib/common.sh"

"$SSFUZZ" fuzz -t emu:mut-alias-unchecked --schedule reverse --seed 1 --cases 200 -q -o "$tmp/r" >"$tmp/log" 2>&1
repro=$(ls "$tmp"/r/mismatch-*.json 2>/dev/null | head -1)
if [ -z "$repro" ]; then fail "a reverse-schedule reproducer to replay" "$(tail -3 "$tmp/log")"; exit 0; fi

"$SSFUZZ" replay "$repro" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" = 1 ] && grep -q "replaying its meta.target emu:mut-alias-unchecked under reverse, then [0-9]* default targets" "$tmp/out" &&
    grep -q "MISMATCH emu:mut-alias-unchecked under reverse" "$tmp/out" &&
    pass "replay runs meta.target under meta.schedule and says so (exit 1)" ||
    fail "replay runs meta.target under meta.schedule and says so (exit 1)" "exit $rc: $(head -c 300 "$tmp/out")"
[ ! -s "$tmp/err" ] && pass "replay: MISMATCH lines on stdout, nothing on stderr" ||
    fail "replay: MISMATCH lines on stdout, nothing on stderr" "$(head -c 200 "$tmp/err")"
expect_rc "--target overrides meta.target" 0 "$SSFUZZ" replay -t emu:reinplace "$repro"
grep -q "meta.target" "$tmp/out" && fail "--target: no meta line" || pass "--target: no meta line"

"$SSFUZZ" explain --color never "$repro" >"$tmp/out" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "replaying its meta.target emu:mut-alias-unchecked under reverse" "$tmp/out" &&
    grep -q "^emu:mut-alias-unchecked: mismatch in 1 of 1 run (reverse)" "$tmp/out" &&
    pass "explain runs meta.target under meta.schedule" || fail "explain runs meta.target" "exit $rc: $(grep -A2 '^targets' "$tmp/out")"

"$SSFUZZ" minimize "$repro" -o "$tmp/m.json" >"$tmp/out" 2>&1; rc=$?
[ "$rc" = 0 ] && grep -q "minimize: on its meta.target emu:mut-alias-unchecked under reverse" "$tmp/out" &&
    pass "minimize without --target takes meta.target" || fail "minimize without --target" "exit $rc: $(head -3 "$tmp/out")"
expect_rc "minimize of a case without meta.target needs --target" 2 "$SSFUZZ" minimize corpus/shift-right-1d.json

# The emulator's out-of-buffer read is a crash finding: exit 1 with the kind named, everywhere.
"$SSFUZZ" fuzz -t emu:mut-end-unclamped --seed 1 --cases 3000 -q -o "$tmp/c" >"$tmp/log" 2>&1
crash=$(ls "$tmp"/c/crash-*.json 2>/dev/null | head -1)
if [ -n "$crash" ]; then
    "$SSFUZZ" replay "$crash" >"$tmp/out" 2>&1; rc=$?
    [ "$rc" = 1 ] && grep -q "FINDING crash on emu:mut-end-unclamped" "$tmp/out" && grep -q "in a child process (a crash reproducer)" "$tmp/out" &&
        pass "a crash reproducer replays as a crash finding (exit 1)" || fail "crash reproducer replay" "exit $rc: $(head -c 300 "$tmp/out")"
    expect_rc "explain of a crash reproducer exits 1" 1 "$SSFUZZ" explain --color never "$crash"
    "$SSFUZZ" replay --json "$crash" >"$tmp/j" 2>/dev/null
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); r = d["cases"][0]["runs"][0]; assert r["verdict"] == "crash" and r["finding"], r' "$tmp/j" 2>"$tmp/err" &&
        pass "replay --json names the crash" || fail "replay --json names the crash" "$(tail -1 "$tmp/err")"
else
    fail "a crash reproducer from emu:mut-end-unclamped" "$(tail -3 "$tmp/log")"
fi

# Each finding line ends with the command to run next.
line=$(grep -m1 '^finding (' "$tmp/log")
next=${line##*; next: }
case "$next" in
"ssfuzz explain "*" -t emu:mut-end-unclamped --schedule "*)
    set -- ${next#ssfuzz }
    "$SSFUZZ" "$@" --color never >/dev/null 2>&1; rc=$?
    [ "$rc" = 1 ] && pass "the finding line's next command runs and shows the finding" || fail "next command" "exit $rc: $next";;
*) fail "finding line ends with the next command" "$line";;
esac
