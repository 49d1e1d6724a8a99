#!/usr/bin/env bash
# gpu-check.sh - the GPU session's one command: build offline for the device present, run every GPU check, bring back one archive.
#
#   scripts/gpu-check.sh                          on the GPU machine (the device tool sets OUT)
#   GPU_CHECK_DRY_RUN=1 scripts/gpu-check.sh      here: no nvcc, the fake CUDA engine, short steps
#
# Needs nothing but a C compiler, make and nvcc: cJSON is built from third_party/
# (SS_VENDORED_CJSON=1), apt is never called (SS_OFFLINE=1), and the unit tests'
# cmocka comes from build/gpu-debs/*.deb (scripts/gpu-prepare.sh, run where there
# is network) unpacked with `dpkg -x` into build/gpu-prefix. PyTorch is the first
# python3 on PATH that imports it (SSFUZZ_PYTHON overrides).
#
# Writes two files into $OUT (default build/gpu-check-out): summary.txt (one page:
# each step's status, time and figures) and gpu-check.tar.gz (every log). Total
# budget GPU_CHECK_BUDGET seconds (default 470: under 8 minutes); each step has its
# own limit, cut to what is left, and a failed step never stops the next one.
# Exit 0 when no step failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
START=$(date +%s)
DRY=${GPU_CHECK_DRY_RUN:-0}
BUDGET=${GPU_CHECK_BUDGET:-470}
OUT=${OUT:-build/gpu-check-out}
W=build/gpu-check-logs                      # every log; archived at the end
B=build/gpu                                 # the build for this device
[ "$DRY" = 1 ] && B=build/gpu-dry
PREFIX=build/gpu-prefix
JOBS=$(nproc 2>/dev/null || echo 4)
rm -rf "$W" && mkdir -p "$W" "$OUT" || exit 2
SSFUZZ=$B/ssfuzz
results=()                                  # "STATUS NAME SECONDS NOTE" per step
skipped_in=()
nfail=0

left() { echo $((BUDGET - ($(date +%s) - START))); }
record() {   # status name seconds note
    results+=("$(printf '%-5s %-24s %4ss  %s' "$1" "$2" "$3" "$4")")
    [ "$1" = FAIL ] && nfail=$((nfail + 1))
    echo "-- $2: $1 ($3 s) $4"
}
skip() { record SKIP "$1" 0 "$2"; }
# step NAME LIMIT OKCODES CMD...: run CMD with a time limit (cut to what is left), log to
# $W/NAME.log; PASS when its exit code is in OKCODES ("0", "0 1"...). NOTE may be set after.
step() {
    local name=$1 limit=$2 okc=$3; shift 3
    local l; l=$(left)
    [ "$limit" -gt "$l" ] && limit=$l
    if [ "$limit" -le 5 ]; then record FAIL "$name" 0 "not run: the time budget is spent"; return 1; fi
    local t0; t0=$(date +%s)
    timeout --kill-after=5 "$limit" "$@" >"$W/$name.log" 2>&1
    local rc=$? dt=$(( $(date +%s) - t0 ))
    if [ $rc = 124 ] || [ $rc = 137 ]; then record FAIL "$name" "$dt" "timed out after ${limit}s"; return 1; fi
    case " $okc " in
    *" $rc "*) record PASS "$name" "$dt" "exit $rc"; return 0 ;;
    *) record FAIL "$name" "$dt" "exit $rc: $(grep -v '^\s*$' "$W/$name.log" | tail -n 1 | cut -c1-90)"; return 1 ;;
    esac
}
# Add to the last result's note (figures read from its log); fail_last: it failed after all.
note() { results[-1]="${results[-1]}; $1"; }
fail_last() {
    case ${results[-1]} in PASS*) results[-1]="FAIL${results[-1]#PASS}"; nfail=$((nfail + 1)) ;; esac
    note "$1"
}

# ---- device and tools ---------------------------------------------------------------
{
    echo "date: $(date -u +%FT%TZ)   dry run: $DRY   budget: ${BUDGET}s"
    echo "host: $(uname -srm), $JOBS CPUs, $(free -g 2>/dev/null | awk '/^Mem:/ {print $2 " GiB"}')"
    echo "git: $(git rev-parse --short HEAD 2>/dev/null) $(git status --porcelain 2>/dev/null | wc -l) changed files"
} >"$W/host.txt"
SMI=$(nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader 2>&1 | head -n 1)
if [ "$DRY" = 1 ]; then
    export SS_NO_CUDA=1 SSFUZZ_FAKE_CUDA=1 SS_EXPECT_GPU=0
    DEVICE="none (dry run: built without nvcc, cuda:* on the fake CUDA engine)"
