#!/usr/bin/env bash
# `ssfuzz export --torch`: exported scripts run under a python3 that imports torch, print one
# verdict line, and their functional expectation equals `ssfuzz replay --dump`'s reference bit for bit.
# (Eager in-place on aliasing cases may refuse or differ: that is the bug class, not a test failure.)
set -u
. "$(dirname "$0")/lib/common.sh"

# Usage and invalid cases need no torch.
"$SSFUZZ" export corpus/shift-right-1d.json >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && pass "export without --torch: usage error" || fail "export without --torch: usage error" "exit $rc"
"$SSFUZZ" export --torch tests/hostile/parse-empty.json >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && pass "export of an invalid case: exit 2, one line" || fail "export of an invalid case: exit 2, one line" "exit $rc"
"$SSFUZZ" export --torch --max-bytes 16 corpus/kv-cache-aliased.json >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && pass "export over --max-bytes: exit 2" || fail "export over --max-bytes: exit 2" "exit $rc"
"$SSFUZZ" export --torch -o "$tmp/s.py" corpus/bool-shift.json && grep -q '^INPUT_BYTES = bytes.fromhex' "$tmp/s.py" \
    && grep -q '^DTYPE = torch.bool$' "$tmp/s.py" && pass "export -o writes the script" || fail "export -o writes the script"

# As found (no torch needed): the script's defaults come from meta.torch (mode, form,
# spelling, device), options override them, and nothing else reaches its source.
dyn=corpus/torch-dynamic-shift-clone.json
defaults() { grep -E "^(MODE|FORM|SPELLING|DEVICE) = " "$1" | tr '\n' ' '; }
"$SSFUZZ" export --torch "$dyn" >"$tmp/d.py" 2>"$tmp/err"
[ "$(defaults "$tmp/d.py")" = "SPELLING = 'setitem-clone' MODE = 'compile-dynamic' FORM = 'x-input' DEVICE = 'cpu' " ] &&
    pass "export: mode, form, spelling and device from meta.torch" || fail "export: defaults from meta.torch" "$(defaults "$tmp/d.py") $(cat "$tmp/err")"
"$SSFUZZ" export --torch "$dyn" --mode eager,compile --form storage-input,user --spelling copy --device all >"$tmp/o.py" &&
    [ "$(defaults "$tmp/o.py")" = "SPELLING = 'copy' MODE = 'eager,compile' FORM = 'storage-input,user' DEVICE = 'all' " ] &&
    pass "export: --mode, --form, --spelling, --device override meta.torch" || fail "export: options override meta.torch" "$(defaults "$tmp/o.py")"
"$SSFUZZ" export --torch --mode compile-dynamic-cpu corpus/shift-right-1d.json >"$tmp/o.py" &&
    [ "$(defaults "$tmp/o.py")" = "SPELLING = 'setitem' MODE = 'compile-dynamic' FORM = 'x-input' DEVICE = 'cpu' " ] &&
    pass "export: --mode as meta.torch names it (compile-dynamic-cpu) sets the device" || fail "export: --mode compile-dynamic-cpu" "$(defaults "$tmp/o.py")"
"$SSFUZZ" export --torch corpus/shift-right-1d.json >"$tmp/o.py" &&
    [ "$(defaults "$tmp/o.py")" = "SPELLING = 'setitem' MODE = 'all' FORM = 'x-input' DEVICE = 'all' " ] &&
    pass "export: without meta.torch every mode, form x-input, setitem" || fail "export: defaults without meta.torch" "$(defaults "$tmp/o.py")"
for opt in "--mode fast" "--mode eager,fast" "--form x-input,diagonal" "--device tpu" "--spelling poke" "--mode ''"; do
    eval "set -- $opt"
    "$SSFUZZ" export --torch "$@" "$dyn" >/dev/null 2>"$tmp/err"; rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "^ssfuzz export: $1: " "$tmp/err" &&
        pass "export $opt: exit 2, one line naming $1" || fail "export $opt: exit 2, one line" "exit $rc: $(cat "$tmp/err")"
