#!/usr/bin/env bash
# Every torch verdict class, on a real PyTorch, counted in summary.json:
# refused (PyTorch's overlap check), error (any other exception: not a
# finding), raised (compiled raises where eager runs), crash (recurs in a
# fresh worker), flaky (does not), timeout (in fuzz and in replay, also when
# the worker stops reading). Faults come from the worker's test hooks, which
# act only with SSFUZZ_TEST_HOOKS=1.
set -u
. "$(dirname "$0")/lib/common.sh"

py=""
for cand in ${SSFUZZ_TORCH_PYTHON:-} build/torch-*/bin/python python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import torch' 2>/dev/null; then py=$(command -v "$cand"); break; fi
done
if [ -z "$py" ]; then echo "skip torch-verdicts: no python with torch (make torch-env TORCH=2.15.0)"; exit 0; fi
export SSFUZZ_PYTHON=$py

# summary VALUE DIR EXPR: a Python expression over the summary `s` and a
# helper hits(kind) (hits of findings with that signature), printed.
summary() {
    "$py" - "$1/summary.json" "$2" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
def hits(kind):
    return sum(f["hits"] for f in s.get("findings", []) if f["signature"] == kind)
print(eval(sys.argv[2]))
EOF
}
check() {   # name dir expr: the expression must be True
    local got
    got=$(summary "$2" "$3" 2>&1)
    [ "$got" = True ] && pass "$1" || fail "$1" "$3 is $got; $(tail -3 "$2.out" 2>/dev/null)"
}
fuzz() {   # dir args...: a short eager campaign, its output in dir.out
    local dir=$1; shift
    "$SSFUZZ" fuzz --seed 3 --minimize-time 1 -q -o "$dir" "$@" >"$dir.out" 2>&1
}

# refused: x[...].copy_(an overlapping src) is PyTorch's own overlap error.
fuzz "$tmp/refused" -t torch:eager-cpu:copy --cases 40
check "refused: counted, not findings" "$tmp/refused" 's["refused"] > 0 and s["errors"] == 0 and hits("refused") == 0'

# error: any other exception under eager is an error of the case, named.
SSFUZZ_TEST_HOOKS=1 SSFUZZ_TORCH_TEST_FAULT=raise:1 fuzz "$tmp/error" -t torch:eager-cpu:setitem-clone --cases 20
check "error: every run counted, none a finding" "$tmp/error" 's["errors"] == 20 and s["hits"] == 0 and s["refused"] == 0'
check "error: the summary names it" "$tmp/error" '"injected fault" in s["examples"][0]["example"] and s["examples"][0]["verdict"] == "error"'
grep -q "raised an error of the case or engine" "$tmp/error.out" && pass "error: the campaign says so" \
    || fail "error: the campaign says so" "$(tail -3 "$tmp/error.out")"

# The same hook without SSFUZZ_TEST_HOOKS=1: inert.
SSFUZZ_TORCH_TEST_FAULT=raise:1 fuzz "$tmp/inert" -t torch:eager-cpu:setitem-clone --cases 10
check "a hook without SSFUZZ_TEST_HOOKS=1 does nothing" "$tmp/inert" 's["errors"] == 0'

# crash: the worker dies on every float64 case, also in a fresh worker.
SSFUZZ_TEST_HOOKS=1 SSFUZZ_TORCH_TEST_FAULT=crash:dtype=float64 fuzz "$tmp/crash" -t torch:eager-cpu:setitem-clone --cases 30
check "crash: a recurring crash is a crash finding" "$tmp/crash" 'hits("crash") > 0 and hits("flaky") == 0 and s["cases"] == 30'

# flaky: the worker dies on its 25th run only; the rerun in a fresh worker passes.
SSFUZZ_TEST_HOOKS=1 SSFUZZ_TORCH_TEST_FAULT=crash:25 fuzz "$tmp/flaky" -t torch:eager-cpu:setitem-clone --cases 40
check "flaky: a crash that does not recur is flaky, once" "$tmp/flaky" 'hits("flaky") == 1 and hits("crash") == 0'
f=$(ls "$tmp"/flaky/flaky-*.json 2>/dev/null | head -1)
if [ -n "$f" ] && "$py" -c 'import json,sys; m=json.load(open(sys.argv[1]))["meta"]; sys.exit(0 if m.get("minimized") is False else 1)' "$f"; then
    pass "flaky: its reproducer is not minimized"
else fail "flaky: its reproducer is not minimized" "$(ls "$tmp/flaky")"; fi

# timeout: a hung worker, in fuzz (the campaign's limit) and in replay (the engine's).
SSFUZZ_TEST_HOOKS=1 SSFUZZ_TORCH_TEST_FAULT=hang:10 fuzz "$tmp/hang" -t torch:eager-cpu:setitem-clone --cases 20 --case-timeout 2
check "timeout: a hung worker in fuzz" "$tmp/hang" 'hits("timeout") > 0 and hits("crash") == 0'
SSFUZZ_TEST_HOOKS=1 SSFUZZ_TORCH_TEST_FAULT=hang:1 SSFUZZ_TORCH_TIMEOUT=2 \
    expect_rc "timeout: a hung worker in replay (exit 1)" 1 "$SSFUZZ" replay -t torch:eager-cpu:setitem corpus/shift-right-1d.json
grep -q "FINDING timeout on torch:eager-cpu:setitem" "$tmp/out" && pass "timeout: replay says timeout, not crash" \
    || fail "timeout: replay says timeout" "$(cat "$tmp/out")"

# A worker that stops reading mid-case: writing a 400 KB case has the same deadline.
cat >"$tmp/big.json" <<'EOF'
{"format": "ssfuzz-case", "version": 1, "dtype": "float32", "storage": {"numel": 100000},
 "input": {"offset": 0, "sizes": [100000], "strides": [1]},
 "src": {"storage": "input", "offset": 0, "sizes": [99999], "strides": [1]},
 "dim": 0, "start": 1, "end": null, "step": 1, "fill": {"seed": 1}}
EOF
start=$(date +%s)
SSFUZZ_TEST_HOOKS=1 SSFUZZ_TORCH_TEST_FAULT=deaf:1 SSFUZZ_TORCH_TIMEOUT=3 \
    timeout 120 "$SSFUZZ" replay -t torch:eager-cpu:setitem-clone "$tmp/big.json" >"$tmp/out" 2>&1
rc=$? took=$(( $(date +%s) - start ))
[ "$rc" = 1 ] && grep -q "FINDING timeout" "$tmp/out" && [ "$took" -lt 60 ] \
    && pass "a worker that stops reading: timeout in ${took}s" || fail "a worker that stops reading" "exit $rc after ${took}s: $(tail -2 "$tmp/out")"

# raised: the compiled run raises where eager runs the same program.
if "$py" -c 'import torch, sys; sys.exit(0 if hasattr(torch, "compile") else 1)'; then
    SSFUZZ_TEST_HOOKS=1 SSFUZZ_TORCH_TEST_FAULT=compile-raise:1 fuzz "$tmp/raised" -t torch:compile-cpu:setitem-clone --cases 6
    check "raised: compiled raises, eager runs: a finding" "$tmp/raised" 'hits("raised") > 0 and s["errors"] == 0'
    grep -rq "eager runs it" "$tmp"/raised/raised-*.json 2>/dev/null && pass "raised: says both sides" \
        || fail "raised: says both sides" "$(ls "$tmp/raised")"
else
    echo "skip torch-verdicts raised: torch $("$py" -c 'import torch; print(torch.__version__)') has no torch.compile"
fi
