#!/usr/bin/env bash
# A torch finding confirms itself (docs/torch.md, "From a finding to an upstream report"):
# `replay --confirm` and `fuzz` run its exported script in a fresh interpreter and record
# meta.confirmed ("standalone" or "no: why", summary.json counts); the dynamic-shape shift
# exports as found (compile-dynamic: DIFFER; eager: agree); `export --issue` writes a repro
# of at most ten lines that names the wrong stage and reproduces; findings of the aot-eager and
# dynamo-eager targets export, confirm and report in their mode; a program case (its own script,
# replay --confirm, --issue) the same way.
set -u
. "$(dirname "$0")/lib/common.sh"

confirmed() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["meta"].get("confirmed", "-"))' "$1"; }

# Eager confirmation needs any torch: the compile one if present, else Debian's.
cpy=${SSFUZZ_TORCH_PYTHON:-build/torch-2.15.0/bin/python}
epy=""
for cand in "$cpy" /usr/bin/python3; do
    if [ -x "$cand" ] && "$cand" -c 'import torch' 2>/dev/null; then epy=$cand; break; fi
done
if [ -z "$epy" ]; then echo "skip torch-confirm: no python with torch ($cpy, /usr/bin/python3; make torch-env)"; exit 0; fi

cp corpus/torch-144861-eager-shift-inner-4x6.json "$tmp/eager.json"
"$SSFUZZ" --python "$epy" replay --confirm -t torch:eager-cpu:setitem "$tmp/eager.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ "$rc" = 1 ] && [ "$(confirmed "$tmp/eager.json")" = standalone ] && grep -q '^confirm .* on torch:eager-cpu:setitem: standalone; eager on cpu: DIFFER' "$tmp/out" &&
    pass "replay --confirm: #144861 confirmed standalone (meta.confirmed)" || fail "replay --confirm #144861" "exit $rc: $(cat "$tmp/out" "$tmp/err" | tail -3)"
cp corpus/torch-144861-eager-shift-inner-4x6.json "$tmp/eager2.json"
SSFUZZ_CONFIRM_TIMEOUT=0.2 "$SSFUZZ" --python "$epy" replay --confirm -t torch:eager-cpu:setitem "$tmp/eager2.json" >"$tmp/out" 2>&1
case $(confirmed "$tmp/eager2.json") in
"no: the script timed out after 0.2 s") pass "replay --confirm: a script over SSFUZZ_CONFIRM_TIMEOUT is 'no: ... timed out'" ;;
*) fail "replay --confirm: timeout" "$(confirmed "$tmp/eager2.json")" ;;
esac
expect_rc "replay --confirm of an agreeing target: nothing to confirm, exit 0" 0 "$SSFUZZ" --python "$epy" replay --confirm -t torch:eager-cpu:setitem-clone "$tmp/eager.json"
# fuzz: the finding at case 3 of seed 1 is confirmed; summary.json counts it.
"$SSFUZZ" --python "$epy" fuzz -t torch:eager-cpu:setitem --seed 1 --cases 8 -o "$tmp/f" -q >"$tmp/out" 2>&1
rep=$(ls "$tmp"/f/mismatch-*.json 2>/dev/null | head -1)
if [ -n "$rep" ] && [ "$(confirmed "$rep")" = standalone ] && grep -q "confirmed standalone" "$tmp/out" &&
   python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); assert s["confirmed"] >= 1 and s["unconfirmed"] == 0' "$tmp/f/summary.json"
then pass "fuzz: a new torch finding is confirmed standalone, counted in summary.json"
else fail "fuzz: confirmation" "$(tail -3 "$tmp/out")"; fi
SSFUZZ_CONFIRM=0 "$SSFUZZ" --python "$epy" fuzz -t torch:eager-cpu:setitem --seed 1 --cases 8 -o "$tmp/f0" -q >"$tmp/out" 2>&1
rep=$(ls "$tmp"/f0/mismatch-*.json 2>/dev/null | head -1)
[ -n "$rep" ] && [ "$(confirmed "$rep")" = - ] &&
    python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); assert s["confirmed"] == s["unconfirmed"] == 0' "$tmp/f0/summary.json" &&
    pass "fuzz: SSFUZZ_CONFIRM=0 confirms nothing" || fail "fuzz: SSFUZZ_CONFIRM=0" "$(tail -3 "$tmp/out")"

