/* ss_emu_tile.c - the emulator's transposed copy, tile by tile.
 *
 * A copy where dst runs along one dim and src along the other touches a new
 * cache line (and often a new page) per element if walked in either view's
 * order. Here a T x T tile is read along src's contiguous dim into a buffer
 * and written along dst's, so every line is used whole. Both views' row
 * strides are often powers of two, which is why the tile goes through a
 * buffer: walking the other view directly would thrash a few cache sets.
 * (Large storages sit on huge pages, see ss_storage.c: with 4 KiB pages each
 * row of a tile would be a TLB miss.) */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "ss_emu_tile.h"

/* always_inline: the element size must be a constant in the item loops, so
 * that each item moves in one load and one store, not a memcpy call. */
#define SS_INLINE static inline __attribute__((always_inline))

enum {
    TILE_BYTES = 64,          /* one cache line of each row of a tile */
    MIN_BLOCK_BYTES = 16384,  /* smaller blocks are cheaper walked plainly */
    STREAM_BYTES = 64 << 20   /* blocks this large bypass the cache on store */
};

/* A whole tile row (one cache line) to dst. With `stream`, bypassing the
 * cache: a block far larger than the caches is not read back soon, and a
 * normal store would first read each dst line from memory. */
SS_INLINE void put_line(uint8_t *d, const uint8_t *line, int stream) {
#if defined(__SSE2__)
    if (stream && ((uintptr_t)d & 15) == 0) {
        for (int q = 0; q < TILE_BYTES; q += 16)
            _mm_stream_si128((__m128i *)(void *)(d + q),
                             _mm_load_si128((const __m128i *)(const void *)(line + q)));
        return;
    }
#endif
    (void)stream;
    memcpy(d, line, TILE_BYTES);
}

/* The block: na x nb items; dst is contiguous along b (row stride da), src
 * along a (column stride sb); strides in items. A strip of T dst columns at a
 * time, down all rows: src is then read as T sequential streams (what
 * prefetchers follow), and each dst line is written once, whole. */
SS_INLINE void block_copy(uint8_t *dst, const uint8_t *src, int64_t na, int64_t nb, int64_t da,
                          int64_t sb, int E, int stream) {
    const int64_t T = TILE_BYTES / E;
    _Alignas(64) uint8_t buf[TILE_BYTES * TILE_BYTES];   /* T x T items of E bytes */
    for (int64_t b0 = 0; b0 < nb; b0 += T)
        for (int64_t a0 = 0; a0 < na; a0 += T) {
            const int64_t ta = na - a0 < T ? na - a0 : T, tb = nb - b0 < T ? nb - b0 : T;
            for (int64_t j = 0; j < tb; j++) {   /* src: one run along a per column */
                const uint8_t *s = src + (a0 + (b0 + j) * sb) * E;
                for (int64_t i = 0; i < ta; i++) memcpy(buf + (i * T + j) * E, s + i * E, (size_t)E);
            }
            for (int64_t i = 0; i < ta; i++) {   /* dst: one run along b per row */
                uint8_t *d = dst + ((a0 + i) * da + b0) * E;
                if (tb == T) put_line(d, buf + i * T * E, stream);
                else memcpy(d, buf + i * T * E, (size_t)(tb * E));
            }
        }
}

static void block_dispatch(uint8_t *dst, const uint8_t *src, int64_t na, int64_t nb, int64_t da,
                           int64_t sb, int E, int stream) {
    switch (E) {
    case 1: block_copy(dst, src, na, nb, da, sb, 1, stream); break;
    case 2: block_copy(dst, src, na, nb, da, sb, 2, stream); break;
    case 4: block_copy(dst, src, na, nb, da, sb, 4, stream); break;
    case 8: block_copy(dst, src, na, nb, da, sb, 8, stream); break;
    default: block_copy(dst, src, na, nb, da, sb, 16, stream); break;
    }
#if defined(__SSE2__)
    if (stream) _mm_sfence();   /* streamed stores ordered before whatever reads dst next */
#endif
}

/* Tile columns start where dst's first row has a cache-line boundary: the
 * columns before it form a narrow block of their own, so that (when the rows
 * share that alignment) every full tile row is exactly one line. */
static void block_aligned(uint8_t *dst, const uint8_t *src, int64_t na, int64_t nb, int64_t da,
                          int64_t sb, int E) {
    const int stream = na * nb * E >= STREAM_BYTES;
    const size_t mis = (TILE_BYTES - ((uintptr_t)dst & (TILE_BYTES - 1))) & (TILE_BYTES - 1);
    int64_t peel = mis % (size_t)E ? 0 : (int64_t)(mis / (size_t)E);
    if (peel > nb) peel = nb;
    if (peel) block_dispatch(dst, src, na, peel, da, sb, E, 0);
    block_dispatch(dst + peel * E, src + peel * sb * E, na, nb - peel, da, sb, E, stream);
}

int ss_emu_copy_transposed(const ss_klaunch *L, const uint8_t *src, uint8_t *dst) {
    if (L->kind != SS_KL_COPY || !L->indep || L->ndim < 2) return 0;
    const int in = L->ndim - 1, out = L->ndim - 2, E = L->elem;
    int a, b;   /* b: the dim along which dst is contiguous; src must be along a */
    if (L->dst_strides[in] == 1 && L->src_strides[out] == 1) { b = in; a = out; }
    else if (L->dst_strides[out] == 1 && L->src_strides[in] == 1) { b = out; a = in; }
    else return 0;
    const int64_t na = L->sizes[a], nb = L->sizes[b];
    if (na < TILE_BYTES / E || nb < TILE_BYTES / E || na * nb * E < MIN_BLOCK_BYTES) return 0;
    /* The dims outside the block, walked in any order (the launch is order-free). */
    ss_klaunch outer = *L;
    outer.ndim = out;
    const int64_t blocks = L->n / (na * nb);
    ss_kiter it;
    if (out > 0) ss_kiter_seek(&outer, &it, 0);
    else { it.so = L->src_off; it.dof = L->dst_off; }
    for (int64_t k = 0; k < blocks; k++) {
        block_aligned(dst + it.dof * E, src + it.so * E, na, nb, L->dst_strides[a], L->src_strides[b], E);
        if (k + 1 < blocks) ss_kiter_next(&outer, &it);
    }
    return 1;
}
