#!/usr/bin/env bash
# Python kernels (--py-kernel, docs/plugins.md "Test your own Triton kernel"):
# modules load without running (names read from the source; bad ones one line,
# exit 2); nothing is ever imported from a path a case file names; the plain
# Python example is found, minimized and replayed on any torch, its fix
# survives; every verdict (crash, flaky, timeout, raised, guard-band write, a
# raise on internal overlap agreeing) through the torch engine's worker path;
# the Triton examples on the CPU through Triton's interpreter, where a python
# with Triton exists (build/torch-*/bin/python), else skipped with the reason.
set -u
. "$(dirname "$0")/lib/common.sh"
EX=$PWD/examples/triton

# --- loading: nothing of the module runs; errors are one line, exit 2 ---
mkdir -p "$tmp/mods/emu"
cat >"$tmp/mods/evil.py" <<'EOF'
import os
open(os.environ["EVIL_MARKER"], "w").close()   # proof that this module ran
SSFUZZ_KERNELS = {"k": None}
EOF
export EVIL_MARKER=$tmp/evil-ran
printf 'SSFUZZ_KERNELS = {"reinplace": f}\n' >"$tmp/mods/emu.py"
printf 'SSFUZZ_KERNELS = dict(a=f)\n' >"$tmp/mods/notdict.py"
printf 'SSFUZZ_KERNELS = {"tiled": f}\n' >"$tmp/mods/emu/naive_copy.py"
expect_rc "--py-kernel loads a module (version)" 0 "$SSFUZZ" --py-kernel "$tmp/mods/evil.py" version
[ ! -e "$EVIL_MARKER" ] && pass "loading reads the kernel names without running the module" \
    || fail "loading ran the module"
bad_load() {  # NAME PATTERN ARGS...: exit 2, exactly one line on stderr, matching PATTERN
    local name=$1 pat=$2; shift 2
    for bin in "$SSFUZZ" "$SSFUZZ_ASAN"; do
        "$bin" "$@" version >"$tmp/out" 2>"$tmp/err"; local rc=$?
        if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "$pat" "$tmp/err"; then pass "$name [$bin]"
        else fail "$name [$bin]" "exit $rc; $(cat "$tmp/err")"; fi
    done
}
bad_load "missing module" "py-kernel .*nope.py: cannot open" --py-kernel "$tmp/nope.py"
bad_load "not NAME.py" "a kernel module is NAME.py" --py-kernel "$EX/../plugins/naive.c"
bad_load "no dict literal" "notdict.py: line 1: SSFUZZ_KERNELS must be a dict literal" --py-kernel "$tmp/mods/notdict.py"
bad_load "a target shadowing a built-in" "duplicate target emu:reinplace (a built-in target)" --py-kernel "$tmp/mods/emu.py"
bad_load "two modules of one name" "duplicate target naive_copy:tiled (already loaded from .*naive_copy.py)" \
    --py-kernel "$EX/naive_copy.py" --py-kernel "$tmp/mods/emu/naive_copy.py"
expect_rc "--py-kernel without a value: exit 2" 2 "$SSFUZZ" version --py-kernel
grep -q "needs the path of a Python kernel module" "$tmp/err" && pass "it says what the option needs" \
    || fail "--py-kernel without a value" "$(cat "$tmp/err")"
SSFUZZ_PY_KERNELS="$tmp/mods/notdict.py" expect_rc "a bad SSFUZZ_PY_KERNELS entry: exit 2" 2 "$SSFUZZ" version
grep -q "SSFUZZ_PY_KERNELS" "$tmp/err" && pass "the error names SSFUZZ_PY_KERNELS" || fail "env error" "$(cat "$tmp/err")"
SSFUZZ_PY_KERNELS="$EX/naive_copy.py:$EX/plain_python.py" expect_rc "SSFUZZ_PY_KERNELS loads both" 0 \
    "$SSFUZZ" --py-kernel "$EX/naive_copy.py" version

# --- a case file naming a module: never imported, whatever else is loaded ---
cat >"$tmp/evil-case.json" <<EOF
{"format": "ssfuzz-case", "version": 1, "dtype": "uint8", "storage": {"numel": 10},
 "input": {"offset": 0, "sizes": [10], "strides": [1]},
 "src": {"storage": "input", "offset": 0, "sizes": [9], "strides": [1]},
 "dim": 0, "start": 1, "end": null, "step": 1, "fill": {"seed": 0},
 "meta": {"target": "evil:k", "pykernel": {"name": "evil", "path": "$tmp/mods/evil.py", "kernel": "k", "device": "cpu"}}}
