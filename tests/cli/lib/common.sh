# common.sh - sourced by tests/cli/*.sh: the binaries under test, a scratch
# directory, and the "ok NAME" / "not ok NAME: why" protocol run-tests.sh counts.
SSFUZZ=${SSFUZZ:-build/ssfuzz}
SSFUZZ_ASAN=${SSFUZZ_ASAN:-$SSFUZZ}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass() { echo "ok $1"; }
fail() { echo "not ok $1${2:+: $2}"; }
expect_rc() {   # name want cmd...: the command's exit code must be `want`
    local name=$1 want=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if [ "$rc" = "$want" ]; then pass "$name"; else fail "$name" "exit $rc, expected $want; $(tail -3 "$tmp/err")"; fi
}
compile_pythons() {   # the pythons of SSFUZZ_TORCH_PYTHONS (default build/torch-*/bin/python) with torch.compile, a line each
    local cand
    for cand in ${SSFUZZ_TORCH_PYTHONS:-build/torch-*/bin/python}; do
        [ -x "$cand" ] && "$cand" -c 'import torch, sys; sys.exit(0 if hasattr(torch, "compile") else 1)' 2>/dev/null && echo "$cand"
    done
}
