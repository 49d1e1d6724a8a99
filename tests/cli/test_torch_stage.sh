#!/usr/bin/env bash
# Where a compiled finding is first wrong (docs/torch.md, "Where a compile bug
# lives"): eager is rerun first, and a case eager gets wrong too is stage
# `eager` (wrong before any compile: an overlapping copy eager does not
# refuse); a case eager gets right goes on to dynamo-eager and aot-eager as
# before (the two-input clone inductor drops: stage inductor). The exported
# script's --stage says the same, for a statement and for a program.
set -u
. "$(dirname "$0")/lib/common.sh"

py=$(compile_pythons | head -1)
if [ -z "$py" ]; then echo "skip torch-stage: no venv with torch.compile (make torch-env; CI builds it)"; exit 0; fi
ver=$("$py" -c 'import torch; print(torch.__version__)')

# x[:, :] = src (no clone), x 3 rows after src in one int8 storage: eager copies
# row by row over rows it has already written.
cat >"$tmp/eager-wrong.json" <<'JSON'
{"format": "ssfuzz-case", "version": 1, "dtype": "int8", "storage": {"numel": 40},
 "input": {"offset": 12, "sizes": [5, 1], "strides": [4, 1]},
 "src": {"storage": "input", "offset": 0, "sizes": [5, 1], "strides": [4, 1]},
 "dim": 1, "start": null, "end": null, "step": 1, "fill": {"seed": 0}}
JSON
"$SSFUZZ" --python "$py" replay -t torch:compile-cpu:setitem --schedule two-inputs "$tmp/eager-wrong.json" >"$tmp/out" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "stage: eager (torch:eager-cpu:setitem mismatch too: wrong before any compile)$" "$tmp/out" &&
    pass "torch $ver: a compiled mismatch eager shares is stage eager" || fail "stage eager" "exit $rc: $(tail -3 "$tmp/out")"
"$SSFUZZ" --python "$py" replay -t torch:eager-cpu:setitem "$tmp/eager-wrong.json" >"$tmp/out" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "MISMATCH torch:eager-cpu:setitem" "$tmp/out" && ! grep -q "stage:" "$tmp/out" &&
    pass "torch $ver: the eager target's own finding has no stage" || fail "eager finding, no stage" "exit $rc: $(tail -3 "$tmp/out")"
"$SSFUZZ" --python "$py" replay -t torch:compile-cpu:setitem-clone corpus/torch-inductor-aliased-inputs-shift-clone.json >"$tmp/out" 2>&1; rc=$?
if [ "$rc" = 0 ]; then
    pass "torch $ver: the two-input clone is right here (fixed upstream): no stage to place"
else
    grep -q "stage: inductor (torch:dynamo-eager-cpu:setitem-clone agrees, torch:aot-eager-cpu:setitem-clone agrees)$" "$tmp/out" &&
        pass "torch $ver: eager right, the stages decide: inductor" || fail "stage inductor after eager" "exit $rc: $(tail -3 "$tmp/out")"
fi
# The exported script places it the same way (--stage).
"$SSFUZZ" export --torch "$tmp/eager-wrong.json" --mode compile-cpu --form two-inputs --spelling setitem -o "$tmp/ew.py" &&
    "$py" "$tmp/ew.py" --stage >"$tmp/out" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q "^ssfuzz-export: torch.compile(dynamic=False) on cpu, two-inputs: first wrong stage: eager (no compile wrong too)$" "$tmp/out" &&
    pass "torch $ver: the exported script's --stage says eager too" || fail "script stage eager" "exit $rc: $(grep stage "$tmp/out" | tail -2)"
# A program eager gets wrong (corpus: slice_scatter of an overlapping input): the
# program script's --stage reruns without compile first too.
"$SSFUZZ" export --torch corpus/torch-program-eager-scatter-overlapping-input.json --mode compile-cpu -o "$tmp/pe.py" &&
    "$py" "$tmp/pe.py" --stage >"$tmp/out" 2>&1; rc=$?
if [ "$rc" = 0 ]; then
    pass "torch $ver: the overlapping-input program is right here (fixed upstream): no stage to place"
else
    [ "$rc" = 1 ] && grep -q "^ssfuzz-export: torch.compile(dynamic=False) on cpu: first wrong stage: eager (no compile wrong too)$" "$tmp/out" &&
        pass "torch $ver: the program script's --stage says eager" || fail "program script stage eager" "exit $rc: $(grep stage "$tmp/out" | tail -2)"
fi
