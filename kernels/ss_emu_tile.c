/* ss_emu_tile.c - the emulator's transposed copy, tile by tile.
 *
 * A copy where dst runs along one dim (b) and src along another (a) touches a
 * new cache line (and often a new page) per item if walked in either view's
 * order. Here the block of those two dims goes in tiles of T x T items (T
 * items = one 64-byte line along each side's own dim), in three steps
 * through two 4 KiB buffers:
 *   1. gather: each src run of the tile (along a) into a row of A; every
 *      other item (a step of 2) a register at a time;
 *   2. transpose A into B in registers (SSE2 unpacks; item by item for a
 *      partial tile or without SSE2);
 *   3. scatter: each row of B to its dst run (along b), a whole line,
 *      streamed past the cache for large copies.
 * Both views' strides are often powers of two, so the T lines of a tile on
 * either side share a few cache sets: each line is therefore read or written
 * once, whole, and the reordering happens in the buffers. Tiles go down a
 * strip of T dst columns, so src is read as T sequential streams, which the
 * prefetchers follow. Either side may have a step (stride > 1 along its dim)
 * and the pair may be any two dims. (Large storages sit on huge pages, see
 * ss_storage.c: with 4 KiB pages each row of a tile would be a TLB miss.) */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "ss_emu_tile.h"

/* always_inline: the element size must be a constant in the item loops, so
 * that each item moves in one load and one store, not a memcpy call. */
#define SS_INLINE static inline __attribute__((always_inline))

enum {
    TILE_BYTES = 64,          /* one cache line of each run of a tile */
    MIN_BLOCK_BYTES = SS_EMU_TILE_MIN_BYTES,  /* smaller copies are cheaper walked plainly */
    MIN_SIDE = 8,             /* nor is a block narrower than this worth tiling */
    STREAM_BYTES = 64 << 20,  /* copies this large bypass the cache on store */
    PF_SRC_TILES = 3          /* a stepped dst: src prefetched this many tiles ahead */
};

/* The block: na x nb items; src advances sa along a and sb along b, dst da
 * and db (items). a is src's dim (sa small), b dst's (db small). */
typedef struct block {
    int64_t na, nb, sa, sb, da, db;
} block;

/* One line (T items) to dst. With `stream`, bypassing the cache: a copy far
 * larger than the caches is not read back soon, and a normal store would
 * first read each dst line from memory. */
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

#if defined(__SSE2__)
/* V x V items of E bytes (V = 16 / E), rows of `in` and `out` TILE_BYTES apart:
 * out row r = in column r. Each stage interleaves row k with row k + V/2
 * (item-wide unpacks); log2(V) stages make the transpose. Unrolled, so the V
 * rows stay in registers (as loops over arrays they went through the stack,
 * at half the speed). */
#define SS_UNROLL _Pragma("GCC unroll 16")
#define SS_UNPACK_STAGES(V, STAGES, LO, HI)                                              \
    do {                                                                                 \
        __m128i r[V], o[V];                                                              \
        SS_UNROLL for (int k = 0; k < V; k++)                                            \
            r[k] = _mm_load_si128((const __m128i *)(const void *)(in + k * TILE_BYTES)); \
        SS_UNROLL for (int s = 0; s < STAGES; s++) {                                     \
            SS_UNROLL for (int k = 0; k < V / 2; k++) {                                  \
                o[2 * k] = LO(r[k], r[k + V / 2]);                                       \
                o[2 * k + 1] = HI(r[k], r[k + V / 2]);                                   \
            }                                                                            \
            SS_UNROLL for (int k = 0; k < V; k++) r[k] = o[k];                           \
        }                                                                                \
        SS_UNROLL for (int k = 0; k < V; k++)                                            \
            _mm_store_si128((__m128i *)(void *)(out + k * TILE_BYTES), r[k]);            \
    } while (0)

