/* ss_kernel_params.c - the kernel's own slice math, overlap checks and launch planning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_kernel_params.h"
#include "ss_text.h"

/* The first n entries of a dims array (every such array holds SS_MAX_NDIM).
 * Up to 4 dims, the usual case, as one fixed 32-byte copy: a few vector moves
 * instead of a library call per array, several per case. Entries past n are
 * copied too and never read. */
static inline void copy_dims(int64_t *to, const int64_t *from, int n) {
#if SS_MAX_NDIM >= 4
    if (n <= 4) { memcpy(to, from, 4 * sizeof *to); return; }
#endif
    memcpy(to, from, sizeof *to * (size_t)n);
}

/* A view's offset, rank and first ndim sizes and strides (the entries past
 * ndim mean nothing; copying all 16 of each cost more than the case). */
static void copy_view(ss_view *dst, const ss_view *src) {
    const int n = src->ndim < 0 ? 0 : src->ndim > SS_MAX_NDIM ? SS_MAX_NDIM : src->ndim;
    dst->offset = src->offset;
    dst->ndim = src->ndim;
    copy_dims(dst->sizes, src->sizes, n);
    copy_dims(dst->strides, src->strides, n);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Has the view a dim of size 0? (Only asked where an offset overflows.) */
static int view_empty(const ss_view *v) {
    for (int d = 0; d < v->ndim; d++)
        if (v->sizes[d] == 0) return 1;
    return 0;
}

/* ss_kslice, inlined into the planner (which slices once a run). */
static inline __attribute__((always_inline)) int kslice(const ss_view *base, const ss_op *op, ss_kernel_id k,
                                                        ss_view *out, char *why, size_t why_len) {
    const int ndim = base->ndim;
    int64_t dim = op->dim;
    if (dim < 0) dim += ndim;
    if (ndim < 1 || dim < 0 || dim >= ndim) {
        snprintf(why, why_len, "kernel: dim %lld out of range for %d dims", (long long)op->dim, ndim);
        return -1;
    }
    if (op->step < 1) {
        snprintf(why, why_len, "kernel: step %lld must be >= 1", (long long)op->step);
        return -1;
    }
    const int64_t size = base->sizes[dim];
    /* start/end: negative counts from the end, then clamp into [0, size]. The
     * values are case integers (|v| <= 2^53), so v + size cannot overflow. */
    int64_t s = op->has_start ? op->start : 0;
    int64_t e = op->has_end ? op->end : size;
    if (s < 0) s += size;
    if (e < 0) e += size;
    s = clamp64(s, 0, size);
    e = k == SS_KERNEL_MUT_END_UNCLAMPED ? (e < 0 ? 0 : e) : clamp64(e, 0, size);
    if (e < s) e = s;
    copy_view(out, base);
    /* ceil((e - s) / step); a step of 1 (most slices) without the division */
    out->sizes[dim] = op->step == 1 ? e - s : (e - s) / op->step + ((e - s) % op->step != 0);
    if (k == SS_KERNEL_MUT_IGNORE_OFFSET) out->offset = 0;
    /* s <= size, and for a non-empty slice s * stride stays inside the
     * validated view. An empty view's other sizes, strides and offset may
     * each be near 2^53: there an overflowing offset or stride is left as the
     * base's (the slice touches nothing). The unclamped end may give a huge
     * length, which the launch range check refuses. */
    int64_t shift, off, stride;
    if (!__builtin_mul_overflow(s, base->strides[dim], &shift) &&
        !__builtin_add_overflow(out->offset, shift, &off))
        out->offset = off;
    else if (!view_empty(out))
        goto overflow;
    if (k != SS_KERNEL_MUT_STEP_IGNORED && out->sizes[dim] > 1) {
        if (!__builtin_mul_overflow(base->strides[dim], op->step, &stride)) out->strides[dim] = stride;
        else if (!view_empty(out)) goto overflow;
    }
    return 0;
overflow:
    snprintf(why, why_len, "kernel: slice offset or stride overflows");
    return -1;
}

int ss_kslice(const ss_view *base, const ss_op *op, ss_kernel_id k, ss_view *out,
              char *why, size_t why_len) {
    return kslice(base, op, k, out, why, why_len);
}

/* Offsets within this many elements of the view's first one are tracked in a
 * bitmap on the stack (4 KiB); wider views get one on the heap. */
#define SMALL_REACH ((int64_t)8 * 4096)

/* Marks bits [off, off + len) of `seen`; 1 when any was already set. */
static int mark_run(uint8_t *seen, int64_t off, int64_t len) {
    int dup = 0;
    while (len > 0) {
        const int sh = (int)(off & 7), take = len < 8 - sh ? (int)len : 8 - sh;
        const uint8_t mask = (uint8_t)(((1u << take) - 1) << sh);
        dup |= (seen[off >> 3] & mask) != 0;
        seen[off >> 3] |= mask;
        off += take;
        len -= take;
    }
    return dup;
}

/* Does walking n >= 1 dims (sizes sz, strides st, sorted by stride) visit an
 * offset twice? Odometer walk from offset 0 over the outer dims, each inner
 * run marked in a bitmap of reach + 1 bits (bytewise when contiguous): exact
 * at any size. For a view the plan validated, reach is below its storage's
 * numel, so the bitmap is at most an eighth of the storage bytes. -1 when it
 * cannot be allocated (the caller says so; it is not an answer). */
static int walk_finds_repeat(int n, const int64_t *sz, const int64_t *st, int64_t reach) {
    uint8_t small[SMALL_REACH / 8];
    uint8_t *seen = small;
    if (reach < SMALL_REACH) memset(small, 0, (size_t)(reach / 8 + 1));
    else if (!(seen = calloc((size_t)(reach / 8 + 1), 1)))
        return -1;
    int64_t idx[SS_MAX_NDIM] = {0}, row = 0;
    int dup = 0, d = 1;
    while (!dup && d > 0) {
        if (st[0] == 1) {
            dup = mark_run(seen, row, sz[0]);
        } else {
            for (int64_t i = 0, off = row; i < sz[0]; i++, off += st[0]) {
                dup |= seen[off >> 3] >> (off & 7) & 1;
                seen[off >> 3] |= (uint8_t)(1u << (off & 7));
            }
        }
        for (d = 1; d < n; d++) {   /* next row; d == n once every row is done */
            if (++idx[d] < sz[d]) { row += st[d]; break; }
            row -= (sz[d] - 1) * st[d];
            idx[d] = 0;
        }
        if (d == n) d = 0;
    }
    if (seen != small) free(seen);
    return dup;
}

/* Dims of size > 1, sorted by stride: if every stride exceeds the largest
 * offset the smaller dims reach, the view is injective ("nested", the common
 * case). Otherwise count: more indices than offsets in the span must collide;
 * failing that, walk every offset and look for a repeat. 1 overlaps, 0 does
 * not, -1 out of memory for the walk's bitmap. */
static int overlaps_self(int ndim, const int64_t *sizes, const int64_t *strides) {
    int64_t sz[SS_MAX_NDIM], st[SS_MAX_NDIM];
    int n = 0;
    /* A public entry point: a view outside what the plan validates (bad rank,
     * negative sizes or strides) cannot be proven injective, so it counts as
     * overlapping rather than being walked. */
    if (ndim < 0 || ndim > SS_MAX_NDIM) return 1;
    if (ndim == 1) {   /* rank 1 (four cases in ten): what the passes below decide for one dim */
        const int64_t size = sizes[0], stride = strides[0];
        int64_t extent;
        if (size < 0 || stride < 0) return 1;
        if (size <= 1) return 0;
        return stride == 0 || __builtin_mul_overflow(size - 1, stride, &extent);
    }
    /* One pass: what decides at once (in this order: a negative size or
     * stride, 1; else an empty dim, 0; else a stride of 0 under a dim of 2 or
     * more, 1), and the dims of size > 1 inserted in stride order as they
     * come (stable; innermost dim first: row-major strides arrive ascending
     * and move nothing; the answer does not depend on dim order). */
    int negative = 0, empty = 0, stride0 = 0;
    for (int d = ndim - 1; d >= 0; d--) {
        const int64_t size = sizes[d], stride = strides[d];
        negative |= size < 0 || stride < 0;
        empty |= size == 0;
        if (size <= 1) continue;
        stride0 |= stride == 0;
        int i = n++;
        while (i > 0 && st[i - 1] > stride) { st[i] = st[i - 1]; sz[i] = sz[i - 1]; i--; }
        st[i] = stride;
        sz[i] = size;
    }
    if (negative) return 1;
    if (empty) return 0;
    if (stride0) return 1;
    int64_t reach = 0, numel = 1;
    int nested = 1;
    for (int i = 0; i < n; i++) {
        if (st[i] <= reach) nested = 0;
        int64_t extent;   /* bounded for a validated view; checked for any other */
        if (__builtin_mul_overflow(sz[i] - 1, st[i], &extent) ||
            __builtin_add_overflow(reach, extent, &reach) ||
            __builtin_mul_overflow(numel, sz[i], &numel))
            return 1;
    }
    if (nested) return 0;
    if (numel > reach + 1) return 1;
    return walk_finds_repeat(n, sz, st, reach);
}

int ss_kview_overlaps_self(const ss_view *v) { return overlaps_self(v->ndim, v->sizes, v->strides); }

static int shape_numel(int ndim, const int64_t *sizes, int64_t *n) {
    *n = 1;
    for (int d = 0; d < ndim; d++)
        if (__builtin_mul_overflow(*n, sizes[d], n)) return -1;
    return 0;
}

/* Row-major strides. Wrapping math: a mutant's oversized shape may overflow
 * here, and its launch is refused before these strides are used. */
static void contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides) {
    uint64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = (int64_t)s;
        s *= (uint64_t)(sizes[d] ? sizes[d] : 1);
    }
}

