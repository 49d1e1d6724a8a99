/* ss_storage.c - storage buffers with guard bands, and deterministic fills. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "ss_bits.h"
#include "ss_storage.h"

/* Smallest block a storage gets. The struct does not record its capacity, so
 * the block is known to hold only max(last total, this); without a floor,
 * fuzzing's mix of sizes would free and malloc the block every few cases. */
#define MIN_BLOCK ((size_t)64 << 10)

/* Under ASan, the spare bytes of a reused block past the guard bands are
 * poisoned, so an access beyond a storage's guard band is still reported. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Blocks this large ask for transparent huge pages. A large case walked
 * against its layout (a transposed copy, a strided slice) otherwise takes a
 * TLB miss per row it touches; with 2 MiB pages the whole block's
 * translations fit the TLB. Advice only: where it is refused or THP is off,
 * nothing changes. */
#define HUGE_BLOCK ((size_t)8 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

static void advise_huge(uint8_t *p, size_t n) {
#if defined(MADV_HUGEPAGE)
    if (n < HUGE_BLOCK) return;
    const uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    const uintptr_t hi = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p; (void)n;
#endif
}

/* The block and layout of ss_storage_reserve, bands not set. */
static int reserve_block(ss_storage *s, size_t bytes, size_t guard) {
    if (bytes > SIZE_MAX / 2 || guard > SIZE_MAX / 4) return -1;
    const size_t total = bytes + 2 * guard;
    if (!s->base || total > s->cap) {
        /* malloc, not realloc: the old contents are not needed, and a failed
         * grow must leave s usable. */
        const size_t cap = total > MIN_BLOCK ? total : MIN_BLOCK;
        uint8_t *p = malloc(cap);
        if (!p) return -1;
        advise_huge(p, cap);   /* before the first touch: faults then map huge pages */
        if (s->base) UNPOISON(s->base, s->cap);
        free(s->base);
        s->base = p;
        s->cap = cap;
    }
    UNPOISON(s->base, total);
    POISON(s->base + total, s->cap - total);
    s->bytes = bytes;
    s->guard = guard;
    return 0;
}

int ss_storage_reserve(ss_storage *s, size_t bytes, size_t guard) {
    if (reserve_block(s, bytes, guard)) return -1;
    ss_storage_set_guards(s);
    return 0;
}

int ss_storage_reserve_bare_block(ss_storage *s, size_t bytes, size_t guard) {
    return reserve_block(s, bytes, guard);
}

void ss_storage_free(ss_storage *s) {
    if (s->base) UNPOISON(s->base, s->cap);
    free(s->base);
    memset(s, 0, sizeof *s);
}

/* All n bytes are the guard byte: the first is, and each equals its successor
 * (one memcmp of the block against itself shifted by one). */
static int all_guard(const uint8_t *p, size_t n) {
    return n == 0 || (p[0] == SS_GUARD_BYTE && !memcmp(p, p + 1, n - 1));
}

typedef uint64_t u64x2 __attribute__((vector_size(16)));

/* The 16 bytes at p XOR the guard pattern: zero when all are the guard byte.
 * One load into a register (an array of vectors went through the stack). */
static inline u64x2 guard_xor16(const uint8_t *p) {
    const u64x2 g = {0x0101010101010101ull * SS_GUARD_BYTE, 0x0101010101010101ull * SS_GUARD_BYTE};
    u64x2 w;
    memcpy(&w, p, sizeof w);
    return w ^ g;
}

int ss_storage_guards_intact(const ss_storage *s) {
    const uint8_t *lo = s->base, *hi = s->base + s->guard + s->bytes;
    if (s->guard == SS_GUARD_DEFAULT) {   /* the usual width: both bands as eight 16-byte vectors, one test */
        _Static_assert(SS_GUARD_DEFAULT == 64, "four vectors a band");
        const u64x2 x = guard_xor16(lo) | guard_xor16(lo + 16) | guard_xor16(lo + 32) | guard_xor16(lo + 48) |
                        guard_xor16(hi) | guard_xor16(hi + 16) | guard_xor16(hi + 32) | guard_xor16(hi + 48);
        return (x[0] | x[1]) == 0;
    }
    return all_guard(lo, s->guard) && all_guard(hi, s->guard);
}


/* IEEE half bits of a positive integer v <= 2048 (exact in that range). */
static uint16_t half_of_int(uint64_t v) {
    if (v == 0) return 0;
    int e = 63 - __builtin_clzll(v);
    uint64_t m = e <= 10 ? v << (10 - e) : v >> (e - 10);
    return (uint16_t)(((unsigned)(e + 15) << 10) | (m & 0x3ff));
}

static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

/* Does the dtype hold every number up to `top` exactly? Then elements get
 * small readable integers; else an injective bit-pattern counter. A table,
 * not a switch: the dtype changes from case to case, and the switch's jump
 * was mispredicted about once a fill. t < SS_DTYPE_COUNT. */