done
# meta.torch is untrusted: only known words become the script's defaults.
while IFS='|' read -r field bad; do
    sed "s/\"$field\": \"[^\"]*\"/\"$field\": $bad/" "$dyn" >"$tmp/bad.json"
    "$SSFUZZ" export --torch "$tmp/bad.json" >/dev/null 2>"$tmp/err"; rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "meta.torch.$field" "$tmp/err" &&
        pass "export: hostile meta.torch.$field ($bad) refused, named" || fail "export: hostile meta.torch.$field refused" "exit $rc: $(cat "$tmp/err")"
done <<'ROWS'
mode|"eager-cpu'; import os"
mode|"compile-tpu"
form|"x-input\\nimport os"
spelling|"setitem()"
ROWS
sed 's/"mode": "compile-dynamic-cpu"/"mode": "compile-tpu"/' "$dyn" >"$tmp/bad.json"
"$SSFUZZ" export --torch --mode eager "$tmp/bad.json" >/dev/null && pass "export: --mode overrides a meta.torch.mode it does not know" \
    || fail "export: --mode overrides an unknown meta.torch.mode"
# One refusal list: the script carries harness/engines/ss_torch_program.py, the module the
# worker loads, byte for byte; the worker's form functions are mirrored exactly (same AST).
python3 - "$tmp/d.py" harness/engines/ss_torch_program.py harness/engines/ss_torch_worker.py >"$tmp/o" 2>&1 <<'PY'
import ast, sys
script, shared, worker = (open(p).read() for p in sys.argv[1:])
tree = ast.parse(script)
src = [n.value for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', '') == 'SHARED_SOURCE']
assert src and ast.literal_eval(src[0]) == shared, 'SHARED_SOURCE differs from ss_torch_program.py'
def fns(t):
    out = {}
    for n in t.body:
        if isinstance(n, ast.FunctionDef):
            if n.body and isinstance(n.body[0], ast.Expr) and isinstance(getattr(n.body[0], 'value', None), ast.Constant):
                n.body = n.body[1:]   # docstrings apart
            out[n.name] = ast.dump(n)
    return out
w, s = fns(ast.parse(worker)), fns(tree)
names = ['derive', 'apply_recipe', 'recipe_view', 'same_view', 'slice_bounds', 'spell', 'make_program']
bad = [n for n in names if n not in w or w[n] != s.get(n)]
assert not bad, 'the export body (harness/report/ss_export_torch.c) differs from the worker in: ' + ' '.join(bad)
PY
[ $? = 0 ] && pass "export: the shared refusal module embedded whole, the worker's form functions mirrored" \
    || fail "export: the shared module and the worker's forms" "$(tail -1 "$tmp/o")"
expect_rc "export --torch and --issue together: usage error" 2 "$SSFUZZ" export --torch --issue "$tmp/i.md" "$dyn"
expect_rc "export --issue without a case: usage error" 2 "$SSFUZZ" export --issue "$tmp/i.md"
expect_rc "export --issue --timeout 0: usage error" 2 "$SSFUZZ" export --issue "$tmp/i.md" --timeout 0 "$dyn"

py=""
for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then py=$cand; break; fi
done
if [ -z "$py" ]; then echo "skip export under torch: no python3 that imports torch (apt-get install python3-torch)"; exit 0; fi
"$py" -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "$tmp/s.py" && pass "exported script parses" || fail "exported script parses"

# bytes of `ssfuzz replay --dump`'s reference storage, hex, per storage.
cat >"$tmp/dump2hex.py" <<'PY'
import json, struct, sys
import torch
D = {"bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
     "int64": torch.int64, "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
     "float64": torch.float64, "complex64": torch.complex64, "complex128": torch.complex128}
d = json.load(open(sys.argv[1]))
name = d["dtype"]
es = torch.empty(0, dtype=D[name]).element_size()
def one(v):
    if isinstance(v, str):
        return int(v, 16).to_bytes(es, "little")
    if isinstance(v, bool):
        return bytes([int(v)])
    if isinstance(v, list):
        return struct.pack("<ff" if name == "complex64" else "<dd", float(v[0]), float(v[1]))
    if name in ("float16", "bfloat16", "float32", "float64"):
        return torch.tensor([float(v)], dtype=D[name]).view(torch.uint8).numpy().tobytes()
    return int(v).to_bytes(es, "little", signed=int(v) < 0)
out = {k: b"".join(one(v) for v in vals).hex() for k, vals in d["storages"].items()}
if d["status"] != "ok":   # rejected: no result storages, as the script says
    out = {"input": None}
print(json.dumps({"rejected": d["status"] != "ok", "input": out["input"], "src": out.get("src")}, sort_keys=True))
PY

for f in shift-right-1d shift-inner-dim same-ptr-transpose kv-cache-separate kv-cache-aliased stride0-input \
         bool-shift complex128-interleaved empty-slice-past-end step-greater-than-size src-is-slice; do
    c=corpus/$f.json
    [ -f "$c" ] || { echo "skip export $f: not in the corpus"; continue; }
    "$SSFUZZ" export --torch "$c" >"$tmp/$f.py" || { fail "export $f" "ssfuzz export failed"; continue; }
    "$py" "$tmp/$f.py" --expected-out "$tmp/$f.expected.json" >"$tmp/$f.out" 2>"$tmp/$f.err"; rc=$?
    verdict=$(tail -1 "$tmp/$f.out")
    if [ "$rc" -gt 3 ] || [ "$rc" = 2 ] || grep -vq '^ssfuzz-export: ' "$tmp/$f.out" || [ -s "$tmp/$f.err" ]; then
        fail "export $f runs" "exit $rc: $verdict $(tail -2 "$tmp/$f.err")"; continue
    fi
    pass "export $f runs (exit $rc: $(echo "$verdict" | cut -c16-60)...)"
    rm -rf "$tmp/dump"
    "$SSFUZZ" replay --quiet --target emu:reinplace --schedule forward --dump "$tmp/dump" "$c" >/dev/null 2>&1
    want=$("$py" "$tmp/dump2hex.py" "$tmp/dump/$f.reference.json" 2>&1)
    got=$("$py" -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True))' "$tmp/$f.expected.json")
    [ "$want" = "$got" ] && pass "export $f: torch's expectation equals the reference" \
        || fail "export $f: torch's expectation equals the reference" "replay: ${want:0:120} torch: ${got:0:120}"