/* The lowest and highest element a launch reaches through one view
 * (ok == 0: the offsets overflow). */
typedef struct { int ok; int64_t lo, hi; } span;

/* Should src be staged before writing dst? Both views are of the input
 * storage, in elements; src is walked over the slice's sizes, reaching the
 * elements src_span, dst reaches dst_span (the caller's view_span sums; ok ==
 * 0: they overflow, and then it stages). The correct test intersects the
 * closed ranges [lo, hi] of the two views (conservative: interleaved views
 * that share no element are staged too). Mutants get it wrong in their own
 * ways. */
static int must_stage(ss_kernel_id k, const ss_view *src, const ss_view *dst, int64_t iter_numel, int numel_over,
                      span src_span, span dst_span) {
    if (k == SS_KERNEL_MUT_ALIAS_UNCHECKED) return 0;
    if (k == SS_KERNEL_MUT_ALIAS_SAME_PTR) {
        if (src->offset != dst->offset || src->ndim != dst->ndim) return 0;
        for (int d = 0; d < src->ndim; d++)
            if (src->sizes[d] != dst->sizes[d] || src->strides[d] != dst->strides[d]) return 0;
        return 1;
    }
    if (numel_over || iter_numel == 0) return 0;   /* the slice's item count, from the caller */
    if (!src_span.ok || !dst_span.ok) return 1;    /* a reach overflows: stage */
    const int64_t slo = src_span.lo, shi = src_span.hi, dlo = dst_span.lo, dhi = dst_span.hi;
    if (k == SS_KERNEL_MUT_OVERLAP_OFF_BY_ONE) return slo < dhi && dlo < shi;
    return slo <= dhi && dlo <= shi;
}

