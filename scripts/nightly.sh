#!/usr/bin/env bash
# Nightly run: build, check every corpus expectation (JUnit + SARIF), run a time-boxed fuzz
# campaign (one process per GPU when there are GPUs), print a summary; exit non-zero on any
# regression or new finding.
#
#   scripts/nightly.sh DURATION        DURATION in seconds (e.g. 60, 3600)
#
# Everything lands in reports/<UTC date>/: regress.xml (JUnit), regress.sarif (SARIF 2.1.0),
# regress.log, fuzz*.log, the campaign's minimized reproducers (*.json) and summary.txt.
# Environment: NIGHTLY_OUT (report dir), NIGHTLY_SEED (campaign seed; default from the date),
# NIGHTLY_FUZZ_ARGS (extra `ssfuzz fuzz` arguments), NIGHTLY_GPUS (number of GPU processes;
# default: one per device nvidia-smi lists when a cuda target is available, 0 otherwise).
# Exit: 0 clean, 1 a regression or a new finding, 2 usage or a broken build/tool.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/nightly.sh DURATION   (seconds, e.g. 60)" >&2; exit 2; }
[ $# = 1 ] || usage
dur=$1
case "$dur" in ''|*[!0-9]*) usage ;; esac
[ "$dur" -ge 1 ] || usage

day=$(date -u +%Y-%m-%d)
out=${NIGHTLY_OUT:-reports/$day}
seed=${NIGHTLY_SEED:-$(date -u +%Y%m%d)}
mkdir -p "$out" || { echo "nightly: cannot create $out" >&2; exit 2; }
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
start=$(date +%s)

say "== nightly $day (duration ${dur}s, seed $seed, reports in $out)"
if ! make -s -j"$(nproc 2>/dev/null || echo 2)" >"$out/build.log" 2>&1; then
    tail -20 "$out/build.log"
    say "build: FAILED (see $out/build.log)"
    exit 2
fi
SSFUZZ=build/ssfuzz
say "build: ok ($($SSFUZZ --version))"

# 1. Regression suite: every corpus case against every available target and schedule.
$SSFUZZ regress corpus/ --junit "$out/regress.xml" --sarif "$out/regress.sarif" >"$out/regress.log" 2>&1
reg_rc=$?
say "$(tail -1 "$out/regress.log") -> exit $reg_rc"
grep '^FAIL \|invalid: ' "$out/regress.log" | head -20 | tee -a "$summary"

# 2. Campaign: reproducers already in $out (an earlier run today) are not new.
before="$out/.before"
reproducers() { grep -l '"format":[[:space:]]*"ssfuzz-case"' $(find "$out" -maxdepth 2 -name '*.json') /dev/null 2>/dev/null | sort; }
reproducers >"$before"
gpus=${NIGHTLY_GPUS:-}
if [ -z "$gpus" ]; then
    gpus=0
    if $SSFUZZ targets 2>/dev/null | grep -q '^cuda:reinplace *kernel *available' && command -v nvidia-smi >/dev/null; then
        gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
    fi
fi
# shellcheck disable=SC2206
extra=(${NIGHTLY_FUZZ_ARGS:-})
pids=()
if [ "$gpus" -gt 0 ]; then
    # GPU campaigns: one process per device, each pinned with CUDA_VISIBLE_DEVICES and its own
    # seed, all writing (deduplicated, atomically) into the same report directory.
    for ((g = 0; g < gpus; g++)); do
        CUDA_VISIBLE_DEVICES=$g $SSFUZZ fuzz --time "$dur" --seed $((seed + g)) --out "$out" -q "${extra[@]}" \
            >"$out/fuzz-gpu$g.log" 2>&1 &
        pids+=($!)
    done
fi
# The CPU campaign: the emulator's correct kernels (without a GPU that is fuzz's own default).
cpu_targets=()
[ "$gpus" -gt 0 ] && cpu_targets=(--target emu:reinplace --target emu:functional --target emu:index)
$SSFUZZ fuzz --time "$dur" --seed "$seed" --out "$out" -q "${cpu_targets[@]}" "${extra[@]}" >"$out/fuzz.log" 2>&1 &
pids+=($!)
fuzz_rc=0
for p in "${pids[@]}"; do
    wait "$p"; rc=$?
    # 0 nothing found, 1 findings: anything else means the campaign itself did not run.
    if [ "$rc" -gt 1 ]; then fuzz_rc=2; elif [ "$rc" = 1 ] && [ "$fuzz_rc" = 0 ]; then fuzz_rc=1; fi
done
for log in "$out"/fuzz*.log; do
    line=$(grep -m1 '^fuzz: [0-9]* cases in' "$log" || tail -1 "$log")
    say "fuzz ($(basename "$log" .log)): $line"
done
reproducers | comm -13 "$before" - >"$out/.new"
rm -f "$before"
new=$(wc -l <"$out/.new")
while read -r f; do
    # Confirm on the reproducer's own target (its meta names it).
    t=$(sed -n 's/^[[:space:]]*"target":[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | head -1)
    $SSFUZZ replay -q ${t:+--target "$t"} "$f" >/dev/null 2>&1
    rc=$?
    say "new finding: $f ($([ "$rc" = 1 ] && echo "replay confirms" || echo "replay exit $rc"); triage: build/ssfuzz explain ${t:+--target $t }$f)"
done <"$out/.new"
rm -f "$out/.new"

status=0
if [ "$reg_rc" = 1 ] || [ "$new" -gt 0 ] || [ "$fuzz_rc" = 1 ]; then status=1; fi
if [ "$status" = 0 ] && { [ "$reg_rc" != 0 ] || [ "$fuzz_rc" = 2 ]; }; then status=2; fi
verdict=clean
[ "$status" = 1 ] && verdict="REGRESSION OR NEW FINDING"
[ "$status" = 2 ] && verdict="TOOL ERROR (regress exit $reg_rc, fuzz exit $fuzz_rc)"
say "nightly: $verdict: regress exit $reg_rc, $new new reproducer(s), $(( $(date +%s) - start ))s; JUnit $out/regress.xml, SARIF $out/regress.sarif"
exit $status
