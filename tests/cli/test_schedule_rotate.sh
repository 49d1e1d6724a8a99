#!/usr/bin/env bash
# --schedule rotate: case i runs under one schedule alone, splitmix64(i) mod n of
# (forward, reverse, lockstep, warp, random) on emu targets; its reproducer names it, and
# the summary and the reproduce line say rotate. (On compiled torch targets it is
# the default: tests/cli/test_torch_batch.sh.)
set -u
. "$(dirname "$0")/lib/common.sh"

"$SSFUZZ" fuzz -t emu:mut-alias-unchecked --schedule rotate --cases 300 --seed 3 --keep-variants -q \
    -o "$tmp/rot" >"$tmp/rot.log" 2>&1
python3 - "$tmp/rot" <<'PY' && pass "rotate: each reproducer ran schedule mix64(case_index) mod 5" || fail "rotate: schedule by case index"
import glob, json, sys
order = ["forward", "reverse", "lockstep", "warp", "random"]
M = (1 << 64) - 1
def mix64(x):   # splitmix64's finalizer, as harness/core/ss_bits.h
    x = (x + 0x9e3779b97f4a7c15) & M
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M
    return x ^ (x >> 31)
files = glob.glob(sys.argv[1] + "/mismatch-*.json")
seen = set()
for f in files:
    m = json.load(open(f))["meta"]
    want = order[mix64(int(m["case_index"])) % 5]
    if m["schedule"] != want:
        sys.exit("%s: case %s ran %s, want %s" % (f, m["case_index"], m["schedule"], want))
    seen.add(m["schedule"])
if len(seen) < 2:
    sys.exit("findings under %d schedule(s) only: %s" % (len(seen), sorted(seen)))
PY
grep -q '"schedule":[[:space:]]*"rotate"' "$tmp/rot/summary.json" && pass "rotate: summary.json says rotate" ||
    fail "rotate: summary.json schedule" "$(grep schedule "$tmp/rot/summary.json" | head -2)"
grep -q '^reproduce: .* --schedule rotate' "$tmp/rot.log" && pass "rotate: the reproduce line keeps --schedule rotate" ||
    fail "rotate: reproduce line" "$(grep '^reproduce' "$tmp/rot.log")"

# A rotated campaign reproduces itself: the same seed and cases give the same files.
"$SSFUZZ" fuzz -t emu:mut-alias-unchecked --schedule rotate --cases 300 --seed 3 --keep-variants -q \
    -o "$tmp/rot2" >/dev/null 2>&1
if [ "$(cd "$tmp/rot" && ls mismatch-*.json | sort)" = "$(cd "$tmp/rot2" && ls mismatch-*.json | sort)" ]; then
    pass "rotate: a second run writes the same reproducers"
else
    fail "rotate: a second run writes the same reproducers"
fi

# A shard (indices I mod N) still sees several schedules: with i mod 5, shard 0/5 would run forward alone.
"$SSFUZZ" fuzz -t emu:mut-alias-unchecked --schedule rotate --cases 300 --seed 3 --keep-variants --shard 0/5 -q \
    -o "$tmp/shard" >/dev/null 2>&1
n=$(for f in "$tmp"/shard/mismatch-*.json; do
        python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["meta"]["schedule"])' "$f"
    done | sort -u | wc -l)
[ "$n" -ge 2 ] && pass "rotate: shard 0/5 runs several schedules ($n)" || fail "rotate: shard 0/5 runs one schedule"

# The default on emu targets stays every schedule; rotate is not a schedule name elsewhere.
"$SSFUZZ" fuzz -t emu:reinplace --cases 50 --seed 1 -q -o "$tmp/def" >/dev/null 2>&1
grep -q '"schedule":[[:space:]]*"all"' "$tmp/def/summary.json" && pass "default on emu targets: every schedule" ||
    fail "default on emu targets" "$(grep schedule "$tmp/def/summary.json" | head -2)"
expect_rc "replay --schedule rotate is a usage error (replay runs named schedules)" 2 \
    "$SSFUZZ" replay --schedule rotate "$(ls "$tmp"/rot/mismatch-*.json | head -1)"
