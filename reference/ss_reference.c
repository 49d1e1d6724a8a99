/* ss_reference.c - the CPU reference slice_scatter, with snapshot semantics.
 *
 * Functional meaning: out = slice_scatter(input, src); input's view <- out,
 * with every read before any write. Because a valid input view has no
 * internal overlap, out differs from input only on the slice, and the slice's
 * elements are distinct storage elements; writing out back is therefore
 * exactly "slice <- snapshot of src". The snapshot is needed only when src can
 * share elements with the slice; a separate src, or a large aliased one that
 * shares none, is copied directly. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "ss_plan_build.h"
#include "ss_reference.h"
#include "ss_text.h"

/* Two views of equal sizes, with dims merged where both are contiguous across
 * them, so inner runs are long and the loop overhead small. */
typedef struct {
    int ndim;
    int64_t sizes[SS_MAX_NDIM];
    int64_t dst_st[SS_MAX_NDIM], src_st[SS_MAX_NDIM];
} pair_layout;

static void coalesce(const ss_view *dst, const ss_view *src, pair_layout *out) {
    int n = 0;
    for (int d = 0; d < dst->ndim; d++) {
        if (dst->sizes[d] == 1) continue;   /* size-1 dims carry no movement */
        if (n > 0 && out->dst_st[n - 1] == dst->strides[d] * dst->sizes[d] &&
            out->src_st[n - 1] == src->strides[d] * dst->sizes[d]) {
            /* dim d nests exactly inside the previous one in both views */
            out->sizes[n - 1] *= dst->sizes[d];
            out->dst_st[n - 1] = dst->strides[d];
            out->src_st[n - 1] = src->strides[d];
            continue;
        }
        out->sizes[n] = dst->sizes[d];
        out->dst_st[n] = dst->strides[d];
        out->src_st[n] = src->strides[d];
        n++;
    }
    out->ndim = n;
}

static void copy_elems(uint8_t *d, int64_t dst_st, const uint8_t *s, int64_t src_st, int64_t n,
                       size_t es) {
    if (dst_st == 1 && src_st == 1) {
        memcpy(d, s, (size_t)n * es);
        return;
    }
    const int64_t db = dst_st * (int64_t)es, sb = src_st * (int64_t)es;
    switch (es) {   /* fixed sizes let the compiler emit single moves */
    case 1: for (int64_t i = 0; i < n; i++, d += db, s += sb) memcpy(d, s, 1); break;
    case 2: for (int64_t i = 0; i < n; i++, d += db, s += sb) memcpy(d, s, 2); break;
    case 4: for (int64_t i = 0; i < n; i++, d += db, s += sb) memcpy(d, s, 4); break;
    case 8: for (int64_t i = 0; i < n; i++, d += db, s += sb) memcpy(d, s, 8); break;
    default: for (int64_t i = 0; i < n; i++, d += db, s += sb) memcpy(d, s, 16); break;
    }
}

/* Side of the square tiles of a transposed copy. Small on purpose: the
 * strided side's rows are often a power of two apart, so its lines share a
 * few cache sets; 8 of them fit the ways of one set. */
#define TILE 8

/* A 2-D block where one side walks rows and the other columns (a transpose):
 * copying tile by tile touches each cache line once instead of once per
 * element. Tiles go down a strip of columns first, so the strided side's
 * lines are reused by the next tile. Element order does not matter: dst and
 * src share no element. */
static void copy_tiled(uint8_t *d, int64_t d_row, int64_t d_col, const uint8_t *s, int64_t s_row,
                       int64_t s_col, int64_t rows, int64_t cols, size_t es) {
    for (int64_t c0 = 0; c0 < cols; c0 += TILE)
        for (int64_t r0 = 0; r0 < rows; r0 += TILE) {
            const int64_t r1 = r0 + TILE < rows ? r0 + TILE : rows;
            const int64_t c1 = c0 + TILE < cols ? c0 + TILE : cols;
            for (int64_t r = r0; r < r1; r++)
                copy_elems(d + (r * d_row + c0 * d_col) * (int64_t)es, d_col,
                           s + (r * s_row + c0 * s_col) * (int64_t)es, s_col, c1 - c0, es);
        }
}

