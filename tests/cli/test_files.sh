#!/usr/bin/env bash
# Files ssfuzz writes: modes follow the umask, replay --dump names never
# collide, and an empty --dump / --out directory is refused.
set -u
. "$(dirname "$0")/lib/common.sh"

c=corpus/shift-right-1d.json
mode_is() {   # name want file...
    local name=$1 want=$2 bad=""; shift 2
    for f in "$@"; do [ "$(stat -c %a "$f" 2>/dev/null)" = "$want" ] || bad="$bad $f:$(stat -c %a "$f" 2>/dev/null)"; done
    [ -z "$bad" ] && [ $# -gt 0 ] && pass "$name" || fail "$name" "want $want:$bad"
}
(umask 077
 "$SSFUZZ" minimize --target emu:mut-alias-unchecked --schedule forward "$c" -o "$tmp/m.json" >/dev/null 2>&1
 "$SSFUZZ" replay --dump "$tmp/d77" --target emu:reinplace --schedule forward "$c" >/dev/null 2>&1
 "$SSFUZZ" regress -q "$c" --junit "$tmp/j77.xml" --sarif "$tmp/s77.sarif" >/dev/null 2>&1)
mode_is "umask 077: minimize -o, --dump, --junit, --sarif are 600" 600 "$tmp/m.json" "$tmp"/d77/*.json "$tmp/j77.xml" "$tmp/s77.sarif"
(umask 002; "$SSFUZZ" replay --dump "$tmp/d02" --target emu:reinplace --schedule forward "$c" >/dev/null 2>&1)
mode_is "umask 002: --dump files are 664" 664 "$tmp"/d02/*.json

# Same file names in two directories, and names that differ after the first dot.
mkdir -p "$tmp/a" "$tmp/b"
cp corpus/shift-right-1d.json "$tmp/a/case.json"
cp corpus/shift-left-1d.json "$tmp/b/case.json"
cp corpus/shift-right-1d.json "$tmp/x.v1.json"
cp corpus/shift-left-1d.json "$tmp/x.v2.json"
"$SSFUZZ" replay -q --dump "$tmp/dd" --target emu:reinplace --schedule forward \
    "$tmp/a/case.json" "$tmp/b/case.json" "$tmp/x.v1.json" "$tmp/x.v2.json" >/dev/null 2>&1
refs=$(ls "$tmp/dd" | grep -c '\.reference\.json$')
[ "$refs" = 4 ] && [ -f "$tmp/dd/x.v1.reference.json" ] && [ -f "$tmp/dd/x.v2.reference.json" ] &&
    [ "$(ls "$tmp/dd" | grep -c '^case-[0-9a-f]\{8\}\.reference\.json$')" = 2 ] &&
    pass "--dump: four cases, four reference dumps" || fail "--dump: four cases, four reference dumps" "$(ls "$tmp/dd" | tr '\n' ' ')"
# target dumps hold the final storages (not empty arrays)
if grep -q '"input":[[:space:]]*\[[[:space:]]*[-0-9"]' "$tmp/dd/x.v1.emu_reinplace.forward.json" 2>/dev/null; then
    pass "--dump: a target's dump holds its final storage"
else fail "--dump: a target's dump holds its final storage" "$(head -c 200 "$tmp/dd/x.v1.emu_reinplace.forward.json" 2>&1)"; fi

# Empty directory names: refused with one line, exit 2.
for args in "replay --dump '' $c" "fuzz --out '' --cases 1 --target emu:reinplace"; do
    eval "\"$SSFUZZ_ASAN\" $args" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "must not be empty" "$tmp/err"; then pass "empty dir: $args"
    else fail "empty dir: $args" "exit $rc: $(head -c 200 "$tmp/err")"; fi
done

# A reproducer's meta.schedule_seed: a decimal string is taken exactly; an
# old inexact double is refused (it used to fall back to seed 1 silently).
for seed in '"18446744073709551615"' '1.8446744073709552e19'; do
    python3 - "$tmp/seed.json" "$seed" <<'PY'
import json, sys
c = json.load(open("corpus/shift-right-1d.json"))
c["meta"] = {"target": "emu:mut-alias-unchecked", "schedule": "random", "schedule_seed": json.loads(sys.argv[2])}
json.dump(c, open(sys.argv[1], "w"))
PY
    "$SSFUZZ" minimize --target emu:mut-alias-unchecked "$tmp/seed.json" -o "$tmp/seed-min.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
    case $seed in
    \"*) [ "$rc" != 2 ] && pass "meta.schedule_seed as a string is taken" || fail "meta.schedule_seed as a string is taken" "$(head -1 "$tmp/err")";;
    *) [ "$rc" = 2 ] && grep -q "meta.schedule_seed" "$tmp/err" && pass "an inexact meta.schedule_seed is refused" ||
           fail "an inexact meta.schedule_seed is refused" "exit $rc";;
    esac
done
