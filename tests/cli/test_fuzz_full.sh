#!/usr/bin/env bash
# A full --out: the campaign says so once, stops, counts the findings it could
# not write (summary.json `unwritten`), and exits 2; a summary that cannot be
# written is not announced as written.
set -u
. "$(dirname "$0")/lib/common.sh"

SSFUZZ_TEST_HOOKS=1 SSFUZZ_TEST_FAULT=full:20 "$SSFUZZ" fuzz -t emu:mut-alias-unchecked -t emu:mut-end-unclamped --seed 1 \
    --cases 3000 -q -o "$tmp/a" >"$tmp/a.out" 2>&1
rc=$?
[ "$rc" = 2 ] && pass "full --out: exit 2" || fail "full --out: exit 2" "exit $rc"
n=$(grep -c "cannot write the reproducer" "$tmp/a.out")
[ "$n" = 1 ] && pass "full --out: one line, not one per finding" || fail "full --out: one line" "$n lines"
grep -q "could not be written to $tmp/a" "$tmp/a.out" && pass "full --out: the lost findings are counted" \
    || fail "full --out: counted" "$(tail -3 "$tmp/a.out")"
python3 - "$tmp/a/summary.json" <<'PY' && pass "summary.json: unwritten and stopped_by" || fail "summary.json: unwritten and stopped_by"
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["unwritten"] >= 1 and d["stopped_by"] == "unwritable --out" else 1)
PY

# A file-size limit makes summary.json unwritable (the small reproducers still fit).
mkdir -p "$tmp/b"
( trap '' XFSZ; ulimit -f 1; exec "$SSFUZZ" fuzz -t emu:mut-alias-unchecked --seed 1 --cases 500 -q -o "$tmp/b" ) \
    >"$tmp/b.out" 2>&1
rc=$?
[ "$rc" = 2 ] && pass "unwritable summary: exit 2" || fail "unwritable summary: exit 2" "exit $rc"
if grep -q "cannot write the summary" "$tmp/b.out" && ! grep -q "^summary: " "$tmp/b.out"; then
    pass "unwritable summary: said, and its path not printed"
else fail "unwritable summary: said, path not printed" "$(tail -3 "$tmp/b.out")"; fi
