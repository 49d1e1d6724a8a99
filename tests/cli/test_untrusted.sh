#!/usr/bin/env bash
# A reproducer is untrusted input: escape sequences in its meta (found_by, target,
# schedule, torch.python, plugin.path) never reach the terminal or a report raw, a
# suggested --plugin command quotes the path, nothing in it is run, and the torch
# worker's python is never found through an empty or relative PATH entry.
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"
command -v python3 >/dev/null || { echo "skip untrusted: python3 not installed"; exit 0; }
SSFUZZ=$(realpath "$SSFUZZ")
unset SSFUZZ_PYTHON SSFUZZ_PLUGINS

# hostile CASE_OUT TARGET PLUGIN_PATH: corpus/shift-right-1d.json with a hostile meta
hostile() {
    python3 - "$@" <<'PY'
import json, sys
out, target, plugin_path = sys.argv[1:4]
c = json.load(open("corpus/shift-right-1d.json"))
c.pop("expect", None)
esc = "\u001b[2J\u001b]0;owned\u0007\u009b2J\u202e"
c["meta"] = {"target": target, "schedule": "forward" + esc, "signature": "mismatch" + esc,
             "found_by": "ssfuzz fuzz " + esc + "$(touch pwned)", "title": "t" + esc,
             "torch": {"version": "0.0" + esc, "python": "/tmp/" + esc + "$(touch pwned)/python3"}}
if plugin_path:
    c["meta"]["plugin"] = {"name": "naive" + esc, "path": plugin_path, "kernel": "copy", "memory": "host"}
json.dump(c, open(out, "w"))
PY
}
# raw NAME FILE...: no ESC, BEL, CSI or RLO byte sequence in the files
raw() {
    local name=$1; shift
    if python3 - "$@" <<'PY'
import sys
bad = [b"\x1b", b"\x07", b"\x9b", "\u202e".encode()]
sys.exit(1 if any(b in open(p, "rb").read() for p in sys.argv[1:] for b in bad) else 0)
PY
    then pass "$name: nothing raw"; else fail "$name: nothing raw" "$(cat -v "$@" | head -c 300)"; fi
}

work=$tmp/work; mkdir -p "$work/found"
hostile "$work/found/mismatch-hostile.json" emu:reinplace ""
hostile "$work/unknown.json" "emu:nope$(printf '\033')[2J" ""
hostile "$work/plugin.json" "naive:copy" "/tmp/x y/\$(touch pwned)$(printf '\033')[2J.so"
hostile "$work/plugin-plain.json" "naive:copy" "/tmp/it's a \$(touch pwned) dir/naive.so"
cd "$work" || exit 0

expect_rc "replay of a hostile meta runs (exit 0)" 0 "$SSFUZZ" replay found/mismatch-hostile.json
grep -q "replaying its meta.target emu:reinplace" "$tmp/out" && pass "replay: meta.target used" || fail "replay: meta.target used" "$(cat "$tmp/out")"
raw "replay" "$tmp/out" "$tmp/err"
expect_rc "replay of an unknown meta.target runs the defaults (exit 0)" 0 "$SSFUZZ" replay unknown.json
grep -q 'meta.target emu:nope\\x1b\[2J is not a target' "$tmp/out" && pass "unknown meta.target shown escaped" ||
    fail "unknown meta.target shown escaped" "$(cat -v "$tmp/out" | head -3)"
raw "replay, unknown target" "$tmp/out" "$tmp/err"
expect_rc "explain of a hostile meta (exit 0)" 0 "$SSFUZZ" explain --color never found/mismatch-hostile.json
raw "explain" "$tmp/out" "$tmp/err"
expect_rc "minimize: a hostile meta.schedule is unknown (exit 2)" 2 "$SSFUZZ" minimize found/mismatch-hostile.json -o m.json
grep -qF "unknown schedule 'forward\\x1b[2J" "$tmp/err" && pass "minimize: the schedule shown escaped" ||
    fail "minimize: the schedule shown escaped" "$(cat -v "$tmp/err")"