/* n bytes between disjoint ranges: up to 64 in two to four overlapping fixed-size
 * moves (a fuzzing case's runs are mostly a few items, where a library call
 * costs more than the copy), longer ones through memcpy. */
static inline void copy_bytes(uint8_t *d, const uint8_t *s, size_t n) {
    if (n > 16) {
        if (n > 64) { memcpy(d, s, n); return; }
        /* 17 to 64 bytes: two or four 16-byte moves, the last ones overlapping */
        uint8_t x[4][16];
        memcpy(x[0], s, 16); memcpy(x[1], s + n - 16, 16);
        if (n > 32) { memcpy(x[2], s + 16, 16); memcpy(x[3], s + n - 32, 16); }
        memcpy(d, x[0], 16); memcpy(d + n - 16, x[1], 16);
        if (n > 32) { memcpy(d + 16, x[2], 16); memcpy(d + n - 32, x[3], 16); }
        return;
    }
    if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8); memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8); memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4); memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4); memcpy(d + n - 4, &b, 4);
    } else {
        for (size_t i = 0; i < n; i++) d[i] = s[i];
    }
}

/* The runs of L (along its innermost dim) with an odometer over the others;
 * es constant after inlining, so a strided run is a tight loop of single
 * moves. */
static inline __attribute__((always_inline)) void copy_runs(uint8_t *d, const uint8_t *s, const pair_layout *L,
                                                            size_t es) {
    const int inner = L->ndim - 1;
    const int64_t n = L->sizes[inner], db = L->dst_st[inner] * (int64_t)es, sb = L->src_st[inner] * (int64_t)es;
    const int contiguous = L->dst_st[inner] == 1 && L->src_st[inner] == 1;
    int64_t idx[SS_MAX_NDIM];
    for (int k = 0; k < inner; k++) idx[k] = 0;
    /* The outer dim that steps every run (o < 0: one run) kept in locals. */
    const int o = inner - 1;
    const int64_t on = o >= 0 ? L->sizes[o] : 1, odb = o >= 0 ? L->dst_st[o] * (int64_t)es : 0,
                  osb = o >= 0 ? L->src_st[o] * (int64_t)es : 0;
    int64_t oi = 0;
    for (;;) {
        if (contiguous) {
            copy_bytes(d, s, (size_t)n * es);
        } else {   /* four at a time: the loop's own cost is most of a move */
            int64_t i = 0;
            for (; i + 4 <= n; i += 4) {
                memcpy(d + i * db, s + i * sb, es);
                memcpy(d + (i + 1) * db, s + (i + 1) * sb, es);
                memcpy(d + (i + 2) * db, s + (i + 2) * sb, es);
                memcpy(d + (i + 3) * db, s + (i + 3) * sb, es);
            }
            for (; i < n; i++) memcpy(d + i * db, s + i * sb, es);
        }
        if (o < 0) return;
        if (++oi < on) {   /* odometer over the outer dims: dim o, then those outside it */
            d += odb;
            s += osb;
            continue;
        }
        d -= (on - 1) * odb;
        s -= (on - 1) * osb;
        oi = 0;
        int k = o - 1;
        for (; k >= 0; k--) {
            if (++idx[k] < L->sizes[k]) {
                d += L->dst_st[k] * (int64_t)es;
                s += L->src_st[k] * (int64_t)es;
                break;
            }
            d -= (L->sizes[k] - 1) * L->dst_st[k] * (int64_t)es;
            s -= (L->sizes[k] - 1) * L->src_st[k] * (int64_t)es;
            idx[k] = 0;
        }
        if (k < 0) return;
    }
}

/* Puts innermost the dim copy_runs walks best: one contiguous in both views
 * (each run then one block copy), else the longest (fewer runs, each with
 * the loop's fixed cost: runs of multi-dim cases are ten items on average).
 * Any order of the elements will do: dst and src share none. */
