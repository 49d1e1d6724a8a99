#!/usr/bin/env bash
# bench_plugin.sh - the cost of a plugin call: the example plugin naive:copy and a no-op plugin beside the built-in emu:reinplace and emu:mut-alias-unchecked (a naive copy, built in), on the same small cases.
set -u
dir=${BENCH_DIR:-build/bench}
naive=${BENCH_PLUGIN:-build/plugins/naive.so}
cases=${BENCH_PLUGIN_CASES:-100000}
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); one core used"
rounds=${BENCH_ROUNDS:-5}
declare -A loop run
targets="emu:reinplace emu:mut-alias-unchecked naive:copy bench-nop:nop"
# Rounds interleave the targets; each keeps its best round (shared machines are noisy).
for r in $(seq "$rounds"); do
    for t in $targets; do
        # exit 1 means findings (both naive kernels have them, the no-op kernel too): expected here
        out=$("$dir/bench_loop" --plugin "$naive" --plugin "$dir/bench_plugin_nop.so" --target "$t" \
              --schedule forward --cases "$cases" --seed 1)
        [ $? -le 1 ] || { echo "$out"; echo "bench_loop --target $t failed"; exit 1; }
        l=$(echo "$out" | sed -n 's/^c loop without generation, [0-9]* cases generated in batches.* s, \([0-9]*\) cases\/s.*/\1/p')
        n=$(echo "$out" | sed -n 's/^target run alone: .* \([0-9.]*\) ns per run.*/\1/p')
        [ -z "${loop[$t]:-}" ] || [ "$l" -gt "${loop[$t]}" ] && loop[$t]=$l
        [ -z "${run[$t]:-}" ] || [ "$n" -lt "${run[$t]}" ] && run[$t]=$n
    done
done
echo "best of $rounds rounds, $cases cases each (run alone: up to 100000 valid cases):"
for t in $targets; do printf '  %-24s loop %8s cases/s   run alone %6s ns\n' "$t" "${loop[$t]}" "${run[$t]}"; done
awk -v a="${loop[emu:reinplace]}" -v b="${loop[naive:copy]}" -v ra="${run[emu:reinplace]}" \
    -v rb="${run[naive:copy]}" -v rn="${run[bench-nop:nop]}" 'BEGIN {
    printf "naive:copy / emu:reinplace: loop time %.2fx, run alone %.2fx; a no-op plugin call: %.0f ns (timer included)\n",
           a / b, rb / ra, rn }'