static int readable(ss_dtype t, uint64_t top) {
    static const uint64_t below[SS_DTYPE_COUNT] = {
        [SS_BOOL] = 0, [SS_UINT8] = UINT64_MAX, [SS_INT8] = UINT64_MAX, [SS_INT16] = UINT64_MAX,
        [SS_INT32] = UINT64_MAX, [SS_INT64] = UINT64_MAX, [SS_FLOAT16] = 2048, [SS_BFLOAT16] = 256,
        [SS_FLOAT32] = 1u << 24, [SS_FLOAT64] = UINT64_MAX, [SS_COMPLEX64] = 1u << 24,
        [SS_COMPLEX128] = UINT64_MAX,
    };
    return top < below[t];
}

#define FILL(T, expr) do { for (int64_t i = 0; i < numel; i++) { const uint64_t v = v0 + (uint64_t)i; \
        const uint64_t n = n0 + (uint64_t)i; (void)v; (void)n; T x = (expr); memcpy(data + i * (int64_t)sizeof x, &x, sizeof x); } } while (0)

/* Readable values: elements numbered v0, v0 + 1, ... as the dtype holds them.
 * One loop per dtype. */
static void fill_readable(ss_dtype t, uint64_t v0, uint8_t *data, int64_t numel) {
    const uint64_t n0 = 0;
    switch (t) {
    case SS_UINT8: case SS_INT8: FILL(uint8_t, (uint8_t)v); break;
    case SS_INT16: FILL(uint16_t, (uint16_t)v); break;
    case SS_INT32: FILL(uint32_t, (uint32_t)v); break;
    case SS_INT64: FILL(uint64_t, v); break;
    case SS_FLOAT16: FILL(uint16_t, half_of_int(v)); break;
    case SS_BFLOAT16: FILL(uint16_t, (uint16_t)(f32_bits((float)v) >> 16)); break;
    case SS_FLOAT32: FILL(float, (float)v); break;
    case SS_FLOAT64: FILL(double, (double)v); break;
    case SS_COMPLEX64:
        for (int64_t i = 0; i < numel; i++) {
            const float c[2] = {(float)(v0 + (uint64_t)i), -(float)(v0 + (uint64_t)i)};
            memcpy(data + i * 8, c, 8);
        }
        break;
    case SS_COMPLEX128:
        for (int64_t i = 0; i < numel; i++) {
            const double c[2] = {(double)(v0 + (uint64_t)i), -(double)(v0 + (uint64_t)i)};
            memcpy(data + i * 16, c, 16);
        }
        break;
    default: break;
    }
}

/* data[i] = (uint16_t)(x0 + i) for i < numel: eight at a time. */
static void fill_count16(uint8_t *data, uint16_t x0, int64_t numel) {
    typedef uint16_t u16x8 __attribute__((vector_size(16)));
    u16x8 v = {0, 1, 2, 3, 4, 5, 6, 7};
    v += x0;
    int64_t i = 0;
    for (; i + 8 <= numel; i += 8, v += 8) memcpy(data + 2 * i, &v, 16);
    for (; i < numel; i++) {
        const uint16_t x = (uint16_t)(x0 + (uint64_t)i);
        memcpy(data + 2 * i, &x, 2);
    }
}

/* The bit-pattern counter for elements numbered n0, n0 + 1, ... */
static void fill_counter(ss_dtype t, uint64_t salt, uint64_t n0, uint8_t *data, int64_t numel) {
    const uint64_t v0 = 0;
    switch (t) {
    case SS_BOOL: FILL(uint8_t, (uint8_t)(ss_mix64(salt ^ n) & 1)); break;
    case SS_FLOAT16: case SS_BFLOAT16: fill_count16(data, (uint16_t)(salt + n0), numel); break;
    case SS_FLOAT32: FILL(uint32_t, (uint32_t)(salt + n)); break;
    case SS_COMPLEX64: FILL(uint64_t, salt + n); break;
    default: break;
    }
}
#undef FILL

/* Readable values of the numbers below RAMP_N, per dtype, computed once per
 * thread: a small case's fill is then one memcpy instead of a conversion per
 * element. (Allocated on first use of a dtype and kept for the thread.) */
#define RAMP_N ((int64_t)1 << 14)
static _Thread_local uint8_t *ramps[SS_DTYPE_COUNT];

static const uint8_t *ramp(ss_dtype t) {
    if (!ramps[t]) {
        uint8_t *r = malloc((size_t)RAMP_N * ss_dtype_size(t));
        if (!r) return NULL;
        fill_readable(t, 0, r, RAMP_N);
        ramps[t] = r;
    }
    return ramps[t];
}

