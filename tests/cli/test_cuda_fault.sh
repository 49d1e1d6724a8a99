#!/usr/bin/env bash
# Sticky CUDA errors end to end, injected by the fake engine (SSFUZZ_FAKE_CUDA=fault:N):
# replay and minimize keep going in a fresh CUDA child, fuzz respawns the poisoned worker.
set -u
. "$(dirname "$0")/lib/common.sh"

# Replay: with every second run faulting, the runs after each fault agree again.
SSFUZZ_FAKE_CUDA=fault:2 "$SSFUZZ" replay corpus/ --target cuda:reinplace >"$tmp/rp" 2>&1
failed=$(grep -c 'FINDING crash on cuda:reinplace: .*illegal memory access' "$tmp/rp") poisoned=$(grep -c 'poisoned' "$tmp/rp")
agree=$(grep -c ': ok: ' "$tmp/rp") n=$(grep -L '"program"' corpus/*.json | wc -l)   # program cases: not applicable
if [ "$poisoned" = 0 ] && [ "$failed" -ge $((n / 2 - 1)) ] && [ $((failed + agree)) = "$n" ]; then
    pass "replay: the run after a sticky fault runs in a fresh CUDA child"
else fail "replay after a sticky fault" "$failed failed, $agree agree, $poisoned poisoned of $n: $(head -3 "$tmp/rp")"; fi

# In process (SSFUZZ_CUDA_IN_PROCESS=1) the same fault poisons every later run, and says so.
SSFUZZ_CUDA_IN_PROCESS=1 SSFUZZ_FAKE_CUDA=fault:1 "$SSFUZZ" replay corpus/ --target cuda:reinplace >"$tmp/ip" 2>&1
if [ "$(grep -c 'unavailable: CUDA context poisoned by an earlier run' "$tmp/ip")" = $((n - 1)) ]; then
    pass "in process: a poisoned context is reported, never run again"
else fail "in process poisoning" "$(head -3 "$tmp/ip")"; fi

# Fuzz: each worker faults on its 40th run and is respawned; every case still runs,
# each fault is a crash hit, and the crash reproducers (one per bug) are written
# unminimized with their cause.
SSFUZZ_FAKE_CUDA=fault:40 "$SSFUZZ" fuzz -t cuda:reinplace --seed 3 --cases 300 -j 2 -q -o "$tmp/fz" >"$tmp/fo" 2>&1
rc=$?
crashes=$(sed -n 's/^ *crash  *cuda:reinplace  *\([0-9]*\) hits.*/\1/p' "$tmp/fo" | awk '{s += $1} END {print s + 0}')
files=$(ls "$tmp/fz"/crash-cuda_reinplace-*.json 2>/dev/null | wc -l)
if [ "$rc" = 1 ] && grep -q '^fuzz: 300 cases' "$tmp/fo" && [ "$crashes" -ge 5 ] && [ "$files" -ge 1 ] \
   && ! grep -L 'sticky CUDA error' "$tmp/fz"/crash-*.json | grep -q .; then
    pass "fuzz: a poisoned worker is respawned; $crashes sticky crashes recorded"
else fail "fuzz respawn" "exit $rc, $crashes crashes: $(tail -3 "$tmp/fo")"; fi

# The crashes were the injected fault, not the cases: without it they agree.
if SSFUZZ_FAKE_CUDA=1 "$SSFUZZ" replay "$tmp/fz"/crash-*.json --target cuda:reinplace -q >"$tmp/ok" 2>&1; then
    pass "fuzz: the recorded cases agree without the fault"
else fail "replay of the sticky crashes" "$(tail -3 "$tmp/ok")"; fi

expect_rc "a malformed SSFUZZ_FAKE_CUDA leaves the engine off" 3 env SSFUZZ_FAKE_CUDA=fault:0 \
    "$SSFUZZ" replay corpus/shift-right-minimal.json --target cuda:reinplace
