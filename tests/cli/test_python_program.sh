#!/usr/bin/env bash
# python/ssfuzz_program.py: programs read from `def program(x, src):` through the
# syntax tree. Any python3: every example of tests/torch/program_examples.py
# parses to its JSON steps, the refused sources name their line and construct,
# the command line prints JSON or the error. With a python3 that imports torch:
# each example runs in eager PyTorch as expected (the printed forms are real
# PyTorch), ssfuzz_case.write puts the program into a case, and when `ssfuzz
# explain` prints programs, it prints the example's lines back.
set -u
. "$(dirname "$0")/lib/common.sh"

plain=$(command -v python3 || command -v /usr/bin/python3)
PYTHONPATH=python:tests/torch "$plain" - <<'PYEOF'
import json
import ssfuzz_program as sp
from program_examples import EXAMPLES, PARSE_ONLY, REFUSED
for name, source, steps, *_ in EXAMPLES + [("other forms %d" % i, src, st) for i, (src, st) in enumerate(PARSE_ONLY)]:
    try:
        got = sp.parse(source)
    except sp.ProgramError as e:
        print("not ok parses: %s: %s" % (name, e)); continue
    if got == steps and json.loads(json.dumps(got)) == steps:
        print("ok parses: %s" % name)
    else:
        print("not ok parses: %s: %s" % (name, json.dumps(got)))
print(("ok" if len(EXAMPLES) >= 10 else "not ok") + " at least 10 example programs (%d)" % len(EXAMPLES))
for source, line, word in REFUSED:
    first = source.splitlines()[1 if source.startswith("def") else 0].strip()
    try:
        sp.parse(source)
        print("not ok refuses `%s`: accepted" % first)
    except sp.ProgramError as e:
        msg = str(e)
        ok = msg.startswith(line + ":") and word in msg and "\n" not in msg
        print(("ok" if ok else "not ok") + " refuses `%s` naming %s%s" % (first, line, "" if ok else ": " + msg))
PYEOF

