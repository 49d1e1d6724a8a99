#!/usr/bin/env bash
# `ssfuzz replay` end to end: the corpus agrees, exit codes, one-line errors on
# hostile files (also under ASan+UBSan), --dump output.
set -u
. "$(dirname "$0")/lib/common.sh"

expect_rc "replay corpus/ agrees" 0 "$SSFUZZ" replay --quiet corpus/
expect_rc "replay of a missing file is a usage error" 2 "$SSFUZZ" replay "$tmp/nope.json"
expect_rc "replay without a case is a usage error" 2 "$SSFUZZ" replay
expect_rc "unknown option is a usage error" 2 "$SSFUZZ" replay --bogus corpus/
expect_rc "unknown target is a usage error" 2 "$SSFUZZ" replay --target emu:nope corpus/
expect_rc "unknown schedule is a usage error" 2 "$SSFUZZ" replay --schedule sideways corpus/
expect_rc "bad --seed is a usage error" 2 "$SSFUZZ" replay --seed -3 corpus/

# Hostile files: exit 2, exactly one line on stderr naming the file, no crash.
[ -x tests/hostile/make-big.sh ] && bash tests/hostile/make-big.sh "$tmp/big" >/dev/null 2>&1
for f in tests/hostile/*.json "$tmp"/big/*.json; do
    [ -f "$f" ] || continue
    for bin in "$SSFUZZ" "$SSFUZZ_ASAN"; do
        "$bin" replay "$f" >"$tmp/out" 2>"$tmp/err"; rc=$?
        lines=$(wc -l <"$tmp/err")
        name="hostile $(basename "$f") ($(basename "$(dirname "$bin")"))"
        if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -q "^$f: invalid: " "$tmp/err"; then pass "$name"
        else fail "$name" "exit $rc, $lines stderr lines: $(head -c 300 "$tmp/err")"; fi
    done
done

# --dump writes the reference's storages in the case's value encoding.
case_file=$(ls corpus/*.json 2>/dev/null | head -1)
if [ -n "$case_file" ]; then
    "$SSFUZZ" replay --dump "$tmp/dump" "$case_file" >/dev/null 2>&1
    base=$(basename "$case_file"); base=${base%%.*}
    if grep -q '"target":[[:space:]]*"reference"' "$tmp/dump/$base.reference.json" 2>/dev/null &&
       grep -q '"storages"' "$tmp/dump/$base.reference.json"; then pass "--dump writes the reference"
    else fail "--dump writes the reference"; fi
fi
expect_rc "--dump into an unwritable place is a usage error" 2 "$SSFUZZ" replay --dump /proc/nope "$case_file"