# The rest compiles: it needs torch.compile.
if ! [ -x "$cpy" ] || ! "$cpy" -c 'import torch, sys; sys.exit(0 if hasattr(torch, "compile") else 1)' 2>/dev/null; then
    echo "skip torch-confirm compile checks: $cpy has no torch.compile (make torch-env, or SSFUZZ_TORCH_PYTHON=...)"; exit 0
fi
dyn=corpus/torch-dynamic-shift-clone.json
"$SSFUZZ" export --torch "$dyn" -o "$tmp/dyn.py"
"$cpy" "$tmp/dyn.py" >"$tmp/o" 2>"$tmp/e"; rc=$?
[ "$rc" = 1 ] && grep -q '^ssfuzz-export: torch.compile(dynamic=True) on cpu, x-input: DIFFER: input storage\[3\] .*expected 2 (0x02), got 0 (0x00)' "$tmp/o" &&
    pass "export of the dynamic-shape shift: compile-dynamic DIFFER as found (exit 1)" || fail "export dynamic shift: DIFFER" "exit $rc: $(cat "$tmp/o")"
grep -q '^ssfuzz-export: torch.compile, automatic switch on cpu, x-input (first called on x of shape \[[0-9]*\]): ' "$tmp/o" &&
    pass "export: the automatic switch runs after a first call on another size" || fail "export: automatic switch" "$(cat "$tmp/o")"
"$cpy" "$tmp/dyn.py" --mode eager >"$tmp/o" 2>"$tmp/e"; rc=$?
[ "$rc" = 0 ] && grep -q '^ssfuzz-export: eager on cpu: agree' "$tmp/o" && pass "export of the dynamic-shape shift: eager agrees (exit 0)" \
    || fail "export dynamic shift: eager agrees" "exit $rc: $(cat "$tmp/o")"

"$SSFUZZ" --python "$cpy" export --issue "$tmp/issue.md" -q "$dyn" 2>"$tmp/e"; rc=$?
awk '/^```python$/{f=1; next} /^```$/{f=0} f' "$tmp/issue.md" >"$tmp/repro.py"
n=$(grep -c . "$tmp/repro.py")
if [ "$rc" = 0 ] && [ "$n" -ge 3 ] && [ "$n" -le 10 ] && grep -q 'first wrong stage \*\*inductor\*\*' "$tmp/issue.md" &&
   grep -qx 'def f(x):' "$tmp/repro.py" && ! grep -q 'two-input' "$tmp/issue.md" &&
   grep -q '^| 2\.15\.[0-9].* | 1 | ' "$tmp/issue.md"
then pass "export --issue: a $n-line one-input repro (def f(x)), the stage (inductor), the release's verdicts"
else fail "export --issue" "exit $rc, $n repro lines: $(cat "$tmp/e") $(head -20 "$tmp/issue.md")"; fi
want=$(sed -n 's/.*# expected \(\[.*\]\)$/\1/p' "$tmp/repro.py")
got=$("$cpy" "$tmp/repro.py" 2>/dev/null)
[ -n "$want" ] && [ -n "$got" ] && [ "$got" != "$want" ] && pass "export --issue: the repro, run by hand, prints $got (expected $want)" \
    || fail "export --issue: the repro reproduces" "printed '$got', expected '$want'"

# #198094 through replay --confirm: the compiled scatter-return, confirmed standalone.
cp corpus/torch-198094-scatter-return.json "$tmp/198094.json"
"$SSFUZZ" --python "$cpy" replay --confirm -t torch:compile-cpu:scatter-return "$tmp/198094.json" >"$tmp/out" 2>&1; rc=$?
[ "$rc" = 1 ] && [ "$(confirmed "$tmp/198094.json")" = standalone ] &&
    pass "replay --confirm: #198094 on compile-cpu:scatter-return confirmed standalone" || fail "replay --confirm #198094" "exit $rc: $(tail -3 "$tmp/out")"