EOF
expect_rc "regress of a case naming an unloaded module: exit 3" 3 "$SSFUZZ" regress "$tmp/evil-case.json"
for cmd in replay explain; do
  for bin in "$SSFUZZ" "$SSFUZZ_ASAN"; do
    expect_rc "$cmd of a case naming an unloaded module: exit 3 [$bin]" 3 "$bin" "$cmd" "$tmp/evil-case.json"
    grep -q "Python kernel module evil is not loaded (its target evil:k): rerun with --py-kernel .*evil.py" \
        "$tmp/out" "$tmp/err" && pass "$cmd says not loaded, names the option and path" \
        || fail "$cmd not loaded line" "$(cat "$tmp/out" "$tmp/err" | head -3)"
  done
done
expect_rc "with another module loaded: still exit 3" 3 "$SSFUZZ" --py-kernel "$EX/plain_python.py" replay "$tmp/evil-case.json"
[ ! -e "$EVIL_MARKER" ] && pass "the module a case file names was never imported" || fail "a case file's module ran"

# --- pythons: any torch for plain Python kernels, one with Triton for Triton's ---
torch_py="" triton_py="" plain_py=""
for cand in build/torch-2.15.0/bin/python build/torch-*/bin/python /usr/bin/python3 python3; do
    command -v "$cand" >/dev/null 2>&1 || continue
    "$cand" -c 'import torch' 2>/dev/null || continue
    [ -z "$torch_py" ] && torch_py=$(command -v "$cand")
    if [ -z "$triton_py" ] && "$cand" -c 'import triton' 2>/dev/null; then triton_py=$(command -v "$cand")
    elif [ -z "$plain_py" ] && ! "$cand" -c 'import triton' 2>/dev/null; then plain_py=$(command -v "$cand"); fi
done
if [ -z "$torch_py" ]; then echo "skip py-kernel runs: no python with torch (apt-get install python3-torch)"; exit 0; fi
# Plain Python kernels run on whichever torch is there; Debian's (no Triton) first.
export SSFUZZ_PYTHON=${plain_py:-$torch_py}

# --- the plain Python example: listed, found, minimized, replayed; its fix survives ---
"$SSFUZZ" --py-kernel "$EX/plain_python.py" targets >"$tmp/targets" 2>&1
grep -q "^plain_python:loop  *pykernel  *available$" "$tmp/targets" && grep -q "^plain_python:clone@cuda  *pykernel " \
    "$tmp/targets" && pass "targets lists NAME:KERNEL and NAME:KERNEL@cuda, kind pykernel" \
    || fail "targets" "$(grep plain_python "$tmp/targets")"
if ! nvidia-smi >/dev/null 2>&1; then
    grep -q "^plain_python:loop@cuda  *pykernel  *unavailable" "$tmp/targets" && pass "@cuda without a GPU: unavailable" \
        || fail "@cuda unavailable" "$(grep 'plain_python:loop@cuda' "$tmp/targets")"
fi
"$SSFUZZ" --py-kernel "$EX/plain_python.py" fuzz -t plain_python:loop --seed 1 --cases 40 --minimize-time 10 -q \
    -o "$tmp/loop" >"$tmp/loop.out" 2>&1
rc=$?
small=$(ls "$tmp"/loop/mismatch-plain_python_loop-*.json 2>/dev/null | head -1)
if [ "$rc" = 1 ] && [ -n "$small" ] && "$SSFUZZ_PYTHON" - "$small" "$EX/plain_python.py" <<'EOF'
import json, os, sys
c = json.load(open(sys.argv[1]))
assert len(c["input"]["sizes"]) == 1 and c["storage"]["numel"] <= 4, c
m = c["meta"]
assert m["target"] == "plain_python:loop" and m["minimized"] is True, m
p = m["pykernel"]
assert p["name"] == "plain_python" and p["kernel"] == "loop" and p["device"] == "cpu", p
assert os.path.samefile(p["path"], sys.argv[2]) and p["torch"], p
EOF
then pass "plain_python:loop: mismatch, minimized to 1-D <= 4 elements, meta.pykernel"
else fail "plain_python:loop finding" "exit $rc; $(tail -3 "$tmp/loop.out")"; fi
grep -q "reproduce: .*--py-kernel .*plain_python.py --target plain_python:loop --max-numel 4096 --large-per-mille 0" \
    "$tmp/loop.out" && pass "the reproduce line loads the module; CPU cases capped" || fail "reproduce line" "$(grep reproduce "$tmp/loop.out")"
