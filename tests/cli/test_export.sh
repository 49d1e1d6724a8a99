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
    if [ "$rc" -gt 2 ] || [ "$(wc -l <"$tmp/$f.out")" != 1 ] || ! echo "$verdict" | grep -q '^ssfuzz-export: '; then
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
    grep -q '^ssfuzz-export: agree' "$tmp/$f.out" && pass "export $f agrees in place" || fail "export $f agrees in place" "$(cat "$tmp/$f.out")"
done
