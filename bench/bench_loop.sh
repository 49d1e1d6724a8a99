#!/usr/bin/env bash
# bench_loop.sh - runs the C differential loop and its PyTorch peer on the same case distribution and prints both rates and the ratio.
set -u
dir=${BENCH_DIR:-build/bench}
cases=${BENCH_CASES:-300000}
peer_cases=${BENCH_PEER_CASES:-20000}
py=${TORCH_PYTHON:-/usr/bin/python3}
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); one core used"
out=$("$dir/bench_loop" --cases "$cases" --seed 1) || { echo "$out"; echo "bench_loop failed"; exit 1; }
echo "$out"
rate=$(echo "$out" | sed -n '1s/.* \([0-9]*\) cases\/s.*/\1/p')
rate_nogen=$(echo "$out" | sed -n 's/^c loop without generation, [0-9]* cases generated in batches.* s, \([0-9]*\) cases\/s.*/\1/p')
rate_held=$(echo "$out" | sed -n 's/^c loop without generation, the [0-9]* cases all held.* s, \([0-9]*\) cases\/s.*/\1/p')
rate_cpu=$(echo "$out" | sed -n 's/^c loop without generation, batches of [0-9]*, CPU time.* s, \([0-9]*\) cases\/s.*/\1/p')
"$dir/bench_loop" --cases 1 --seed 1 --export "$peer_cases" "$dir/cases.jsonl" || exit 1
if ! "$py" -c 'import torch' 2>/dev/null; then
    echo "torch loop: skipped: $py cannot import torch (set TORCH_PYTHON)"
    exit 0
fi
# The verdict: BENCH_PAIRS interleaved pairs (one C measurement, one PyTorch one), a
# ratio per pair by CPU time, judged on their median (the lines before it are one
# measurement of each side, a minute apart).
"$py" bench/peer_torch.py "$dir/cases.jsonl" --c-rate "$rate" --c-rate-nogen "$rate_nogen" --c-rate-held "$rate_held" \
    --c-rate-cpu "$rate_cpu" --pairs "${BENCH_PAIRS:-9}" --c-cmd "$dir/bench_loop --cases 100000 --seed 1 --check-only"