static void walk_best_inner(pair_layout *L) {
    const int in = L->ndim - 1;
    if (in < 1 || (L->dst_st[in] == 1 && L->src_st[in] == 1)) return;
    int best = in;
    for (int d = 0; d < in; d++) {
        if (L->dst_st[d] == 1 && L->src_st[d] == 1) { best = d; break; }
        if (L->sizes[d] > L->sizes[best]) best = d;
    }
    const int64_t size = L->sizes[best], dst_st = L->dst_st[best], src_st = L->src_st[best];
    L->sizes[best] = L->sizes[in];
    L->dst_st[best] = L->dst_st[in];
    L->src_st[best] = L->src_st[in];
    L->sizes[in] = size;
    L->dst_st[in] = dst_st;
    L->src_st[in] = src_st;
}

/* d[k] = s[k] over the pair layout L, d and s at the two views' first
 * elements: a tiled 2-D block where it is a transpose, else run by run with
 * walk_best_inner's dim innermost (L is reordered). Any element order will
 * do: the two sides share no element. */
static void copy_layout(uint8_t *d, const uint8_t *s, pair_layout *L, size_t es) {
    if (L->ndim == 0) { memcpy(d, s, es); return; }
    const int inner = L->ndim - 1;
    /* Transposed inner pair: one side contiguous along the innermost dim, the
     * other along the next one out. Then the unit of work is a tiled 2-D block. */
    const int tiled = L->ndim >= 2 && L->sizes[inner] >= TILE && L->sizes[inner - 1] >= TILE &&
                      ((L->dst_st[inner] == 1 && L->src_st[inner - 1] == 1) ||
                       (L->src_st[inner] == 1 && L->dst_st[inner - 1] == 1));
    if (!tiled) {
        walk_best_inner(L);
        switch (es) {   /* fixed sizes let the compiler emit single moves */
        case 1: copy_runs(d, s, L, 1); return;
        case 2: copy_runs(d, s, L, 2); return;
        case 4: copy_runs(d, s, L, 4); return;
        case 8: copy_runs(d, s, L, 8); return;
        default: copy_runs(d, s, L, 16); return;
        }
    }
    const int outer = inner - 1;   /* dims below `outer` run the odometer */
    int64_t idx[SS_MAX_NDIM];
    for (int k = 0; k < outer; k++) idx[k] = 0;   /* only these (this runs per case) */
    for (;;) {
        copy_tiled(d, L->dst_st[inner - 1], L->dst_st[inner], s, L->src_st[inner - 1], L->src_st[inner],
                   L->sizes[inner - 1], L->sizes[inner], es);
        int k = outer - 1;
        for (; k >= 0; k--) {   /* odometer over the outer dims */
            if (++idx[k] < L->sizes[k]) {
                d += L->dst_st[k] * (int64_t)es;
                s += L->src_st[k] * (int64_t)es;
                break;
            }
            d -= (L->sizes[k] - 1) * L->dst_st[k] * (int64_t)es;
            s -= (L->sizes[k] - 1) * L->src_st[k] * (int64_t)es;
            idx[k] = 0;
        }
        if (k < 0) return;
    }
}

/* dst[idx] = src[idx] for every logical index; dst and src must not share
 * elements (the caller snapshots when they could). numel: dst's (the plan's
 * slice_numel; the caller has it). */
static void copy_view(uint8_t *dst_base, const ss_view *dst, const uint8_t *src_base,
                      const ss_view *src, size_t es, int64_t numel) {
    if (numel == 0) return;
    pair_layout L;
    coalesce(dst, src, &L);
    copy_layout(dst_base + dst->offset * (int64_t)es, src_base + src->offset * (int64_t)es, &L, es);
}

/* The two copies through a snapshot laid out contiguous over L's sizes: src
 * into it (to), then it into the slice (from). L pairs the slice's and src's
 * elements already, so both copies walk it: no view of the snapshot to
 * coalesce again. Only the first ndim dims are set (all copy_layout reads). */
static void snapshot_layouts(const pair_layout *L, pair_layout *to, pair_layout *from) {
    to->ndim = from->ndim = L->ndim;
    int64_t st = 1;
    for (int d = L->ndim - 1; d >= 0; d--) {
        to->sizes[d] = from->sizes[d] = L->sizes[d];
        to->src_st[d] = L->src_st[d];
        from->dst_st[d] = L->dst_st[d];
        to->dst_st[d] = from->src_st[d] = st;
        st *= L->sizes[d];
    }
}