elif echo "$SMI" | grep -qE ', [0-9]+\.[0-9]+, '; then
    export SS_EXPECT_GPU=1
    DEVICE=$SMI
else
    DEVICE="nvidia-smi failed: $SMI"
fi
echo "device: $DEVICE" >>"$W/host.txt"
NVCC=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
echo "nvcc: ${NVCC:-none} $([ -n "$NVCC" ] && "$NVCC" --version | tail -n 1)" >>"$W/host.txt"
SAN=$(command -v compute-sanitizer)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [ -z "$SAN" ] && [ -x "$c" ] && SAN=$c
done
PY=${SSFUZZ_PYTHON:-$(command -v python3)}
echo "python3: ${PY:-none} $("${PY:-false}" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())' 2>&1 | tail -n 1)" >>"$W/host.txt"
cat "$W/host.txt"

# ---- build --------------------------------------------------------------------------
MK=(make -j"$JOBS" BUILD="$B" DEPS_DIR="$B" SS_VENDORED_CJSON=1 SS_OFFLINE=1)
if ls build/gpu-debs/*.deb >/dev/null 2>&1; then
    rm -rf "$PREFIX" && mkdir -p "$PREFIX"
    for f in build/gpu-debs/*.deb; do dpkg -x "$f" "$PREFIX" || echo "dpkg -x $f failed" >>"$W/prefix.log"; done
    MK+=(SS_PREFIX="$PREFIX")
fi
step build 200 "0" "${MK[@]}" all
step build-tests 120 "0" "${MK[@]}" test-unit
BENCH_BUILT=0   # bench_gpu: the benchmark, and memcheck's driver of the batched path
step bench-gpu-build 90 "0" "${MK[@]}" "$B/bench/bench_gpu" && BENCH_BUILT=1
"$SSFUZZ" targets >"$W/targets.txt" 2>&1
if grep -q '^cuda:reinplace .* available$' "$W/targets.txt"; then CUDA_OK=1
else CUDA_OK=0; record FAIL cuda-available 0 "$(grep '^cuda:reinplace ' "$W/targets.txt" | cut -c38- | cut -c1-90)"; fi
CORRECT=(cuda:reinplace cuda:functional cuda:index)
MUTANTS=($(awk '$1 ~ /^cuda:mut-/ {print $1}' "$W/targets.txt"))
T3=(--target cuda:reinplace --target cuda:functional --target cuda:index)

# ---- unit tests (the GPU tests run here; SS_EXPECT_GPU=1 fails a stub build) ----------
# One result line for all binaries; each binary is time-boxed and logged on its own.
t0=$(date +%s) up=0 uf=0 us=0 bad=()
for t in "$B"/tests/test_*; do
    [ -x "$t" ] || continue
    n=$(basename "$t") lim=30
    case $n in test_cuda|test_kdev_sim) lim=120 ;; esac
    l=$(left); [ "$lim" -gt "$l" ] && lim=$l
    if [ "$lim" -le 5 ]; then bad+=("$n (no time)"); continue; fi
    timeout --kill-after=5 "$lim" "$t" >"$W/unit-$n.log" 2>&1
    rc=$?
    count() { sed -n "s/^\[ *$1 *\] \([0-9]*\) test.*/\1/p" "$W/unit-$n.log" | tail -n 1; }
    p=$(count PASSED) f=$(count FAILED) k=$(count SKIPPED)
    up=$((up + ${p:-0})) uf=$((uf + ${f:-0})) us=$((us + ${k:-0}))
    [ "$rc" = 0 ] || bad+=("$n (exit $rc)")
    [ "${k:-0}" != 0 ] && skipped_in+=("$n")
