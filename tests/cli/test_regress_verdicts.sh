#!/usr/bin/env bash
# `ssfuzz regress` says "holds" only for what it checked: a run whose every
# expectation was skipped exits 4 and says "nothing was checked"; a torch range
# is judged on the running torch's PEP 440 version, and a version that is not
# one is an error of that check (exit 3), never an expected failure that held.
set -u
. "$(dirname "$0")/lib/common.sh"

# Every expectation skipped (a mutant neither case names): nothing checked, exit 4.
expect_rc "nothing checked: exit 4" 4 "$SSFUZZ" regress -t emu:mut-step-ignored corpus/shift-right-1d.json \
    corpus/kv-cache-separate.json
grep -q '^regress: 2 cases, 0 checks: 0 held, 0 failed, 2 skipped, .*; nothing was checked$' "$tmp/out" \
    && grep -q '^SKIP corpus/shift-right-1d.json: nothing checked (1 skipped)$' "$tmp/out" \
    && grep -q '^SKIP corpus/shift-right-1d.json emu:mut-step-ignored: mutant not named' "$tmp/out" \
    && ! grep -q '^ok ' "$tmp/out" && pass "nothing checked: said per case and in the summary, no ok line" \
    || fail "nothing checked: said" "$(cat "$tmp/out")"
expect_rc "nothing checked, --json: exit 4 too" 4 "$SSFUZZ" regress --json -t emu:mut-step-ignored corpus/shift-right-1d.json
# One case checked is a verdict: exit 0, the other case's skip still shown.
expect_rc "one case checked: exit 0" 0 "$SSFUZZ" regress -t emu:mut-step-ignored corpus/shift-right-1d.json \
    corpus/step-greater-than-size.json
grep -q '^ok corpus/step-greater-than-size.json: 1 expectation holds$' "$tmp/out" \
    && grep -q '^SKIP corpus/shift-right-1d.json: nothing checked' "$tmp/out" \
    && pass "one case checked: its ok line, the other's skip" || fail "one case checked" "$(cat "$tmp/out")"
# -q keeps the summary, drops the per-check lines.
expect_rc "nothing checked, -q: exit 4" 4 "$SSFUZZ" regress -q -t emu:mut-step-ignored corpus/shift-right-1d.json
[ "$(wc -l <"$tmp/out")" = 1 ] && grep -q 'nothing was checked$' "$tmp/out" && pass "-q: the summary line alone" \
    || fail "-q: the summary line alone" "$(cat "$tmp/out")"

# A torch range against the running version: a python that imports torch and
# reports FAKE_TORCH_VERSION as torch.__version__ runs the real worker.
py=""
for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then py=$(command -v "$cand"); break; fi
done
if [ -z "$py" ]; then echo "skip regress torch versions: no python3 with torch (apt-get install python3-torch)"; exit 0; fi
cat >"$tmp/py-version" <<EOF
#!/bin/sh
exec "$py" -c 'import sys, runpy, torch; torch.__version__ = sys.argv[1]; sys.argv = sys.argv[2:]; runpy.run_path(sys.argv[0], run_name="__main__")' "\$FAKE_TORCH_VERSION" "\$@"
EOF
chmod +x "$tmp/py-version"
case_file=corpus/torch-144861-eager-shift-inner-4x6.json   # mismatch expected in ">=1.13.dev0"
run_as() { FAKE_TORCH_VERSION=$1 expect_rc "$2" "$3" "$SSFUZZ" --python "$tmp/py-version" regress --junit "$tmp/v.xml" "$case_file"; }

run_as "v2.15" "running torch \"v2.15\": exit 3" 3
grep -q '^ERROR corpus/torch-144861-eager-shift-inner-4x6.json torch:eager-cpu:setitem: running torch: "v2.15" is not a PEP 440 version: .*leading "v" is not accepted.*cannot be judged$' "$tmp/err" \
    && grep -q ', 1 unjudged,' "$tmp/out" && ! grep -q '^ok ' "$tmp/out" \
    && grep -A1 'name="torch:eager-cpu:setitem"' "$tmp/v.xml" | grep -q '<error type="unjudged-version"' \
    && pass "running torch \"v2.15\": an error of that check (stderr, summary, JUnit), no ok line" \
    || fail "running torch \"v2.15\": an error of that check" "$(cat "$tmp/err" "$tmp/out" | head -4)"
run_as "2.15.0a0+git1a2b3c" "a nightly inside the range: the expected failure holds (exit 0)" 0
run_as "1.13.0.dev20220601" "a 1.13 dev build is inside >=1.13.dev0 (exit 0)" 0
run_as "1.12.1+cpu" "torch below the range: agreement expected, the mismatch fails it (exit 1)" 1
grep -q '^FAIL .*torch:eager-cpu:setitem: expected agreement, got mismatch.*torch 1.12.1+cpu; mismatch expected only in >=1.13.dev0' "$tmp/out" \
    && pass "below the range: the failure names the version and the range" || fail "below the range: says why" "$(head -3 "$tmp/out")"
