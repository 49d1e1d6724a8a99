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
    # The #198094 class (a slice_scatter result returned, then x zeroed: inductor
    # returns zeros) on the releases that have it: a short campaign finds it.
    if "$py" - "$ver" <<'EOF'
import sys
sys.exit(0 if tuple(int(p) for p in sys.argv[1].split(".")[:2]) >= (2, 14) else 1)
EOF
    then
        # A backend's wrapper exception keeps its cause on its line (the raise
        # key is made from it): #165409's overlap ban inside inductor.
        "$SSFUZZ" --python "$py" replay corpus/torch-program-165409-unfold-overlap-ban.json \
            -t torch:compile-cpu:program --schedule two-inputs >"$tmp/wrap-$ver.out" 2>&1
        grep -q "raises BackendCompilerFailed: backend='inductor' raised: RuntimeError: While executing unfold" \
            "$tmp/wrap-$ver.out" && pass "torch $ver: a BackendCompilerFailed keeps its cause in the verdict" \
            || fail "torch $ver: a BackendCompilerFailed keeps its cause in the verdict" "$(head -c 400 "$tmp/wrap-$ver.out")"
        # Dynamo's fake-tensor failure keeps its cause too: x[:, ::4] = src on
        # stride-0 views of one element (eager copies it; fake tensors refuse).
        cat >"$tmp/fake.json" <<'CASE'
{"format": "ssfuzz-case", "version": 1, "dtype": "uint8", "storage": {"numel": 1},
 "input": {"offset": 0, "sizes": [1, 2], "strides": [2, 0]},
 "src": {"storage": "input", "offset": 0, "sizes": [1, 2], "strides": [8, 0]},
 "dim": 0, "start": null, "end": null, "step": 4, "fill": {"seed": 0, "small": true},
 "program": [{"op": "write", "into": "x", "spelling": "setitem", "src": "src"}]}
CASE
        "$SSFUZZ" --python "$py" replay "$tmp/fake.json" -t torch:compile-cpu:program --schedule two-inputs \
            >"$tmp/fake-$ver.out" 2>&1
        grep -q "raises TorchRuntimeError: RuntimeError when making fake tensor call (got RuntimeError('more than one" \
            "$tmp/fake-$ver.out" && pass "torch $ver: a fake-tensor failure keeps its cause in the verdict" \
            || fail "torch $ver: a fake-tensor failure keeps its cause in the verdict" "$(head -c 400 "$tmp/fake-$ver.out")"
        "$SSFUZZ" --python "$py" fuzz -t torch:compile-cpu:scatter-return --seed 1 --cases 3 --minimize-time 10 \
            -q -o "$tmp/sr-$ver" >"$tmp/sr-$ver.out" 2>&1
        "$py" - "$tmp/sr-$ver/summary.json" <<'EOF' && pass "torch $ver: a compile-cpu:scatter-return campaign finds #198094's class" \
            || fail "torch $ver: compile-cpu:scatter-return finds #198094's class" "$(tail -4 "$tmp/sr-$ver.out")"
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(0 if any(f["signature"] == "mismatch" and f["target"] == "torch:compile-cpu:scatter-return"
                  for f in s["findings"]) else 1)
EOF
    fi
done
[ "$found" = 1 ] || echo "skip torch-compile: no venv with torch.compile (make torch-env; CI builds it)"