/* Fills numel elements numbered first.., where `total` is the count of numbers
 * used across the case: values are small readable integers when the dtype
 * holds all of them exactly, else an injective bit-pattern counter. This runs
 * for every element of every case. */
static void fill_range(ss_dtype t, uint64_t seed, int64_t first, int64_t total,
                       uint8_t *data, int64_t numel) {
    if (numel <= 0 || (unsigned)t >= SS_DTYPE_COUNT) return;
    const uint64_t base = seed % 1000;          /* readable, seed-dependent start */
    const uint64_t top = base + (uint64_t)total;
    const uint64_t v0 = base + (uint64_t)first + 1;   /* 1-based: 0 reads as "untouched" */
    if (!readable(t, top)) {
        fill_counter(t, ss_mix64(seed), (uint64_t)first, data, numel);
        return;
    }
    const uint8_t *r = v0 + (uint64_t)numel <= (uint64_t)RAMP_N ? ramp(t) : NULL;
    const size_t es = ss_dtype_size(t);
    if (r) memcpy(data, r + v0 * es, (size_t)numel * es);
    else fill_readable(t, v0, data, numel);
}

void ss_fill_seeded(ss_dtype t, uint64_t seed, int64_t first, uint8_t *data, int64_t numel) {
    fill_range(t, seed, first, first + numel, data, numel);
}

/* One small integer v (0..15) as an element of t; complex gets im as its imaginary part. */
static void small_element(ss_dtype t, uint64_t v, uint64_t im, uint8_t *p) {
    switch (t) {
    case SS_BOOL: p[0] = (uint8_t)(v & 1); break;
    case SS_UINT8: case SS_INT8: p[0] = (uint8_t)v; break;
    case SS_INT16: { const uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case SS_INT32: { const uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case SS_INT64: memcpy(p, &v, 8); break;
    case SS_FLOAT16: { const uint16_t x = half_of_int(v); memcpy(p, &x, 2); break; }
    case SS_BFLOAT16: { const uint16_t x = (uint16_t)(f32_bits((float)v) >> 16); memcpy(p, &x, 2); break; }
    case SS_FLOAT32: { const float x = (float)v; memcpy(p, &x, 4); break; }
    case SS_FLOAT64: { const double x = (double)v; memcpy(p, &x, 8); break; }
    case SS_COMPLEX64: { const float x[2] = {(float)v, (float)im}; memcpy(p, x, 8); break; }
    case SS_COMPLEX128: { const double x[2] = {(double)v, (double)im}; memcpy(p, x, 16); break; }
    default: break;
    }
}

/* The small fill ("small": true): every element a seeded integer in 0..15,
 * exact in every dtype, so a program's arithmetic stays exact (docs/programs.md).
 * Elements are numbered across both storages like the readable fill. */
static void fill_small(ss_dtype t, uint64_t seed, int64_t first, uint8_t *data, int64_t numel) {
    const size_t es = ss_dtype_size(t);
    for (int64_t i = 0; i < numel; i++) {
        const uint64_t h = ss_mix64(seed ^ ss_mix64((uint64_t)(first + i)));
        small_element(t, h & 15, (h >> 4) & 15, data + (size_t)i * es);
    }
}

int ss_fill_spec_of(const ss_case *c, ss_fill_spec *spec) {
    if (c->explicit_values) return 0;
    spec->dtype = c->dtype;
    spec->small = c->fill_small;
    spec->seed = c->fill_seed;
    spec->n_in = c->op.input_storage_numel;
    spec->n_src = c->op.src_aliased ? 0 : c->op.src_storage_numel;
    return 1;
}

void ss_fill_spec_run(const ss_fill_spec *f, ss_storage *input, ss_storage *src) {
    const int64_t n_in = f->n_in, n_src = f->n_src;
    if (f->small) {
        fill_small(f->dtype, f->seed, 0, ss_storage_data(input), n_in);
        if (n_src) fill_small(f->dtype, f->seed, n_in, ss_storage_data(src), n_src);
        return;
    }
    /* src continues input's numbering, so the two storages never share a value. */
    fill_range(f->dtype, f->seed, 0, n_in + n_src, ss_storage_data(input), n_in);
    if (n_src) fill_range(f->dtype, f->seed, n_in, n_in + n_src, ss_storage_data(src), n_src);
}

void ss_fill_case(const ss_case *c, ss_storage *input, ss_storage *src) {
    ss_fill_spec f;
    if (ss_fill_spec_of(c, &f)) { ss_fill_spec_run(&f, input, src); return; }
    const size_t es = c->op.elem_size;
    const int64_t n_in = c->op.input_storage_numel;
    const int64_t n_src = c->op.src_aliased ? 0 : c->op.src_storage_numel;
    memcpy(ss_storage_data(input), c->values_input, (size_t)n_in * es);
    if (n_src) memcpy(ss_storage_data(src), c->values_src, (size_t)n_src * es);
}