done
st=PASS; [ ${#bad[@]} -gt 0 ] && st=FAIL
record "$st" unit-tests $(( $(date +%s) - t0 )) "$up passed, $uf failed, $us skipped${bad[*]:+; failed: ${bad[*]}}${skipped_in[*]:+; skips in: ${skipped_in[*]}}"
# Two of the GPU tests, as lines of their own: each order-independent program
# (mutants included) equal to emu forward; cases past one grid of threads.
u="$W/unit-test_cuda.log"
if [ -f "$u" ]; then
    m=$(grep -c 'order-independent programs equal to emu forward' "$u")
    if grep -q 'OK \] test_order_independent_mutants_match_emu' "$u"; then
        record PASS device-vs-emu 0 "$m kernels: every order-independent program equal to emu forward"
    else record FAIL device-vs-emu 0 "$(grep -A1 -m1 'ERROR\|SKIPPED \] test_order' "$u" | tr '\n' ' ' | cut -c1-90)"; fi
    if grep -q 'OK \] test_large_cases_wrap' "$u"; then record PASS grid-stride-wrap 0 "> 2 097 152 items, 3 layouts, 3 targets"
    else record FAIL grid-stride-wrap 0 "test_large_cases_wrap did not pass (see unit-test_cuda.log)"; fi
fi

if [ "$CUDA_OK" = 1 ]; then
    # ---- the corpus on the correct cuda targets -----------------------------------
    step regress-cuda 60 "0" "$SSFUZZ" regress corpus/ "${T3[@]}" -q --junit "$W/regress-cuda.xml"
    # ---- a campaign: 8 workers, each its own context; expect no finding, no timeout
    secs=45; [ "$DRY" = 1 ] && secs=5
    step fuzz-cuda-j8 $((secs + 40)) "0" "$SSFUZZ" fuzz "${T3[@]}" -j 8 --seed 13 --time "$secs" \
        --minimize-time 10 -q -o "$W/fuzz-cuda"
    note "$(grep -E '^fuzz: [0-9]+ cases' "$W/fuzz-cuda-j8.log" | head -n 1)"
    # ---- the sticky-error drill: good, illegal address, good again ------------------
    if [ "$DRY" = 1 ]; then
        step sticky-drill 30 "1" env SSFUZZ_FAKE_CUDA=fault:2 "$SSFUZZ" replay corpus/shift-right-minimal.json \
            corpus/shift-left-1d.json corpus/bool-shift.json corpus/shift-right-1d.json --target cuda:reinplace
        ok=$(grep -c ': ok: ' "$W/sticky-drill.log")
        note "fake engine: $ok of 4 runs agree around injected faults"
        [ "$ok" = 2 ] || fail_last "expected 2"
    else
        step sticky-drill 60 "0" "$B/tests/test_cuda_sticky"
        note "$(grep -E 'illegal launch|PASSED|FAILED|SKIPPED' "$W/sticky-drill.log" | head -n 3 | cut -c1-60 | tr '\n' ' ')"
        grep -q 'SKIPPED' "$W/sticky-drill.log" && fail_last "the drill skipped on a GPU machine"
    fi
    # ---- every mutant on the corpus: reported (one GPU wave may hide the bug) -------
    M=(); for m in "${MUTANTS[@]}"; do M+=(--target "$m"); done
    step replay-mutants 60 "0 1" "$SSFUZZ" replay corpus/ "${M[@]}" -q
    note "$(tail -n 1 "$W/replay-mutants.log")"
    # ---- one case over 2^31 elements (int32 index overflow) ------------------------
    n=$(( (1 << 31) + 4096 )); [ "$DRY" = 1 ] && n=$(( (1 << 21) + 4096 ))
    printf '{"format": "ssfuzz-case", "version": 1, "dtype": "uint8", "storage": {"numel": %d},
  "input": {"offset": 0, "sizes": [%d], "strides": [1]},
  "src": {"storage": "input", "offset": 0, "sizes": [%d], "strides": [1]},
  "dim": 0, "start": 1, "end": null, "step": 1, "fill": {"seed": 3}}\n' "$n" "$n" $((n - 1)) >"$W/big-shift.json"
    step big-case 120 "0" "$SSFUZZ" replay "$W/big-shift.json" --target cuda:reinplace --target cuda:functional \
        --max-bytes 8589934592
    note "$n elements: $(tail -n 1 "$W/big-case.log" | cut -c1-70)"
else
    for s in regress-cuda fuzz-cuda-j8 sticky-drill replay-mutants big-case; do skip "$s" "cuda:* unavailable"; done
fi

# ---- compute-sanitizer ----------------------------------------------------------------
if [ -n "$SAN" ] && [ "$CUDA_OK" = 1 ] && [ "$DRY" != 1 ]; then
    CASES=$(ls corpus/*.json | grep -v -e large -e 1m)
    A=(); for t in "${CORRECT[@]}" "${MUTANTS[@]}"; do A+=(--target "$t"); done
    # In process (one context), so the sanitizer sees every launch; mutants may mismatch (exit 1).
    # shellcheck disable=SC2086
    step memcheck-replay 120 "0 1" env SSFUZZ_CUDA_IN_PROCESS=1 "$SAN" --tool memcheck --error-exitcode 9 \
        "$SSFUZZ" replay $CASES "${A[@]}" -q
    note "$(grep -h 'ERROR SUMMARY' "$W/memcheck-replay.log" | tail -n 1)"
    if [ "$BENCH_BUILT" = 1 ]; then
        step memcheck-batch 90 "0" "$SAN" --tool memcheck --error-exitcode 9 "$B/bench/bench_gpu" \
            --mib 0 --cases 300 --batch 100
        note "batched + single paths: $(grep -h 'ERROR SUMMARY' "$W/memcheck-batch.log" | tail -n 1)"
    else skip memcheck-batch "bench_gpu did not build"; fi
else
    skip memcheck "$([ "$DRY" = 1 ] && echo dry run || echo "no compute-sanitizer, or cuda:* unavailable")"
fi
skip racecheck "not run: racecheck sees only shared memory, and these kernels use none"

# ---- GPU benchmark (`make bench-gpu`: exit 3 when there is no device) --------------------
if [ "$BENCH_BUILT" = 1 ]; then
    if ! step bench-gpu 90 "0" env -u SSFUZZ_FAKE_CUDA "${MK[@]}" -s bench-gpu \
       && grep -q 'bench_gpu: skipped' "$W/bench-gpu.log"; then
        results[-1]=$(printf '%-5s %-24s %4ss  %s' SKIP bench-gpu 0 "$(grep -m1 'bench_gpu: skipped' "$W/bench-gpu.log" | cut -c1-90)")
        nfail=$((nfail - 1))
    fi
fi

# ---- the torch engine on the GPU: short campaigns, findings are PyTorch's (reported) --
if [ "$DRY" != 1 ] && "$SSFUZZ" targets 2>/dev/null | grep -q '^torch:compile-cuda:setitem .*available$'; then
    for sp in setitem-clone scatter-return setitem; do
        step "torch-cuda-$sp" 45 "0 1" "$SSFUZZ" fuzz -t "torch:compile-cuda:$sp" -t "torch:eager-cuda:$sp" \
            --seed 1 --time 25 --minimize-time 10 -q -o "$W/torch-$sp"
        note "$(grep -E '^fuzz: [0-9]+ cases' "$W/torch-cuda-$sp.log" | head -n 1 | cut -c1-90)"
    done
else
    skip torch-cuda "$("$SSFUZZ" targets 2>/dev/null | grep '^torch:compile-cuda:setitem ' | cut -c38- | cut -c1-80)"
fi

# ---- the CUDA example plugin: ssfuzz's device storages around a user's launch -------------
# The naive kernel has no overlap check, so findings are expected (exit 1 passes); a crash
# or timeout finding (a device error) fails the step.
if [ "$DRY" != 1 ] && step plugins-build 60 "0" "${MK[@]}" -s plugins && [ -f "$B/plugins/naive_cuda.so" ]; then
    step plugin-cuda 45 "0 1" "$SSFUZZ" fuzz --plugin "$B/plugins/naive_cuda.so" -t naive_cuda:copy \
        --seed 1 --time 20 --minimize-time 5 -q -o "$W/plugin-cuda"
    if ls "$W"/plugin-cuda/crash-* "$W"/plugin-cuda/timeout-* >/dev/null 2>&1; then fail_last "a device error"; fi
else
    skip plugin-cuda "dry run, or the CUDA example plugin did not build"
fi

# ---- summary first, then the archive ----------------------------------------------------
{
    echo "ssfuzz gpu-check: $nfail failed, $(( $(date +%s) - START ))s of ${BUDGET}s"
    cat "$W/host.txt"
    echo
    printf '%s\n' "${results[@]}"
    echo
    echo "figures:"
    [ -f "$W/bench-gpu.log" ] && grep -v '^make' "$W/bench-gpu.log" | sed -n '1,24p' | sed 's/^/  /'
    echo "logs: gpu-check.tar.gz (tar xzf; one .log per step, targets.txt, host.txt)"
} >"$W/summary.txt"
cp "$W/summary.txt" "$OUT/summary.txt"
tar czf "$OUT/gpu-check.tar.gz" -C build gpu-check-logs 2>/dev/null || echo "gpu-check: tar failed" >>"$OUT/summary.txt"
cat "$OUT/summary.txt"
[ "$nfail" = 0 ]
