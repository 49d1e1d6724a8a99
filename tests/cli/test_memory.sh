#!/usr/bin/env bash
# Bounded memory: a 40 MB case (20 M uint8 values) is replayed under a 300 MB
# data limit (reading it used to take 80 bytes per element, 1.6 GB), and under
# a limit too small for it, out of memory is reported as such in one line.
set -u
. "$(dirname "$0")/lib/common.sh"

python3 - "$tmp/big.json" <<'PY'
import sys
n = 20_000_000
with open(sys.argv[1], "w") as f:
    f.write('{"format":"ssfuzz-case","version":1,"dtype":"uint8","storage":{"numel":%d},'
            '"input":{"offset":0,"sizes":[%d],"strides":[1]},'
            '"src":{"storage":"input","offset":0,"sizes":[%d],"strides":[1]},'
            '"dim":0,"start":1,"end":null,"step":1,"values":{"input":[' % (n, n, n - 1))
    f.write(",".join(["7"] * n))
    f.write("]}}\n")
PY
# RLIMIT_DATA counts heap and private writable mappings (malloc), not the
# address space a GPU runtime may reserve, so the figure means memory used.
(ulimit -d 300000; "$SSFUZZ" replay --target emu:reinplace --schedule forward "$tmp/big.json") >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 0 ] && pass "40 MB case replays within 300 MB" || fail "40 MB case replays within 300 MB" "exit $rc: $(head -c 200 "$tmp/err")"
(ulimit -d 30000; "$SSFUZZ" replay --target emu:reinplace --schedule forward "$tmp/big.json") >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "out of memory" "$tmp/err" && ! grep -q "syntax" "$tmp/err"
then pass "out of memory is reported as such (exit 2, one line)"
else fail "out of memory is reported as such (exit 2, one line)" "exit $rc: $(head -c 200 "$tmp/err")"; fi
