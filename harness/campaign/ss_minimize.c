/* ss_minimize.c - greedy structural shrinking of a failing case to a 1-minimal one. */
#include <stdlib.h>
#include <string.h>
#include "ss_clock.h"
#include "ss_minimize.h"
#include "ss_plan_build.h"
#include "ss_program_ref.h"
#include "ss_vec.h"

/* ---- the size order ---------------------------------------------------- */

/* Simplicity of a dtype among those of one element size: integers before
 * floats, narrow before wide (the order's fourth component). */
static const int dtype_rank[SS_DTYPE_COUNT] = {
    [SS_UINT8] = 0, [SS_INT8] = 1, [SS_BOOL] = 2, [SS_INT16] = 3, [SS_FLOAT16] = 4,
    [SS_BFLOAT16] = 5, [SS_INT32] = 6, [SS_FLOAT32] = 7, [SS_INT64] = 8, [SS_FLOAT64] = 9,
    [SS_COMPLEX64] = 10, [SS_COMPLEX128] = 11,
};

static int64_t iabs(int64_t x) { return x < 0 ? -x : x; }

int64_t ss_min_numel(const ss_case *c) {
    const int64_t a = c->op.input_storage_numel, b = c->op.src_aliased ? 0 : c->op.src_storage_numel;
    return a > b ? a : b;
}

/* Normalized dim and the slice's strides (input strides, step applied on dim). */
static int slice_of(const ss_op *op, int *wd, int64_t *len) {
    int64_t s, e;
    return ss_normalize_slice(op->input.ndim, op->dim, op->has_start, op->start, op->has_end,
                              op->end, op->step, op->input.sizes, wd, &s, &e, len, NULL);
}

static int64_t alias_rank(const ss_op *op) {
    if (!op->src_aliased) return 0;
    int wd;
    int64_t len;
    if (slice_of(op, &wd, &len)) return 2;
    for (int d = 0; d < op->src.ndim; d++) {
        int64_t st = op->input.strides[d];   /* an empty view's stride * step may overflow */
        if (d == wd && __builtin_mul_overflow(st, op->step, &st)) return 2;
        if (op->src.sizes[d] > 1 && op->src.strides[d] != st) return 2;
    }
    return 1;
}

#define KEYS 9

static void order_key(const ss_case *c, int64_t k[KEYS]) {
    const ss_op *op = &c->op;
    int64_t params = iabs(op->dim) + op->input.offset + op->src.offset + (op->step - 1) +
                     (c->fill_seed != 0);
    if (op->has_start) params += 1 + iabs(op->start);
    if (op->has_end) params += 1 + iabs(op->end);
    for (int d = 0; d < op->input.ndim; d++)
        params += op->input.sizes[d] + op->input.strides[d] + op->src.strides[d];
    int64_t prog_params = 0;
    k[0] = ss_min_program_size(c->program, &prog_params);
    k[1] = ss_min_numel(c);
    k[2] = op->input.ndim;
    k[3] = (int64_t)op->elem_size;
    k[4] = (unsigned)c->dtype < SS_DTYPE_COUNT ? dtype_rank[c->dtype] : 99;
    k[5] = c->explicit_values != 0;
    k[6] = alias_rank(op);
    k[7] = params + prog_params;
    k[8] = op->input_storage_numel + (op->src_aliased ? 0 : op->src_storage_numel);
}