/* The bytes a buffer may be touched at, relative to its data pointer. */
typedef struct { int64_t lo, hi; } buf_room;

/* n work items reaching elements s.lo..s.hi (via the view at `off`): inside room? */
static int check_access(const char *what, int64_t off, int64_t n, span s, int elem, buf_room room,
                        char *why, size_t why_len) {
    int64_t lo, hi;
    if (n == 0) return 0;
    if (s.ok && !__builtin_mul_overflow(s.lo, (int64_t)elem, &lo) &&
        !__builtin_mul_overflow(s.hi + 1, (int64_t)elem, &hi) && lo >= room.lo && hi <= room.hi)
        return 0;
    snprintf(why, why_len, "kernel: a %s would leave its buffer (illegal address; view offset %lld)",
             what, (long long)off);
    return -1;
}

/* coalesce()'s step for one dim (size, src stride ss, dst stride ds) after m
 * kept dims: dropped (size 1), merged into dim m - 1 (contiguous in both
 * views), or kept as dim m. Returns the new count of kept dims. */
static inline int coalesce_step(ss_klaunch *L, int m, int64_t size, int64_t ss, int64_t ds) {
    int64_t ms, md;   /* a non-empty launch's products are bounded by its checked spans */
    if (size == 1) return m;
    if (m > 0 && !__builtin_mul_overflow(ss, size, &ms) && !__builtin_mul_overflow(ds, size, &md) &&
        L->src_strides[m - 1] == ms && L->dst_strides[m - 1] == md) {
        /* no overflow where the launch is built (its item count fits); the
         * fused pass of add_launch also merges dims of launches it then
         * refuses or empties, whose product is never used */
        (void)__builtin_mul_overflow(L->sizes[m - 1], size, &L->sizes[m - 1]);
        L->src_strides[m - 1] = ss;
        L->dst_strides[m - 1] = ds;
        return m;
    }
    L->sizes[m] = size;
    L->src_strides[m] = ss;
    L->dst_strides[m] = ds;
    return m + 1;
}

