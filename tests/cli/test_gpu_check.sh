#!/usr/bin/env bash
# scripts/gpu-check.sh dry-run end to end (no nvcc, the fake CUDA engine): every step reports,
# $OUT holds exactly summary.txt and one archive, no ':' in any name; CUDA_ARCH ignores nvidia-smi's errors.
set -u
. "$(dirname "$0")/lib/common.sh"

# nvidia-smi prints its errors on stdout: they must not become -arch=sm_Failed...
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "Failed to initialize NVML: Driver/library version mismatch"\n' >"$tmp/bin/nvidia-smi"
chmod +x "$tmp/bin/nvidia-smi"
arch=$(PATH="$tmp/bin:$PATH" make -s print-cuda-arch)
case $arch in *sm_F*|*Failed*|"") fail "CUDA_ARCH with a failing nvidia-smi" "$arch" ;;
              *) pass "CUDA_ARCH with a failing nvidia-smi: the portable set" ;; esac
printf '#!/bin/sh\necho "9.0"\n' >"$tmp/bin/nvidia-smi"
arch=$(PATH="$tmp/bin:$PATH" make -s print-cuda-arch)
[ "$arch" = "-arch=sm_90" ] && pass "CUDA_ARCH from nvidia-smi's compute_cap" || fail "CUDA_ARCH from 9.0" "$arch"

GPU_CHECK_DRY_RUN=1 OUT="$tmp/out" bash scripts/gpu-check.sh >"$tmp/log" 2>&1
rc=$?
[ "$rc" = 0 ] && pass "gpu-check dry run: exit 0" || fail "gpu-check dry run" "exit $rc: $(grep -E '^FAIL' "$tmp/log" | head -5)"
files=$(cd "$tmp/out" && ls -A | tr '\n' ' ')
[ "$files" = "gpu-check.tar.gz summary.txt " ] && pass "OUT holds summary.txt and one archive" \
    || fail "OUT files" "$files"
s="$tmp/out/summary.txt"
if head -n 1 "$s" | grep -qE '^ssfuzz gpu-check: 0 failed, [0-9]+s of [0-9]+s$'; then pass "summary starts with the verdict"
else fail "summary first line" "$(head -n 1 "$s")"; fi
missing=
for st in build build-tests unit-tests regress-cuda fuzz-cuda-j8 sticky-drill replay-mutants big-case \
          memcheck racecheck bench-gpu torch-cuda; do
    grep -qE "^(PASS|FAIL|SKIP) +$st " "$s" || missing="$missing $st"
done
[ -z "$missing" ] && pass "summary: every step has a status" || fail "summary steps missing:$missing"
grep -qE '^PASS +fuzz-cuda-j8 .*0 unique findings' "$s" && pass "the cuda campaign (fake engine) ran with 0 findings" \
    || fail "fuzz-cuda-j8" "$(grep fuzz-cuda "$s")"
grep -qE '^PASS +sticky-drill .*2 of 4 runs agree' "$s" && pass "sticky drill: the runs after each fault agree" \
    || fail "sticky-drill" "$(grep sticky "$s")"
[ "$(wc -l <"$s")" -le 60 ] && pass "summary fits a page" || fail "summary length" "$(wc -l <"$s") lines"
names=$(tar tzf "$tmp/out/gpu-check.tar.gz" 2>&1)
if echo "$names" | grep -q 'gpu-check-logs/fuzz-cuda-j8.log' && ! echo "$names" | grep -q ':'; then
    pass "the archive holds every log, no ':' in names"
else fail "archive" "$(echo "$names" | head -5)"; fi
