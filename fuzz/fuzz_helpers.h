/* fuzz_helpers.h - always-on assertions and the tail-first data producer shared by the fuzz targets. */
#ifndef FUZZ_HELPERS_H
#define FUZZ_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Unlike assert(), these survive -DNDEBUG: a fuzz build must never lose its
 * oracle to a release flag. They print where and what failed, then abort()
 * so libFuzzer keeps the input as a crash artifact. */
#define FUZZ_ASSERT_MSG(cond, ...)                                                   \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: FUZZ_ASSERT(%s) failed: ", __FILE__, __LINE__,   \
                    #cond);                                                          \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            abort();                                                                 \
        }                                                                            \
    } while (0)
#define FUZZ_ASSERT(cond) FUZZ_ASSERT_MSG(cond, "%s", "")

#ifdef __cplusplus
extern "C"
#endif
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Configuration comes from the input's tail (as zstd's fuzz_data_producer):
 * libFuzzer's mutations mostly touch the front and grow the end, so a payload
 * edit leaves the decoded parameters alone and a parameter edit leaves the
 * payload alone. Reads past the end yield zeros, so every input decodes. */
typedef struct fuzz_producer {
    const uint8_t *data;
    size_t size;        /* bytes not yet consumed; the tail is data[size - 1] */
} fuzz_producer;

static inline fuzz_producer fuzz_producer_make(const uint8_t *data, size_t size) {
    fuzz_producer p = {data, size};
    return p;
}

/* `bits` (<= 32) bits from the tail, consumed a byte at a time. */
static inline uint32_t fuzz_producer_bits(fuzz_producer *p, unsigned bits) {
    uint32_t v = 0;
    for (unsigned got = 0; got < bits; got += 8) {
        v <<= 8;
        if (p->size) v |= p->data[--p->size];
    }
    return bits >= 32 ? v : v & ((1u << bits) - 1);
}

/* A value in [lo, hi] (inclusive); one byte of tail for ranges up to 256. */
static inline int64_t fuzz_producer_range(fuzz_producer *p, int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    const uint64_t span = (uint64_t)(hi - lo) + 1;
    const uint32_t raw = fuzz_producer_bits(p, span <= 256 ? 8 : span <= 65536 ? 16 : 32);
    return lo + (int64_t)(raw % span);
}

/* 1 with probability about num/256. */
static inline int fuzz_producer_chance(fuzz_producer *p, unsigned num) {
    return fuzz_producer_bits(p, 8) < num;
}

/* The unconsumed front of the input: the payload. */
static inline size_t fuzz_producer_remaining(const fuzz_producer *p) { return p->size; }

#endif
