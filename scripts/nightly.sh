#!/usr/bin/env bash
# Nightly run: build, check every corpus expectation, run a time-boxed fuzz campaign (one
# process per GPU when there are GPUs), then triage tonight's findings against the findings
# ledger (known/ledger.json): new, known, fixed. Prints the lists and writes verdict.json.
#
#   scripts/nightly.sh DURATION        DURATION in seconds (e.g. 60, 3600)
#
# Exit: 0 nothing new (only known findings recurred, or none), 1 a new finding, a regressed
# one (fixed in the ledger, failing again) or a failed corpus expectation, 2 usage or a
# broken build/tool. verdict.json says the same for scripts ("exit", "verdict", one list
# per class); nothing here needs parsing of human output.
#
# Everything lands in reports/<UTC date>/: regress.xml (JUnit), findings.xml (JUnit: one
# testcase per finding), nightly.sarif (SARIF: regress results plus open findings with
# stable fingerprints), verdict.json, report.html (with the trend), explain/*.txt,
# summary.json (every campaign), the reproducers, logs and summary.txt. The ledger is
# updated in the work tree (commit known/ to remember tonight's findings); history is
# appended to reports/history.jsonl.
#
# Environment: NIGHTLY_OUT (report dir), NIGHTLY_SEED (campaign seed; default from the date),
# NIGHTLY_FUZZ_ARGS (extra `ssfuzz fuzz` arguments, e.g. --target ...), NIGHTLY_GPUS (GPU
# processes; default one per device when a cuda target is available), NIGHTLY_LEDGER
# (default known/ledger.json), NIGHTLY_HISTORY (default reports/history.jsonl),
# NIGHTLY_RECHECK_ON (targets to recheck known findings on when their own target was not
# fuzzed tonight, e.g. the kernel that replaced it), NIGHTLY_UPDATE_LEDGER (1, or 0 to leave
# the ledger alone), NIGHTLY_DATE (default: UTC today), NIGHTLY_SSFUZZ (a built ssfuzz to
# use instead of running make), SS_NO_TORCH=1 (do not look for PyTorch).
set -uo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/nightly.sh DURATION   (seconds, e.g. 60)" >&2; exit 2; }
[ $# = 1 ] || usage
dur=$1
case "$dur" in ''|*[!0-9]*) usage ;; esac
[ "$dur" -ge 1 ] || usage

day=${NIGHTLY_DATE:-$(date -u +%Y-%m-%d)}
out=${NIGHTLY_OUT:-reports/$day}
seed=${NIGHTLY_SEED:-$(date -u +%Y%m%d)}
ledger=${NIGHTLY_LEDGER:-known/ledger.json}
history=${NIGHTLY_HISTORY:-reports/history.jsonl}
mkdir -p "$out" "$(dirname "$history")" || { echo "nightly: cannot create $out" >&2; exit 2; }
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
start=$(date +%s)

say "== nightly $day (duration ${dur}s, seed $seed, reports in $out)"
if [ -n "${NIGHTLY_SSFUZZ:-}" ]; then
    SSFUZZ=$NIGHTLY_SSFUZZ
elif make -s -j"$(nproc 2>/dev/null || echo 2)" >"$out/build.log" 2>&1; then
    SSFUZZ=build/ssfuzz
else
    tail -20 "$out/build.log"
    say "build: FAILED (see $out/build.log)"
    exit 2
fi
"$SSFUZZ" --version >/dev/null 2>&1 || { say "nightly: $SSFUZZ does not run"; exit 2; }
say "build: ok ($("$SSFUZZ" --version))"
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo "")
torch=""
if [ "${SS_NO_TORCH:-0}" != 1 ]; then
    torch=$(timeout 120 python3 -c 'import torch; print(torch.__version__)' 2>/dev/null || echo "")
fi

# 1. Regression suite: every corpus case against every available target and schedule.
"$SSFUZZ" regress corpus/ --junit "$out/regress.xml" --sarif "$out/regress.sarif" >"$out/regress.log" 2>&1
reg_rc=$?
say "$(tail -1 "$out/regress.log") -> exit $reg_rc"
grep '^FAIL \|invalid: ' "$out/regress.log" | head -20 | tee -a "$summary"

# 2. Campaigns. All write into $out: reproducers are deduplicated by signature and written
# atomically, and summary.json merges every campaign (one entry each).
gpus=${NIGHTLY_GPUS:-}
if [ -z "$gpus" ]; then
    gpus=0
    if "$SSFUZZ" targets 2>/dev/null | grep -q '^cuda:reinplace *kernel *available' && command -v nvidia-smi >/dev/null; then
        gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
    fi
fi
# shellcheck disable=SC2206
extra=(${NIGHTLY_FUZZ_ARGS:-})
pids=()
for ((g = 0; g < gpus; g++)); do
    # One process per device, pinned with CUDA_VISIBLE_DEVICES, each with its own seed.
    CUDA_VISIBLE_DEVICES=$g "$SSFUZZ" fuzz --time "$dur" --seed $((seed + g)) --out "$out" -q "${extra[@]}" \
        >"$out/fuzz-gpu$g.log" 2>&1 &
    pids+=($!)
done
# The CPU campaign: the emulator's correct kernels (without a GPU that is fuzz's own default).
cpu_targets=()
[ "$gpus" -gt 0 ] && cpu_targets=(--target emu:reinplace --target emu:functional --target emu:index)
"$SSFUZZ" fuzz --time "$dur" --seed "$seed" --out "$out" -q "${cpu_targets[@]}" "${extra[@]}" >"$out/fuzz.log" 2>&1 &
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

# 3. Triage against the ledger; it decides the exit code.
update=(--update)
[ "${NIGHTLY_UPDATE_LEDGER:-1}" = 0 ] && update=()
recheck=()
for t in ${NIGHTLY_RECHECK_ON:-}; do recheck+=(--recheck-on "$t"); done
base=()
[ -f "$out/regress.sarif" ] && base=(--sarif-base "$out/regress.sarif")
"$SSFUZZ" triage --found "$out" --ledger "$ledger" "${update[@]}" "${recheck[@]}" \
    --date "$day" --commit "$commit" --torch "$torch" --regress-exit "$reg_rc" --fuzz-exit "$fuzz_rc" \
    --verdict "$out/verdict.json" --junit "$out/findings.xml" --sarif "$out/nightly.sarif" \
    "${base[@]}" --history "$history" --html "$out/report.html" \
    --explain "$out/explain" 2>&1 | tee -a "$summary"
status=${PIPESTATUS[0]}
case "$status" in 0|1|2) ;; *) status=2 ;; esac
say "nightly: exit $status, $(( $(date +%s) - start ))s; verdict $out/verdict.json, report $out/report.html," \
    "JUnit $out/regress.xml $out/findings.xml, SARIF $out/nightly.sarif"
[ "${NIGHTLY_UPDATE_LEDGER:-1}" != 0 ] && [ -n "$(git status --porcelain -- "$(dirname "$ledger")" 2>/dev/null)" ] &&
    say "nightly: the ledger changed: review and commit $(dirname "$ledger")/ to remember tonight's findings"
exit "$status"
