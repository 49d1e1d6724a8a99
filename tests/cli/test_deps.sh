#!/usr/bin/env bash
# Dependencies by need: `make` runs only the build group (C compiler, cJSON) and never the
# network, clang, PyTorch or cmocka; a deps group whose package is missing and cannot be
# installed (offline) names that package, and --optional turns the failure into a notice.
set -u
cd "$(dirname "$0")/../.."
. "$(dirname "$0")/lib/common.sh"

# Stand-ins that record any call: apt-get fails as it would offline.
shims="$tmp/shims"
mkdir -p "$shims"
for c in apt-get sudo clang pip pip3 python3 curl wget; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\nexit 100\n' "$c" "$tmp" >"$shims/$c"
    chmod +x "$shims/$c"
done

if PATH="$shims:$PATH" make -s BUILD="$tmp/b" DEPS_DIR="$tmp/d" SS_NO_CUDA=1 CFLAGS=-O0 "$tmp/b/ssfuzz" >"$tmp/make.log" 2>&1 &&
   "$tmp/b/ssfuzz" --version >/dev/null; then
    pass "make builds ssfuzz with only the build group"
else
    fail "make builds ssfuzz with only the build group" "$(tail -5 "$tmp/make.log")"
fi
[ -e "$tmp/d/.deps-build" ] && [ ! -e "$tmp/d/.deps-test" ] && [ ! -e "$tmp/d/.deps-fuzz" ] &&
    pass "make ran the build deps group and no other" || fail "make ran only the build deps group" "$(ls -a "$tmp/d" 2>&1)"
if [ -s "$tmp/calls" ]; then fail "make touched no network, clang, pip or python3" "$(sort -u "$tmp/calls" | head -5 | tr '\n' ';')"
else pass "make touched no network, clang, pip or python3"; fi
rm -f "$tmp/calls"

# Offline with a missing package: the group fails and names it.
mkdir -p "$tmp/empty"
SS_DEPS_INCLUDE="$tmp/empty" PATH="$shims:$PATH" bash scripts/deps.sh test >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" = 1 ] && grep -q 'missing package(s): libcmocka-dev' "$tmp/err"; then pass "offline, a missing package is named (exit 1)"
else fail "offline, a missing package is named" "exit $rc: $(cat "$tmp/err")"; fi
SS_DEPS_INCLUDE="$tmp/empty" PATH="$shims:$PATH" bash scripts/deps.sh --optional build >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" = 0 ] && grep -q 'libcjson-dev' "$tmp/err" && grep -q 'skipped' "$tmp/err"; then pass "--optional: reported and skipped (exit 0)"
else fail "--optional: reported and skipped" "exit $rc: $(cat "$tmp/err")"; fi
# Present packages: no installer runs at all.
rm -f "$tmp/calls"
PATH="$shims:$PATH" bash scripts/deps.sh build >"$tmp/out" 2>&1; rc=$?
[ "$rc" = 0 ] && [ ! -s "$tmp/calls" ] && pass "packages present: deps build is offline and silent" ||
    fail "packages present: deps build is offline" "exit $rc, calls: $(cat "$tmp/calls" 2>/dev/null)"

# make torch-env on a full disk: one line naming the filesystem and the need, exit 3, and
# nothing written (no pip, no venv). The need is set past any disk's free space.
SS_TORCH_ENV_NEED_MB=999999999 PATH="$shims:$PATH" bash scripts/torch-env.sh 2.15.0 "$tmp/te/torch-2.15.0" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" = 3 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "not enough free disk for torch==2.15.0: .* MB free, needs .* MB" "$tmp/err" &&
   [ ! -e "$tmp/te" ] && [ ! -s "$tmp/calls" ]; then pass "torch-env: a full disk is one line, exit 3, nothing written"
else fail "torch-env: a full disk is one line, exit 3, nothing written" "exit $rc: $(cat "$tmp/err"; ls "$tmp/te" 2>&1; cat "$tmp/calls" 2>/dev/null)"; fi
expect_rc "torch-env: a TORCH that is not a release number is refused (exit 2)" 2 bash scripts/torch-env.sh '2.15;rm' "$tmp/te/x"
grep -q "TORCH='2.15;rm' is not a release number" "$tmp/err" && pass "torch-env: the refusal names TORCH" || fail "torch-env: the refusal names TORCH" "$(cat "$tmp/err")"

# A failed install (a stand-in python whose venv's pip fails) leaves no half-made venv, and
# room for the venv but not for pip's cache turns the cache off with a notice.
cat >"$tmp/fakepy" <<'PYEOF'
#!/bin/sh
# "python -m venv DIR": a venv whose pip fails as a full disk would
[ "$1 $2" = "-m venv" ] || exit 9
mkdir -p "$3/bin" && printf '#!/bin/sh\necho "pip $*" >>"%s"\necho "ERROR: [Errno 28] No space left on device" >&2\nexit 1\n' "$3/../pip.args" >"$3/bin/pip" && chmod +x "$3/bin/pip"
PYEOF
chmod +x "$tmp/fakepy"
free=$(df -Pm "$tmp" | awk 'NR == 2 { print $4 }')
mkdir -p "$tmp/te"
SS_TORCH_ENV_NEED_MB=$((free > 1000 ? free - 500 : free)) PIP_NO_CACHE_DIR= TMPDIR="$tmp" PIP_CACHE_DIR="$tmp/cache" \
    bash scripts/torch-env.sh 2.15.0 "$tmp/te/torch-2.15.0" "$tmp/fakepy" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ "$rc" = 1 ] && [ ! -e "$tmp/te/torch-2.15.0" ] && grep -q "installing torch==2.15.0 into .* failed" "$tmp/err"; then
    pass "torch-env: a failed install is removed, exit 1"
else fail "torch-env: a failed install is removed, exit 1" "exit $rc: $(cat "$tmp/out" "$tmp/err"; ls "$tmp/te")"; fi
if [ "$free" -gt 1000 ]; then
    grep -q "too little room for pip's cache as well .*; installing without it" "$tmp/out" && grep -q -- "--no-cache-dir" "$tmp/te/pip.args" &&
        pass "torch-env: no room for pip's cache turns it off, with a notice" ||
        fail "torch-env: no room for pip's cache turns it off, with a notice" "$(cat "$tmp/out" "$tmp/te/pip.args")"
else
    echo "skip torch-env cache notice: under 1 GB free on $tmp"
fi
# The NumPy a release was built against: before 2.3, NumPy 1 (NumPy 2 warns "may crash" on import).
rm -f "$tmp/te/pip.args"
for v in 2.0.1 2.15.0; do
    PIP_NO_CACHE_DIR=1 bash scripts/torch-env.sh "$v" "$tmp/te/torch-$v" "$tmp/fakepy" >/dev/null 2>&1
done
if grep -q "torch==2.0.1 numpy<2\$" "$tmp/te/pip.args" && grep -q "torch==2.15.0 numpy\$" "$tmp/te/pip.args"; then
    pass "torch-env: numpy<2 for a release before 2.3, the newest numpy after"
else fail "torch-env: numpy<2 for a release before 2.3, the newest numpy after" "$(cat "$tmp/te/pip.args" 2>&1)"; fi
