#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: `make libfuzzer` with the environment's CC, CXX, CFLAGS,
# LIB_FUZZING_ENGINE and OUT (CPU only: no CUDA in fuzzing builds), then seed corpora next to
# the binaries: fuzz/corpus/<target>/ plus, for both targets, the regression corpus/.
cd "$SRC/ssfuzz"
# With CC set, fuzz.mk runs no deps step: the image has the compiler, and cJSON is built
# from third_party/cjson/ with $CC/$CFLAGS and linked statically (the runner has no libcjson).
make -j"$(nproc)" libfuzzer SS_NO_CUDA=1 SS_NO_TORCH=1 \
    CC="$CC" CXX="$CXX" CFLAGS="$CFLAGS" LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" OUT="$OUT"
for t in fuzz_case fuzz_json; do
    seeds=$(mktemp -d)
    [ -d "fuzz/corpus/$t" ] && cp -r "fuzz/corpus/$t/." "$seeds/"
    [ "$t" = fuzz_json ] && cp corpus/*.json "$seeds/"
    if [ -n "$(ls -A "$seeds")" ]; then (cd "$seeds" && zip -q -r "$OUT/${t}_seed_corpus.zip" .); fi
    rm -rf "$seeds"
done
