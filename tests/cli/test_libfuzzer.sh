#!/usr/bin/env bash
# libFuzzer targets in CI: `make libfuzzer` builds, each target runs briefly
# from its seeds, fuzz_case kills a mutant and leaves a replayable reproducer,
# and `make fuzz-regress` replays fuzz/corpus/ without libFuzzer.
# FUZZ_SECONDS (default 10) bounds each target's run.
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"
SECONDS_EACH=${FUZZ_SECONDS:-10}
skip() { echo "skip $1: $2"; }

# The OSS-Fuzz variables would redirect the build; CI wants the defaults.
clean_env=(env -u CC -u CXX -u CFLAGS -u CXXFLAGS -u OUT -u LIB_FUZZING_ENGINE)

have_libfuzzer() {
    command -v clang >/dev/null 2>&1 || { why="clang not installed"; return 1; }
    printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
    clang -fsanitize=fuzzer,address,undefined "$tmp/probe.c" -o "$tmp/probe" >"$tmp/probe.log" 2>&1 ||
        { why="clang's libFuzzer runtime missing ($(head -1 "$tmp/probe.log"))"; return 1; }
}

# Run a target from a scratch copy of its seeds (libFuzzer adds to the corpus
# it is given; the committed seeds stay as they are).
fuzz_briefly() {   # target extra-args...
    local t=$1; shift
    mkdir -p "$tmp/corpus-$t"
    cp fuzz/corpus/"$t"/* "$tmp/corpus-$t"/ 2>/dev/null
    local dict=()
    [ -f "build-fuzz/$t.dict" ] && dict=(-dict="build-fuzz/$t.dict")
    build-fuzz/"$t" "${dict[@]}" -max_total_time="$SECONDS_EACH" -max_len=4096 -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$tmp/artifact-" \
        "$@" "$tmp/corpus-$t" >"$tmp/$t.log" 2>&1
}

if ! have_libfuzzer; then
    skip "make libfuzzer" "$why"
    skip "fuzz_json runs ${SECONDS_EACH}s clean" "$why"
    skip "fuzz_case runs ${SECONDS_EACH}s clean" "$why"
    skip "fuzz_torch_frame runs ${SECONDS_EACH}s clean" "$why"
    skip "fuzz_case kills emu:mut-alias-unchecked" "$why"
elif ! "${clean_env[@]}" make -s libfuzzer >"$tmp/build.log" 2>&1; then
    fail "make libfuzzer" "$(grep -m3 'error' "$tmp/build.log")"
else
    pass "make libfuzzer"
    for t in fuzz_json fuzz_case fuzz_torch_frame; do
        if fuzz_briefly "$t"; then
            runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$t.log")
            pass "$t runs ${SECONDS_EACH}s clean (${runs:-?} executions)"
        else
            fail "$t runs ${SECONDS_EACH}s clean" "$(grep -m5 'FUZZ_ASSERT\|ERROR\|fuzz_case:' "$tmp/$t.log")"
        fi
    done
    # The oracle works: on a mutant it must abort and leave a reproducer that
    # ssfuzz replay confirms (exit 1).
    SSFUZZ_OUT="$tmp/out" SSFUZZ_TARGETS=emu:mut-alias-unchecked fuzz_briefly fuzz_case
    rc=$?
    repro=$(ls "$tmp"/out/*.json 2>/dev/null | head -1)
    if [ "$rc" = 0 ] || [ -z "$repro" ]; then
        fail "fuzz_case kills emu:mut-alias-unchecked" "exit $rc, no reproducer in $tmp/out"
    elif [ -x "$SSFUZZ" ]; then
        "$SSFUZZ" replay --target emu:mut-alias-unchecked "$repro" >"$tmp/replay.log" 2>&1; rrc=$?
        if [ "$rrc" = 1 ]; then pass "fuzz_case kills emu:mut-alias-unchecked; replay confirms"
        else fail "fuzz_case kills emu:mut-alias-unchecked" "replay exit $rrc: $(tail -2 "$tmp/replay.log")"; fi
    else
        pass "fuzz_case kills emu:mut-alias-unchecked (replay not checked: no $SSFUZZ)"
    fi
fi

# Needs no clang: the same entry points under a plain main.
if "${clean_env[@]}" make -s fuzz-regress >"$tmp/regress.log" 2>&1; then
    pass "fuzz-regress replays fuzz/corpus/ ($(grep -o '[0-9]* inputs' "$tmp/regress.log" | paste -sd+ -))"
else
    fail "fuzz-regress replays fuzz/corpus/" "$(grep -v '^gcc\|^cc' "$tmp/regress.log" | tail -5)"
fi
