/* ss_storage.h - storage buffers with guard bands, and deterministic fills. */
#ifndef SS_STORAGE_H
#define SS_STORAGE_H

#include <stdint.h>
#include <string.h>
#include "ss_plan.h"
#include "ss_case.h"

/* Default guard band on each side of a storage, in bytes. */
#define SS_GUARD_DEFAULT 64

/* Allocate (or grow, reusing the old block) a storage of `bytes` data bytes and
 * set both guard bands. 0 ok, -1 out of memory (s unchanged). */
int ss_storage_reserve(ss_storage *s, size_t bytes, size_t guard);
/* ss_storage_reserve without setting the bands, for a storage that
 * ss_storage_copy fills whole (bands included) before anything reads it, or
 * whose bands ss_storage_set_guards sets. Inline where the block already
 * holds it (a check's six storages, every case); out of line to grow it, and
 * always under ASan, which poisons the block's spare bytes there. */
int ss_storage_reserve_bare_block(ss_storage *s, size_t bytes, size_t guard);
static inline int ss_storage_reserve_bare(ss_storage *s, size_t bytes, size_t guard) {
#if !defined(__SANITIZE_ADDRESS__)
    if (s->base && bytes <= SIZE_MAX / 2 && guard <= SIZE_MAX / 4 && bytes + 2 * guard <= s->cap) {
        s->bytes = bytes;
        s->guard = guard;
        return 0;
    }
#endif
    return ss_storage_reserve_bare_block(s, bytes, guard);
}
/* Sets both guard bands of a reserved storage. Inline, for the default
 * width as a few vector stores: a check sets the bands of its two initial
 * storages on every case, and a call to ss_storage_reserve for that cost
 * more than the stores. */
static inline void ss_storage_set_guards(ss_storage *s) {
    uint8_t *hi = s->base + s->guard + s->bytes;
    if (s->guard == SS_GUARD_DEFAULT) {
        memset(s->base, SS_GUARD_BYTE, SS_GUARD_DEFAULT);
        memset(hi, SS_GUARD_BYTE, SS_GUARD_DEFAULT);
    } else {
        memset(s->base, SS_GUARD_BYTE, s->guard);
        memset(hi, SS_GUARD_BYTE, s->guard);
    }
}
void ss_storage_free(ss_storage *s);
/* Copy data and guards from src (same sizes). Inline: a check makes four
 * copies, most of them an aliased src's two default bands, whose constant
 * size compiles to a few vector moves. */
static inline void ss_storage_copy(ss_storage *dst, const ss_storage *src) {
    if (src->bytes == 0 && src->guard == SS_GUARD_DEFAULT)
        memcpy(dst->base, src->base, 2 * SS_GUARD_DEFAULT);
    else
        memcpy(dst->base, src->base, src->bytes + 2 * src->guard);
}
/* 1 when both guard bands still hold SS_GUARD_BYTE. */
int ss_storage_guards_intact(const ss_storage *s);

/* Fill the case's storages: explicit values, or a deterministic fill from the
 * seed in which every element is distinct where the dtype has enough values.
 * `src` is ignored when the src is aliased. */
void ss_fill_case(const ss_case *c, ss_storage *input, ss_storage *src);
/* A seeded fill (a case without explicit values) held by value, to be redone
 * without the case: ss_fill_spec_run gives the bytes ss_fill_case gives. */
typedef struct ss_fill_spec {
    ss_dtype dtype;
    int small;                /* the case's fill_small */
    uint64_t seed;
    int64_t n_in, n_src;      /* elements; n_src 0 when src is aliased */
} ss_fill_spec;
/* 1 and *spec set when c's fill is seeded; 0 when it has explicit values. */
int ss_fill_spec_of(const ss_case *c, ss_fill_spec *spec);
void ss_fill_spec_run(const ss_fill_spec *spec, ss_storage *input, ss_storage *src);
/* The seeded fill of one storage; `first` numbers its elements so that two
 * storages filled with distinct ranges hold distinct values. */
void ss_fill_seeded(ss_dtype t, uint64_t seed, int64_t first, uint8_t *data, int64_t numel);

#endif