printf 'def program(x, src):\n    a = x[1:]\n    a.add_(src)\n    return (a,)\n' >"$tmp/p.py"
if out=$("$plain" python/ssfuzz_program.py "$tmp/p.py") && [ "$out" = '[{"op": "view", "name": "a", "of": "x", "kind": "slice", "dim": 0, "start": 1, "end": null, "step": 1}, {"op": "inplace", "into": "a", "kind": "add_", "operand": "src"}, {"op": "return", "values": ["a"]}]' ]
then pass "ssfuzz_program.py FILE prints the program as JSON"
else fail "ssfuzz_program.py FILE prints the program as JSON" "$out"; fi
printf 'def program(x, src):\n    x.add_(1)\n    while True:\n        pass\n' >"$tmp/bad.py"
"$plain" python/ssfuzz_program.py "$tmp/bad.py" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" = 1 ] && grep -q "bad.py: line 3: \`while True:\`: not a step" "$tmp/err" && [ ! -s "$tmp/out" ]
then pass "ssfuzz_program.py: an unsupported line is one error naming the file and line (exit 1)"
else fail "ssfuzz_program.py: an unsupported line is one error naming the file and line (exit 1)" "exit $rc; $(cat "$tmp/err")"; fi

# The other direction: 300 generated programs, printed by explain, read back by
# the parser to the same steps (a write's absent fields are the case's; the
# index-put spelling prints a negative dim wrapped by the view's rank).
if ! "$SSFUZZ" gen --seed 5 --index 0 --programs -o "$tmp/g.json" 2>/dev/null ||
   ! "$SSFUZZ" explain "$tmp/g.json" --color never 2>/dev/null | grep -q '^program:'; then
    echo "skip generated programs read back: $SSFUZZ does not generate and print programs"
else "$plain" - "$SSFUZZ" "$tmp" <<'PYEOF'
import json, subprocess, sys
sys.path.insert(0, "python")
import ssfuzz_program as sp
ssfuzz, tmp = sys.argv[1], sys.argv[2]

def norm(c, steps):
    out = []
    for s in map(dict, steps):
        if s["op"] == "write":
            for k in ("dim", "start", "end", "step"):
                s.setdefault(k, c[k])
        if s.get("kind") in ("slice", "slice_scatter"):
            s.setdefault("start", None), s.setdefault("end", None), s.setdefault("step", 1), s.setdefault("dim", 0)
        out.append(s)
    return out

n, bad, invalid = 300, [], 0
for i in range(n):
    path = "%s/gen%d.json" % (tmp, i)
    subprocess.run([ssfuzz, "gen", "--seed", "5", "--index", str(i), "--programs", "--max-numel", "64", "-o", path],
                   check=True)
    c = json.load(open(path))
    ex = subprocess.run([ssfuzz, "explain", path, "--color", "never"], capture_output=True, text=True)
    if ex.returncode == 2:
        invalid += 1
        continue
    lines, on = [], False
    for line in ex.stdout.splitlines():
        if line.startswith("program:"):
            on = True
        elif on and not line.startswith("          "):
            break
        if on:
            lines.append(line.replace("program:", "", 1).strip())
    body = [line for line in lines if not line.startswith(("x = ", "src = "))]   # the views' definitions
    try:
        got = sp.parse("def program(x, src):\n" + "".join("    %s\n" % line for line in body))
    except sp.ProgramError as e:
        bad.append("%d: %s" % (i, e))
        continue
    got, want = norm(c, got), norm(c, c["program"])
    for g, w in zip(got, want):
        if w.get("spelling") == "index-put" and w["dim"] < 0 <= g["dim"]:
            g["dim"] = w["dim"]            # printed wrapped: the parser cannot know the rank
    if got != want:
        bad.append("%d: read back as %s" % (i, json.dumps(got)))
ok = not bad and invalid < n // 10
print(("ok" if ok else "not ok") + " %d generated programs printed by explain read back to their steps (%d invalid)%s"
      % (n, invalid, "" if ok else ": " + "; ".join(bad[:3])))
PYEOF
fi

py=""
for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then py=$cand; break; fi
done
if [ -z "$py" ]; then echo "skip ssfuzz_case programs: no python3 that imports torch (apt-get install python3-torch)"; exit 0; fi

mkdir -p "$tmp/cases"
cat >"$tmp/cases.py" <<'PYEOF'    # a file: ssfuzz_case reads a function's source from it
import json, sys
import torch
import ssfuzz_case, ss_torch_program
from program_examples import EXAMPLES
DT = {n: getattr(torch, n) for n in ("float32", "int16", "complex64")}

def inputs(xspec, sspec):
    dt, shape = DT[xspec[0]], xspec[1]
    n = 1
    for d in shape:
        n *= d
    x = (torch.arange(n) % 16).to(dt).reshape(shape)
    if sspec[0] == "x":
        return x, x.as_strided(sspec[2], sspec[3], sspec[1])
    m = 1
    for d in sspec[1]:
        m *= d
    return x, ((torch.arange(m) + 3) % 16).to(DT[sspec[0]]).reshape(sspec[1])

for i, (name, source, steps, xspec, sspec, eager) in enumerate(EXAMPLES):
    x, src = inputs(xspec, sspec)
    try:
        ss_torch_program.run(torch, ss_torch_program.build(torch, source), x, src)
        got = "ok"
    except Exception as e:
        got = "refused" if ss_torch_program.is_refusal(e) else "raised " + str(e).splitlines()[0]
    print(("ok" if got == eager else "not ok") + " eager %s: %s%s" % (eager, name, "" if got == eager else ": " + got))
    x, src = inputs(xspec, sspec)
    path = "%s/p%02d.json" % (sys.argv[1], i)
    ssfuzz_case.write(path, x, src, program=source)
    c = json.load(open(path))
    aliased = sspec[0] == "x"
    ok = c["program"] == steps and c["src"]["storage"] == ("input" if aliased else "separate") \
        and c["input"]["sizes"] == xspec[1] and c["dtype"] == xspec[0]
    print(("ok" if ok else "not ok") + " ssfuzz_case writes the program case: %s" % name)

def program(x, src):
    a = x[1:]
    a.mul_(2)
    return (a,)

x = torch.arange(4.0)
c = ssfuzz_case.case(x, x[:1], program=program)
ok = c["program"][1] == {"op": "inplace", "into": "a", "kind": "mul_", "operand": 2} and c["dim"] == 0
print(("ok" if ok else "not ok") + " ssfuzz_case takes the function itself (its source, never run)")
try:
    ssfuzz_case.case(x, x[:1], program="def program(x, src):\n    import os\n")
    print("not ok ssfuzz_case refuses an unsupported program line: accepted")
except ValueError as e:
    print(("ok" if "line 2" in str(e) else "not ok") + " ssfuzz_case refuses an unsupported program line: " + str(e))
PYEOF
PYTHONPATH=python:tests/torch:harness/engines "$py" "$tmp/cases.py" "$tmp/cases"

# docs/triage.md's "Programs from Python" block runs and writes its program case.
"$py" - docs/triage.md "$tmp/doc.py" <<'PYEOF'
import re, sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.search(r"### Programs from Python.*?```python\n(.*?)```", text, re.S).group(1))
PYEOF
mkdir -p "$tmp/doc"
if (cd "$tmp/doc" && PYTHONPATH="$OLDPWD/python" "$py" "$tmp/doc.py") &&
   "$py" -c 'import json, sys; c = json.load(open(sys.argv[1])); assert c["program"][1] == {"op": "inplace", "into": "x", "kind": "zero_"} and (c["dim"], c["start"], c["end"]) == (0, 1, 3), c' "$tmp/doc/scatter-then-zero.json"
then pass "docs/triage.md Programs from Python block runs and writes its program"
else fail "docs/triage.md Programs from Python block runs and writes its program"; fi

# The round trip through the C side: explain prints the program back, once it can.
"$SSFUZZ" explain "$tmp/cases/p00.json" --color never >"$tmp/out" 2>&1
if ! grep -q "r = a.clone()" "$tmp/out"; then
    echo "skip explain round trip of programs: $SSFUZZ explain does not print programs ($(head -1 "$tmp/out"))"
    exit 0
fi
# Every case is valid, and eager PyTorch agrees with the reference on each (the
# two that eager refuses are refusals for the reference too).
if "$SSFUZZ" targets 2>/dev/null | grep -q '^torch:eager-cpu:program  *torch  *available'; then
    expect_rc "the program cases ssfuzz_case wrote replay on torch:eager-cpu:program" 0 \
        "$SSFUZZ" replay -q --target torch:eager-cpu:program "$tmp/cases"
else echo "skip program cases on torch:eager-cpu:program: the target is unavailable here"; fi
PYTHONPATH=tests/torch "$plain" -c 'from program_examples import EXAMPLES
for i, e in enumerate(EXAMPLES): print("p%02d.json\t%s" % (i, e[0]))' >"$tmp/names"
while IFS=$'\t' read -r file name; do
    "$SSFUZZ" explain "$tmp/cases/$file" --color never >"$tmp/out" 2>"$tmp/err"
    PYTHONPATH=tests/torch "$plain" - "$tmp/out" "$file" <<'PYEOF' && pass "explain prints the program back: $name" || fail "explain prints the program back: $name" "$(head -3 "$tmp/err")"
import sys
from program_examples import EXAMPLES
want = [l.strip() for l in EXAMPLES[int(sys.argv[2][1:3])][1].splitlines()[1:]]
raw = [l.strip().replace("program:", "", 1).strip() for l in open(sys.argv[1]).read().splitlines()]
got, held = [], ""          # explain breaks a long line inside brackets: join it back
for l in raw:
    held = held + " " + l if held else l
    if held.count("(") + held.count("[") <= held.count(")") + held.count("]"):
        got.append(held)
        held = ""
runs = [got[i:i + len(want)] for i in range(len(got))]
sys.exit(0 if want in runs else 1)
PYEOF
done <"$tmp/names"

