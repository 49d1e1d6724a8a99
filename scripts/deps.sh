#!/usr/bin/env bash
# Installs what one job needs and this machine lacks, by group; touches the network only
# when something is missing, and names each missing package when it cannot install it.
#
#   scripts/deps.sh [--optional] GROUP...
#
# Groups (Debian packages unless noted):
#   build    make, a C compiler, libcjson-dev                  (`make`, build/ssfuzz)
#   test     libcmocka-dev                                     (`make test-unit`, `make test`)
#   fuzz     clang, libclang-rt-dev (libFuzzer runtime)        (`make libfuzzer`)
#   torch    python3-torch, python3-numpy; none with SS_NO_TORCH=1 (PyTorch cross-check)
#   browser  chromium                                          (the HTML report's screenshot test)
#   lint     python3-yaml, python3-pyflakes, python3-venv; check-jsonschema and zizmor from PyPI
#            into build/tools/lint
#   slurm    slurm-wlm, munge                                  (a one-node Slurm: tests/cli/test_slurm.sh)
#   all      every group (.ci/run)
# SS_OFFLINE=1: never call apt-get; name what is missing. SS_VENDORED_CJSON=1: build needs
# no libcjson-dev. SS_PREFIX=DIR: headers found under DIR/usr/include count as installed.
# --optional: a group that cannot be installed is reported and skipped (exit 0); the tests
# that need it then skip with the reason. Without it such a failure exits 1.
set -uo pipefail
cd "$(dirname "$0")/.."

optional=0
[ "${1:-}" = --optional ] && { optional=1; shift; }
[ $# -gt 0 ] || { echo "usage: scripts/deps.sh [--optional] build|test|fuzz|torch|browser|lint|slurm|all..." >&2; exit 2; }
groups=("$@")
[ "${groups[*]}" = all ] && groups=(build test fuzz torch browser lint slurm)

LINT_VENV=build/tools/lint
INCLUDE=${SS_DEPS_INCLUDE:-/usr/include}   # tests point this at an empty directory
# SS_PREFIX: Debian packages unpacked with `dpkg -x` (scripts/gpu-prepare.sh); the Makefile adds its paths.
have_header() { [ -e "$INCLUDE/$1" ] || { [ -n "${SS_PREFIX:-}" ] && [ -e "$SS_PREFIX/usr/include/$1" ]; }; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_libfuzzer_rt() { ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; }

# Debian packages a group lacks, one per line.
missing_debs() {
    case "$1" in
    build) have_cmd make || echo make
           have_cmd cc || echo gcc
           # SS_VENDORED_CJSON=1 builds third_party/cjson/ instead
           [ "${SS_VENDORED_CJSON:-0}" = 1 ] || have_header cjson/cJSON.h || echo libcjson-dev ;;
    test)  have_header cmocka.h || echo libcmocka-dev ;;
    fuzz)  have_cmd clang || echo clang
           have_libfuzzer_rt || echo libclang-rt-dev ;;
    # a python3 with torch: Debian's, SSFUZZ_PYTHON, or the first python3 on PATH (a venv)
    torch) if [ "${SS_NO_TORCH:-0}" != 1 ] && ! /usr/bin/python3 -c 'import torch' >/dev/null 2>&1 \
              && ! "${SSFUZZ_PYTHON:-python3}" -c 'import torch' >/dev/null 2>&1; then
               echo python3-torch; echo python3-numpy
           fi ;;
    browser) have_cmd chromium || echo chromium ;;
    # the daemons live in /usr/sbin, which a user's PATH may lack
    slurm) { have_cmd slurmctld || [ -x /usr/sbin/slurmctld ]; } && { have_cmd sbatch || [ -x /usr/bin/sbatch ]; } \
               || echo slurm-wlm
           { have_cmd munged || [ -x /usr/sbin/munged ]; } || echo munge ;;
    lint)  /usr/bin/python3 -c 'import yaml' >/dev/null 2>&1 || echo python3-yaml
           # tests/cli/test_python_sources.sh lints the tree's Python with the system python3's
           /usr/bin/python3 -c 'import pyflakes' >/dev/null 2>&1 || echo python3-pyflakes
           # the PyPI tools go into a virtual environment: Debian's python3 needs python3-venv
           python3 -c 'import ensurepip' >/dev/null 2>&1 || echo python3-venv ;;
    *) echo "deps: unknown group '$1'" >&2; return 2 ;;
    esac
}

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif have_cmd sudo; then sudo "$@"
    else echo "deps: need root for: $*" >&2; return 1; fi
}

apt_install() {   # packages...
    # SS_OFFLINE=1 (a machine without network, e.g. scripts/gpu-check.sh): check only.
    [ "${SS_OFFLINE:-0}" = 1 ] && return 1
    export DEBIAN_FRONTEND=noninteractive
    # The package lists may be current enough already: try without the network first.
    as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 && return 0
    as_root apt-get update -qq >/dev/null 2>&1 || true
    as_root apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1
}

# PyPI tools for `lint`, in a private virtual environment (never the system Python).
lint_pypi() {
    [ -x "$LINT_VENV/bin/check-jsonschema" ] && [ -x "$LINT_VENV/bin/zizmor" ] && return 0
    local py
    py=$(command -v python3) || { echo "deps: lint: python3 is missing (Debian: python3, python3-venv)" >&2; return 1; }
    echo "deps: installing check-jsonschema zizmor (PyPI) into $LINT_VENV"
    { "$py" -m venv "$LINT_VENV" && "$LINT_VENV/bin/pip" install -q check-jsonschema zizmor; } >/dev/null 2>&1 || {
        echo "deps: cannot install PyPI packages check-jsonschema, zizmor into $LINT_VENV (offline? no python3-venv?)" >&2
        return 1
    }
}

status=0
for g in "${groups[@]}"; do
    debs=$(missing_debs "$g") || exit 2
    ok=1
    if [ -n "$debs" ]; then
        # shellcheck disable=SC2086
        list=$(echo $debs)
        [ "${SS_OFFLINE:-0}" = 1 ] || echo "deps: $g: installing $list"
        if ! apt_install $debs; then
            left=$(missing_debs "$g" | tr '\n' ' ')
            why="apt-get install failed: no network or no root?"
            [ "${SS_OFFLINE:-0}" = 1 ] && why="SS_OFFLINE=1: not installing"
            echo "deps: $g: missing package(s): ${left:-$list}($why)" >&2
            ok=0
        fi
    fi
    [ "$g" = lint ] && [ "$ok" = 1 ] && { lint_pypi || ok=0; }
    if [ "$ok" = 0 ]; then
        if [ "$optional" = 1 ]; then echo "deps: $g: skipped; the tests that need it will say so" >&2
        else status=1; fi
    fi
done
exit $status
