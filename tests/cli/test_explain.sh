#!/usr/bin/env bash
# `ssfuzz explain`: plan, validity, overlap class and map for every corpus case; plain text
# off a terminal, colour on request; wrong cells after a mutant; large cases summarized in 80 columns.
set -u
. "$(dirname "$0")/lib/common.sh"
esc=$(printf '\033')

for f in corpus/*.json; do
    name="explain $(basename "$f")"
    "$SSFUZZ_ASAN" explain "$f" >"$tmp/out" 2>"$tmp/err"; rc=$?
    # a map row for every storage with cells (an empty storage has none to draw)
    if [ "$rc" = 0 ] && grep -q '^overlap:  ' "$tmp/out" && grep -q '^valid:    ' "$tmp/out" &&
       grep -q '^ input storage, [0-9]* cells' "$tmp/out" &&
       { grep -q '^ *[0-9]* |' "$tmp/out" || grep -q '^ input storage, 0 cells' "$tmp/out"; } &&
       grep -q '^  slice   dim ' "$tmp/out" && ! grep -q "$esc" "$tmp/out"; then pass "$name"
    else fail "$name" "exit $rc; $(head -c 300 "$tmp/err")"; fi
done

# The upstream shape x[1:] = x[:-1]: R at 0, X in between, W at the end; exact lines.
"$SSFUZZ" explain corpus/shift-right-1d.json >"$tmp/out" 2>&1
grep -qx '          0 |RXXXXXXW|' "$tmp/out" && pass "x[1:] = x[:-1] map" || fail "x[1:] = x[:-1] map" "$(grep '|' "$tmp/out")"
grep -q '^overlap:  partial' "$tmp/out" && pass "overlap class partial" || fail "overlap class partial"
grep -q '^  slice   dim 0, start 1, end 8, step 1, 7 of 8' "$tmp/out" && pass "clamped end shown" || fail "clamped end shown"
# x[0] = x[0].t(): one row per x[i] of the 2x3x3 tensor.
"$SSFUZZ" explain corpus/same-ptr-transpose.json >"$tmp/out" 2>&1
grep -qx '          0 |XXX XXX XXX|' "$tmp/out" && grep -qx '          9 |... ... ...|' "$tmp/out" \
    && pass "x[0] = x[0].t() map" || fail "x[0] = x[0].t() map" "$(grep '|' "$tmp/out")"
# Invalid input: said so, and why.
"$SSFUZZ" explain corpus/stride0-input.json >"$tmp/out" 2>&1
grep -q '^valid:    no - the input view has internal overlap' "$tmp/out" && grep -q 'reference rejects' "$tmp/out" \
    && pass "stride-0 input explained as invalid" || fail "stride-0 input explained as invalid"
# A program that only reads an overlapping input is valid (its slice_scatter runs).
"$SSFUZZ" explain corpus/torch-program-eager-scatter-overlapping-input-view.json >"$tmp/out" 2>&1
grep -q '^valid:    yes - a program on an input view with internal overlap' "$tmp/out" && grep -q '^meaning:  runs; returns 1 value' "$tmp/out" \
    && pass "program reading an overlapping input explained as valid" || fail "program reading an overlapping input explained as valid" "$(grep -A1 '^valid\|^meaning' "$tmp/out")"
# KV cache: rows outside the input view collapse to one line.
"$SSFUZZ" explain corpus/kv-cache-aliased.json >"$tmp/out" 2>&1
grep -q '0 | (to 63: outside the input view)' "$tmp/out" && grep -q '^ *64 |.... .... RRRR XXXX WWWW .... .... ....|$' "$tmp/out" \
    && pass "KV-cache map" || fail "KV-cache map" "$(grep '|' "$tmp/out")"

# A mutant's wrong cells, and exit 1.
"$SSFUZZ" explain corpus/shift-right-1d.json --target emu:reinplace --target emu:mut-alias-unchecked >"$tmp/out" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -qx '          0 |RX!!!!!!|' "$tmp/out" && grep -q '^emu:reinplace: agrees (5 runs)' "$tmp/out" \
    && pass "mutant's wrong cells marked" || fail "mutant's wrong cells marked" "exit $rc; $(grep '|' "$tmp/out")"

# Colour: only on request or a terminal; NO_COLOR wins over auto.
"$SSFUZZ" explain --color always corpus/shift-right-1d.json >"$tmp/out" 2>&1
grep -q "$esc\[" "$tmp/out" && pass "--color always colours" || fail "--color always colours"
if command -v script >/dev/null; then
    script -qec "$SSFUZZ explain corpus/shift-right-1d.json" /dev/null >"$tmp/tty" 2>&1
    grep -q "$esc\[" "$tmp/tty" && pass "colour on a terminal" || fail "colour on a terminal"
    NO_COLOR=1 script -qec "$SSFUZZ explain corpus/shift-right-1d.json" /dev/null >"$tmp/tty" 2>&1
    ! grep -q "$esc\[" "$tmp/tty" && pass "NO_COLOR on a terminal: plain" || fail "NO_COLOR on a terminal: plain"
else
    echo "skip colour on a terminal: no script(1)"
fi

# Large: 2^20 cells, summarized, every line within 80 columns, short.
"$SSFUZZ" explain corpus/shift-right-large.json --target emu:mut-alias-unchecked >"$tmp/out" 2>&1
long=$(awk 'length > 80' "$tmp/out" | head -2)
lines=$(wc -l <"$tmp/out")
if [ -z "$long" ] && [ "$lines" -lt 60 ] && grep -q '\.\.\. [0-9]* more rows' "$tmp/out" &&
   grep -q '1048576 cells: 1 W, 1 R, 1048574 X' "$tmp/out"; then pass "large case summarized within 80 columns"
else fail "large case summarized within 80 columns" "$lines lines; $long"; fi
for f in corpus/*.json; do
    "$SSFUZZ" explain "$f" --target emu:mut-alias-unchecked --target emu:mut-contiguous-src >"$tmp/out" 2>&1
    awk -v f="$f" 'length > 80 {print f ": " $0; bad=1} END {exit bad}' "$tmp/out" || wide=1
done
[ -z "${wide:-}" ] && pass "every corpus explanation fits 80 columns" || fail "every corpus explanation fits 80 columns"

# Usage and invalid cases: exit 2, one line.
for args in "" "--bogus corpus/shift-right-1d.json" "--color sometimes corpus/shift-right-1d.json" \
            "--rows 0 corpus/shift-right-1d.json" "$tmp/nope.json" "corpus/shift-right-1d.json corpus/bool-shift.json"; do
    # shellcheck disable=SC2086
    "$SSFUZZ" explain $args >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ "$rc" = 2 ] && pass "usage: explain $args" || fail "usage: explain $args" "exit $rc"
done
for f in tests/hostile/*.json; do
    [ -f "$f" ] || continue
    "$SSFUZZ_ASAN" explain "$f" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ "$rc" != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ]; then fail "hostile $(basename "$f")" "exit $rc"; hbad=1; fi
done
[ -z "${hbad:-}" ] && pass "hostile cases: exit 2, one line each (ASan)"

# A view whose first rows lie outside it: the collapsed stretch is one line,
# the view's rows are still drawn, and "more rows" counts what was not shown
# (314 rows of 64 aligned on offset 10000: 157 collapsed + 7 drawn, 150 left).
cat >"$tmp/late.json" <<'JSON'
{"format": "ssfuzz-case", "version": 1, "dtype": "uint8", "storage": {"numel": 20000},
 "input": {"offset": 10000, "sizes": [100, 64], "strides": [64, 1]},
 "src": {"storage": "input", "offset": 10000, "sizes": [1, 64], "strides": [64, 1]},
 "dim": 0, "start": 1, "end": 2, "step": 1, "fill": {"seed": 1}}
JSON
"$SSFUZZ" explain "$tmp/late.json" >"$tmp/out" 2>&1
if grep -q '^ *10000 |R\{64\}|$' "$tmp/out" && grep -q '^ *10064 |W\{64\}|$' "$tmp/out" &&
   grep -q '^  \.\.\. 150 more rows$' "$tmp/out"; then pass "explain draws a view whose first rows are outside it"
else fail "explain draws a view whose first rows are outside it" "$(grep -A3 'cells:' "$tmp/out" | head -5)"; fi
# Values as numbers next to bits: the mismatch line (replay, explain) and the
# wrong cells of explain --values, for float32 and for a 2-byte float (bfloat16).
"$SSFUZZ" replay corpus/shift-inner-dim.json --target emu:mut-alias-unchecked --schedule forward >"$tmp/out" 2>&1
if grep -q 'expected 3.0 (0x40400000), got 2.0 (0x40000000)' "$tmp/out"; then pass "replay mismatch line shows 3.0 (0x40400000) vs 2.0"
else fail "replay mismatch line shows 3.0 (0x40400000) vs 2.0" "$(head -c 300 "$tmp/out")"; fi
"$SSFUZZ" explain corpus/shift-inner-dim.json --target emu:mut-alias-unchecked --color never --values >"$tmp/out" 2>&1
n=$(grep -c '^    input storage\[[0-9]*\] (input index \[[0-9], [0-9]\]): expected [0-9.]* (0x[0-9a-f]*), got [0-9.]* (0x[0-9a-f]*)$' "$tmp/out")
if [ "$n" = 9 ] && grep -q 'storage\[7\] (input index \[1, 2\]): expected 8.0 (0x41000000), got 7.0 (0x40e00000)' "$tmp/out"
then pass "explain --values lists the 9 wrong cells with values"
else fail "explain --values lists the 9 wrong cells with values" "$n lines"; fi
"$SSFUZZ" explain corpus/kv-cache-separate.json --target emu:mut-ignore-offset --color never --values --rows 3 >"$tmp/out" 2>&1
if grep -q 'expected 14.0 (0x4160), got 130.0 (0x4302)' "$tmp/out" && grep -q '^    \.\.\. 29 more$' "$tmp/out"
then pass "explain --values: bfloat16 values, capped at --rows"
else fail "explain --values: bfloat16 values, capped at --rows" "$(grep -A4 'wrong cells' "$tmp/out" | head -5)"; fi
