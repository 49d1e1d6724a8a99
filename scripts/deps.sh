#!/usr/bin/env bash
# Installs, from Debian's packages, whatever ssfuzz needs and this machine lacks:
# cJSON, cmocka (tests), clang with its libFuzzer runtime, and PyTorch for the
# cross-check (skip that one with SS_NO_TORCH=1). Quiet and quick when all is there.
set -euo pipefail

missing=()
have_header() { [ -e "/usr/include/$1" ]; }
have_header cjson/cJSON.h || missing+=(libcjson-dev)
have_header cmocka.h      || missing+=(libcmocka-dev)
command -v clang >/dev/null 2>&1 || missing+=(clang)
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 \
    || missing+=(libclang-rt-dev)
command -v make >/dev/null 2>&1 || missing+=(make)
if [ "${SS_NO_TORCH:-0}" != 1 ] && ! /usr/bin/python3 -c 'import torch' >/dev/null 2>&1; then
    missing+=(python3-torch python3-numpy)
fi

[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
        echo "deps: need root to run: apt-get install ${missing[*]}" >&2; exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
