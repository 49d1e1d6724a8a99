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
# One refusal list and one write: the script carries harness/engines/ss_torch_program.py, the
# module the worker loads, byte for byte, and defines none of its functions again (the write's
# spellings are written once, there).
python3 - "$tmp/d.py" harness/engines/ss_torch_program.py >"$tmp/o" 2>&1 <<'PY'
import ast, sys
script, shared = (open(p).read() for p in sys.argv[1:])
tree = ast.parse(script)
src = [n.value for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', '') == 'SHARED_SOURCE']
assert src and ast.literal_eval(src[0]) == shared, 'SHARED_SOURCE differs from ss_torch_program.py'
fns = lambda t: {n.name for n in t.body if isinstance(n, ast.FunctionDef)}
write = {'derive', 'apply_recipe', 'recipe_view', 'same_view', 'spec_of', 'slice_bounds', 'spell', 'make_program',
         'inputs_for'}
assert write <= fns(ast.parse(shared)), 'ss_torch_program.py lacks ' + ' '.join(sorted(write - fns(ast.parse(shared))))
assert not write & fns(tree), 'the export body repeats ss_torch_program.py: ' + ' '.join(sorted(write & fns(tree)))
PY
[ $? = 0 ] && pass "export: the shared module embedded whole, its functions not repeated" \
    || fail "export: the shared module embedded whole, not repeated" "$(tail -1 "$tmp/o")"
expect_rc "export --torch and --issue together: usage error" 2 "$SSFUZZ" export --torch --issue "$tmp/i.md" "$dyn"
expect_rc "export --issue without a case: usage error" 2 "$SSFUZZ" export --issue "$tmp/i.md"
expect_rc "export --issue --timeout 0: usage error" 2 "$SSFUZZ" export --issue "$tmp/i.md" --timeout 0 "$dyn"

# Program cases (docs/programs.md), no torch needed: the script carries the program exactly as
# the printer writes it, the reference's result as data, its defaults from meta.torch; case
# JSON reaches its source only through the printer and as inert literals.
prog=examples/programs/scatter-return-then-zero.json
"$SSFUZZ" export --torch "$prog" >"$tmp/p.py" 2>"$tmp/err"; rc=$?
python3 - "$tmp/p.py" >"$tmp/o" 2>&1 <<'PY'
import ast, struct, sys
tree = ast.parse(open(sys.argv[1]).read())
data = {n.targets[0].id: n.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)}
src = ast.literal_eval(data['PROGRAM_SOURCE'])
want = ('def program(x, src):\n    out = torch.slice_scatter(x, src, 0, 1, 3, 1)\n    x.zero_()\n    return (out,)\n')
assert src == want, 'PROGRAM_SOURCE: %r' % src
hexof = lambda node: bytes.fromhex(node.args[0].value)
fl = lambda b: list(struct.unpack('<%df' % (len(b) // 4), b))
assert fl(hexof(data['EXPECTED_INPUT'])) == [0.0] * 8, 'x after x.zero_()'
assert hexof(data['EXPECTED_SRC']) == hexof(data['SRC_BYTES']), 'src unchanged'
ret = data['RETURNS'].elts
assert len(ret) == 1, 'one returned value'
kw = {k.arg: k.value for k in ret[0].keywords}
assert ast.literal_eval(kw['name']) == 'out' and ast.literal_eval(kw['view']) is False and ast.literal_eval(kw['shape']) == (4, 2)
assert fl(hexof(kw['values'])) == [1, 2, 9, 10, 11, 12, 7, 8], 'out = slice_scatter(x, src, 0, 1, 3)'
assert ast.literal_eval(data['EXPECTED_STATUS']) == 'ok' and data['OPEN'].elts == []
print('program data ok')
PY
[ "$rc" = 0 ] && grep -q "program data ok" "$tmp/o" &&
    pass "export of a program case: its printed source, the reference's storages and returned value as data" \
    || fail "export of a program case: source and expected data" "exit $rc: $(cat "$tmp/err") $(tail -2 "$tmp/o")"
"$SSFUZZ" export --torch examples/programs/read-before-write.json >"$tmp/rbw.py" &&
    grep -q "^    dict(name='x', view=True, storage='input', dtype='float32'" "$tmp/rbw.py" &&
    grep -q "^    dict(name='r', view=False, storage=None, dtype='float32'" "$tmp/rbw.py" &&
    pass "export: a returned view must share x's storage, a returned read none (RETURNS)" || fail "export: RETURNS' alias facts"
"$SSFUZZ" export --torch examples/programs/index-put-duplicates.json >"$tmp/ipd.py" &&
    [ "$(grep -c "^    dict(storage='input', byte=[0-9]*, size=4, step=2, values=\[bytes.fromhex('[0-9a-f]*'), bytes.fromhex('[0-9a-f]*')\])," "$tmp/ipd.py")" = 1 ] &&
    pass "export: an index_put with duplicates leaves one open element with its two allowed values (OPEN)" \
    || fail "export: OPEN" "$(grep -A3 '^OPEN' "$tmp/ipd.py")"
# Defaults: a program finding's meta.torch (mode, device; spelling program), modes of its own.
pdef() { grep -E "^(MODE|SPELLING|DEVICE) = " "$1" | tr '\n' ' '; }
withmeta() {   # case meta.torch.mode meta.torch.spelling -> file
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["meta"]["torch"] = {"mode": sys.argv[2], "spelling": sys.argv[3], "form": "two-inputs"}; json.dump(d, open(sys.argv[4], "w"))' "$prog" "$1" "$2" "$3"
}
withmeta aot-eager-cpu program "$tmp/pm.json"
"$SSFUZZ" export --torch "$tmp/pm.json" >"$tmp/pm.py" && [ "$(pdef "$tmp/pm.py")" = "SPELLING = 'program' MODE = 'aot-eager' DEVICE = 'cpu' " ] &&
    pass "export of a program finding: mode aot-eager and device from meta.torch, spelling program" || fail "export: a program finding's defaults" "$(pdef "$tmp/pm.py")"
"$SSFUZZ" export --torch "$prog" >"$tmp/pm.py" && [ "$(pdef "$tmp/pm.py")" = "SPELLING = 'program' MODE = 'all' DEVICE = 'all' " ] &&
    pass "export of a hand-written program case: every mode" || fail "export: a program case's defaults" "$(pdef "$tmp/pm.py")"
"$SSFUZZ" export --torch --mode eager,dynamo-eager-dynamic --device cpu "$tmp/pm.json" >"$tmp/pm.py" &&
    [ "$(pdef "$tmp/pm.py")" = "SPELLING = 'program' MODE = 'eager,dynamo-eager-dynamic' DEVICE = 'cpu' " ] &&
    pass "export: --mode and --device override a program finding's" || fail "export: program overrides" "$(pdef "$tmp/pm.py")"
# Single writes run the backends that place a compile bug too (aot-eager, dynamo-eager, their
# -dynamic forms): a finding of torch:aot-eager-cpu:SPELLING exports in that mode and device;
# `all` is the same five modes as a program's.
cat >"$tmp/aot.json" <<'JSON'
{"format": "ssfuzz-case", "version": 1, "dtype": "uint8", "storage": {"numel": 4},
 "input": {"offset": 2, "sizes": [2, 1], "strides": [1, 0]}, "src": {"storage": "input", "offset": 0, "sizes": [2, 1], "strides": [2, 0]},
 "dim": 1, "start": null, "end": null, "step": 1, "fill": {"seed": 0},
 "meta": {"target": "torch:aot-eager-cpu:setitem", "schedule": "x-input", "signature": "mismatch",
          "torch": {"mode": "aot-eager-cpu", "spelling": "setitem", "device": "cpu", "compiled": true, "form": "x-input"}}}
JSON
"$SSFUZZ" export --torch "$tmp/aot.json" >"$tmp/aot.py" 2>"$tmp/err" &&
    [ "$(defaults "$tmp/aot.py")" = "SPELLING = 'setitem' MODE = 'aot-eager' FORM = 'x-input' DEVICE = 'cpu' " ] &&
    pass "export of a torch:aot-eager-cpu finding: mode aot-eager and device cpu from meta.torch" || fail "export: aot-eager-cpu defaults" "$(defaults "$tmp/aot.py") $(cat "$tmp/err")"
sed 's/"mode": "aot-eager-cpu"/"mode": "dynamo-eager-dynamic-cuda"/' "$tmp/aot.json" >"$tmp/dde.json"
"$SSFUZZ" export --torch "$tmp/dde.json" >"$tmp/o.py" 2>"$tmp/err" &&
    [ "$(defaults "$tmp/o.py")" = "SPELLING = 'setitem' MODE = 'dynamo-eager-dynamic' FORM = 'x-input' DEVICE = 'cuda' " ] &&
    pass "export: meta.torch.mode dynamo-eager-dynamic-cuda (a stage sibling's) sets the mode and device" || fail "export: dynamo-eager-dynamic-cuda" "$(defaults "$tmp/o.py") $(cat "$tmp/err")"
"$SSFUZZ" export --torch --mode eager,aot-eager,dynamo-eager-dynamic corpus/shift-right-1d.json >"$tmp/o.py" 2>"$tmp/err" &&
    [ "$(defaults "$tmp/o.py")" = "SPELLING = 'setitem' MODE = 'eager,aot-eager,dynamo-eager-dynamic' FORM = 'x-input' DEVICE = 'all' " ] &&
    "$SSFUZZ" export --torch --mode dynamo-eager-cpu corpus/shift-right-1d.json >"$tmp/o2.py" 2>"$tmp/err" &&
    [ "$(defaults "$tmp/o2.py")" = "SPELLING = 'setitem' MODE = 'dynamo-eager' FORM = 'x-input' DEVICE = 'cpu' " ] &&
    pass "export --mode aot-eager, dynamo-eager-dynamic, dynamo-eager-cpu of a single-write case" || fail "export --mode aot-eager of a single write" "$(cat "$tmp/err")"
"$SSFUZZ" export --torch --mode aot_eager "$tmp/aot.json" >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "^ssfuzz export: --mode: unknown value 'aot_eager' (eager, dynamo-eager, aot-eager, compile, dynamo-eager-dynamic, aot-eager-dynamic, compile-dynamic, all)$" "$tmp/err" &&
    pass "export --mode aot_eager: exit 2, one line naming the allowed words" || fail "export: a bad --mode names the words" "exit $rc: $(cat "$tmp/err")"
"$SSFUZZ" export --torch "$prog" >"$tmp/pa.py"
python3 - "$tmp/aot.py" "$tmp/pa.py" >"$tmp/o" 2>&1 <<'PY'
import ast, sys
def consts(path):
    return {n.targets[0].id: ast.literal_eval(n.value) for n in ast.parse(open(path).read()).body
            if isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', '') in ('MODES', 'ALL_MODES', 'BACKENDS')}
one, prog = consts(sys.argv[1]), consts(sys.argv[2])
assert len(one) == 3 and one == prog, (one, prog)
# the stage order (harness/engines/ss_torch_modes.h): eager, dynamo, aot, inductor, static first
assert one['ALL_MODES'] == ('eager', 'dynamo-eager', 'aot-eager', 'compile', 'compile-dynamic'), one['ALL_MODES']
assert one['MODES'] == ('eager', 'dynamo-eager', 'aot-eager', 'compile', 'dynamo-eager-dynamic', 'aot-eager-dynamic',
                        'compile-dynamic'), one['MODES']
print('modes ok')
PY
grep -q "modes ok" "$tmp/o" && pass "export: a single write's script has a program's modes, backends and meaning of all" \
    || fail "export: single-write modes as a program's" "$(tail -1 "$tmp/o")"
withmeta compile-cpu setitem "$tmp/pm2.json"
cat >"$tmp/noresult.json" <<'JSON'
{"format": "ssfuzz-case", "version": 1, "dtype": "float32", "storage": {"numel": 8},
 "input": {"offset": 0, "sizes": [8], "strides": [1]}, "src": {"storage": "input", "offset": 0, "sizes": [7], "strides": [1]},
 "dim": 0, "start": 1, "end": null, "fill": {"seed": 3, "small": true},
 "program": [{"op": "view", "name": "a", "of": "x", "kind": "unfold", "dim": 0, "size": 2, "step": 1},
             {"op": "inplace", "into": "a", "kind": "add_", "operand": 1}]}
JSON
sed "s/\"name\": \"a\"/\"name\": \"a'''+__import__('os')\"/" "$tmp/noresult.json" >"$tmp/hostile-name.json"
while IFS='|' read -r field args; do
    eval "set -- $args"
    "$SSFUZZ" export --torch "$@" >/dev/null 2>"$tmp/err"; rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -e "$field" "$tmp/err" &&
        pass "export of a program case refused, one line: ${field//\\/}" || fail "export: program refusal ${field//\\/}" "exit $rc: $(cat "$tmp/err")"
done <<ROWS
--spelling|--spelling setitem $prog
meta.torch.spelling|$tmp/pm2.json
program\[1\] has no defined result|$tmp/noresult.json
program\[0\].name|$tmp/hostile-name.json
ROWS
# Hostile meta stays in comments; the data assignments are literals; every other statement is
# the same for every program case (case JSON reaches the code only through the printer).
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["meta"]["title"] = "x\n__import__(\"os\").system(\"touch PWNED\")\x27\x27\x27"; json.dump(d, open(sys.argv[2], "w"))' "$prog" "$tmp/ht.json"
"$SSFUZZ" export --torch "$tmp/ht.json" >"$tmp/ht.py" && "$SSFUZZ" export --torch examples/programs/index-put-duplicates.json >"$tmp/ipd.py"
python3 - "$tmp/ht.py" "$tmp/ipd.py" harness/engines/ss_torch_program.py >"$tmp/o" 2>&1 <<'PY'
import ast, sys
a, b, shared = (open(p).read() for p in sys.argv[1:])
assert all(l.startswith('#') for l in a.splitlines() if 'PWNED' in l), 'the hostile title left a comment'
DATA = {'DTYPE', 'ELEM_SIZE', 'INPUT_VIEW', 'SRC_VIEW', 'SRC_ALIASED', 'INPUT_BYTES', 'SRC_BYTES', 'PROGRAM_SOURCE',
        'EXPECTED_STATUS', 'REFUSED_STEP', 'REFUSED_WHY', 'INEXACT', 'EXPECTED_INPUT', 'EXPECTED_SRC', 'RETURNS', 'OPEN',
        'SPELLING', 'MODE', 'DEVICE', 'SHARED_SOURCE'}
def inert(n):   # literals, bytes.fromhex('..'), dict(...), torch.DTYPE: nothing that runs case text
    if isinstance(n, ast.Call):
        f = n.func
        ok = (isinstance(f, ast.Name) and f.id == 'dict') or (isinstance(f, ast.Attribute) and f.attr == 'fromhex' and f.value.id == 'bytes')
        return ok and all(inert(x) for x in n.args) and all(inert(k.value) for k in n.keywords)
    if isinstance(n, ast.Attribute):
        return isinstance(n.value, ast.Name) and n.value.id == 'torch'
    if isinstance(n, (ast.Tuple, ast.List)):
        return all(inert(x) for x in n.elts)
    if isinstance(n, ast.UnaryOp):
        return inert(n.operand)
    return isinstance(n, ast.Constant)
def split(text):
    data, code = {}, []
    for n in ast.parse(text).body:
        if isinstance(n, ast.Assign) and getattr(n.targets[0], 'id', None) in DATA:
            assert inert(n.value), 'not a literal: ' + n.targets[0].id
            data[n.targets[0].id] = n.value
        else:
            code.append(ast.dump(n))
    return data, code
da, ca = split(a)
db, cb = split(b)
assert set(da) == DATA == set(db), set(da) ^ DATA
assert ca == cb, 'code that depends on the case'
assert ast.literal_eval(da['SHARED_SOURCE']) == shared, 'SHARED_SOURCE differs from ss_torch_program.py'
for d in (da, db):
    tree = ast.parse(ast.literal_eval(d['PROGRAM_SOURCE']))
    assert len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef) and tree.body[0].name == 'program'
print('inert ok')
PY
grep -q "inert ok" "$tmp/o" && pass "export of a program case: hostile meta only in comments, data only literals, the code the same for every case, the shared module whole" \
    || fail "export: program script inert" "$(tail -2 "$tmp/o")"

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
# Form user-two-inputs: the same line with x (the input view) and src, indexed from the storage,
# as two arguments (what --issue's repro of a two-inputs finding writes); eager is wrong that way too.
"$py" "$tmp/shift-inner-dim.py" --mode eager --form user,user-two-inputs >"$tmp/o" 2>&1; rc=$?
if [ "$rc" = 1 ] && grep -q '^ssfuzz-export: eager on cpu, user: DIFFER' "$tmp/o" &&
   grep -q '^ssfuzz-export: eager on cpu, user-two-inputs: DIFFER: input storage\[2\] (input index \[0, 2\]): expected 3.0' "$tmp/o" &&
   grep -qx 'def setitem_two(x, src):' "$tmp/shift-inner-dim.py" && grep -qx '    x\[:, 1:\] = src' "$tmp/shift-inner-dim.py" &&
   grep -qx '    return x, x\[:, :-1\]' "$tmp/shift-inner-dim.py"
then pass "export --form user,user-two-inputs: x[:, 1:] = src on two views of the storage, eager DIFFER"
else fail "export --form user-two-inputs" "exit $rc: $(cat "$tmp/o")"; fi
"$py" "$tmp/shift-inner-dim.py" --mode eager --form user-two-input >"$tmp/o" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q "unknown form 'user-two-input' (x-input, storage-input, two-inputs, user, user-two-inputs, all)" "$tmp/o" &&
    pass "export script: an unknown form names the list, user-two-inputs in it (exit 2)" || fail "export script: unknown form" "exit $rc: $(cat "$tmp/o")"
"$SSFUZZ" export --torch --form user-two-inputs corpus/shift-inner-dim.json >"$tmp/c.py" && grep -q "^FORM = 'user-two-inputs'$" "$tmp/c.py" &&
    pass "export --form user-two-inputs: the script's default form" || fail "export --form user-two-inputs: the default form"
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

# Program cases under eager (any torch): the examples agree; a program the reference says
# PyTorch refuses is REFUSED (exit 3); the comparison is the harness's (ss_program_cmp.c):
# a returned value's element, an alias fact, an open element's allowed values.
for f in read-before-write index-put-duplicates scatter-return-then-zero; do
    "$SSFUZZ" export --torch --mode eager examples/programs/$f.json >"$tmp/$f.py"
    "$py" "$tmp/$f.py" >"$tmp/o" 2>&1; rc=$?
    [ "$rc" = 0 ] && grep -q '^ssfuzz-export: program (program): ' "$tmp/o" &&
        grep -q '^ssfuzz-export: eager on cpu: agree: final storages, [0-9] returned values\{0,1\} and their storage sharing$' "$tmp/o" &&
        pass "export of examples/programs/$f.json agrees under eager (exit 0)" || fail "export $f under eager" "exit $rc: $(tail -2 "$tmp/o")"
done
cat >"$tmp/refused.json" <<'JSON'
{"format": "ssfuzz-case", "version": 1, "dtype": "float32", "storage": {"numel": 8},
 "input": {"offset": 0, "sizes": [8], "strides": [1]}, "src": {"storage": "input", "offset": 0, "sizes": [7], "strides": [1]},
 "dim": 0, "start": 1, "end": null, "fill": {"seed": 3, "small": true},
 "program": [{"op": "write", "into": "x", "spelling": "copy", "src": "src"}]}
JSON
"$SSFUZZ" export --torch "$tmp/refused.json" >"$tmp/refused.py"
"$py" "$tmp/refused.py" --mode eager >"$tmp/o" 2>&1; rc=$?
[ "$rc" = 3 ] && grep -q '^ssfuzz-export: expected: PyTorch refuses program\[0\] (copy_: ' "$tmp/o" &&
    grep -q '^ssfuzz-export: eager on cpu: REFUSED (overlap check): RuntimeError: .*single memory location' "$tmp/o" &&
    pass "export: a program PyTorch refuses is REFUSED under eager (exit 3)" || fail "export: refused program" "exit $rc: $(cat "$tmp/o")"
"$py" - "$tmp/scatter-return-then-zero.py" "$tmp/index-put-duplicates.py" >"$tmp/o" 2>&1 <<'PYEOF'
import importlib.util, sys
def load(path):
    spec = importlib.util.spec_from_file_location("exported", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m
m = load(sys.argv[1])
ret = lambda b, shares: [dict(dtype='float32', shape=[4, 2], bytes=b, shares=shares)]
want = m.RETURNS[0]['values']
assert m.compare(m.Got(m.EXPECTED_INPUT, m.EXPECTED_SRC, ret(want, 0))) == (None, 0)
text, n = m.compare(m.Got(m.EXPECTED_INPUT, m.EXPECTED_SRC, ret(want, 1)))
assert text == "returned value 0 (out) shares x's storage but must share no input storage (a fresh tensor)", text
text, n = m.compare(m.Got(m.EXPECTED_INPUT, m.EXPECTED_SRC, ret(bytes(32), 1)))
assert n == 9 and text.startswith("returned value 0 (out) shares x's storage"), (n, text)
text, n = m.compare(m.Got(m.EXPECTED_INPUT, m.EXPECTED_SRC, ret(bytes(4) + want[4:], 0)))
assert text == 'returned value 0 (out)[0, 0]: expected 1.0 (0x3f800000), got 0.0 (0x00000000); 1 element differs', text
m = load(sys.argv[2])
o = m.OPEN[0]
rets = [dict(r, bytes=r['values'], shares=1) for r in m.RETURNS]
for v in o['values']:   # either allowed value of the open element agrees
    st = m.EXPECTED_INPUT[:o['byte']] + v + m.EXPECTED_INPUT[o['byte'] + o['size']:]
    rets = [dict(r, bytes=st, shares=1) for r in m.RETURNS]   # x is returned: its bytes follow the storage
    assert m.compare(m.Got(st, None, rets)) == (None, 0), v
bad = bytes(b ^ 0x40 for b in o['values'][0])
st = m.EXPECTED_INPUT[:o['byte']] + bad + m.EXPECTED_INPUT[o['byte'] + o['size']:]
text, n = m.compare(m.Got(st, None, [dict(r, bytes=r['values'], shares=1) for r in m.RETURNS]))
assert '(or one of 2 allowed values)' in text and text.startswith('input storage[%d] (x[%d])' % (o['byte'] // 4, o['byte'] // 4)), text
print("program compare ok")
PYEOF
grep -q "program compare ok" "$tmp/o" && pass "export: a program's comparison names a wrong element, an alias fact, an open element's allowed values" \
    || fail "export: program comparison" "$(tail -3 "$tmp/o")"
