#!/usr/bin/env bash
# The test command (`make test`): builds, then runs
#   1. every cmocka unit test (tests/test_*.c), in the normal build (test_cuda again
#      on the fake CUDA engine, SSFUZZ_FAKE_CUDA=1);
#   2. the same tests in an ASan+UBSan build (CPU only: CUDA's runtime and ASan do not mix);
#   3. the CLI checks tests/cli/*.sh (replay of the corpus, hostile inputs, the
#      PyTorch cross-check, ...), which print "ok NAME", "not ok NAME" or "skip NAME: why".
# Ends with one line: "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
passed=0 failed=0 skipped=0
failures=()
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# Count a cmocka binary's results from its own summary lines.
run_cmocka() {   # label binary
    local label=$1 bin=$2 out="$log/$(basename "$2").$1.out"
    "$bin" >"$out" 2>&1
    local rc=$? p f s
    # cmocka's closing lines: "[  PASSED  ] 1 test(s)." and, when there are any,
    # "[  SKIPPED ] 5 test(s), listed below:" (the per-test lines name a test, no count)
    p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -1)
    p=${p:-0} f=${f:-0} s=${s:-0}
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi   # crashed before its summary
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
    if [ "$f" != 0 ]; then
        failures+=("$label $(basename "$bin")")
        sed -n '/\[  FAILED  \]\|\[  ERROR   \]\|ERROR:\|runtime error\|FAIL\|error:/p' "$out" | head -40
    fi
    printf '%-8s %-28s %s passed, %s failed, %s skipped\n' "$label" "$(basename "$bin")" "$p" "$f" "$s"
}

echo "== build (normal)"
if ! make -s -j"$JOBS" test-unit; then echo "build failed"; echo "0 passed, 1 failed, 0 skipped"; exit 1; fi
echo "== build (ASan+UBSan)"
SAN="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
if ! make -s -j"$JOBS" BUILD=build-asan SS_NO_CUDA=1 CFLAGS="$SAN" LDFLAGS="-fsanitize=address,undefined" test-unit; then
    echo "sanitizer build failed"; echo "$passed passed, $((failed + 1)) failed, $skipped skipped"; exit 1
fi

echo "== unit tests"
for t in build/tests/test_*; do [ -x "$t" ] && run_cmocka normal "$t"; done
# The GPU tests' paths once more on the fake CUDA engine (the emulator behind the CUDA API).
SSFUZZ_FAKE_CUDA=1 run_cmocka fake build/tests/test_cuda
echo "== unit tests under ASan+UBSan"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in build-asan/tests/test_*; do [ -x "$t" ] && SSFUZZ=build-asan/ssfuzz run_cmocka asan "$t"; done

echo "== CLI checks"
for s in tests/cli/*.sh; do
    [ -f "$s" ] || continue
    out="$log/$(basename "$s").out"
    SSFUZZ=build/ssfuzz SSFUZZ_ASAN=build-asan/ssfuzz bash "$s" >"$out" 2>&1
    rc=$?
    p=$(grep -c '^ok ' "$out") f=$(grep -c '^not ok ' "$out") k=$(grep -c '^skip ' "$out")
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; echo "not ok $(basename "$s") exited $rc" >>"$out"; fi
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + k))
    grep '^not ok \|^skip ' "$out" | head -20
    [ "$f" != 0 ] && { failures+=("cli $(basename "$s")"); grep -v '^ok ' "$out" | tail -30; }
    printf '%-8s %-28s %s passed, %s failed, %s skipped\n' cli "$(basename "$s")" "$p" "$f" "$k"
done

[ ${#failures[@]} -gt 0 ] && printf 'FAILED: %s\n' "${failures[@]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
