#!/usr/bin/env bash
# torch-env.sh VERSION DIR [PYTHON] - a venv in DIR with torch==VERSION from PyPI,
# checked by importing it; prints the SSFUZZ_PYTHON= line for torch:* targets.
# Idempotent: an existing venv with that version is kept.
#
# Disk: PyPI's torch pulls the CUDA libraries; the venv is about 5.5 GB and pip holds the
# downloaded wheels (about 3.5 GB) beside it until the install ends, plus a second copy in
# pip's cache unless that is off (PIP_NO_CACHE_DIR, or too little room: it is then turned
# off for this install with a notice). Space is checked before anything is written, so a
# full disk is one line up front, not a pip traceback and a half-made venv.
# Exit codes: 0 ready; 1 the install or the import failed (the half-made venv is removed);
# 2 usage; 3 not enough free space (nothing written). SS_TORCH_ENV_NEED_MB overrides the
# space this needs without pip's cache (default 9500).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/torch-env.sh VERSION DIR [PYTHON]" >&2; exit 2; }
version=$1 dir=$2 py=${3:-python3}
case $version in
    *[!0-9A-Za-z.+]* | "") echo "torch-env: TORCH='$version' is not a release number (e.g. 2.15.0)" >&2; exit 2 ;;
esac

if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "import torch, sys; sys.exit(0 if torch.__version__.split('+')[0] == '$version' else 1)" 2>/dev/null; then
    echo "torch-env: $dir already has torch $version"
    echo "SSFUZZ_PYTHON=$(cd "$dir" && pwd)/bin/python"
    exit 0
fi
command -v "$py" >/dev/null || { echo "torch-env: no $py (TORCH_PY=...)" >&2; exit 1; }

# $1, or its nearest existing parent: what df and stat can ask about before DIR exists.
existing() {
    local p=$1
    while [ ! -e "$p" ]; do p=$(dirname "$p"); done
    echo "$p"
}
# Free MB on the filesystem that holds $1.
free_mb() { df -Pm "$(existing "$1")" | awk 'NR == 2 { print $4 }'; }
need_mb=${SS_TORCH_ENV_NEED_MB:-9500}
case $need_mb in *[!0-9]* | "") echo "torch-env: SS_TORCH_ENV_NEED_MB='$need_mb' is not a whole number of MB" >&2; exit 2 ;; esac
cache_mb=3500
tmp_dir=${TMPDIR:-/tmp}
cache_dir=${PIP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pip}
pip_cache=(); [ -n "${PIP_NO_CACHE_DIR:-}" ] && pip_cache=(--no-cache-dir)
# The wheels land in TMPDIR and the cache, the install in DIR: each filesystem needs room for
# what lands on it. Same device: the sums add up.
room_for() {   # room_for WITH_CACHE: prints the first shortfall, nothing when it all fits
    local with_cache=$1 d dev mb
    local -A need_on=() where_on=()
    for d in "$dir" "$tmp_dir" ${with_cache:+"$cache_dir"}; do
        dev=$(stat -c %d "$(existing "$d")")
        mb=$cache_mb                                        # the wheels, in TMPDIR or the cache
        [ "$d" = "$dir" ] && mb=$((need_mb - cache_mb))     # the venv
        need_on[$dev]=$(( ${need_on[$dev]:-0} + mb ))
        where_on[$dev]=${where_on[$dev]:-$d}
    done
    for dev in "${!need_on[@]}"; do
        mb=$(free_mb "${where_on[$dev]}")
        if [ "$mb" -lt "${need_on[$dev]}" ]; then
            echo "${where_on[$dev]} has $mb MB free, needs ${need_on[$dev]} MB"
            return
        fi
    done
}
if [ ${#pip_cache[@]} = 0 ] && short=$(room_for 1) && [ -n "$short" ]; then
    pip_cache=(--no-cache-dir)
    echo "torch-env: too little room for pip's cache as well ($short); installing without it"
fi
short=$(room_for "")
if [ -n "$short" ]; then
    echo "torch-env: not enough free disk for torch==$version: $short (free some, or set SS_TORCH_ENV_NEED_MB)" >&2
    exit 3
fi

echo "torch-env: creating $dir with torch==$version from PyPI (about 5.5 GB installed, a few minutes)"
made_here=0; [ -e "$dir" ] || made_here=1
cleanup() {   # a venv that never imported torch is no use to anyone: leave nothing half-made
    if [ "$made_here" = 1 ]; then rm -rf "$dir"; fi
    echo "torch-env: installing torch==$version into $dir failed (see above); $(free_mb "$dir") MB free there now" >&2
    exit 1
}
"$py" -m venv "$dir" || cleanup
# Releases before 2.3 were built against NumPy 1 and warn ("may crash") on import with NumPy 2.
numpy=numpy
IFS=. read -r major minor _ <<<"$version"
if [ "${major:-0}" -lt 2 ] 2>/dev/null || { [ "${major:-0}" = 2 ] && [ "${minor%%[!0-9]*}" -lt 3 ] 2>/dev/null; }; then numpy='numpy<2'; fi
"$dir/bin/pip" install -q --disable-pip-version-check "${pip_cache[@]}" "torch==$version" "$numpy" || cleanup
"$dir/bin/python" -c "import torch; print('torch-env: torch', torch.__version__, 'ok')" || cleanup
echo "SSFUZZ_PYTHON=$(cd "$dir" && pwd)/bin/python"
