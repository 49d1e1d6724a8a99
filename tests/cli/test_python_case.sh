#!/usr/bin/env bash
# python/ssfuzz_case.py round trip: a tensor expression -> a case file (views,
# aliasing and exact values read from live tensors) -> `ssfuzz explain` prints
# the same expression. Skips without a python3 that imports torch.
set -u
. "$(dirname "$0")/lib/common.sh"

py=""
for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then py=$cand; break; fi
done
if [ -z "$py" ]; then echo "skip python/ssfuzz_case.py round trip: no python3 that imports torch (apt-get install python3-torch)"; exit 0; fi

PYTHONPATH=python "$py" - "$tmp" <<'PYEOF' || fail "ssfuzz_case writes the cases"
import sys, torch, ssfuzz_case
out = sys.argv[1]
x = torch.arange(24, dtype=torch.float32).reshape(4, 6)
ssfuzz_case.write(out + "/shift.json", x, x[:, :-1], dim=1, start=1)              # x[:, 1:] = x[:, :-1]
state = torch.randn(2, 8, 4).to(torch.bfloat16)
ssfuzz_case.write(out + "/state.json", state, state[:, 3:, :], dim=1, end=-3,
                  names={"x": "state"})                                            # state[:, :-3, :] = state[:, 3:, :]
x = torch.arange(18, dtype=torch.float32).reshape(2, 3, 3)
ssfuzz_case.write(out + "/t.json", x[0], x[0].t(), dim=0, base=x)                  # x[0] = x[0].t()
y = torch.tensor([1.5, float("nan"), -0.0])
ssfuzz_case.write(out + "/sep.json", x[1, 0], y, dim=0, base=x, values=7)          # separate src, fill seed
PYEOF

check() {   # file expression
    "$SSFUZZ" explain "$tmp/$1" --target emu:reinplace --color never >"$tmp/out" 2>"$tmp/err"; rc=$?
    got=$(sed -n 's/^python:   //p' "$tmp/out")
    if [ "$rc" = 0 ] && [ "$got" = "$2" ]; then pass "round trip: $2"
    else fail "round trip: $2" "exit $rc, explain printed '$got' $(head -2 "$tmp/err")"; fi
}
check shift.json 'x[:, 1:] = x[:, :-1]'
check state.json 'state[:, :-3, :] = state[:, 3:, :]'
check t.json 'x[0] = x[0].t()'
check sep.json 'x[1, 0] = y'

# What the module read from the tensors: offsets, aliasing, exact bits, the fill seed.
if "$py" - "$tmp" <<'PYEOF'
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/state.json"))
assert s["dtype"] == "bfloat16" and s["src"] == {"storage": "input", "offset": 12, "sizes": [2, 5, 4], "strides": [32, 4, 1]}, s["src"]
assert s["end"] == -3 and s["start"] is None and len(s["values"]["input"]) == 64, s
t = json.load(open(d + "/t.json"))
assert t["input"] == {"offset": 0, "sizes": [3, 3], "strides": [3, 1]} and t["src"]["strides"] == [1, 3], t
assert t["values"]["input"][1] == "0x3f800000" and t["meta"]["python"]["shape"] == [2, 3, 3], t
p = json.load(open(d + "/sep.json"))
assert p["src"]["storage"] == "separate" and p["src_storage"] == {"numel": 3} and p["fill"] == {"seed": 7}, p
assert p["input"]["offset"] == 9 and p["storage"]["numel"] == 18, p
PYEOF
then pass "ssfuzz_case reads views, aliasing and exact values from the tensors"
else fail "ssfuzz_case reads views, aliasing and exact values from the tensors"; fi
expect_rc "cases from ssfuzz_case replay" 0 "$SSFUZZ" replay -q "$tmp/shift.json" "$tmp/state.json" "$tmp/t.json" "$tmp/sep.json"
# The in-place bug class shows on the cases the module wrote.
expect_rc "x[:, 1:] = x[:, :-1] kills mut-alias-unchecked" 1 "$SSFUZZ" replay -q --target emu:mut-alias-unchecked --schedule forward "$tmp/shift.json"
if PYTHONPATH=python "$py" -c '
import torch, ssfuzz_case
x = torch.zeros(3, dtype=torch.float32)
try:
    ssfuzz_case.case(x, x.to(torch.float64)[:2], dim=0)
except ValueError as e:
    assert "dtype" in str(e)
else:
    raise SystemExit(1)' 2>/dev/null; then pass "ssfuzz_case refuses mixed dtypes with a reason"
else fail "ssfuzz_case refuses mixed dtypes with a reason"; fi

# docs/triage.md's "Cases from Python" block: it runs, every case replays, and for
# each write the comment after it is what `ssfuzz explain` prints.
"$py" - docs/triage.md "$tmp/readme.py" <<'PYEOF'
import re, sys
text = open(sys.argv[1]).read()
block = re.search(r"## Cases from Python.*?```python\n(.*?)```", text, re.S).group(1)
open(sys.argv[2], "w").write(block)
PYEOF
mkdir -p "$tmp/readme"
if (cd "$tmp/readme" && PYTHONPATH="$OLDPWD/python" "$py" "$tmp/readme.py"); then pass "docs/triage.md Cases from Python block runs"
else fail "docs/triage.md Cases from Python block runs"; fi
"$py" - "$tmp/readme.py" >"$tmp/pairs" <<'PYEOF'
import re, sys
for name, expr in re.findall(r'sc\.write\("([^"]+)"[^#]*?#\s*([^\n]+)', open(sys.argv[1]).read()):
    print(name + "\t" + expr.strip())
PYEOF
n=0
while IFS=$'\t' read -r name expr; do
    n=$((n + 1))
    got=$("$SSFUZZ" explain "$tmp/readme/$name" --target emu:reinplace --color never 2>&1 | sed -n 's/^python:   //p')
    [ "$got" = "$expr" ] && pass "docs/triage.md example $name: $expr" || fail "docs/triage.md example $name: $expr" "explain printed '$got'"
done <"$tmp/pairs"
[ "$n" -ge 12 ] && pass "docs/triage.md examples cover the corpus patterns ($n)" || fail "docs/triage.md examples cover the corpus patterns" "$n"
expect_rc "docs/triage.md example cases replay (stride-0 input rejected alike)" 0 "$SSFUZZ" replay -q "$tmp/readme"