SS_INLINE void micro_transpose(uint8_t *out, const uint8_t *in, int E) {
    switch (E) {
    case 1: SS_UNPACK_STAGES(16, 4, _mm_unpacklo_epi8, _mm_unpackhi_epi8); break;
    case 2: SS_UNPACK_STAGES(8, 3, _mm_unpacklo_epi16, _mm_unpackhi_epi16); break;
    case 4: SS_UNPACK_STAGES(4, 2, _mm_unpacklo_epi32, _mm_unpackhi_epi32); break;
    case 8: SS_UNPACK_STAGES(2, 1, _mm_unpacklo_epi64, _mm_unpackhi_epi64); break;
    default: _mm_store_si128((__m128i *)(void *)out, _mm_load_si128((const __m128i *)(const void *)in)); break;
    }
}
#undef SS_UNPACK_STAGES
#undef SS_UNROLL
#endif

/* B = A transposed, for a tile of ta x tb items (A: tb rows of ta items,
 * B: ta rows of tb items; rows TILE_BYTES apart). */
SS_INLINE void tile_transpose(uint8_t *B, const uint8_t *A, int64_t ta, int64_t tb, int E) {
#if defined(__SSE2__)
    const int64_t T = TILE_BYTES / E;
    if (ta == T && tb == T) {
        const int64_t V = 16 / E;
        for (int64_t p = 0; p < T; p += V)          /* micro-block rows p.. of B, */
            for (int64_t q = 0; q < T; q += V)      /* from rows q.. of A */
                micro_transpose(B + p * TILE_BYTES + q * E, A + q * TILE_BYTES + p * E, E);
        return;
    }
#endif
    for (int64_t j = 0; j < tb; j++)
        for (int64_t i = 0; i < ta; i++)
            memcpy(B + i * TILE_BYTES + j * E, A + j * TILE_BYTES + i * E, (size_t)E);
}

#if defined(__SSE2__)
/* The even items of 32 bytes at p (two 16-byte loads), packed into 16. */
SS_INLINE __m128i even_items(const uint8_t *p, int E) {
    const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    switch (E) {
    case 1: {   /* the low byte of each 16-bit word; packus keeps values <= 255 as they are */
        const __m128i m = _mm_set1_epi16(0xFF);
        return _mm_packus_epi16(_mm_and_si128(a, m), _mm_and_si128(b, m));
    }
    case 2:     /* each 32-bit word's low half, sign-extended: packs keeps it exact */
        return _mm_packs_epi32(_mm_srai_epi32(_mm_slli_epi32(a, 16), 16), _mm_srai_epi32(_mm_slli_epi32(b, 16), 16));
    case 4: return _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), _MM_SHUFFLE(2, 0, 2, 0)));
    case 8: return _mm_unpacklo_epi64(a, b);
    default: return a;
    }
}
#endif

/* Items of a run, `step` apart, into a packed row. Every other item (a step
 * of 2) goes a register at a time. */
SS_INLINE void gather(uint8_t *row, const uint8_t *p, int64_t n, int64_t step, int E) {
    if (step == 1) {
        if (n * E == TILE_BYTES) memcpy(row, p, TILE_BYTES);   /* a constant size: a few vector moves */
        else memcpy(row, p, (size_t)(n * E));
        return;
    }
    int64_t i = 0;
#if defined(__SSE2__)
    if (step == 2)
        for (; (i + 16 / E) * E <= n * E; i += 16 / E)
            _mm_storeu_si128((__m128i *)(void *)(row + i * E), even_items(p + i * 2 * E, E));
#endif
    for (; i < n; i++) memcpy(row + i * E, p + i * step * E, (size_t)E);
}

SS_INLINE void scatter(uint8_t *p, const uint8_t *row, int64_t n, int64_t step, int E, int stream) {
    if (step == 1) {
        if (n * E == TILE_BYTES) put_line(p, row, stream);
        else memcpy(p, row, (size_t)(n * E));
        return;
    }
    for (int64_t i = 0; i < n; i++) memcpy(p + i * step * E, row + i * E, (size_t)E);
}

