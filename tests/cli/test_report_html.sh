#!/usr/bin/env bash
# The nightly HTML report renders: five nights of history through `ssfuzz triage --html`,
# opened in headless Chromium (Debian's `chromium`), which must lay out the verdict, the
# finding tables and the inline-SVG trend (one point per night) and take a screenshot.
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"

cd "$tmp"
bin=$OLDPWD/$SSFUZZ
case "$SSFUZZ" in /*) bin=$SSFUZZ ;; esac
# Five nights: a mutant found, found again twice, then the correct kernel (fixed), then clean.
plan=("mut 1 2026-02-01" "mut 2 2026-02-02" "mut 3 2026-02-03" "fix 4 2026-02-04" "fix 5 2026-02-05")
for p in "${plan[@]}"; do
    set -- $p
    t=emu:mut-alias-unchecked; [ "$1" = fix ] && t=emu:reinplace
    "$bin" fuzz --target "$t" --cases 800 --seed "$2" --out "n$2" -q >/dev/null 2>&1
    "$bin" triage --found "n$2" --ledger known/ledger.json --update --recheck-on emu:reinplace --date "$3" \
        --history history.jsonl --html "n$2/report.html" --explain "n$2/explain" -q >"n$2.log" 2>&1
done
html=n4/report.html
if [ "$(grep -c . history.jsonl 2>/dev/null)" = 5 ] && grep -q 'id="fixed"' "$html"; then
    pass "triage --html: five nights of history, tonight's fixed findings listed"
else
    fail "triage --html" "$(cat n4.log)"
fi
pts=$(sed -n 's/.*<polyline id="rate"[^>]*points="\([^"]*\)".*/\1/p' "$html" | wc -w)
[ "$pts" = 4 ] && pass "trend plot: one point per night so far (4)" || fail "trend plot points" "$pts points"

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "skip report renders in headless Chromium: chromium not installed (Debian: chromium; make deps-optional)"
    exit 0
fi
run_browser() { timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$tmp/profile" --window-size=1000,1100 "$@" "file://$tmp/$html" 2>>"$tmp/chromium.err"; }
run_browser --dump-dom >"$tmp/dom.html"
if grep -q '<svg id="trend"' dom.html && grep -q '<polyline id="rate"' dom.html && grep -q 'id="verdict"' dom.html; then
    pass "Chromium parses the report (verdict, SVG trend)"
else
    fail "Chromium parses the report" "$(tail -3 chromium.err)"
fi
run_browser --screenshot="$tmp/report.png" >/dev/null
size=$(stat -c %s report.png 2>/dev/null || echo 0)
# A PNG with the expected size in its IHDR (bytes 16..23: width, height).
dims=$(od -An -tu1 -j16 -N8 report.png 2>/dev/null | awk '{print $3*256+$4 "x" $7*256+$8}')
if [ "$size" -gt 20000 ] && [ "$dims" = 1000x1100 ]; then
    pass "headless Chromium screenshot of the report ($dims, $size bytes)"
    if [ -n "${SS_KEEP_SCREENSHOT:-}" ]; then cp report.png "$SS_KEEP_SCREENSHOT"; fi
else
    fail "headless Chromium screenshot" "size $size, dims $dims: $(tail -3 chromium.err)"
fi
