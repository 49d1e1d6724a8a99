#!/usr/bin/env bash
# The layer order (the Makefile's LAYERS, lowest first) holds: no #include and no
# object symbol points upward, no two objects depend on each other in a circle
# (scripts/check_layers.py), and outside harness/engines/ no code tests an
# engine's name (each engine's descriptor answers instead). The checker itself
# is shown to fail on an upward include, an upward symbol and a circle.
set -u
. "$(dirname "$0")/lib/common.sh"
layers=$(make -s print-layers)
[ -n "$layers" ] && pass "make print-layers lists the layers" || fail "make print-layers lists the layers"

# shellcheck disable=SC2086
if out=$(python3 scripts/check_layers.py build $layers 2>&1); then pass "layers hold in this tree ($out)"
else fail "layers hold in this tree" "$(echo "$out" | head -5 | tr '\n' ';')"; fi
case $out in *" 0 objects"*) fail "objects were checked too" "no objects under build/";; *) pass "objects were checked too";; esac

# A scratch tree of three layers: the checker must refuse each violation.
mk() { mkdir -p "$(dirname "$tmp/t/$1")"; printf '%s\n' "$2" >"$tmp/t/$1"; }
mk low/a.h  '#include "b.h"'
mk high/b.h '/* b */'
if (cd "$tmp/t" && python3 "$OLDPWD/scripts/check_layers.py" build low high) >"$tmp/o" 2>&1; then
    fail "an upward include is refused" "the checker exited 0"
elif grep -q 'low/a.h (low) includes high/b.h (high): upward' "$tmp/o"; then pass "an upward include is refused"
else fail "an upward include is refused" "$(cat "$tmp/o")"; fi

rm -rf "$tmp/t"
mk low/a.c  'int high_f(void); int low_f(void) { return high_f(); }'
mk high/b.c 'int low_f(void); int high_f(void) { return 1; } int use(void) { return low_f(); }'
mk mid/c.c  'int mid_g(void); int mid_f(void) { return mid_g(); }'
mk mid/d.c  'int mid_f(void); int mid_g(void) { return mid_f(); }'
# embedded Python (the Makefile's PY_EMBED): mid/h.py's build/gen/h_py.o is in layer mid
mk low/e.c  'extern const char h_py[]; const char *low_e(void) { return h_py; }'
mk mid/h.py '"""h"""'
mk build/gen/h_py.c 'const char h_py[] = "x";'
mk high/h.py '"""the same name in another layer"""'
for f in low/a high/b mid/c mid/d low/e; do mkdir -p "$tmp/t/build/$(dirname $f)"; cc -c "$tmp/t/$f.c" -o "$tmp/t/build/$f.o"; done
cc -c "$tmp/t/build/gen/h_py.c" -o "$tmp/t/build/gen/h_py.o"
(cd "$tmp/t" && python3 "$OLDPWD/scripts/check_layers.py" build low mid high) >"$tmp/o" 2>&1
grep -q 'low/e.c (low) uses h_py of mid/h.py (mid): upward' "$tmp/o" \
    && pass "an upward symbol of embedded Python is refused" || fail "an upward symbol of embedded Python is refused" "$(cat "$tmp/o")"
grep -q 'high/h.py: mid/h.py has the same name' "$tmp/o" \
    && pass "two embedded .py of one name are refused" || fail "two embedded .py of one name are refused" "$(cat "$tmp/o")"
grep -q 'low/a.c (low) uses high_f of high/b.c (high): upward' "$tmp/o" \
    && pass "an upward symbol is refused" || fail "an upward symbol is refused" "$(cat "$tmp/o")"
grep -q '^circle: mid/c.c -> mid/d.c -> mid/c.c' "$tmp/o" \
    && pass "a circle is refused" || fail "a circle is refused" "$(cat "$tmp/o")"

# Outside the engines (and help text), nothing branches on an engine's name:
# no comparison against "emu", "cuda", "torch" or "plugin", whole or as a prefix.
hits=$(grep -nE '(strn?cmp|strstr)\([^;]*"((emu|cuda|torch|plugin)(:[^"]*)?|:compile[^"]*)"' \
         harness/core/*.c harness/campaign/*.c harness/report/*.c harness/cli/*.c 2>/dev/null |
       grep -v 'strcmp(it->string, "torch")')   # the expect block's "torch" field, a format key
[ -z "$hits" ] && pass "no engine name tested outside harness/engines/" \
    || fail "no engine name tested outside harness/engines/" "$(echo "$hits" | head -3 | tr '\n' ';')"
