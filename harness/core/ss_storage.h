/* ss_storage.h - storage buffers with guard bands, and deterministic fills. */
#ifndef SS_STORAGE_H
#define SS_STORAGE_H

#include "ss_plan.h"
#include "ss_case.h"

/* Default guard band on each side of a storage, in bytes. */
#define SS_GUARD_DEFAULT 64

/* Allocate (or grow, reusing the old block) a storage of `bytes` data bytes and
 * set both guard bands. 0 ok, -1 out of memory (s unchanged). */
int ss_storage_reserve(ss_storage *s, size_t bytes, size_t guard);
/* ss_storage_reserve without setting the bands, for a storage that
 * ss_storage_copy fills whole (bands included) before anything reads it. */
int ss_storage_reserve_bare(ss_storage *s, size_t bytes, size_t guard);
void ss_storage_free(ss_storage *s);
/* Copy data and guards from src (same sizes). */
void ss_storage_copy(ss_storage *dst, const ss_storage *src);
/* 1 when both guard bands still hold SS_GUARD_BYTE. */
int ss_storage_guards_intact(const ss_storage *s);

/* Fill the case's storages: explicit values, or a deterministic fill from the
 * seed in which every element is distinct where the dtype has enough values.
 * `src` is ignored when the src is aliased. */
void ss_fill_case(const ss_case *c, ss_storage *input, ss_storage *src);
/* The seeded fill of one storage; `first` numbers its elements so that two
 * storages filled with distinct ranges hold distinct values. */
void ss_fill_seeded(ss_dtype t, uint64_t seed, int64_t first, uint8_t *data, int64_t numel);

#endif