/* coalesce()'s end, after its steps kept m dims (the launch's count L->n set). */
static void coalesce_end(ss_klaunch *L, int m) {
    if (L->n == 0) {   /* nothing to walk; an empty view's dims may be huge */
        L->ndim = 1;
        L->sizes[0] = 0;
        L->src_strides[0] = L->dst_strides[0] = 0;
        return;
    }
    if (m == 0) { L->sizes[0] = 1; L->src_strides[0] = L->dst_strides[0] = 0; m = 1; }
    L->ndim = m;
}

/* Drop size-1 dims and merge dims that are contiguous in both views: fewer
 * dims to walk, same row-major order of work items. */
static void coalesce(ss_klaunch *L) {
    int m = 0;
    if (L->n != 0)
        for (int d = 0; d < L->ndim; d++)
            m = coalesce_step(L, m, L->sizes[d], L->src_strides[d], L->dst_strides[d]);
    coalesce_end(L, m);
}

/* Fast path: contiguous inner runs whose every start is 16-byte aligned are
 * copied as 16-byte chunks (one wide load and store per work item). */
static void try_vectorize(ss_klaunch *L) {
    if (L->kind != SS_KL_COPY || L->elem >= 16 || L->n == 0) return;
    /* elem is 1, 2, 4 or 8 here: f = 16 / elem as a shift (a division
     * instruction on every launch otherwise); f is a power of two, so
     * x % f == 0 exactly when x & m == 0 */
    const int in = L->ndim - 1, f = 16 >> __builtin_ctz((unsigned)L->elem);
    const int64_t m = f - 1;
    if (L->src_strides[in] != 1 || L->dst_strides[in] != 1 || (L->sizes[in] & m) ||
        (L->src_off & m) || (L->dst_off & m))
        return;
    for (int d = 0; d < in; d++)
        if ((L->src_strides[d] & m) || (L->dst_strides[d] & m)) return;
    L->sizes[in] /= f;
    for (int d = 0; d < in; d++) { L->src_strides[d] /= f; L->dst_strides[d] /= f; }
    L->src_off /= f;
    L->dst_off /= f;
    L->n /= f;
    L->elem = 16;
    L->vec = 1;
}

