#!/usr/bin/env bash
# The tree's Python is Python: every .py (harness/, python/, examples/, bench/, scripts/, fuzz/,
# tests/; not build*/ or third_party/) compiles (`py_compile`, warnings as errors), and pyflakes
# finds nothing in it. The exported scripts' bodies (harness/report/*.py, built into ssfuzz) are
# no modules: they use the constants a script defines before them, so pyflakes reads them inside
# exported scripts (a single write, a program), which must hold each body whole. Without pyflakes
# (scripts/deps.sh lint: python3-pyflakes) the lint skips; py_compile never does. Both checks are
# shown to fail on a broken file first.
set -u
. "$(dirname "$0")/lib/common.sh"

mapfile -t files < <(find . \( -name .git -o -name 'build*' -o -name third_party -o -name __pycache__ \) -prune \
                          -o -name '*.py' -print | sed 's|^\./||' | sort)
bodies=(harness/report/*.py)

# compiles FILE...: each file's "FILE: error" line; exit 1 when any fails (.pyc files in $tmp, not the tree)
compiles() {
    python3 -W error - "$tmp" "$@" <<'PY'
import os, py_compile, sys
bad = 0
for i, path in enumerate(sys.argv[2:]):
    try:
        py_compile.compile(path, cfile=os.path.join(sys.argv[1], '%d.pyc' % i), doraise=True)
    except (py_compile.PyCompileError, SyntaxWarning, OSError) as e:
        print('%s: %s' % (path, ' '.join(str(e).split())))
        bad = 1
sys.exit(bad)
PY
}
printf 'def f(:\n' >"$tmp/broken.py"
compiles "$tmp/broken.py" >/dev/null && fail "py_compile refuses a syntax error" "it passed" || pass "py_compile refuses a syntax error"
[ ${#files[@]} -ge 15 ] && pass "found ${#files[@]} .py files" || fail "found the tree's .py files" "only ${#files[@]}: ${files[*]}"
if out=$(compiles "${files[@]}"); then pass "every .py compiles (${#files[@]} files)"
else fail "every .py compiles" "$(echo "$out" | head -5 | tr '\n' ';')"; fi

flakes=""
for cand in python3 /usr/bin/python3 build/tools/lint/bin/python; do
    command -v "$cand" >/dev/null && "$cand" -m pyflakes --version >/dev/null 2>&1 && { flakes=$cand; break; }
done
if [ -z "$flakes" ]; then
    echo "skip pyflakes: no python3 with pyflakes (scripts/deps.sh lint installs python3-pyflakes)"
    exit 0
fi
printf '"""an unused import, an undefined name"""\nimport os\nprint(undefined_name)\n' >"$tmp/flawed.py"
out=$("$flakes" -m pyflakes "$tmp/flawed.py" 2>&1)
echo "$out" | grep -q "'os' imported but unused" && echo "$out" | grep -q "undefined name 'undefined_name'" &&
    pass "pyflakes finds an unused import and an undefined name" || fail "pyflakes finds flaws" "$out"

standalone=()
for f in "${files[@]}"; do [[ " ${bodies[*]} " == *" $f "* ]] || standalone+=("$f"); done
if out=$("$flakes" -m pyflakes "${standalone[@]}" 2>&1); then pass "pyflakes: nothing in ${#standalone[@]} files"
else fail "pyflakes: nothing in the standalone files" "$(echo "$out" | head -8 | tr '\n' ';')"; fi

# The bodies inside the scripts that carry them: a write (every spelling's function) and a program.
"$SSFUZZ" export --torch corpus/torch-144861-eager-shift-inner-4x6.json -o "$tmp/write.py" &&
    "$SSFUZZ" export --torch examples/programs/read-before-write.json -o "$tmp/program.py" ||
    fail "export the scripts to lint"
out=$(python3 - "$tmp/write.py" "$tmp/program.py" "${bodies[@]}" <<'PY'
import sys
scripts = [open(p).read() for p in sys.argv[1:3]]
for path in sys.argv[3:]:
    text = open(path).read()
    body = text.split('"""', 2)[2][1:] if text.startswith('"""') else text   # the script leaves out the docstring
    if not any(body in s for s in scripts):
        print(path)
PY
)
[ -z "$out" ] && [ ${#bodies[@]} -ge 3 ] && pass "the exported scripts hold each body whole (${bodies[*]})" ||
    fail "the exported scripts hold each body whole" "not found: $out"
if out=$("$flakes" -m pyflakes "$tmp/write.py" "$tmp/program.py" 2>&1); then pass "pyflakes: nothing in exported scripts (a write, a program)"
else fail "pyflakes: nothing in exported scripts" "$(echo "$out" | head -8 | tr '\n' ';')"; fi
