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
