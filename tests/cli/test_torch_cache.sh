#!/usr/bin/env bash
# Confirmation and inductor's on-disk cache (docs/torch.md, "Confirmation"): a
# finding's script runs with an empty cache of its own, removed after; when it
# agrees there it runs again with the campaign's cache, and a failure only that
# cache gives is confirmed as the cache's. The real case: an AOTAutograd entry
# compiled for two overlapping inputs is loaded for the same function on two
# separate storages and raises (reports/torch-aot-cache-aliased-inputs.md;
# torch 2.14.1 and 2.15.0). On a torch without that bug the second replay
# agrees, which is said and checked as such.
set -u
. "$(dirname "$0")/lib/common.sh"

py=$(compile_pythons | head -1)
if [ -z "$py" ]; then echo "skip torch-cache: no venv with torch.compile (make torch-env; CI builds it)"; exit 0; fi
ver=$("$py" -c 'import torch; print(torch.__version__)')
target=torch:compile-cpu:setitem-clone

# x[0:] = src.clone(), x and src views [3] of stride 10: first overlapping in one
# storage of 100 floats (src 10 elements on), then in two storages of 70.
cat >"$tmp/aliased.json" <<'EOF'
{"format": "ssfuzz-case", "version": 1, "dtype": "float32", "storage": {"numel": 100},
 "input": {"offset": 0, "sizes": [3], "strides": [10]},
 "src": {"storage": "input", "offset": 10, "sizes": [3], "strides": [10]},
 "dim": 0, "start": 0, "end": null, "step": 1, "fill": {"seed": 0}}
EOF
cat >"$tmp/separate.json" <<'EOF'
{"format": "ssfuzz-case", "version": 1, "dtype": "float32", "storage": {"numel": 70},
 "input": {"offset": 0, "sizes": [3], "strides": [10]},
 "src": {"storage": "separate", "offset": 0, "sizes": [3], "strides": [10]}, "src_storage": {"numel": 70},
 "dim": 0, "start": 0, "end": null, "step": 1, "fill": {"seed": 0}}
EOF
mkdir -p "$tmp/cache" "$tmp/t"
run() { SSFUZZ_INDUCTOR_CACHE="$tmp/cache" TMPDIR="$tmp/t" "$SSFUZZ" --python "$py" replay "$@"; }

expect_rc "torch $ver: the aliased case agrees and fills the campaign's cache" 0 \
    run -t "$target" --schedule two-inputs "$tmp/aliased.json"
run --confirm -t "$target" --schedule two-inputs "$tmp/separate.json" >"$tmp/sep.out" 2>&1; rc=$?
meta=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["meta"].get("confirmed", "-"))' "$tmp/separate.json" 2>/dev/null)
if [ "$rc" = 1 ] && grep -q "MISMATCH $target under two-inputs raised.*AssertionError: expected size 70==100" "$tmp/sep.out"; then
    want="standalone with the campaign's inductor cache ($tmp/cache) only: the script agrees with an empty one"
    grep -qF "two-inputs: $want; torch.compile(dynamic=False) on cpu, two-inputs: RAISED: compiled raises AssertionError" "$tmp/sep.out" &&
        [ "$meta" = "$want" ] &&
        pass "torch $ver: the cache's raise is confirmed only with the campaign's cache (meta.confirmed says so)" ||
        fail "torch $ver: a cache-only failure confirmed as such" "meta '$meta'; $(grep '^confirm' "$tmp/sep.out")"
elif [ "$rc" = 0 ]; then
    pass "torch $ver: loads no cache entry across aliasing (the AOTAutograd cache bug is fixed here): nothing to confirm"
else
    fail "torch $ver: the separate case after the aliased one" "exit $rc: $(tail -3 "$tmp/sep.out")"
fi
left=$(ls -A "$tmp/t" | grep '^ssfuzz-confirm-')   # (inductor keeps its own torchinductor_USER there)
[ -z "$left" ] && pass "confirmation leaves no script and no cache behind (no ssfuzz-confirm-* in TMPDIR)" ||
    fail "confirmation cleans up" "left in TMPDIR: $left"
# With an empty cache the separate case agrees in the worker too: the cache was the cause.
rm -rf "$tmp/cache"; mkdir -p "$tmp/cache"
expect_rc "torch $ver: the separate case agrees with an empty campaign cache" 0 \
    run -t "$target" --schedule two-inputs "$tmp/separate.json"