done
# Cases without aliasing must agree under eager torch as well; the invalid one is rejected alike.
for f in kv-cache-separate step-greater-than-size empty-slice-past-end src-is-slice stride0-input; do
    [ -f "$tmp/$f.out" ] || continue
    grep -q '^ssfuzz-export: eager on cpu: agree' "$tmp/$f.out" && pass "export $f agrees in place" || fail "export $f agrees in place" "$(cat "$tmp/$f.out")"
done

# Honest default mode: one verdict line per mode this torch has, the worst exit.
# x[:, 1:] = x[:, :-1] is silently wrong in eager (exit 1, DIFFER, values next to bits);
# x[1:] = x[:-1] is refused by eager's overlap check (exit 3, the whole message).
"$py" "$tmp/shift-inner-dim.py" >"$tmp/o" 2>&1; rc=$?
if [ "$rc" = 1 ] && grep -q '^ssfuzz-export: program (setitem): x\[:, 1:\] = x\[:, :-1\]$' "$tmp/o" &&
   grep -q '^ssfuzz-export: eager on cpu: DIFFER: input storage\[2\] (input index \[0, 2\]): expected 3.0 (0x40400000), got 2.0 (0x40000000)' "$tmp/o"
then pass "export default mode: eager DIFFER on x[:, 1:] = x[:, :-1], exit 1"
else fail "export default mode: eager DIFFER on x[:, 1:] = x[:, :-1], exit 1" "exit $rc: $(cat "$tmp/o")"; fi
"$py" -c 'import torch, sys; sys.exit(0 if hasattr(torch, "compile") else 1)' ||
    { grep -q '^ssfuzz-export: torch.compile: not available' "$tmp/o" && pass "export says torch.compile is missing" || fail "export says torch.compile is missing"; }