ls "$tmp"/loop/accepted-invalid-plain_python_loop-*.json >/dev/null 2>&1 \
    && pass "a kernel that writes an internally overlapping view: accepted-invalid" || fail "accepted-invalid" "$(ls "$tmp/loop")"
if [ -n "$small" ]; then
    expect_rc "replay with --py-kernel: mismatch (exit 1)" 1 "$SSFUZZ" --py-kernel "$EX/plain_python.py" replay "$small"
    grep -q "MISMATCH plain_python:loop" "$tmp/out" && pass "replay runs the reproducer's own target" || fail "replay target" "$(cat "$tmp/out")"
    expect_rc "replay without it: exit 3" 3 "$SSFUZZ" replay "$small"
    grep -q "Python kernel module plain_python is not loaded" "$tmp/err" "$tmp/out" && pass "without it: not loaded" \
        || fail "not loaded" "$(cat "$tmp/err")"
    mkdir -p "$tmp/other" && cp "$EX/plain_python.py" "$tmp/other/"
    expect_rc "replay with another file of that name: runs it" 1 "$SSFUZZ" --py-kernel "$tmp/other/plain_python.py" replay "$small"
    grep -q "note: found with the kernel module .*examples/triton/plain_python.py, replayed with $tmp/other/plain_python.py" \
        "$tmp/err" && pass "and notes both paths" || fail "other file note" "$(cat "$tmp/err")"
fi
expect_rc "plain_python:clone survives 300 cases" 0 "$SSFUZZ" --py-kernel "$EX/plain_python.py" fuzz \
    -t plain_python:clone --seed 1 --cases 300 -q -o "$tmp/clone"

# --- verdicts: the torch engine's worker path, for kernels ---
cat >"$tmp/mods/bad.py" <<'EOF'
import ctypes, os, time

def written(x, dim, start, end, step):
    return x[(slice(None),) * (dim % x.dim()) + (slice(start, end, step),)]

def crash(x, src, dim, start, end, step):
    os.kill(os.getpid(), 9)

def flaky(x, src, dim, start, end, step):
    if not os.path.exists(os.environ["FLAKY_MARKER"]):
        open(os.environ["FLAKY_MARKER"], "w").close()
        os.kill(os.getpid(), 9)
    written(x, dim, start, end, step).copy_(src.clone())

def hang(x, src, dim, start, end, step):
    time.sleep(1000)

def boom(x, src, dim, start, end, step):
    raise RuntimeError("boom")

def oob(x, src, dim, start, end, step):
    written(x, dim, start, end, step).copy_(src.clone())
    ctypes.memset(x.data_ptr() - x.storage_offset() * x.element_size() - 1, 0, 1)   # before the storage

SSFUZZ_KERNELS = {"crash": crash, "flaky": flaky, "hang": hang, "boom": boom, "oob": oob}
EOF
export FLAKY_MARKER=$tmp/flaky-ran
cat >"$tmp/shift.json" <<'EOF'
{"format": "ssfuzz-case", "version": 1, "dtype": "uint8", "storage": {"numel": 10},
 "input": {"offset": 0, "sizes": [10], "strides": [1]},
 "src": {"storage": "input", "offset": 0, "sizes": [9], "strides": [1]},
 "dim": 0, "start": 1, "end": null, "step": 1, "fill": {"seed": 0}}
EOF
cat >"$tmp/internal.json" <<'EOF'
{"format": "ssfuzz-case", "version": 1, "dtype": "float32", "storage": {"numel": 3},
 "input": {"offset": 0, "sizes": [2, 3], "strides": [0, 1]},
 "src": {"storage": "separate", "offset": 0, "sizes": [1, 3], "strides": [3, 1]}, "src_storage": {"numel": 3},
 "dim": 0, "start": 0, "end": 1, "step": 1, "fill": {"seed": 0}}
