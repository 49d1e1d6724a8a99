#!/bin/sh
# make-big.sh OUTDIR - writes the hostile case files too big to commit; each must be refused by the parser.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$1
mkdir -p "$out"

head_='{"format": "ssfuzz-case", "version": 1, "dtype": "float32", "storage": {"numel": 12},
 "input": {"offset": 0, "sizes": [3, 4], "strides": [4, 1]},
 "src": {"storage": "input", "offset": 0, "sizes": [2, 4], "strides": [4, 1]},
 "dim": 0, "start": 1, "end": null, "step": 1, "fill": {"seed": 7}'

# n copies of a string, fast (no per-character shell loop).
rep() { head -c "$2" /dev/zero | tr '\0' "$1"; }

# 100k nested arrays / objects inside meta: past cJSON's nesting limit.
{ printf '%s, "meta": {"x": ' "$head_"; rep '[' 100000; rep ']' 100000; printf '}}\n'; } \
    > "$out/parse-big-nesting-arrays-100k.json"
{ printf '%s, "meta": ' "$head_"
  i=0; while [ $i -lt 100 ]; do printf '{"a":'; i=$((i + 1)); done   # prefix, then bulk
  rep '{' 100000 | sed 's/{/{"a":/g'; printf '1'; rep '}' 100101; printf '\n'; } \
    > "$out/parse-big-nesting-objects-100k.json"

# 10 MB strings where a short one is expected: as the dtype, and as an unknown key.
{ printf '{"format": "ssfuzz-case", "version": 1, "dtype": "'; rep 'f' 10485760; printf '"}\n'; } \
    > "$out/parse-big-string-10mb-dtype.json"
{ printf '%s, "' "$head_"; rep 'k' 10485760; printf '": 1}\n'; } \
    > "$out/parse-big-string-10mb-key.json"

# A million meta keys with one duplicate at the very end (duplicate check must stay fast).
{ printf '%s, "meta": {' "$head_"; seq -f '"k%.0f": 0,' 1 1000000 | tr -d '\n'; printf '"k7": 1}}\n'; } \
    > "$out/parse-big-meta-1m-keys-dup.json"

# values one element longer than a 1M-element storage.
{ printf '%s' "$head_" | sed 's/"numel": 12/"numel": 1000000/; s/, "fill": {"seed": 7}//'
  printf ', "values": {"input": ['; rep '0' 1000000 | sed 's/0/0,/g'; printf '0]}}\n'; } \
    > "$out/parse-big-values-too-long.json"