/* How the two sides of L (at offsets doff and soff, in elements) meet: -1
 * the same elements in the same order (each copied onto itself: nothing to
 * do), 0 their ranges apart (no shared element: a direct copy), 1 they may
 * share elements (a snapshot). Strides of a validated view are >= 0. */
static int pair_meets(const pair_layout *L, int64_t doff, int64_t soff) {
    int64_t dhi = doff, shi = soff;
    int same = doff == soff;
    for (int d = 0; d < L->ndim; d++) {
        dhi += (L->sizes[d] - 1) * L->dst_st[d];
        shi += (L->sizes[d] - 1) * L->src_st[d];
        same &= L->dst_st[d] == L->src_st[d];
    }
    if (same) return -1;
    return !(dhi < soff || shi < doff);
}

ss_run_status ss_ref_run(const ss_plan *plan, ss_storage *input, ss_storage *src, char *why,
                         size_t why_len) {
    if (plan->op.src_is_operand) {   /* its src need not have the slice's shape */
        ss_text_set(why, why_len, "a program case: the program reference runs it, not the write's");
        return SS_RUN_FAILED;
    }
    if (plan->internal_overlap) {
        ss_text_set(why, why_len, "input view has internal overlap: cannot be written in place");
        return SS_RUN_REJECTED;
    }
    const size_t es = plan->op.elem_size;
    uint8_t *in_data = ss_storage_data(input);
    const uint8_t *src_data = plan->op.src_aliased ? in_data : ss_storage_data(src);
    if (!plan->op.src_aliased) {   /* separate storages share no element */
        copy_view(in_data, &plan->slice, src_data, &plan->op.src, es, plan->slice_numel);
        return SS_RUN_OK;
    }
    if (plan->slice_numel == 0) return SS_RUN_OK;   /* nothing written (an empty view's dims mean nothing) */
    /* An aliased src may share elements with the slice. A small one does
     * not ask the overlap class (its exact search costs more than a small
     * copy): the coalesced pair's ranges (pair_meets) decide, a snapshot on
     * the stack where they meet. A large one asks (ss_plan_overlap) whether
     * a snapshot, or any copy, is needed. */
    _Alignas(16) uint8_t small[4096];
    const size_t bytes = (size_t)plan->slice_numel * es;
    if (bytes > sizeof small) {
        const ss_overlap o = ss_plan_overlap(plan);
        if (o == SS_OVL_SAME_VIEW) return SS_RUN_OK;   /* x[a:b] = x[a:b] */
        if (o != SS_OVL_PARTIAL) {
            copy_view(in_data, &plan->slice, src_data, &plan->op.src, es, plan->slice_numel);
            return SS_RUN_OK;
        }
    }
    /* Both sides one contiguous run (x[1:] = x[:-1] on a contiguous x):
     * memmove is a snapshot copy by definition, without the temporary. */
    pair_layout L;
    coalesce(&plan->slice, &plan->op.src, &L);
    if (L.ndim == 1 && L.dst_st[0] == 1 && L.src_st[0] == 1) {
        memmove(in_data + plan->slice.offset * (int64_t)es, src_data + plan->op.src.offset * (int64_t)es,
                (size_t)L.sizes[0] * es);
        return SS_RUN_OK;
    }
    const int meets = pair_meets(&L, plan->slice.offset, plan->op.src.offset);
    if (meets < 0) return SS_RUN_OK;   /* x[a:b] = x[a:b] */
    if (meets == 0) {
        copy_layout(in_data + plan->slice.offset * (int64_t)es, src_data + plan->op.src.offset * (int64_t)es, &L,
                    es);
        return SS_RUN_OK;
    }
    uint8_t *tmp = bytes <= sizeof small ? small : malloc(bytes);
    if (!tmp) {
        snprintf(why, why_len, "out of memory for a %lld-element snapshot",
                 (long long)plan->slice_numel);
        return SS_RUN_FAILED;
    }
    pair_layout to, from;
    snapshot_layouts(&L, &to, &from);
    copy_layout(tmp, src_data + plan->op.src.offset * (int64_t)es, &to, es);
    copy_layout(in_data + plan->slice.offset * (int64_t)es, tmp, &from, es);
    if (tmp != small) free(tmp);
    return SS_RUN_OK;
}
