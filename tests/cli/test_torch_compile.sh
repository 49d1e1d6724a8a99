#!/usr/bin/env bash
# torch.compile targets against real PyTorch releases, where a venv exists
# (make torch-env TORCH=X; never installed by make test): the corpus's torch
# expectations hold on each release, inside and outside their version ranges.
set -u
. "$(dirname "$0")/lib/common.sh"
found=0
for py in ${SSFUZZ_TORCH_PYTHONS:-build/torch-*/bin/python}; do
    [ -x "$py" ] || continue
    ver=$("$py" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null) || continue
    "$py" -c 'import torch, sys; sys.exit(0 if hasattr(torch, "compile") else 1)' || continue
    found=1
    expect_rc "torch $ver: corpus torch expectations hold" 0 "$SSFUZZ" --python "$py" regress corpus/torch-*.json
    grep -q "[1-9][0-9]* skipped" "$tmp/out" && fail "torch $ver: nothing skipped" "$(grep skipped "$tmp/out" | head -3)" \
        || pass "torch $ver: nothing skipped"
done
[ "$found" = 1 ] || echo "skip torch-compile: no venv with torch.compile (make torch-env TORCH=2.14.1)"
