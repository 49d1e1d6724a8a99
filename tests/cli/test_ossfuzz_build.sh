#!/usr/bin/env bash
# The libFuzzer build with OSS-Fuzz's variables (CC, CXX, CFLAGS, LIB_FUZZING_ENGINE, OUT)
# gives binaries that run on OSS-Fuzz's runner: cJSON linked statically and instrumented,
# and `ldd` naming nothing beyond libc, libm, libstdc++ and libgcc (plus the loader and vDSO).
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"

if ! command -v clang >/dev/null 2>&1; then
    echo "skip OSS-Fuzz-style build: clang not installed (Debian: clang, libclang-rt-dev)"; exit 0
fi
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$tmp/p.c"
if ! clang -fsanitize=fuzzer,address "$tmp/p.c" -o "$tmp/p" >/dev/null 2>&1; then
    echo "skip OSS-Fuzz-style build: clang's libFuzzer runtime missing (Debian: libclang-rt-dev)"; exit 0
fi

out="$tmp/out"
mkdir -p "$out"
# What OSS-Fuzz's base-builder exports for an ASan build (libFuzzer engine).
if ! env CC=clang CXX=clang++ \
    CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link" \
    LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT="$out" \
    make -s libfuzzer SS_NO_CUDA=1 >"$tmp/build.log" 2>&1; then
    fail "OSS-Fuzz-style build" "$(grep -m3 -i 'error' "$tmp/build.log")"; exit 0
fi
pass "OSS-Fuzz-style build (make libfuzzer with CC, CFLAGS, LIB_FUZZING_ENGINE, OUT)"

allowed='^(linux-vdso\.so|/lib64/ld-linux|ld-linux|libc\.so|libm\.so|libstdc\+\+\.so|libgcc_s\.so)'
for t in fuzz_case fuzz_json; do
    if [ ! -x "$out/$t" ]; then fail "$t in \$OUT" "not built"; continue; fi
    libs=$(ldd "$out/$t" | awk '{print $1}')
    extra=$(echo "$libs" | grep -Ev "$allowed")
    if [ -z "$extra" ]; then pass "ldd $t: only libc/libm/libstdc++/libgcc ($(echo "$libs" | wc -l) entries)"
    else fail "ldd $t" "links $(echo "$extra" | tr '\n' ' ')"; fi
done
# cJSON is inside the binary, compiled with $CFLAGS (ASan checks and coverage in its parser).
if nm "$out/fuzz_json" | grep -q ' T cJSON_ParseWithLengthOpts$' &&
   objdump -d --no-show-raw-insn "$out/fuzz_json" | awk '/<parse_value>:/,/^$/' | grep -q '__asan_report\|__sanitizer_cov'; then
    pass "fuzz_json: cJSON linked statically and instrumented"
else
    fail "fuzz_json: cJSON linked statically and instrumented" "no instrumented parse_value in the binary"
fi
# And it runs: 2000 inputs from a scratch copy of the seeds (libFuzzer adds to its corpus).
mkdir -p "$tmp/seeds" && cp fuzz/corpus/fuzz_json/* "$tmp/seeds/"
if "$out/fuzz_json" -runs=2000 -max_len=4096 "$tmp/seeds" >"$tmp/run.log" 2>&1; then
    pass "fuzz_json (OSS-Fuzz build) runs"
else
    fail "fuzz_json (OSS-Fuzz build) runs" "$(grep -m3 'ERROR\|FUZZ_ASSERT' "$tmp/run.log")"
fi
