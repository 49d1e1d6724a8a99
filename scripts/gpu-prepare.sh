#!/usr/bin/env bash
# gpu-prepare.sh - run HERE (with network) before lending the tree to a GPU machine without one:
# downloads the Debian packages the unit tests need (cmocka) into build/gpu-debs/, which the
# device call carries and scripts/gpu-check.sh unpacks with `dpkg -x` into a local prefix.
# cJSON needs nothing: gpu-check builds the vendored copy (SS_VENDORED_CJSON=1).
#   scripts/gpu-prepare.sh [DIR]      (default build/gpu-debs)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/gpu-debs}
pkgs=(libcmocka0 libcmocka-dev)
mkdir -p "$dir"
( cd "$dir" && apt-get download "${pkgs[@]}" ) || {
    echo "gpu-prepare: apt-get download ${pkgs[*]} failed (no network, or no package lists: apt-get update)" >&2
    exit 1
}
ls -l "$dir"
echo "gpu-prepare: carry '$dir' in the device call (see docs/targets.md, GPU check)"
