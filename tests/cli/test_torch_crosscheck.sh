#!/usr/bin/env bash
# The reference against PyTorch itself: a few hundred random cases on shared
# storages, torch's final storages vs `ssfuzz replay --dump`, bit for bit.
set -u
SSFUZZ=${SSFUZZ:-build/ssfuzz}
py=""
for cand in python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import torch' 2>/dev/null; then py=$cand; break; fi
done
if [ -z "$py" ]; then echo "skip torch-crosscheck: no python3 with torch (apt-get install python3-torch)"; exit 0; fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if out=$("$py" tests/torch/crosscheck.py "$SSFUZZ" "$work" "${SS_TORCH_CASES:-400}" 2>&1); then
    echo "# $(echo "$out" | tail -1)"; echo "ok torch-crosscheck"
else
    echo "$out" | tail -20; echo "not ok torch-crosscheck"
fi