# The backends that place a compile bug are targets too (torch:aot-eager-*, torch:dynamo-eager-*):
# their findings export in their mode, the script's verdict line names the backend and says what
# replay says, confirmation runs it, --issue reports it. dynamo.json: a real finding (fuzz -t
# torch:dynamo-eager-cpu:setitem --seed 1 --cases 8, case 3: dynamo's graph run as eager code is
# wrong as eager is, #144861's class); aot.json: the same case found by aot-eager, which agrees.
cat >"$tmp/dynamo.json" <<'JSON'
{"format": "ssfuzz-case", "version": 1, "dtype": "uint8", "storage": {"numel": 4},
 "input": {"offset": 2, "sizes": [2, 1], "strides": [1, 0]}, "src": {"storage": "input", "offset": 0, "sizes": [2, 1], "strides": [2, 0]},
 "dim": 1, "start": null, "end": null, "step": 1, "fill": {"seed": 0},
 "meta": {"target": "torch:dynamo-eager-cpu:setitem", "schedule": "x-input", "signature": "mismatch",
          "found_by": "ssfuzz fuzz --seed 1 --large-per-mille 250",
          "torch": {"mode": "dynamo-eager-cpu", "spelling": "setitem", "device": "cpu", "compiled": true, "form": "x-input"}}}
JSON
sed 's/dynamo-eager-cpu/aot-eager-cpu/g' "$tmp/dynamo.json" >"$tmp/aot.json"
"$SSFUZZ" --python "$cpy" replay --confirm -t torch:aot-eager-cpu:setitem "$tmp/aot.json" >"$tmp/out" 2>&1; rc=$?
: >"$tmp/o"
"$SSFUZZ" export --torch "$tmp/aot.json" -o "$tmp/aot.py" 2>"$tmp/e" && "$cpy" "$tmp/aot.py" >"$tmp/o" 2>"$tmp/e"; prc=$?
if [ "$rc" = 0 ] && grep -q ': ok: 3 target runs agree' "$tmp/out" && [ "$(confirmed "$tmp/aot.json")" = - ] && [ "$prc" = 0 ] &&
   [ "$(grep -c '^ssfuzz-export: torch' "$tmp/o")" = 1 ] &&
   grep -q "^ssfuzz-export: torch.compile(backend='aot_eager', dynamic=False) on cpu, x-input: agree: final storages identical, 4 bytes$" "$tmp/o"
then pass "export of an aot-eager-cpu reproducer: its script runs aot_eager on cpu, x-input and agrees, as replay does (exit 0)"
else fail "export of an aot-eager-cpu reproducer" "replay exit $rc, script exit $prc: $(tail -2 "$tmp/out") $(cat "$tmp/o") $(tail -1 "$tmp/e")"; fi
# Confirmation in that mode runs the script: a finding only the (hooked) worker makes is an honest no.
SSFUZZ_TEST_HOOKS=1 SSFUZZ_TORCH_TEST_FAULT=compile-raise:1 "$SSFUZZ" --python "$cpy" replay --confirm -t torch:aot-eager-cpu:setitem "$tmp/aot.json" >"$tmp/out" 2>&1; rc=$?
case $(confirmed "$tmp/aot.json") in
"no: the script agreed (exit 0: torch.compile(backend='aot_eager', dynamic=False) on cpu, x-input: agree: "*)
    [ "$rc" = 1 ] && pass "replay --confirm on torch:aot-eager-cpu: the script runs in that mode (a hooked worker's raise: 'no: the script agreed')" \
        || fail "replay --confirm on aot-eager-cpu" "exit $rc" ;;
*) fail "replay --confirm on aot-eager-cpu: the script runs" "exit $rc: $(confirmed "$tmp/aot.json")" ;;
esac
"$SSFUZZ" --python "$cpy" replay --confirm -t torch:dynamo-eager-cpu:setitem "$tmp/dynamo.json" >"$tmp/out" 2>&1; rc=$?
detail=$(sed -n 's/.*MISMATCH torch:dynamo-eager-cpu:setitem under x-input (mismatch): //p' "$tmp/out")
if [ "$rc" = 1 ] && [ "$(confirmed "$tmp/dynamo.json")" = standalone ] && [ -n "$detail" ] &&
   grep -qF "on torch:dynamo-eager-cpu:setitem x-input: standalone; torch.compile(backend='eager', dynamic=False) on cpu, x-input: DIFFER: $detail" "$tmp/out"
then pass "replay --confirm: a dynamo-eager-cpu finding confirmed standalone, the script's DIFFER as replay's ($detail)"
else fail "replay --confirm of a dynamo-eager-cpu finding" "exit $rc: $(tail -3 "$tmp/out")"; fi
"$SSFUZZ" --python "$cpy" export --issue "$tmp/dynamo.md" -q "$tmp/dynamo.json" 2>"$tmp/e"; rc=$?
awk '/^```python$/{f=1; next} /^```$/{f=0} f' "$tmp/dynamo.md" >"$tmp/drepro.py"
want=$(sed -n 's/.*# expected \(\[.*\]\)$/\1/p' "$tmp/drepro.py")
got=$("$cpy" "$tmp/drepro.py" 2>/dev/null)
if [ "$rc" = 0 ] && grep -q '^# torch.compile(backend="eager") writes wrong values for `' "$tmp/dynamo.md" &&
   grep -q '^@torch.compile(backend="eager", dynamic=False)$' "$tmp/drepro.py" && grep -q 'first wrong stage \*\*eager\*\*' "$tmp/dynamo.md" &&
   [ -n "$want" ] && [ -n "$got" ] && [ "$got" != "$want" ]