EOF
verdict() {   # NAME KERNEL CASE WANT-RC PATTERN [BIN]: replay's exit and line
    local name=$1 k=$2 case=$3 want=$4 pat=$5 bin=${6:-$SSFUZZ}
    SSFUZZ_TORCH_TIMEOUT=3 "$bin" --py-kernel "$tmp/mods/bad.py" replay -t "bad:$k" "$case" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" = "$want" ] && grep -q "$pat" "$tmp/out"; then pass "$name"
    else fail "$name" "exit $rc; $(cat "$tmp/out" "$tmp/err" | head -3)"; fi
}
verdict "a kernel that kills its worker every time: crash" crash "$tmp/shift.json" 1 \
    "FINDING crash on bad:crash: python kernel worker died from signal 9.*again in a fresh worker"
verdict "a kernel that kills its worker once: flaky" flaky "$tmp/shift.json" 1 \
    "FINDING flaky on bad:flaky: flaky: python kernel worker died from signal 9"
verdict "a kernel that hangs: timeout" hang "$tmp/shift.json" 1 \
    "FINDING timeout on bad:hang: python kernel worker .*did not answer within 3 s"
verdict "a kernel that raises on a valid case: raised, the exception named" boom "$tmp/shift.json" 1 \
    "MISMATCH bad:boom raised on a case it must run (raised): kernel raised RuntimeError: boom (bad.py:[0-9]* in boom)"
verdict "raising where the reference rejects (internal overlap): agreement" boom "$tmp/internal.json" 0 \
    "ok: rejected by the reference and 1 target run alike"
verdict "a write before the storage: guard-band write" oob "$tmp/shift.json" 1 "MISMATCH bad:oob (guard-band write)"
verdict "the same under ASan" oob "$tmp/shift.json" 1 "MISMATCH bad:oob (guard-band write)" "$SSFUZZ_ASAN"

# --- the Triton examples, on the CPU through Triton's interpreter ---
if [ -n "$plain_py" ]; then
    SSFUZZ_PYTHON=$plain_py expect_rc "a Triton kernel without Triton: unavailable, exit 3" 3 \
        "$SSFUZZ" --py-kernel "$EX/naive_copy.py" fuzz -t naive_copy:tiled --cases 5 -o "$tmp/none"
    grep -q "unavailable: cannot import .*naive_copy.py: ModuleNotFoundError: No module named 'triton'" "$tmp/err" \
        && pass "it says why: no module named triton" || fail "no triton reason" "$(cat "$tmp/err")"
fi
if [ -z "$triton_py" ]; then
    echo "skip triton examples: no python with torch and Triton (make torch-env builds build/torch-2.15.0)"; exit 0
fi
export SSFUZZ_PYTHON=$triton_py
"$SSFUZZ" --py-kernel "$EX/naive_copy.py" fuzz -t naive_copy:tiled --seed 1 --cases 40 --minimize-time 30 -q \
    -o "$tmp/naive" >"$tmp/naive.out" 2>&1
rc=$?
small=$(ls "$tmp"/naive/mismatch-naive_copy_tiled-*.json 2>/dev/null | head -1)
if [ "$rc" = 1 ] && [ -n "$small" ] && "$triton_py" - "$small" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
assert len(c["input"]["sizes"]) == 1 and c["storage"]["numel"] <= 17, c   # two blocks of 8 and one more
assert c["src"]["storage"] == "input", c["src"]
p = c["meta"]["pykernel"]
assert p["triton"] and p["triton_interpreter"] is True and p["device"] == "cpu", p
EOF
then pass "naive_copy:tiled: mismatch through Triton's interpreter, minimized to 1-D <= 17 elements"
else fail "naive_copy:tiled finding" "exit $rc; $(tail -3 "$tmp/naive.out")"; fi
if [ -n "$small" ]; then
    expect_rc "the Triton reproducer replays (exit 1)" 1 "$SSFUZZ" --py-kernel "$EX/naive_copy.py" replay "$small"
    expect_rc "and without the module: exit 3" 3 "$SSFUZZ" replay "$small"
fi
# bounded by cases, not time: worker start-up (torch and Triton imports) varies with the machine's load
"$SSFUZZ" --py-kernel "$EX/staged_copy.py" fuzz -t staged_copy:staged --seed 3 --cases 200 -q -o "$tmp/staged" \
    >"$tmp/staged.out" 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q "^fuzz: 200 cases .* 0 unique findings" "$tmp/staged.out" \
    && pass "staged_copy:staged survives 200 cases ($(grep -o 'in [0-9.]* s ([0-9]* cases/s)' "$tmp/staged.out"))" \
    || fail "staged_copy:staged" "exit $rc; $(tail -3 "$tmp/staged.out")"
