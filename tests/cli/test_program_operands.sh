#!/usr/bin/env bash
# A program's operands are held to the program's own rules, not to the single
# write's (src of the slice's shape): three programs built through
# python/ssfuzz_case.py whose src fits no slice of x (a row of x[3], a
# diagonal, rows of a permuted x), each with src in a storage of its own and
# as a view of x's storage, are valid, agree on torch:eager-cpu:program
# (any python with torch) and on torch:compile-cpu:program (each
# build/torch-*/bin/python with torch.compile). A single write with such a
# src is still invalid, naming src.sizes.
set -u
. "$(dirname "$0")/lib/common.sh"

eager_py=""
for cand in /usr/bin/python3 python3 $(compile_pythons); do
    command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import torch' 2>/dev/null && { eager_py=$(command -v "$cand"); break; }
done
if [ -z "$eager_py" ]; then echo "skip program operands: no python with torch (Debian: python3-torch)"; exit 0; fi

# The programs of the redesign issue, on x of 16x8 (float32, exact values).
PYTHONPATH=python "$eager_py" - "$tmp" <<'PYEOF' || fail "ssfuzz_case.py builds the program cases"
import sys, torch, ssfuzz_case
tmp = sys.argv[1]
base = torch.arange(200, dtype=torch.float32)
x = base[:128].view(16, 8)
own = torch.arange(100, 132, dtype=torch.float32)
PROGRAMS = {
    "row":      ("def program(x, src):\n    a = x[3]\n    a[0:8] = src\n", own[:8], x[5]),
    "diagonal": ("def program(x, src):\n    a = x.diagonal(0, 0, 1)\n    a[0:4] = src\n", own[:4], x[10, 0:4]),
    "permute":  ("def program(x, src):\n    a = x.permute(1, 0)\n    a[2:4] = src\n", own.view(2, 16), x.t()[5:7]),
}
for name, (text, separate, aliased) in PROGRAMS.items():
    ssfuzz_case.write("%s/%s-separate.json" % (tmp, name), x, separate, program=text)
    ssfuzz_case.write("%s/%s-aliased.json" % (tmp, name), x, aliased, program=text)
ssfuzz_case.write("%s/single-write.json" % tmp, x, own[:8], dim=0, start=3, end=4)
PYEOF

for f in "$tmp"/*-separate.json "$tmp"/*-aliased.json; do
    name=$(basename "$f" .json)
    "$SSFUZZ" explain "$f" --color never >"$tmp/out" 2>&1
    grep -q '^valid: *yes' "$tmp/out" && pass "explain: $name is valid" \
        || fail "explain: $name is valid" "$(grep -m1 'valid\|error' "$tmp/out")"
    SSFUZZ_PYTHON=$eager_py SSFUZZ_CONFIRM=0 "$SSFUZZ" replay -t torch:eager-cpu:program "$f" >"$tmp/out" 2>&1; rc=$?
    [ "$rc" = 0 ] && grep -q '1 agree, 0 with findings, 0 invalid' "$tmp/out" \
        && pass "torch:eager-cpu:program agrees on $name" \
        || fail "torch:eager-cpu:program agrees on $name" "exit $rc; $(head -2 "$tmp/out")"
done

"$SSFUZZ" replay -t emu:reinplace "$tmp/single-write.json" >"$tmp/out" 2>&1; rc=$?
[ "$rc" != 0 ] && grep -q 'invalid: src.sizes: rank 1 must equal the input.s rank 2' "$tmp/out" \
    && pass "a single write's src still has the slice's rank" \
    || fail "a single write's src still has the slice's rank" "exit $rc; $(head -2 "$tmp/out")"

pys=$(compile_pythons)
if [ -z "$pys" ]; then echo "skip program operands on torch:compile-cpu:program: no build/torch-*/bin/python with torch.compile (make torch-env)"; exit 0; fi
for py in $pys; do
    ver=$("$py" -c 'import torch; print(torch.__version__.split("+")[0])')
    # every case in one replay: one worker, its compiles shared
    SSFUZZ_PYTHON=$py SSFUZZ_CONFIRM=0 "$SSFUZZ" replay -t torch:compile-cpu:program \
        "$tmp"/*-separate.json "$tmp"/*-aliased.json >"$tmp/out" 2>&1; rc=$?
    for f in "$tmp"/*-separate.json "$tmp"/*-aliased.json; do
        name=$(basename "$f" .json)
        grep -q "^$f: ok: 1 target run agree" "$tmp/out" \
            && pass "torch $ver: torch:compile-cpu:program agrees on $name" \
            || fail "torch $ver: torch:compile-cpu:program agrees on $name" "exit $rc; $(grep -m1 "^$f" "$tmp/out")"
    done
done