typedef struct {
    ss_kprog *p;
    int elem;
    int aliased;
    int stores_injective;    /* 1: every launch's store pattern is known injective */
    buf_room room[SS_KB_COUNT];
    char *why;
    size_t why_len;
} builder;

static int same_memory(const builder *b, int x, int y) {
    return x == y || (b->aliased && (x == SS_KB_INPUT || x == SS_KB_SRC) &&
                      (y == SS_KB_INPUT || y == SS_KB_SRC));
}

/* Is the launch order-independent? Loads never see a store when src and dst
 * are different memory or their ranges are disjoint, and stores never collide
 * when the dst pattern is injective. (Used by the emulator to run any schedule
 * as one forward pass; a conservative "no" only costs speed.) */
static int order_independent(const builder *b, int kind, int ndim, const int64_t *sizes,
                             int src_buf, span s, int dst_buf, const int64_t *dstr, span d) {
    if (kind == SS_KL_INDEX_BUILD) return 1;   /* loads read no memory; dst is the index list */
    if (!b->stores_injective && overlaps_self(ndim, sizes, dstr) != 0) return 0;
    if (!same_memory(b, src_buf, dst_buf)) return 1;
    if (!s.ok || !d.ok) return 0;
    return s.hi < d.lo || d.hi < s.lo;
}

/* A launch's item count and both reaches where the planner already has
 * them, exactly as add_launch's pass would compute them: the slice's item
 * count (the same product, without overflow), the reaches of src over the
 * slice and of the slice (the same sums, without overflow), and a staged
 * temporary's [0, items - 1] (contiguous strides over sizes >= 1 reach
 * items - 1). */
typedef struct { int64_t n; span s, d; } launch_reach;

/* Append a launch: work items over `sizes`, reading (src_buf, soff, sstr) and
 * writing (dst_buf, doff, dstr). For INDEX kinds (doff, dstr) is the slice the
 * index list holds, and the kernel itself writes its dst contiguously. `known`
 * (or NULL): the item count and reaches, not computed again. */
