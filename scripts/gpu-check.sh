#!/usr/bin/env bash
# gpu-check.sh - on a machine with a CUDA GPU, in one command (under 5 minutes):
#   build for the device present, run the unit tests (the GPU tests no longer
#   skip), replay corpus/ on every cuda:* target, run compute-sanitizer
#   (memcheck, racecheck, initcheck) over a replay, and print GPU benchmark
#   figures when a benchmark exists, fuzz the CUDA example plugin for 20 s.
#   Logs go to $OUT (else build/gpu-check/).
# Exit 0 when every required step passed; mutants are expected to mismatch and
# only reported.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
LOG=${OUT:-build/gpu-check}
mkdir -p "$LOG"
START=$(date +%s)
BUDGET=${GPU_CHECK_BUDGET:-290}          # seconds for the whole script
SSFUZZ=build/ssfuzz
failed=() ok=()

left() { echo $((BUDGET - ($(date +%s) - START))); }
# step NAME LIMIT CMD...: run with a time limit (bounded by what is left), log, record.
step() {
    local name=$1 limit=$2; shift 2
    local l; l=$(left)
    [ "$limit" -gt "$l" ] && limit=$l
    if [ "$limit" -le 5 ]; then echo "-- $name: skipped, time budget spent"; failed+=("$name (no time)"); return 1; fi
    echo "-- $name (limit ${limit}s)"
    timeout --kill-after=5 "$limit" "$@" >"$LOG/$name.log" 2>&1
    local rc=$?
    tail -n 4 "$LOG/$name.log" | sed 's/^/   /'
    if [ $rc = 0 ]; then ok+=("$name"); else failed+=("$name (exit $rc)"); fi
    return $rc
}

echo "== device"
if ! nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader | tee "$LOG/device.txt"; then
    echo "gpu-check: nvidia-smi failed: no usable GPU here" >&2; exit 3
fi
SAN=$(command -v compute-sanitizer)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [ -z "$SAN" ] && [ -x "$c" ] && SAN=$c
done

echo "== build (CUDA_ARCH from the device)"
step build 150 make -j"$(nproc)" all test-unit || { echo "build failed: see $LOG/build.log"; exit 1; }

echo "== targets"
$SSFUZZ targets | tee "$LOG/targets.txt"
if grep -q '^cuda:reinplace .* available$' "$LOG/targets.txt"; then :; else
    echo "gpu-check: cuda targets unavailable after a GPU build"; exit 3
fi

echo "== unit tests"
for t in build/tests/test_*; do
    [ -x "$t" ] && step "unit-$(basename "$t")" 60 "$t"
done

echo "== corpus replay on every cuda:* target"
CORPUS=corpus/
while read -r name kind _; do
    case $name in cuda:*) ;; *) continue ;; esac
    if [ "$kind" = mutant ]; then
        # Mutants may agree on a GPU where one wave hides the bug: report only.
        # Bounded by the script's budget too, so seven mutants cannot overrun it.
        lim=$(left); [ "$lim" -gt 60 ] && lim=60
        if [ "$lim" -le 5 ]; then echo "   $name (mutant): skipped, time budget spent"; continue; fi
        timeout "$lim" $SSFUZZ replay "$CORPUS" --target "$name" -q >"$LOG/replay-$name.log" 2>&1
        echo "   $name (mutant): exit $? — $(tail -n 1 "$LOG/replay-$name.log")"
    else
        step "replay-$name" 60 $SSFUZZ replay "$CORPUS" --target "$name" -q
    fi
done < "$LOG/targets.txt"

echo "== compute-sanitizer over a replay (correct kernels)"
CASES=$(find corpus -maxdepth 1 -name "*.json" | sort | head -n 12)
if [ -n "$SAN" ] && [ -n "$CASES" ]; then
    for tool in memcheck racecheck initcheck; do
        # shellcheck disable=SC2086
        step "sanitizer-$tool" 60 "$SAN" --tool "$tool" --error-exitcode 9 \
            $SSFUZZ replay $CASES --target cuda:reinplace --target cuda:functional --target cuda:index -q
    done
else
    echo "   SKIPPED: no compute-sanitizer (PATH, /usr/local/cuda) or no corpus cases"
fi

# ---- HOOK(bench): GPU benchmark figures -------------------------------------
# `make bench-gpu` (bench/bench_gpu.c): cuda:reinplace bandwidth beside
# cudaMemcpy on 256 MiB storages, and small cases batched into one launch vs one
# launch per case, every result checked against the reference. Built in its own
# step so that the run's limit covers the run only; both stay inside BUDGET.
echo "== GPU benchmark (make bench-gpu)"
if step bench-gpu-build 90 make -s build/bench/bench_gpu; then
    rm -f "$LOG/bench-gpu.log"
    step bench-gpu 90 make -s bench-gpu
    [ -f "$LOG/bench-gpu.log" ] && sed 's/^/   | /' "$LOG/bench-gpu.log"
fi
# ------------------------------------------------------------------------------

# ---- the torch engine on the GPU: a short campaign per compile-cuda spelling --
# The device image's python3 (a venv with torch + Triton) is found on PATH, or
# set SSFUZZ_PYTHON. Findings here are PyTorch's, so they are reported, not failed.
echo "== torch:*-cuda (short campaigns)"
if $SSFUZZ targets 2>/dev/null | grep -q '^torch:compile-cuda:setitem .*available$'; then
    for sp in setitem-clone scatter-return setitem; do
        step "torch-compile-cuda-$sp" 60 $SSFUZZ fuzz -t "torch:compile-cuda:$sp" -t "torch:eager-cuda:$sp" \
            --seed 1 --time 40 --minimize-time 10 -q -o "$LOG/torch-$sp"
        [ $? = 1 ] && { failed=("${failed[@]:0:${#failed[@]}-1}"); ok+=("torch-compile-cuda-$sp (findings)"); }
    done
else
    echo "   skipped: $($SSFUZZ targets 2>/dev/null | grep '^torch:compile-cuda:setitem ' | cut -c38-)"
fi

# ---- the CUDA example plugin: ssfuzz's device storages around a user's launch --
# The naive kernel has no overlap check, so findings (mismatch, accepted-invalid)
# are expected and pass; a crash or timeout finding (a device error) fails.
echo "== plugin naive_cuda:copy (a short campaign)"
if step plugins-build 60 make -s plugins && [ -f build/plugins/naive_cuda.so ]; then
    step plugin-cuda 45 $SSFUZZ fuzz --plugin build/plugins/naive_cuda.so -t naive_cuda:copy \
        --seed 1 --time 20 --minimize-time 5 -q -o "$LOG/plugin-cuda"
    if [ $? = 1 ] && ! ls "$LOG"/plugin-cuda/crash-* "$LOG"/plugin-cuda/timeout-* >/dev/null 2>&1; then
        failed=("${failed[@]:0:${#failed[@]}-1}"); ok+=("plugin-cuda (findings: $(ls "$LOG/plugin-cuda" | grep -c json))")
    fi
fi

echo "== summary ($(( $(date +%s) - START ))s; logs in $LOG)"
echo "${#ok[@]} passed, ${#failed[@]} failed"
for f in "${failed[@]}"; do echo "   FAILED $f"; done
[ ${#failed[@]} = 0 ]
