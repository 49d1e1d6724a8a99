#!/usr/bin/env bash
# Valid but extreme cases (tests/hostile/valid/: empty views whose other sizes,
# strides, offsets and bounds reach 2^53) through every subcommand under
# ASan+UBSan: each must run to its ordinary exit code with no sanitizer report.
set -u
. "$(dirname "$0")/lib/common.sh"

check() {   # name want-codes cmd...: exit code in want-codes, no sanitizer line
    local name=$1 want=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$tmp/out" "$tmp/err"; then
        fail "$name" "$(grep -m1 "runtime error\|Sanitizer" "$tmp/out" "$tmp/err")"
    elif [[ " $want " != *" $rc "* ]]; then fail "$name" "exit $rc, expected $want; $(tail -2 "$tmp/err")"
    else pass "$name"; fi
}

for f in tests/hostile/valid/*.json; do
    n=$(basename "$f" .json)
    check "valid $n: replay (normal)" 0 "$SSFUZZ" replay "$f"
    check "valid $n: replay --dump" 0 "$SSFUZZ_ASAN" replay --dump "$tmp/dump" "$f"
    check "valid $n: explain" 0 "$SSFUZZ_ASAN" explain "$f"
    check "valid $n: regress" 0 "$SSFUZZ_ASAN" regress "$f"
    check "valid $n: export" 0 "$SSFUZZ_ASAN" export --torch "$f" -o "$tmp/x.py"
    # mutants that compute their own slice: minimize either shrinks a failure (0) or finds none (1)
    for t in emu:mut-end-unclamped emu:mut-ignore-offset emu:mut-alias-same-ptr; do
        check "valid $n: minimize $t" "0 1" "$SSFUZZ_ASAN" minimize --target "$t" --schedule forward "$f" -o "$tmp/min.json"
    done
done