/* Each cache line of the n bytes at p into the cache, to be written (`write`)
 * or read. (Without -mprfchw GCC emits prefetcht0 for both: prefetchw
 * measured the same here.) */
SS_INLINE void prefetch_run(const uint8_t *p, int64_t n, int write) {
    for (uintptr_t l = (uintptr_t)p & ~(uintptr_t)(TILE_BYTES - 1); l < (uintptr_t)p + (uintptr_t)n; l += TILE_BYTES) {
        if (write) __builtin_prefetch((const void *)l, 1, 3);
        else __builtin_prefetch((const void *)l, 0, 3);
    }
}

/* A stepped dst (db > 1) has no whole lines to stream: each line of a tile
 * row is read for ownership, and the rows lie a dst row apart, an order no
 * hardware prefetcher follows, so the stores missed one after another
 * (0.08-0.12x memcpy). For such a dst, the lines of the next tile down the
 * strip are prefetched for writing while this tile's rows are stored, one row
 * per row; and src's lines PF_SRC_TILES tiles ahead, since those dst misses
 * crowd src's sequential streams out of the prefetchers' tables. `pf` (a
 * constant: k->db > 1) turns this on; for a contiguous dst it gained nothing
 * (its lines are streamed). */
SS_INLINE void block_copy(uint8_t *dst, const uint8_t *src, const block *k, int E, int stream, int pf) {
    const int64_t T = TILE_BYTES / E;
    _Alignas(64) uint8_t A[TILE_BYTES * TILE_BYTES], B[TILE_BYTES * TILE_BYTES];
    for (int64_t b0 = 0; b0 < k->nb; b0 += T)
        for (int64_t a0 = 0; a0 < k->na; a0 += T) {
            const int64_t ta = k->na - a0 < T ? k->na - a0 : T, tb = k->nb - b0 < T ? k->nb - b0 : T;
            const uint8_t *s = src + (a0 * k->sa + b0 * k->sb) * E;
            const int64_t sa_ahead = pf ? k->na - a0 - PF_SRC_TILES * T : 0;   /* items of that tile's runs */
            for (int64_t j = 0; j < tb; j++) {
                if (sa_ahead > 0)
                    prefetch_run(s + (PF_SRC_TILES * T * k->sa + j * k->sb) * E, ((sa_ahead < T ? sa_ahead : T) - 1) * k->sa * E + E, 0);
                gather(A + j * TILE_BYTES, s + j * k->sb * E, ta, k->sa, E);
            }
            tile_transpose(B, A, ta, tb, E);
            uint8_t *d = dst + (a0 * k->da + b0 * k->db) * E;
            const int64_t rows_ahead = pf ? k->na - a0 - T : 0;   /* rows of the next tile */
            for (int64_t i = 0; i < ta; i++) {
                if (i < rows_ahead) prefetch_run(d + (T + i) * k->da * E, ((tb - 1) * k->db + 1) * E, 1);
                scatter(d + i * k->da * E, B + i * TILE_BYTES, tb, k->db, E, stream);
            }
        }
}

/* Each element size, and a stepped dst or not, gets its own copy of the
 * loops: without the prefetches, the others' code stays as it was. */
static void block_dispatch(uint8_t *dst, const uint8_t *src, const block *k, int E, int stream) {
    const int pf = k->db > 1;
    switch (E) {
    case 1: pf ? block_copy(dst, src, k, 1, stream, 1) : block_copy(dst, src, k, 1, stream, 0); break;
    case 2: pf ? block_copy(dst, src, k, 2, stream, 1) : block_copy(dst, src, k, 2, stream, 0); break;
    case 4: pf ? block_copy(dst, src, k, 4, stream, 1) : block_copy(dst, src, k, 4, stream, 0); break;
    case 8: pf ? block_copy(dst, src, k, 8, stream, 1) : block_copy(dst, src, k, 8, stream, 0); break;
    default: pf ? block_copy(dst, src, k, 16, stream, 1) : block_copy(dst, src, k, 16, stream, 0); break;
    }
}