static int add_launch(builder *b, int kind, int ndim, const int64_t *sizes, int src_buf,
                      int64_t soff, const int64_t *sstr, int dst_buf, int64_t doff,
                      const int64_t *dstr, const launch_reach *known) {
    ss_klaunch *L = &b->p->launch[b->p->nlaunch];
    L->kind = kind;
    L->vec = 0;
    L->src_buf = src_buf;
    L->dst_buf = dst_buf;
    L->elem = b->elem;
    L->src_off = soff;
    const int copy = kind == SS_KL_COPY;
    L->dst_off = copy ? doff : 0;
    if (!copy) {
        L->ndim = ndim;
        copy_dims(L->sizes, sizes, ndim);
        copy_dims(L->src_strides, sstr, ndim);
        contiguous_strides(ndim, sizes, L->dst_strides);
    }
    /* The item count and each view's reach (for the access checks and the
     * order test) in one pass over the dims: shape_numel's and view_span's
     * arithmetic, dim by dim in the same order, each stopping at its first
     * overflow as they do. A COPY launch's dims are coalesced in the same
     * pass, as coalesce() would do it after copying them (m: dims kept). */
    const int want_d = kind != SS_KL_INDEX_BUILD;
    int64_t n = 1, t;
    int n_ok = 1, m = 0;
    span s = {1, soff, soff}, d = {want_d, doff, doff};
    if (known) {   /* only the coalescing pass left */
        n = known->n;
        s = known->s;
        d = known->d;
        if (copy)
            for (int k = 0; k < ndim; k++) m = coalesce_step(L, m, sizes[k], sstr[k], dstr[k]);
    } else {
        for (int k = 0; k < ndim; k++) {
            if (n_ok && __builtin_mul_overflow(n, sizes[k], &n)) n_ok = 0;
            if (s.ok && (__builtin_mul_overflow(sizes[k] - 1, sstr[k], &t) ||
                         (t < 0 ? __builtin_add_overflow(s.lo, t, &s.lo) : __builtin_add_overflow(s.hi, t, &s.hi))))
                s.ok = 0;
            if (d.ok && (__builtin_mul_overflow(sizes[k] - 1, dstr[k], &t) ||
                         (t < 0 ? __builtin_add_overflow(d.lo, t, &d.lo) : __builtin_add_overflow(d.hi, t, &d.hi))))
                d.ok = 0;
            if (copy) m = coalesce_step(L, m, sizes[k], sstr[k], dstr[k]);
        }
    }
    if (!s.ok) s.lo = s.hi = 0;
    if (!d.ok) d.lo = d.hi = 0;
    L->n = n;
    if (!n_ok) {
        snprintf(b->why, b->why_len, "kernel: launch %d has too many work items", b->p->nlaunch);
        return -1;
    }
    /* INDEX_BUILD reads no memory, but its offsets are the later stores'. */
    const int read_buf = kind == SS_KL_INDEX_BUILD ? SS_KB_INPUT : src_buf;
    if (check_access("load", soff, L->n, s, b->elem, b->room[read_buf], b->why, b->why_len))
        return -1;
    if (kind == SS_KL_COPY &&
        check_access("store", doff, L->n, d, b->elem, b->room[dst_buf], b->why, b->why_len))
        return -1;
    /* A store pattern without repeats cannot have more items than the buffer
     * has elements; refusing more keeps a broken launch finite. */
    const buf_room w = b->room[kind == SS_KL_INDEX_BUILD ? read_buf : dst_buf];
    const int64_t room_bytes = w.hi - w.lo;   /* >= 0; elem a power of two: a shift, not a division */
    if (L->n > (room_bytes >= 0 ? room_bytes >> __builtin_ctz((unsigned)b->elem) : room_bytes / b->elem)) {
        snprintf(b->why, b->why_len, "kernel: launch %d stores %lld items into a buffer of %lld",
                 b->p->nlaunch, (long long)L->n, (long long)((w.hi - w.lo) / b->elem));
        return -1;
    }
    L->indep = order_independent(b, kind, ndim, sizes, src_buf, s, dst_buf, dstr, d);
    if (copy) coalesce_end(L, m);
    else coalesce(L);
    try_vectorize(L);
    b->p->nlaunch++;
    return 0;
}

static void fmt_sizes(char *out, size_t n, const ss_view *v) {
    size_t u = (size_t)snprintf(out, n, "[");
    for (int d = 0; d < v->ndim && u < n; d++)
        u += (size_t)snprintf(out + u, n - u, "%s%lld", d ? ", " : "", (long long)v->sizes[d]);
    if (u < n) snprintf(out + u, n - u, "]");
}

