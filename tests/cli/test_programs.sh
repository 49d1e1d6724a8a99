#!/usr/bin/env bash
# Programs (docs/programs.md): gen --programs is deterministic and carries its options, explain
# prints the program as Python (the doc's block exactly), kernel targets say "not applicable"
# and nothing else, minimize and hostile program files fail in one line naming the field.
set -u
. "$(dirname "$0")/lib/common.sh"
PY=${PYTHON:-python3}

# gen: the same case twice, a program of at most --program-steps steps, the small fill, the options in found_by
"$SSFUZZ" gen --seed 3 --index 7 --programs --program-steps 6 -o "$tmp/a.json"
"$SSFUZZ" gen --seed 3 --index 7 --programs --program-steps 6 -o "$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" && pass "gen --programs is deterministic" || fail "gen --programs is deterministic"
if "$PY" - "$tmp/a.json" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1]))
assert 1 <= len(c["program"]) <= 6, c["program"]
assert c["fill"].get("small") is True, c["fill"]
assert "--programs --program-steps 6" in c["meta"]["found_by"], c["meta"]
PYEOF
then pass "gen --programs: a program, the small fill, the options in found_by"
else fail "gen --programs: a program, the small fill, the options in found_by"; fi
expect_rc "--program-steps 17 is a usage error" 2 "$SSFUZZ" gen --seed 1 --index 1 --programs --program-steps 17
grep -q "program-steps: must be in \[1, 16\]" "$tmp/err" && pass "--program-steps names its range" || fail "--program-steps names its range" "$(cat "$tmp/err")"
"$SSFUZZ" gen --seed 3 --index 7 -o "$tmp/plain.json"
grep -q '"program"' "$tmp/plain.json" && fail "without --programs, no program" || pass "without --programs, no program"

# explain: docs/programs.md's block, line for line
"$SSFUZZ" explain examples/programs/read-before-write.json >"$tmp/out" 2>"$tmp/err"; rc=$?
want=$(awk '/^\$ build\/ssfuzz explain examples\/programs\/read-before-write.json/{f=1; next} f && /^```/{exit} f && !/^\.\.\.$/' docs/programs.md)
got=$(sed -n '/^program:/,/^meaning:/p' "$tmp/out")
[ "$rc" = 0 ] && [ "$got" = "$want" ] && pass "explain prints the program as docs/programs.md shows" \
    || fail "explain prints the program as docs/programs.md shows" "exit $rc; got: $got"
for f in examples/programs/*.json; do
    "$SSFUZZ" explain "$f" >"$tmp/out" 2>&1
    grep -q '^meaning:  runs' "$tmp/out" && pass "explain $(basename "$f"): the reference runs it" \
        || fail "explain $(basename "$f"): the reference runs it" "$(grep meaning "$tmp/out")"
done

# kernel targets: not applicable (exit 3: a target cannot run), never a finding
expect_rc "replay of a program case on emu is unavailable" 3 "$SSFUZZ" replay -t emu:reinplace --schedule forward examples/programs/read-before-write.json
grep -q "not applicable: program cases run on " "$tmp/err" && ! grep -q MISMATCH "$tmp/out" \
    && pass "kernel targets say not applicable" || fail "kernel targets say not applicable" "$(cat "$tmp/out" "$tmp/err")"

# hostile programs: one line naming the field and the rule
"$PY" - "$tmp" <<'PYEOF'
import json, sys
c = json.load(open("examples/programs/read-before-write.json"))
bad = dict(c, program=c["program"][:2] + [{"op": "inplace", "into": "q", "kind": "zero_"}])
json.dump(bad, open(sys.argv[1] + "/undef.json", "w"))
deep = dict(c, program=[{"op": "view", "name": "a", "of": "x", "kind": "select", "dim": -5, "index": 0}])
json.dump(deep, open(sys.argv[1] + "/dim.json", "w"))
PYEOF
expect_rc "an undefined name is an invalid case" 2 "$SSFUZZ" replay "$tmp/undef.json"
grep -q 'program\[2\].into: "q" is not defined by an earlier step' "$tmp/err" && pass "the error names program[2].into" \
    || fail "the error names program[2].into" "$(cat "$tmp/err")"
"$SSFUZZ" explain "$tmp/dim.json" >"$tmp/out" 2>&1
grep -q 'program\[0\].dim: -5 out of range for a 1-dim view' "$tmp/out" && pass "explain names a bad dim" \
    || fail "explain names a bad dim" "$(grep -i invalid "$tmp/out")"