then pass "export --issue of a dynamo-eager finding: the backend in the title and the repro, stage eager (eager is wrong too); the repro prints $got (expected $want)"
else fail "export --issue of a dynamo-eager finding" "exit $rc, printed '$got', expected '$want': $(cat "$tmp/e") $(head -12 "$tmp/dynamo.md")"; fi

# A program case (docs/programs.md): #198094 as a program. Its script is wrong under inductor
# only (the stage reruns and the aot_eager/eager backends agree), replay --confirm confirms the
# program finding standalone, and --issue's repro, run by hand, prints the wrong values.
prog=examples/programs/scatter-return-then-zero.json
"$SSFUZZ" export --torch --mode eager,compile,aot-eager "$prog" -o "$tmp/prog.py"
"$cpy" "$tmp/prog.py" --stage >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ "$rc" = 1 ] && grep -q '^ssfuzz-export: eager on cpu: agree' "$tmp/o" &&
   grep -q "^ssfuzz-export: torch.compile(dynamic=False) on cpu: DIFFER: returned value 0 (out) shares x's storage but must share no input storage (a fresh tensor)$" "$tmp/o" &&
   grep -q '^ssfuzz-export: torch.compile(dynamic=False) on cpu: first wrong stage: inductor (eager agrees, aot_eager agrees)$' "$tmp/o" &&
   grep -q "^ssfuzz-export: torch.compile(backend='aot_eager', dynamic=False) on cpu: agree" "$tmp/o"
then pass "export of a program: DIFFER under inductor (stage inductor), agree under eager and aot_eager (exit 1)"
else fail "export of a program under compile" "exit $rc: $(cat "$tmp/o")"; fi
cp "$prog" "$tmp/prog.json"
"$SSFUZZ" --python "$cpy" replay --confirm -t torch:compile-cpu:program "$tmp/prog.json" >"$tmp/out" 2>&1; rc=$?
[ "$rc" = 1 ] && [ "$(confirmed "$tmp/prog.json")" = standalone ] &&
    grep -q "^confirm .* on torch:compile-cpu:program two-inputs: standalone; torch.compile(dynamic=False) on cpu: DIFFER: returned value 0 (out) shares x's storage" "$tmp/out" &&
    pass "replay --confirm: a program finding confirmed standalone (meta.confirmed)" || fail "replay --confirm of a program" "exit $rc: $(tail -3 "$tmp/out")"
"$SSFUZZ" --python "$cpy" export --issue "$tmp/prog.md" -q "$prog" 2>"$tmp/e"; rc=$?
awk '/^```python$/{f=1; next} /^```$/{f=0} f' "$tmp/prog.md" >"$tmp/prepro.py"
n=$(grep -c . "$tmp/prepro.py")
if [ "$rc" = 0 ] && [ "$n" -ge 5 ] && [ "$n" -le 10 ] && grep -q '^@torch.compile$' "$tmp/prepro.py" &&
   grep -q '^# torch.compile returns a tensor that shares x.s storage where a fresh tensor is expected: `out = torch.slice_scatter(x, src, 0, 1, 3, 1)`' "$tmp/prog.md" &&
   grep -q 'first wrong stage \*\*inductor\*\*' "$tmp/prog.md"
then pass "export --issue of a program: a $n-line repro, the title from the first wrong step, the stage"
else fail "export --issue of a program" "exit $rc, $n repro lines: $(cat "$tmp/e") $(head -20 "$tmp/prog.md")"; fi
want=$(sed -n 's/.*# expected \(.*\)$/\1/p' "$tmp/prepro.py")
got=$("$cpy" "$tmp/prepro.py" 2>/dev/null)
[ -n "$want" ] && [ -n "$got" ] && [ "$got" != "$want" ] && pass "export --issue of a program: the repro, run by hand, prints $got (expected $want)" \
    || fail "export --issue of a program: the repro reproduces" "printed '$got', expected '$want'"
