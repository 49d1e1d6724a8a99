#!/usr/bin/env bash
# The README's Usage block, extracted and run (placeholders bound to real files,
# outputs sent to a scratch directory, campaigns shortened): every command must
# exist, accept its options and exit with a documented code, so the README
# cannot go stale unnoticed. README.md marks the block
# `<!-- run by: tests/cli/test_readme_examples.sh -->` (tests/cli/test_doc_blocks.sh checks it).
set -u
. "$(dirname "$0")/lib/common.sh"
block=$(awk '/^## Usage/ {u = 1} u && /^```sh/ {b = 1; next} b && /^```/ {exit} b' README.md)
[ -n "$block" ] && pass "README has a Usage block" || { fail "README has a Usage block"; exit 0; }

# Bind the placeholders: a reproducer and a case from a short campaign, the corpus.
"$SSFUZZ" fuzz -t emu:mut-alias-unchecked --seed 1 --cases 200 -q -o "$tmp/reports" >/dev/null 2>&1
repro=$(ls "$tmp"/reports/mismatch-*.json 2>/dev/null | head -1)
[ -n "$repro" ] || { fail "a reproducer to bind case.json to"; exit 0; }
mkdir -p "$tmp/night" && cp "$repro" "$tmp/night/"
n=0
while IFS= read -r line; do
    cmd=${line%%  #*}                        # drop the trailing comment
    cmd=$(echo "$cmd" | sed -e 's/[[:space:]]*$//')
    [ -z "$cmd" ] && continue
    case $cmd in *"--plugin ./mine.so"*) [ -f build/plugins/naive.so ] || { echo "skip readme: $cmd (no build/plugins)"; continue; } ;; esac
    case $cmd in PYTHONPATH=*) command -v python3 >/dev/null || continue ;; esac
    c=${cmd//build\/ssfuzz/$SSFUZZ}
    c=${c//reports\/mismatch-\*.json/$repro}
    c=${c//case.json/$repro}
    c=${c//--target T/--target emu:mut-alias-unchecked}
    c=${c//--time 60/--time 2}
    c=${c//--time 10/--time 2}
    c=${c//.\/mine.so/build\/plugins\/naive.so}
    c=${c//mine:copy/naive:copy}
    c=${c//reports\/night --update/$tmp\/night --ledger $tmp\/ledger.json}
    c=${c// out\// $tmp\/out\/}
    c=${c// out.xml/ $tmp\/out.xml}
    c=${c// out.sarif/ $tmp\/out.sarif}
    c=${c// min.json/ $tmp\/min.json}
    c=${c// c.json/ $tmp\/c.json}
    c=${c//> repro.py/> $tmp\/repro.py}
    c=${c//fuzz --time/fuzz -o $tmp\/fz -q --time}
    n=$((n + 1))
    (eval "$c") >"$tmp/ex.out" 2>&1
    rc=$?
    if [ "$rc" -le 1 ] && ! grep -qiE "unknown option|unrecognized option|unknown command" "$tmp/ex.out"; then
        pass "README: $cmd"
    else
        fail "README: $cmd" "exit $rc: $(tail -2 "$tmp/ex.out" | tr '\n' ' ' | cut -c1-200)"
    fi
done <<<"$block"
[ "$n" -ge 10 ] && pass "README Usage: $n commands run" || fail "README Usage commands" "only $n"