raw "minimize" "$tmp/out" "$tmp/err"

# the plugin's path: quoted in the suggested command, escaped when it holds controls
expect_rc "replay without the plugin: exit 3" 3 "$SSFUZZ" replay plugin.json
grep -qF -- "--plugin '/tmp/x y/\$(touch pwned)\\x1b[2J.so'" "$tmp/out" "$tmp/err" && pass "not loaded: the path is quoted and escaped" ||
    fail "not loaded: the path is quoted and escaped" "$(cat -v "$tmp/err")"
raw "plugin not loaded" "$tmp/out" "$tmp/err"
expect_rc "explain without the plugin: exit 3" 3 "$SSFUZZ" explain plugin-plain.json
word=$(sed -n "s/.*rerun with --plugin //p" "$tmp/out" "$tmp/err" | head -1)
got=$(eval "printf '%s' $word")   # what a shell makes of the suggested word
[ "$got" = "/tmp/it's a \$(touch pwned) dir/naive.so" ] && pass "the suggested --plugin word is the path, once pasted" ||
    fail "the suggested --plugin word is the path, once pasted" "word: $word, got: $got"

# triage: tonight's hostile file into the ledger, the lists and every report
expect_rc "triage of a hostile finding: new (exit 1)" 1 "$SSFUZZ" triage --found found --ledger k/ledger.json --update \
    --junit j.xml --html r.html --verdict v.json --sarif s.sarif --explain ex
raw "triage" "$tmp/out" "$tmp/err" j.xml r.html v.json s.sarif k/ledger.json ex/*
python3 -c 'import sys, xml.dom.minidom as m; m.parse("j.xml")' 2>"$tmp/err" && pass "triage JUnit is well formed" ||
    fail "triage JUnit is well formed" "$(tail -1 "$tmp/err")"
expect_rc "triage again: known (exit 0)" 0 "$SSFUZZ" triage --found found --ledger k/ledger.json
raw "triage, known" "$tmp/out" "$tmp/err"
[ ! -e pwned ] && pass "nothing in a case file was run" || fail "nothing in a case file was run"

# The worker's python: never an empty or relative PATH entry (the stub would run).
mkdir -p bin
printf '#!/bin/sh\n%s "%s/python-ran"\nexit 1\n' "$(command -v touch)" "$work" >python3   # PATH-free
cp python3 bin/python3
chmod +x python3 bin/python3
expect_rc "no absolute PATH entry: torch targets unavailable" 0 env PATH="::.:bin" "$SSFUZZ" targets
grep -q "no python3 on PATH" "$tmp/out" && pass "targets: says no python3 on PATH" || fail "targets: says no python3 on PATH" "$(grep torch "$tmp/out" | head -2)"
expect_rc "replay of a torch target, empty PATH entries: exit 3" 3 env PATH=":/nonexistent::" "$SSFUZZ" replay -t torch:eager-cpu:setitem found/mismatch-hostile.json
expect_rc "a bare --python name is looked up the same way: exit 3" 3 env PATH=":." "$SSFUZZ" --python python3 replay -t torch:eager-cpu:setitem found/mismatch-hostile.json
grep -q "cannot run python3 (not found in PATH's absolute directories)" "$tmp/err" "$tmp/out" && pass "bare --python: says why" ||
    fail "bare --python: says why" "$(cat "$tmp/err")"
[ ! -e python-ran ] && pass "a python3 in the current directory never became the worker" ||
    fail "a python3 in the current directory never became the worker"
expect_rc "an explicit relative --python is the user's choice: it runs (exit 3)" 3 "$SSFUZZ" --python ./python3 replay -t torch:eager-cpu:setitem found/mismatch-hostile.json
[ -e python-ran ] && pass "explicit ./python3 ran" || fail "explicit ./python3 ran"