/* Tile columns start where dst's first row has a cache-line boundary: the
 * columns before it form a narrow block of their own, so that (when the rows
 * share that alignment) every full tile row is exactly one line. Only for
 * wide rows of a contiguous dst: a stepped run has no whole lines, and for
 * narrow rows the narrow block would be a pass of its own over every row
 * (where narrow rows follow one another, writing them in order fills whole
 * lines anyway). */
static void block_aligned(uint8_t *dst, const uint8_t *src, const block *k, int E, int stream) {
    int64_t peel = 0;
    if (k->db == 1 && k->nb * E >= 4 * TILE_BYTES) {
        const size_t mis = (TILE_BYTES - ((uintptr_t)dst & (TILE_BYTES - 1))) & (TILE_BYTES - 1);
        peel = mis % (size_t)E ? 0 : (int64_t)(mis / (size_t)E);
        if (peel > k->nb) peel = k->nb;
    }
    if (peel) {
        block head = *k;
        head.nb = peel;
        block_dispatch(dst, src, &head, E, 0);
    }
    block rest = *k;
    rest.nb -= peel;
    block_dispatch(dst + peel * E, src + peel * k->sb * E, &rest, E, stream);
}

/* The dim along which `st` is smallest among dims of size > 1 other than `skip`. */
static int smallest_stride(const ss_klaunch *L, const int64_t *st, int skip) {
    int best = -1;
    for (int d = 0; d < L->ndim; d++)
        if (d != skip && L->sizes[d] > 1 && (best < 0 || st[d] < st[best])) best = d;
    return best;
}

int ss_emu_copy_transposed(const ss_klaunch *L, const uint8_t *src, uint8_t *dst) {
    const int E = L->elem;
    if (L->kind != SS_KL_COPY || !L->indep || L->ndim < 2 || L->n * E < MIN_BLOCK_BYTES) return 0;
    /* b: dst's dim (the smallest dst stride); a: src's among the others. A
     * transpose when each side has its items close along its own dim and a
     * line or more apart along the other's. */
    const int b = smallest_stride(L, L->dst_strides, -1);
    const int a = b < 0 ? -1 : smallest_stride(L, L->src_strides, b);
    if (a < 0) return 0;
    const int64_t line = TILE_BYTES / E;
    const block k = {L->sizes[a], L->sizes[b], L->src_strides[a], L->src_strides[b],
                     L->dst_strides[a], L->dst_strides[b]};
    if (k.db >= line || k.sa >= line || k.sb < line || k.da < line || k.na < MIN_SIDE || k.nb < MIN_SIDE ||
        k.na * k.nb * E < MIN_BLOCK_BYTES)
        return 0;
    const int stream = L->n * E >= STREAM_BYTES;
    /* The dims outside the block, walked in any order (the launch is order-free). */
    ss_klaunch outer;
    outer.ndim = 0;
    outer.src_off = L->src_off;
    outer.dst_off = L->dst_off;
    for (int d = 0; d < L->ndim; d++) {
        if (d == a || d == b) continue;
        outer.sizes[outer.ndim] = L->sizes[d];
        outer.src_strides[outer.ndim] = L->src_strides[d];
        outer.dst_strides[outer.ndim] = L->dst_strides[d];
        outer.ndim++;
    }
    const int64_t blocks = L->n / (k.na * k.nb);
    ss_kiter it;
    if (outer.ndim > 0) ss_kiter_seek(&outer, &it, 0);
    else { it.so = L->src_off; it.dof = L->dst_off; }
    for (int64_t m = 0; m < blocks; m++) {
        block_aligned(dst + it.dof * E, src + it.so * E, &k, E, stream);
        if (m + 1 < blocks) ss_kiter_next(&outer, &it);
    }
#if defined(__SSE2__)
    if (stream) _mm_sfence();   /* streamed stores ordered before whatever reads dst next */
#endif
    return 1;
}