"$py" "$tmp/shift-right-1d.py" >"$tmp/o" 2>&1; rc=$?
if [ "$rc" = 3 ] && grep -q 'REFUSED (overlap check): RuntimeError: .*refer to a single memory location\. Please clone() the tensor before performing the operation\.$' "$tmp/o"
then pass "export: eager's refusal has exit 3 and its full message"
else fail "export: eager's refusal has exit 3 and its full message" "exit $rc: $(cat "$tmp/o")"; fi
# Form user: eager runs the case's line on the whole storage too (what --issue's repro writes).
"$py" "$tmp/shift-inner-dim.py" --mode eager --form x-input,user >"$tmp/o" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q '^ssfuzz-export: eager on cpu: DIFFER' "$tmp/o" && grep -q '^ssfuzz-export: eager on cpu, user: DIFFER' "$tmp/o" &&
    pass "export --form x-input,user: one eager run per form, both DIFFER" || fail "export --form x-input,user" "exit $rc: $(cat "$tmp/o")"
# Spellings: the clone fixes the aliasing one; each spelling's program is the case's line.
for s in setitem:1 setitem-clone:0 copy:1 scatter-copy:0 scatter-return:0 clone-scatter:0 index-put:; do
    "$py" "$tmp/shift-inner-dim.py" --spelling "${s%%:*}" --mode eager >"$tmp/o" 2>&1; rc=$?
    want=${s##*:}
    if grep -q "^ssfuzz-export: program (${s%%:*}): " "$tmp/o" && grep -q '^ssfuzz-export: eager on cpu: ' "$tmp/o" &&
       { [ -z "$want" ] || [ "$rc" = "$want" ]; } && [ "$rc" != 2 ]
    then pass "export --spelling ${s%%:*} (exit $rc)"
    else fail "export --spelling ${s%%:*}" "exit $rc: $(tail -2 "$tmp/o")"; fi
done
"$SSFUZZ" export --torch --spelling copy corpus/shift-inner-dim.json >"$tmp/c.py" &&
    grep -q "^SPELLING = 'copy'$" "$tmp/c.py" && grep -q '^    x\[:, 1:\].copy_(x\[:, :-1\])$' "$tmp/c.py" &&
    pass "export --spelling copy: the default spelling and its program" || fail "export --spelling copy: the default spelling and its program"
expect_rc "export --spelling with an unknown name is a usage error" 2 "$SSFUZZ" export --torch --spelling poke corpus/shift-inner-dim.json

# Robustness (issue 14.5). A separate src storage of 0 elements: --expected-out
# and --actual-out are written whole (valid JSON), and the script agrees.
cat >"$tmp/empty-src.json" <<'JSON'
{"format": "ssfuzz-case", "version": 1, "dtype": "float32", "storage": {"numel": 4}, "src_storage": {"numel": 0},
 "input": {"offset": 0, "sizes": [4], "strides": [1]}, "src": {"storage": "separate", "offset": 0, "sizes": [0], "strides": [1]},
 "dim": 0, "start": 4, "end": null, "fill": {"seed": 3}}
JSON
"$SSFUZZ" export --torch "$tmp/empty-src.json" >"$tmp/es.py"
"$py" "$tmp/es.py" --expected-out "$tmp/es.exp.json" --actual-out "$tmp/es.act.json" >"$tmp/o" 2>&1; rc=$?
if [ "$rc" = 0 ] && "$py" -c 'import json, sys; e = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2])); assert e["src"] == "" and a["runs"][0]["src"] == ""' "$tmp/es.exp.json" "$tmp/es.act.json"
then pass "export: 0-element src storage with --expected-out/--actual-out"
else fail "export: 0-element src storage with --expected-out/--actual-out" "exit $rc: $(tail -3 "$tmp/o")"; fi
"$py" "$tmp/es.py" --expected-out "$tmp/no/such/dir/x.json" >"$tmp/o" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q '^ssfuzz-export: ERROR: cannot write' "$tmp/o" && pass "export: unwritable --expected-out is exit 2, one line" \
    || fail "export: unwritable --expected-out is exit 2, one line" "exit $rc: $(tail -2 "$tmp/o")"
# An input view ssfuzz rejects (interleaved rows, internal overlap torch cannot see):
# the script says so instead of comparing against a meaningless expectation.
cat >"$tmp/interleaved.json" <<'JSON'
{"format": "ssfuzz-case", "version": 1, "dtype": "float32", "storage": {"numel": 4}, "src_storage": {"numel": 4},
 "input": {"offset": 0, "sizes": [2, 3], "strides": [1, 1]}, "src": {"storage": "separate", "offset": 0, "sizes": [2, 2], "strides": [2, 1]},
 "dim": 1, "start": 1, "end": null, "fill": {"seed": 3}}
JSON
"$SSFUZZ" export --torch "$tmp/interleaved.json" >"$tmp/il.py"
"$py" "$tmp/il.py" --expected-out "$tmp/il.exp.json" >"$tmp/o" 2>&1; rc=$?
if ! grep -q 'DIFFER\|: agree: final' "$tmp/o" && grep -q 'ACCEPTED-INVALID\|rejects the invalid case' "$tmp/o" &&
   "$py" -c 'import json, sys; assert json.load(open(sys.argv[1]))["rejected"] is True' "$tmp/il.exp.json"
then pass "export: an invalid input view is reported as such, never compared (exit $rc)"
else fail "export: an invalid input view is reported as such, never compared" "exit $rc: $(cat "$tmp/o")"; fi
# Non-canonical bool bytes outside the written slice are left alone by the
# expectation (ssfuzz moves bytes; torch normalizes only what it copies).
cat >"$tmp/bool2.json" <<'JSON'
{"format": "ssfuzz-case", "version": 1, "dtype": "bool", "storage": {"numel": 4}, "src_storage": {"numel": 1},
 "input": {"offset": 0, "sizes": [4], "strides": [1]}, "src": {"storage": "separate", "offset": 0, "sizes": [1], "strides": [1]},
 "dim": 0, "start": 1, "end": 2, "values": {"input": ["0x02", true, false, "0x02"], "src": [false]}}
JSON
"$SSFUZZ" export --torch "$tmp/bool2.json" >"$tmp/b2.py"
"$py" "$tmp/b2.py" --mode eager >"$tmp/o" 2>&1; rc=$?
[ "$rc" = 0 ] && grep -q '^ssfuzz-export: eager on cpu: agree' "$tmp/o" && pass "export: non-canonical bool bytes outside the slice are not reported" \
    || fail "export: non-canonical bool bytes outside the slice are not reported" "exit $rc: $(cat "$tmp/o")"

# NaN bits alone (a quieted signalling NaN) are ssfuzz's nan-payload verdict,
# not a difference: the script's comparison follows the same rule.
"$SSFUZZ" export --torch corpus/shift-right-1d.json -o "$tmp/nan.py"
"$py" - "$tmp/nan.py" >"$tmp/o" 2>&1 <<'PYEOF'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("exported", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
f = lambda bits: struct.pack("<I", bits)
snan, qnan, one, three = f(0x7f800001), f(0x7fc00001), f(0x3f800000), f(0x40400000)
assert m.nan_pair(snan, qnan) and not m.nan_pair(snan, one)
assert m.first_difference((snan + one, None), (qnan + one, None)) == (None, 1)
text, nans = m.first_difference((snan + one, None), (qnan + three, None))
assert nans == 1 and "expected 1.0" in text and "got 3.0" in text, text
print("nan rule ok")
PYEOF
grep -q "nan rule ok" "$tmp/o" && pass "export: NaN-bits-only differences are nan-payload, a wrong value beside them still differs" \
    || fail "export: the NaN rule" "$(tail -3 "$tmp/o")"