int ss_min_compare(const ss_case *a, const ss_case *b) {
    int64_t ka[KEYS], kb[KEYS];
    order_key(a, ka);
    order_key(b, kb);
    for (int i = 0; i < KEYS; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

/* ---- candidate steps --------------------------------------------------- */

typedef struct clist { ss_case *v; size_t n, cap; int oom; } clist;

/* A deep copy of base to edit; NULL on out of memory. */
static ss_case *push(clist *l, const ss_case *base) {
    if (SS_GROW(l->v, l->cap, l->n + 1)) { l->oom = 1; return NULL; }
    if (ss_case_copy(&l->v[l->n], base)) { l->oom = 1; return NULL; }
    return &l->v[l->n++];
}

static void pop(clist *l) { ss_case_free(&l->v[--l->n]); }

static void clist_free(clist *l) {
    for (size_t i = 0; i < l->n; i++) ss_case_free(&l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* src.sizes follow the slice after an edit of sizes or bounds; -1 if invalid. */
static int resync(ss_op *op) {
    int wd;
    int64_t len;
    if (slice_of(op, &wd, &len)) return -1;
    op->src.ndim = op->input.ndim;
    for (int d = 0; d < op->input.ndim; d++) op->src.sizes[d] = d == wd ? len : op->input.sizes[d];
    return 0;
}

/* Explicit values follow a storage edit: new element i is old element i + shift. */
static int remap(uint8_t **vals, int64_t old_n, int64_t new_n, int64_t shift, size_t es) {
    if (!*vals) return 0;
    uint8_t *nv = calloc((size_t)(new_n > 0 ? new_n : 1), es);
    if (!nv) return -1;
    for (int64_t i = 0; i < new_n; i++)
        if (i + shift >= 0 && i + shift < old_n) memcpy(nv + i * es, *vals + (i + shift) * es, es);
    free(*vals);
    *vals = nv;
    return 0;
}

/* Storages exactly as large as their views need. */
static int fit(ss_case *k) {
    ss_op *op = &k->op;
    int64_t need = ss_view_end(&op->input);
    if (op->src_aliased) {
        const int64_t e = ss_view_end(&op->src);
        need = e > need ? e : need;
        if (remap(&k->values_input, op->input_storage_numel, need, 0, op->elem_size)) return -1;
        op->input_storage_numel = op->src_storage_numel = need;
        return 0;
    }
    const int64_t es = ss_view_end(&op->src);
    if (remap(&k->values_input, op->input_storage_numel, need, 0, op->elem_size) ||
        remap(&k->values_src, op->src_storage_numel, es, 0, op->elem_size)) return -1;
    op->input_storage_numel = need;
    op->src_storage_numel = es;
    return 0;
}

/* Moves every view of a storage down by m elements (an aliased pair moves together). */
static int translate(ss_case *k, int64_t m_in, int64_t m_src) {
    ss_op *op = &k->op;
    if (op->src_aliased) m_src = m_in;
    op->input.offset -= m_in;
    op->src.offset -= m_src;
    if (remap(&k->values_input, op->input_storage_numel, op->input_storage_numel, m_in, op->elem_size))
        return -1;
    if (!op->src_aliased &&
        remap(&k->values_src, op->src_storage_numel, op->src_storage_numel, m_src, op->elem_size))
        return -1;
    return fit(k);
}

/* Drops the first m elements of the input storage (and of a separate src
 * storage, m_src) without fitting: the views move down with their storage, so
 * a case whose failure needs storage beyond its views (a write past the view)
 * shrinks its offset and its storage together. */
static int slide(ss_case *k, int64_t m_in, int64_t m_src) {
    ss_op *op = &k->op;
    if (op->src_aliased) m_src = m_in;
    if (m_in > op->input.offset || m_src > op->src.offset) return -1;
    if (remap(&k->values_input, op->input_storage_numel, op->input_storage_numel - m_in, m_in,
              op->elem_size))
        return -1;
    op->input.offset -= m_in;
    op->src.offset -= m_src;
    op->input_storage_numel -= m_in;
    if (op->src_aliased) {
        op->src_storage_numel = op->input_storage_numel;
        return 0;
    }
    if (remap(&k->values_src, op->src_storage_numel, op->src_storage_numel - m_src, m_src,
              op->elem_size))
        return -1;
    op->src_storage_numel -= m_src;
    return 0;
}

/* Cuts a storage's tail to n elements, the views left where they are (the
 * plan refuses the candidate if a view no longer fits). */
static int cut(ss_case *k, int src, int64_t n) {
    ss_op *op = &k->op;
    if (src && !op->src_aliased) {
        if (remap(&k->values_src, op->src_storage_numel, n, 0, op->elem_size)) return -1;
        op->src_storage_numel = n;
        return 0;
    }
    if (remap(&k->values_input, op->input_storage_numel, n, 0, op->elem_size)) return -1;
    op->input_storage_numel = n;
    if (op->src_aliased) op->src_storage_numel = n;
    return 0;
}

/* 1 when a storage holds elements beyond what its views reach: then every
 * edit is also tried without fitting the storages afterwards. */
static int has_slack(const ss_op *op) {
    int64_t need = ss_view_end(&op->input);
    if (op->src_aliased) {
        const int64_t e = ss_view_end(&op->src);
        return (e > need ? e : need) < op->input_storage_numel;
    }
    return need < op->input_storage_numel || ss_view_end(&op->src) < op->src_storage_numel;
}

static void drop_dim(ss_op *op, int k) {
    for (int d = k; d + 1 < op->input.ndim; d++) {
        op->input.sizes[d] = op->input.sizes[d + 1];
        op->input.strides[d] = op->input.strides[d + 1];
        op->src.strides[d] = op->src.strides[d + 1];
    }
    op->input.ndim--;
    op->src.ndim--;
}

/* Smaller values to try for a non-negative quantity x: 0, 1, x/2, x-1. */
static int smaller(int64_t x, int64_t out[4]) {
    int n = 0;
    const int64_t c[4] = {0, 1, x / 2, x - 1};
    for (int i = 0; i < 4; i++) {
        if (c[i] < 0 || c[i] >= x) continue;
        int dup = 0;
        for (int j = 0; j < n; j++) dup |= out[j] == c[i];
        if (!dup) out[n++] = c[i];
    }
    return n;
}

/* Same, toward zero for a signed bound: 0, x/2, x -/+ 1. */
static int toward_zero(int64_t x, int64_t out[3]) {
    int n = 0;
    if (x == 0) return 0;
    const int64_t c[3] = {0, x / 2, x > 0 ? x - 1 : x + 1};
    for (int i = 0; i < 3; i++) {
        int dup = 0;
        for (int j = 0; j < n; j++) dup |= out[j] == c[i];
        if (!dup) out[n++] = c[i];
    }
    return n;
}

#define EDIT(stmt) do { ss_case *k_ = push(l, c); if (!k_) return; ss_case *k = k_; stmt; } while (0)
/* An edit whose storages are then fitted to the views, and, when the case has
 * slack, the same edit with the storages left as they are. */
#define EDIT_FIT(stmt, bad) do { \
        EDIT(stmt; if ((bad) || fit(k)) pop(l)); \
        if (slack) EDIT(stmt; if (bad) pop(l)); \
    } while (0)

/* Canonical 1-D aliasing patterns on a contiguous storage of n elements, tried
 * when smaller than c: a shrink path that single edits of a multi-dim
 * interleaving cannot take (x[1:] <- x[:-1], its mirror, stride-0 sources). */
static void templates(const ss_case *c, clist *l) {
    /* a few elements, or just past a power of two (a wave or warp boundary) */
    static const int64_t lens[] = {2, 3, 4, 5, 9, 17, 33, 34, 65, 66, 129, 130, 257, 258, 513, 1025};
    if (!c->op.src_aliased || c->explicit_values) return;
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        for (int t = 0, n = (int)lens[i]; t < 4 && n < ss_min_numel(c) + (c->op.input.ndim > 1); t++) {
            ss_case *k = push(l, c);
            if (!k) return;
            ss_op *o = &k->op;
            o->input = (ss_view){0, 1, {n}, {1}};
            o->dim = 0;
            o->step = 1;
            o->has_start = t == 0 || t == 3;   /* x[1:] */
            o->start = o->has_start;
            o->has_end = t == 1;               /* x[:n-1] */
            o->end = o->has_end ? n - 1 : 0;
            o->src = (ss_view){t == 1 ? 1 : t == 2 ? 1 : 0, 1, {0}, {t >= 2 ? 0 : 1}};
            o->input_storage_numel = o->src_storage_numel = n;
            if (resync(o)) pop(l);
        }
}

/* Every single step from c, most shrinking first. */
static void candidates(const ss_case *c, clist *l) {
    const ss_op *op = &c->op;
    const int nd = op->input.ndim;
    int wd = 0;
    int64_t len = 0;
    if (slice_of(op, &wd, &len)) return;
    int64_t v[4];

    if (c->program) {   /* steps and views before shapes */
        ss_program *edits[3 * SS_PROG_MAX_STEPS + SS_PROG_MAX_RETURNS];
        const int ne = ss_min_program_edits(c->program, edits, (int)(sizeof edits / sizeof edits[0]));
        for (int i = 0; i < ne; i++) {
            ss_case *k = push(l, c);
            if (!k) { while (i < ne) ss_program_free(edits[i++]); return; }
            ss_program_free(k->program);
            k->program = edits[i];
        }
    }
    const int slack = has_slack(op);
    EDIT(if (fit(k)) pop(l));
    if (c->explicit_values)
        EDIT(free(k->values_input); free(k->values_src); k->values_input = k->values_src = NULL;
             k->explicit_values = 0; k->fill_small |= k->program != NULL);   /* programs: exact values */
    {   /* translate: empty views first to 0, then the pair down to the lowest offset */
        const int in_empty = ss_view_end(&op->input) == op->input.offset;
        const int src_empty = ss_view_end(&op->src) == op->src.offset;
        int64_t m = op->input.offset;
        if (op->src_aliased && !src_empty && op->src.offset < m) m = op->src.offset;
        if (op->src_aliased && in_empty) m = op->src.offset;
        if (m > 0) EDIT(if (translate(k, m, op->src_aliased ? m : 0)) pop(l));
        if (!op->src_aliased && op->src.offset > 0) EDIT(if (translate(k, 0, op->src.offset)) pop(l));
    }
    if (slack) {   /* offsets and storages shrink together; tails shrink alone */
        const int64_t mv = op->src_aliased && op->src.offset < op->input.offset ? op->src.offset
                                                                                : op->input.offset;
        for (int i = 0, n = smaller(mv, v); i < n; i++)
            EDIT(if (slide(k, mv - v[i], 0)) pop(l));
        if (!op->src_aliased)
            for (int i = 0, n = smaller(op->src.offset, v); i < n; i++)
                EDIT(if (slide(k, 0, op->src.offset - v[i])) pop(l));
        for (int i = 0, n = smaller(op->input_storage_numel, v); i < n; i++)
            EDIT(if (cut(k, 0, v[i])) pop(l));
        if (!op->src_aliased)
            for (int i = 0, n = smaller(op->src_storage_numel, v); i < n; i++)
                EDIT(if (cut(k, 1, v[i])) pop(l));
    }
    for (int d = 0; d < nd && nd > 1; d++)
        if (d != wd) EDIT(drop_dim(&k->op, d); k->op.dim = wd - (d < wd); if (resync(&k->op)) pop(l));
    if (op->src_aliased) {
        /* separate storage holding exactly what src read */
        EDIT(ss_op *o = &k->op; const int64_t off = o->src.offset;
             o->src_aliased = 0; o->src.offset = 0;
             o->src_storage_numel = ss_view_end(&o->src);
             if (k->values_input) {
                 k->values_src = calloc((size_t)(o->src_storage_numel ? o->src_storage_numel : 1), o->elem_size);
                 if (!k->values_src) { pop(l); return; }
                 for (int64_t i = 0; i < o->src_storage_numel && off + i < o->input_storage_numel; i++)
                     memcpy(k->values_src + i * o->elem_size, k->values_input + (off + i) * o->elem_size, o->elem_size);
             }
             if (fit(k)) pop(l));
        int64_t sst;   /* the slice's stride along dim (may overflow for an empty view) */
        if (alias_rank(op) == 2 && !__builtin_mul_overflow(op->input.strides[wd], op->step, &sst))
            /* shift-based: the slice's strides at src's offset */
            EDIT(for (int d = 0; d < nd; d++)
                     k->op.src.strides[d] = d == wd ? sst : op->input.strides[d];
                 if (fit(k)) pop(l));
    }
    if (!c->explicit_values)
        for (int t = 0; t < SS_DTYPE_COUNT; t++)
            if (ss_dtype_size((ss_dtype)t) < op->elem_size ||
                (ss_dtype_size((ss_dtype)t) == op->elem_size && dtype_rank[t] < dtype_rank[c->dtype]))
                EDIT(k->dtype = (ss_dtype)t; k->op.elem_size = ss_dtype_size((ss_dtype)t));
    for (int d = 0; d < nd; d++)
        for (int i = 0, n = smaller(op->input.sizes[d], v); i < n; i++)
            EDIT_FIT(k->op.input.sizes[d] = v[i], resync(&k->op));
    for (int i = 0, n = smaller(op->input.offset, v); i < n; i++)
        EDIT_FIT(k->op.input.offset = v[i], 0);
    for (int i = 0, n = smaller(op->src.offset, v); i < n; i++)
        EDIT_FIT(k->op.src.offset = v[i], 0);
    for (int d = 0; d < nd; d++) {
        for (int i = 0, n = smaller(op->input.strides[d], v); i < n; i++)
            EDIT_FIT(k->op.input.strides[d] = v[i], 0);
        for (int i = 0, n = smaller(op->src.strides[d], v); i < n; i++)
            EDIT_FIT(k->op.src.strides[d] = v[i], 0);
    }
    if (op->dim < 0) EDIT(k->op.dim = wd);
    if (op->has_start) {
        EDIT_FIT(k->op.has_start = 0; k->op.start = 0, resync(&k->op));
        for (int i = 0, n = toward_zero(op->start, v); i < n; i++)
            EDIT_FIT(k->op.start = v[i], resync(&k->op));
    }
    if (op->has_end) {
        EDIT_FIT(k->op.has_end = 0; k->op.end = 0, resync(&k->op));
        for (int i = 0, n = toward_zero(op->end, v); i < n; i++)
            EDIT_FIT(k->op.end = v[i], resync(&k->op));
    }
    for (int i = 0, n = smaller(op->step, v); i < n; i++)
        if (v[i] >= 1) EDIT_FIT(k->op.step = v[i], resync(&k->op));
    if (c->fill_seed) EDIT(k->fill_seed = 0);
    templates(c, l);
}

/* ---- the loop ---------------------------------------------------------- */

/* Candidate i is worth a predicate call: smaller, and well formed (its
 * program too: the reference runs it or refuses it by PyTorch's rules). */
static int viable(const ss_case *cand, const ss_case *cur, size_t max_bytes, ss_plan *plan) {
    if (ss_min_compare(cand, cur) >= 0 || ss_plan_build_limited(&cand->op, max_bytes, plan, NULL)) return 0;
    if (!cand->program) return 1;
    ss_prog_result res;
    const ss_prog_status st = ss_prog_ref_check(cand, plan, &res);
    ss_prog_result_free(&res);
    return st == SS_PROG_OK || st == SS_PROG_REFUSED;
}

int ss_minimize(ss_case *c, const ss_min_opts *opts, ss_min_pred pred, void *user,
                ss_min_stats *stats) {
    ss_min_opts o = {0};
    if (opts) o = *opts;
    if (o.max_attempts <= 0) o.max_attempts = 20000;
    ss_min_stats st = {0};
    st.numel_before = ss_min_numel(c);
    st.ndim_before = c->op.input.ndim;
    struct cJSON *meta = c->meta, *expect = c->expect;
    c->meta = c->expect = NULL;   /* not copied into every candidate */
    const double t0 = ss_now_s();
    int rc = 0, changed = 1;
    while (changed && !st.budget_hit && rc == 0) {
        changed = 0;
        clist l = {0};
        candidates(c, &l);
        for (size_t pos = 0; pos < l.n; pos++) {
            if (st.attempts >= o.max_attempts || (o.max_seconds > 0 && ss_now_s() - t0 > o.max_seconds) ||
                (o.stop && __atomic_load_n(o.stop, __ATOMIC_ACQUIRE))) {
                st.budget_hit = 1;
                break;
            }
            ss_plan plan;
            if (!viable(&l.v[pos], c, o.max_bytes, &plan)) continue;
            st.attempts++;
            if (!pred(&l.v[pos], &plan, user)) continue;
            ss_case_free(c);
            *c = l.v[pos];
            ss_case_init(&l.v[pos]);
            st.accepted++;
            changed = 1;
            clist_free(&l);   /* the rest of this pass continues on the new case */
            candidates(c, &l);
        }
        if (l.oom) rc = -1;
        clist_free(&l);
    }
    c->meta = meta;
    c->expect = expect;
    st.numel_after = ss_min_numel(c);
    st.ndim_after = c->op.input.ndim;
    if (stats) *stats = st;
    return rc;
}

int ss_min_is_minimal(const ss_case *c, size_t max_bytes, ss_min_pred pred, void *user) {
    ss_case bare = *c;
    bare.meta = bare.expect = NULL;
    clist l = {0};
    candidates(&bare, &l);
    int minimal = l.oom ? -1 : 1;
    for (size_t i = 0; i < l.n && minimal == 1; i++) {
        ss_plan plan;
        if (viable(&l.v[i], &bare, max_bytes, &plan) && pred(&l.v[i], &plan, user)) minimal = 0;
    }
    clist_free(&l);
    return minimal;
}