ss_run_status ss_kprog_build(ss_kernel_id k, const ss_op *op, size_t guard_in, size_t guard_src,
                             ss_kprog *prog, char *why, size_t why_len) {
    prog->nlaunch = prog->staged = 0;
    prog->tmp_bytes = prog->idx_bytes = 0;
    const ss_view *in = &op->input, *src = &op->src;
    const int e = (int)op->elem_size;
    if ((e != 1 && e != 2 && e != 4 && e != 8 && e != 16) || in->ndim < 0 ||
        in->ndim > SS_MAX_NDIM || src->ndim != in->ndim) {
        snprintf(why, why_len, "kernel: unsupported element size %d or ranks %d/%d", e, in->ndim, src->ndim);
        return SS_RUN_FAILED;
    }
    const int self = overlaps_self(in->ndim, in->sizes, in->strides);   /* ss_kview_overlaps_self */
    if (self < 0) {
        snprintf(why, why_len, "kernel: out of memory for the internal-overlap test");
        return SS_RUN_FAILED;
    }
    if (self) {
        ss_text_set(why, why_len, "input view has internal overlap: an in-place write is ill-defined");
        return SS_RUN_REJECTED;
    }
    int64_t in_numel;
    if (shape_numel(in->ndim, in->sizes, &in_numel)) {
        snprintf(why, why_len, "kernel: input too large");
        return SS_RUN_FAILED;
    }
    /* The clone of `functional` is contiguous at offset 0 of SS_KB_TMP. */
    int64_t clone_strides[SS_MAX_NDIM];
    ss_view dst, clone;
    const ss_view *sliced = in;
    if (k == SS_KERNEL_FUNCTIONAL) {
        contiguous_strides(in->ndim, in->sizes, clone_strides);
        clone = *in;
        clone.offset = 0;
        memcpy(clone.strides, clone_strides, sizeof(int64_t) * (size_t)in->ndim);
        sliced = &clone;
    }
    if (kslice(sliced, op, k, &dst, why, why_len)) return SS_RUN_FAILED;
    /* src is walked over the slice's shape (they agree unless a mutant broke the slice). */
    int64_t sstr[SS_MAX_NDIM], cstr[SS_MAX_NDIM], n;
    copy_dims(sstr, src->strides, src->ndim);
    if (k == SS_KERNEL_MUT_CONTIGUOUS_SRC) contiguous_strides(src->ndim, src->sizes, sstr);
    /* In one pass: the slice's item count (shape_numel's product), whether
     * its sizes are src's, and the reaches of src walked over them and of
     * the slice (view_span's sums; either overflowing sets reach_over), which
     * must_stage and the launches of the slice's copy use. */
    int64_t items = 1, slo = src->offset, shi = slo, dlo = dst.offset, dhi = dlo, t;
    int items_over = 0, differ = 0, reach_over = 0;
    for (int d = 0; d < in->ndim; d++) {
        items_over |= __builtin_mul_overflow(items, dst.sizes[d], &items);
        differ |= dst.sizes[d] != src->sizes[d];
        reach_over |= __builtin_mul_overflow(dst.sizes[d] - 1, sstr[d], &t);
        reach_over |= t < 0 ? __builtin_add_overflow(slo, t, &slo) : __builtin_add_overflow(shi, t, &shi);
        reach_over |= __builtin_mul_overflow(dst.sizes[d] - 1, dst.strides[d], &t);
        reach_over |= t < 0 ? __builtin_add_overflow(dlo, t, &dlo) : __builtin_add_overflow(dhi, t, &dhi);
    }
    if (differ && !ss_kernel_is_mutant(k)) {
        char a[128], s[128];
        fmt_sizes(a, sizeof a, &dst);
        fmt_sizes(s, sizeof s, src);
        snprintf(why, why_len, "kernel: slice sizes %s differ from src sizes %s", a, s);
        return SS_RUN_FAILED;
    }
    const span src_span = {!reach_over, slo, shi}, dst_span = {!reach_over, dlo, dhi};
    /* Both reaches and the item count known without overflow: the launches
     * of the slice's copy reuse them instead of walking the dims again (see
     * launch_reach); a staged temporary spans [0, items - 1]. */
    const int reach_known = !reach_over && !items_over;
    const span tmp_span = {1, 0, items - 1};

    /* Every store goes to the input (injective: checked above), to a slice of
     * it or of the clone (a subset of its indices along dim, so injective
     * too), or to a contiguous temporary: no launch needs its own store test.
     * Except where the end is not clamped: that slice may leave the dim. */
    builder b = {prog, e, op->src_aliased, k != SS_KERNEL_MUT_END_UNCLAMPED, {{0, 0}}, why, why_len};
    const int64_t in_bytes = op->input_storage_numel * e;
    b.room[SS_KB_INPUT] = (buf_room){-(int64_t)guard_in, in_bytes + (int64_t)guard_in};
    b.room[SS_KB_SRC] = op->src_aliased ? b.room[SS_KB_INPUT]
        : (buf_room){-(int64_t)guard_src, op->src_storage_numel * e + (int64_t)guard_src};
    if (items_over || __builtin_mul_overflow(items, (int64_t)e, &n)) n = -1;

    if (k == SS_KERNEL_FUNCTIONAL) {
        const launch_reach slice_copy = {items, src_span, dst_span};
        prog->tmp_bytes = in_numel * e;
        b.room[SS_KB_TMP] = (buf_room){0, prog->tmp_bytes};
        if (add_launch(&b, SS_KL_COPY, in->ndim, in->sizes, SS_KB_INPUT, in->offset, in->strides,
                       SS_KB_TMP, 0, clone_strides, NULL) ||
            add_launch(&b, SS_KL_COPY, in->ndim, dst.sizes, SS_KB_SRC, src->offset, sstr,
                       SS_KB_TMP, dst.offset, dst.strides, reach_known ? &slice_copy : NULL) ||
            add_launch(&b, SS_KL_COPY, in->ndim, in->sizes, SS_KB_TMP, 0, clone_strides,
                       SS_KB_INPUT, in->offset, in->strides, NULL))
            return SS_RUN_FAILED;
        return SS_RUN_OK;
    }
    prog->staged = op->src_aliased && must_stage(k, src, &dst, items, items_over, src_span, dst_span);
    if (n < 0 && (prog->staged || k == SS_KERNEL_INDEX)) {
        snprintf(why, why_len, "kernel: slice too large for a temporary");
        return SS_RUN_FAILED;
    }
    if (prog->staged || k == SS_KERNEL_INDEX) contiguous_strides(dst.ndim, dst.sizes, cstr);
    if (k == SS_KERNEL_INDEX) {   /* the index list of the slice's storage offsets */
        prog->idx_bytes = n / e * 8;
        b.room[SS_KB_IDX] = (buf_room){0, prog->idx_bytes};
        if (add_launch(&b, SS_KL_INDEX_BUILD, dst.ndim, dst.sizes, SS_KB_INPUT, dst.offset,
                       dst.strides, SS_KB_IDX, 0, cstr, NULL))
            return SS_RUN_FAILED;
    }
    int from = SS_KB_SRC;
    int64_t from_off = src->offset;
    const int64_t *from_str = sstr;
    if (prog->staged) {
        prog->tmp_bytes = n;
        b.room[SS_KB_TMP] = (buf_room){0, n};
        const launch_reach to_tmp = {items, src_span, tmp_span};
        if (add_launch(&b, SS_KL_COPY, dst.ndim, dst.sizes, SS_KB_SRC, src->offset, sstr,
                       SS_KB_TMP, 0, cstr, reach_known ? &to_tmp : NULL))
            return SS_RUN_FAILED;
        from = SS_KB_TMP;
        from_off = 0;
        from_str = cstr;
    }
    const launch_reach to_dst = {items, prog->staged ? tmp_span : src_span, dst_span};
    const launch_reach *known = reach_known ? &to_dst : NULL;
    if (k == SS_KERNEL_INDEX)
        return add_launch(&b, SS_KL_INDEX_SCATTER, dst.ndim, dst.sizes, from, from_off, from_str,
                          SS_KB_INPUT, dst.offset, dst.strides, known) ? SS_RUN_FAILED : SS_RUN_OK;
    return add_launch(&b, SS_KL_COPY, dst.ndim, dst.sizes, from, from_off, from_str,
                      SS_KB_INPUT, dst.offset, dst.strides, known) ? SS_RUN_FAILED : SS_RUN_OK;
}
