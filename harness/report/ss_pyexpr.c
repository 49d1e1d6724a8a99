/* ss_pyexpr.c - deriving the idiomatic Python line of a case: views spelled as indexing of a shaped storage. */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_plan_build.h"
#include "ss_pyexpr.h"

/* How a view is reached from a contiguous base of shape S: per base dim an
 * integer index or a slice (start, len, step); view dim k is base dim bd[k]. */
typedef struct spelling {
    int nb, m;
    int64_t S[SS_MAX_NDIM];
    int is_slice[SS_MAX_NDIM];
    int64_t start[SS_MAX_NDIM], len[SS_MAX_NDIM], step[SS_MAX_NDIM];
    int bd[SS_MAX_NDIM];
    int from_back;              /* 1 (src): an end left of the size counts from the back, x[:-1] */
} spelling;

/* The written slice's own spelling, copied by a src slice over the same elements. */
typedef struct mirror {
    int dim;                    /* base dim, -1 none */
    int64_t start, len, step;
    const char *text;
    int force;                  /* 1: the written slice itself (replaces the entry) */
} mirror;

/* Empty views may have sizes up to 2^53 each: products saturate at INT64_MAX
 * (no real view has such a stride or numel), and a 0 size keeps a product 0. */
static void contiguous_strides(const int64_t *S, int n, int64_t *T) {
    int64_t t = 1;
    for (int d = n - 1; d >= 0; d--) {
        T[d] = t;
        if (__builtin_mul_overflow(t, S[d], &t)) t = INT64_MAX;
    }
}

static int64_t product(const int64_t *S, int n) {
    int64_t p = 1;
    for (int d = 0; d < n; d++) if (S[d] == 0) return 0;
    for (int d = 0; d < n; d++)
        if (__builtin_mul_overflow(p, S[d], &p)) return INT64_MAX;
    return p;
}

/* Is view dim k's base dim d between the base dims of the view dims around it? */
static int in_order(const int *bd, int m, int k, int d) {
    for (int j = 0; j < m; j++)
        if (bd[j] >= 0 && ((j < k && bd[j] > d) || (j > k && bd[j] < d))) return 0;
    return 1;
}

/* Spell view v (offset relative to the base's first element: v->offset - base_off)
 * as indexing of a contiguous base of shape S. 0, or -1 when no indexing reaches it. */
static int express(const ss_view *v, int64_t base_off, const int64_t *S, int nb, spelling *sp) {
    int64_t T[SS_MAX_NDIM], o[SS_MAX_NDIM];
    const int64_t rel = v->offset - base_off, N = product(S, nb);
    if (nb < v->ndim || rel < 0 || rel >= N) return -1;
    memset(sp, 0, sizeof *sp);
    sp->nb = nb;
    sp->m = v->ndim;
    memcpy(sp->S, S, sizeof(int64_t) * (size_t)nb);
    contiguous_strides(S, nb, T);
    int used[SS_MAX_NDIM] = {0};
    for (int d = 0; d < nb; d++) o[d] = (rel / T[d]) % S[d];
    for (int k = 0; k < v->ndim; k++) sp->bd[k] = -1;
    for (int k = 0; k < v->ndim; k++) {   /* dims of size > 1: their stride names the base dim */
        const int64_t n = v->sizes[k], st = v->strides[k];
        if (n <= 1) continue;
        if (st <= 0) return -1;
        int best = -1;
        for (int d = 0; d < nb && best < 0; d++)
            if (!used[d] && st % T[d] == 0 && o[d] + (n - 1) * (st / T[d]) < S[d]) best = d;
        if (best < 0) return -1;
        used[best] = 1;
        sp->bd[k] = best;
        sp->is_slice[best] = 1;
        sp->start[best] = o[best];
        sp->len[best] = n;
        sp->step[best] = st / T[best];
    }
    /* dims of size 0 and 1, on a base dim that is in order, of matching stride
     * and taken whole (a size-1 base dim); then relaxing those one by one */
    for (int pass = 0; pass < 4; pass++)
        for (int k = 0; k < v->ndim; k++) {
            if (v->sizes[k] > 1 || sp->bd[k] >= 0) continue;
            for (int d = 0; d < nb && sp->bd[k] < 0; d++) {
                if (used[d] || (pass < 3 && !in_order(sp->bd, v->ndim, k, d)) ||
                    (pass < 2 && T[d] != v->strides[k]) || (pass < 1 && S[d] != v->sizes[k]) ||
                    (v->sizes[k] == 1 && o[d] >= S[d]))
                    continue;
                used[d] = 1;
                sp->bd[k] = d;
                sp->is_slice[d] = 1;
                sp->start[d] = o[d];
                sp->len[d] = v->sizes[k];
                sp->step[d] = 1;
            }
            if (sp->bd[k] < 0 && pass == 3) return -1;
        }
    for (int d = 0; d < nb; d++)
        if (!sp->is_slice[d]) sp->start[d] = o[d];
    return 0;
}

/* ---- text ---------------------------------------------------------------- */

typedef struct buf { char *p; size_t n, used; } buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (b->used < b->n) b->used += (size_t)vsnprintf(b->p + b->used, b->n - b->used, fmt, ap);
    va_end(ap);
}

static int full(const spelling *sp, int d) {
    return sp->is_slice[d] && sp->start[d] == 0 && sp->step[d] == 1 && sp->len[d] == sp->S[d];
}

/* One subscript entry: an integer, a mirrored slice, or a slice in the default spelling. */
static void entry(buf *b, const spelling *sp, int d, const mirror *mr) {
    const int64_t s = sp->start[d], n = sp->len[d], st = sp->step[d], S = sp->S[d];
    if (!sp->is_slice[d]) { put(b, "%" PRId64, s); return; }
    if (mr && mr->dim == d && (mr->force || (mr->start == s && mr->len == n && (mr->step == st || n <= 1)))) {
        put(b, "%s", mr->text);
        return;
    }
    if (full(sp, d)) { put(b, ":"); return; }
    if (n == 0) { put(b, "%" PRId64 ":%" PRId64, s, s); return; }
    const int64_t stop = s + (n - 1) * st + 1;
    const int to_end = (S - s + st - 1) / st == n;
    if (s) put(b, "%" PRId64, s);
    put(b, ":");
    if (!to_end) put(b, "%" PRId64, sp->from_back && s == 0 && stop < S ? stop - S : stop);
    if (st > 1 && n > 1) put(b, ":%" PRId64, st);
}

/* "[a, b, ...]": nothing when every dim is whole; trailing whole dims left
 * out, except when the subscript starts with one (`state[:, :-3, :]`). */
static void subscript(buf *b, const spelling *sp, const mirror *mr) {
    char text[SS_MAX_NDIM][80];
    int last = -1;
    for (int d = 0; d < sp->nb; d++) {
        buf e = {text[d], sizeof text[d], 0};
        text[d][0] = 0;
        entry(&e, sp, d, mr);
        if (strcmp(text[d], ":")) last = d;
    }
    if (last < 0) return;
    const int upto = strcmp(text[0], ":") ? last + 1 : sp->nb;
    put(b, "[");
    for (int d = 0; d < upto; d++) put(b, "%s%s", d ? ", " : "", text[d]);
    put(b, "]");
}

/* The dim order suffix: "", ".t()", ".transpose(a, b)" or ".permute(...)". */
static void permutation(buf *b, const spelling *sp) {
    int p[SS_MAX_NDIM], moved = 0, first = -1, second = -1;
    for (int k = 0; k < sp->m; k++) {
        p[k] = 0;
        for (int j = 0; j < sp->m; j++) p[k] += sp->bd[j] < sp->bd[k];
        if (p[k] != k) {
            moved++;
            if (first < 0) first = k;
            else second = k;
        }
    }
    if (!moved) return;
    if (sp->m == 2) put(b, ".t()");
    else if (moved == 2) put(b, ".transpose(%d, %d)", first, second);
    else {
        put(b, ".permute(");
        for (int k = 0; k < sp->m; k++) put(b, "%s%d", k ? ", " : "", p[k]);
        put(b, ")");
    }
}

static void tuple(buf *b, const int64_t *v, int n) {
    put(b, "(");
    for (int d = 0; d < n; d++) put(b, "%s%" PRId64, d ? ", " : "", v[d]);
    put(b, n == 1 ? ",)" : ")");
}

static void as_strided(buf *b, const char *name, const ss_view *v) {
    put(b, "torch.as_strided(%s, ", name);
    tuple(b, v->sizes, v->ndim);
    put(b, ", ");
    tuple(b, v->strides, v->ndim);
    put(b, ", %" PRId64 ")", v->offset);
}

/* ---- shapes and names ------------------------------------------------------ */

typedef struct shape { int n; int64_t s[SS_MAX_NDIM]; } shape;

static int is_contiguous(const ss_view *v) {
    int64_t T[SS_MAX_NDIM];
    contiguous_strides(v->sizes, v->ndim, T);
    for (int d = 0; d < v->ndim; d++)
        if (v->sizes[d] > 1 && v->strides[d] != T[d]) return 0;
    return 1;
}

/* The shape a view's strides imply: dims sorted by stride, each stride a
 * multiple of the next, the outermost taking whatever of N is left. */
static int from_strides(const ss_view *v, int64_t N, shape *out) {
    int64_t st[SS_MAX_NDIM];
    int n = 0;
    for (int d = 0; d < v->ndim; d++)
        if (v->sizes[d] > 1 && v->strides[d] > 0) {
            int k = n++;
            while (k > 0 && st[k - 1] < v->strides[d]) { st[k] = st[k - 1]; k--; }
            st[k] = v->strides[d];
        }
    if (n == 0 || st[n - 1] != 1 || N % st[0]) return -1;
    out->n = 0;
    out->s[out->n++] = N / st[0];
    for (int i = 1; i < n; i++) {
        if (st[i] == st[i - 1] || st[i - 1] % st[i]) return -1;
        out->s[out->n++] = st[i - 1] / st[i];
    }
    return 0;
}

static int meta_shape(const cJSON *py, const char *key, int64_t N, shape *out) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(py, key);
    if (!cJSON_IsArray(a)) return -1;
    out->n = 0;
    for (const cJSON *it = a->child; it; it = it->next) {
        if (out->n == SS_MAX_NDIM || !cJSON_IsNumber(it) || it->valuedouble < 1 ||
            it->valuedouble > (double)SS_MAX_NUMEL || it->valuedouble != (double)(int64_t)it->valuedouble)
            return -1;
        out->s[out->n++] = (int64_t)it->valuedouble;
    }
    int64_t p = 1;
    for (int d = 0; d < out->n; d++)
        if (__builtin_mul_overflow(p, out->s[d], &p)) return -1;
    return out->n > 0 && p == N ? 0 : -1;
}

/* Candidate shapes of a storage of N elements for views a (and b), best first. */
static int candidates(const cJSON *py, const char *key, const ss_view *a, const ss_view *b, int64_t N,
                      shape *out) {
    int n = 0;
    if (N <= 0) return 0;
    if (meta_shape(py, key, N, &out[n]) == 0) n++;
    const int64_t na = ss_view_numel(a);
    if (is_contiguous(a) && a->offset == 0 && na == N) {
        out[n].n = a->ndim;
        memcpy(out[n++].s, a->sizes, sizeof(int64_t) * (size_t)a->ndim);
    }
    if (is_contiguous(a) && a->ndim >= 2 && a->ndim < SS_MAX_NDIM && na > 0 && N % na == 0 &&
        a->offset % na == 0) {
        out[n].n = a->ndim + 1;
        out[n].s[0] = N / na;
        memcpy(out[n++].s + 1, a->sizes, sizeof(int64_t) * (size_t)a->ndim);
    }
    if (from_strides(a, N, &out[n]) == 0) n++;
    if (b && from_strides(b, N, &out[n]) == 0) n++;
    out[n].n = 1;
    out[n++].s[0] = N;
    return n;
}

static void name_of(const cJSON *py, const char *key, const char *dflt, char *out, size_t n) {
    static const char *const reserved[] = {"torch", "False", "None", "True", "and", "as", "assert", "break",
        "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
        "while", "with", "yield", "main", "sys", "out"};
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(py, key);
    const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
    int ok = s && *s && strlen(s) < n && (isalpha((unsigned char)*s) || *s == '_');
    for (const char *p = s; ok && *p; p++) ok = isalnum((unsigned char)*p) || *p == '_';
    for (size_t i = 0; ok && i < sizeof reserved / sizeof reserved[0]; i++) ok = strcmp(s, reserved[i]) != 0;
    snprintf(out, n, "%s", ok ? s : dflt);
}

/* ---- the line ------------------------------------------------------------- */

/* The written slice as a subscript entry in the case's own words ("" when it is the whole dim). */
static void slice_text(const ss_op *op, char *out, size_t n) {
    buf b = {out, n, 0};
    out[0] = 0;
    if (!op->has_start && !op->has_end && op->step == 1) return;
    if (op->has_start) put(&b, "%" PRId64, op->start);
    put(&b, ":");
    if (op->has_end) put(&b, "%" PRId64, op->end);
    if (op->step != 1) put(&b, ":%" PRId64, op->step);
}

/* A subscript over view dims: the slice on dim wd, every other dim whole. */
static void chain_subscript(buf *b, const ss_view *v, int wd, const char *sl) {
    spelling sp;
    memset(&sp, 0, sizeof sp);
    sp.nb = sp.m = v->ndim;
    for (int d = 0; d < v->ndim; d++) {
        sp.S[d] = sp.len[d] = v->sizes[d];
        sp.is_slice[d] = 1;
        sp.step[d] = 1;
        sp.bd[d] = d;
    }
    const mirror mr = {wd, 0, 0, 0, sl, 1};
    subscript(b, &sp, sl[0] ? &mr : NULL);
}

/* Spell src: relative to the input view when that is a contiguous block
 * (x[0].t()), else to x, else torch.as_strided. 1 when exact. */
static int spell_src(const ss_plan *p, const ss_pyexpr *e, const spelling *in, const char *sl,
                     int target_exact, int lhs_on_x, buf *b) {
    const ss_op *op = &p->op;
    spelling sp;
    if (!lhs_on_x && target_exact && is_contiguous(&op->input) &&
        express(&op->src, op->input.offset, op->input.sizes, op->input.ndim, &sp) == 0) {
        const mirror mr = {p->dim, p->start, p->slice_len, p->step, sl, 0};
        sp.from_back = 1;
        put(b, "%s", e->target);
        subscript(b, &sp, sl[0] ? &mr : NULL);
        permutation(b, &sp);
        return 1;
    }
    if (express(&op->src, 0, e->x_shape, e->x_ndim, &sp) == 0) {
        /* the written slice is in x's coordinates when the input takes its dim whole */
        const int merged = target_exact && in && full(in, in->bd[p->dim]);
        const mirror mr = {merged ? in->bd[p->dim] : -1, p->start, p->slice_len, p->step, sl, 0};
        sp.from_back = 1;
        put(b, "%s", e->x);
        subscript(b, &sp, sl[0] && merged ? &mr : NULL);
        permutation(b, &sp);
        return 1;
    }
    as_strided(b, e->x, &op->src);
    return 0;
}

/* The input view, its written slice, and src (aliased) for one shape of x. */
static int try_shape(const ss_plan *p, const shape *xs, ss_pyexpr *e, const char *sl) {
    const ss_op *op = &p->op;
    e->x_ndim = xs->n;
    memcpy(e->x_shape, xs->s, sizeof(int64_t) * (size_t)xs->n);
    spelling in;
    buf t = {e->target, sizeof e->target, 0}, l = {e->lhs, sizeof e->lhs, 0}, r = {e->rhs, sizeof e->rhs, 0};
    e->target[0] = e->lhs[0] = e->rhs[0] = 0;
    const int in_ok = express(&op->input, 0, xs->s, xs->n, &in) == 0;
    if (in_ok) {
        put(&t, "%s", e->x);
        subscript(&t, &in, NULL);
        permutation(&t, &in);
    } else {
        as_strided(&t, e->x, &op->input);
    }
    int ordered = in_ok;
    for (int k = 1; ordered && k < in.m; k++) ordered = in.bd[k] > in.bd[k - 1];
    const int lhs_on_x = sl[0] && ordered && full(&in, in.bd[p->dim]);
    if (!sl[0]) put(&l, "%s", e->target);
    else if (lhs_on_x) {   /* one subscript: x[:, 1:] */
        const mirror mr = {in.bd[p->dim], 0, 0, 0, sl, 1};
        put(&l, "%s", e->x);
        subscript(&l, &in, &mr);
    } else {
        put(&l, "%s", e->target);
        chain_subscript(&l, &op->input, p->dim, sl);
    }
    if (l.used && e->lhs[l.used - 1] != ']') put(&l, "[:]");   /* assign into, never rebind */
    int src_ok = 1;
    if (op->src_aliased) src_ok = spell_src(p, e, in_ok ? &in : NULL, sl, in_ok && ordered, lhs_on_x, &r);
    return in_ok + src_ok;
}

/* A separate src: y shaped so that src is plain indexing of it. */
static int spell_separate(const ss_case *c, const cJSON *py, ss_pyexpr *e) {
    const ss_op *op = &c->op;
    shape cand[8];
    const int n = candidates(py, "src_shape", &op->src, NULL, op->src_storage_numel, cand);
    buf r = {e->rhs, sizeof e->rhs, 0};
    e->rhs[0] = 0;
    for (int i = 0; i < n; i++) {
        spelling sp;
        if (express(&op->src, 0, cand[i].s, cand[i].n, &sp)) continue;
        e->y_ndim = cand[i].n;
        memcpy(e->y_shape, cand[i].s, sizeof(int64_t) * (size_t)cand[i].n);
        sp.from_back = 1;
        put(&r, "%s", e->y);
        subscript(&r, &sp, NULL);
        permutation(&r, &sp);
        return 1;
    }
    e->y_ndim = 1;
    e->y_shape[0] = op->src_storage_numel;
    as_strided(&r, e->y, &op->src);
    return 0;
}

/* xname NULL: meta.python's name or x. */
static int derive(const ss_case *c, const char *xname, ss_pyexpr *e) {
    ss_plan p;
    if (ss_plan_build(&c->op, &p, NULL)) return -1;
    const ss_op *op = &c->op;
    const cJSON *py = c->meta ? cJSON_GetObjectItemCaseSensitive(c->meta, "python") : NULL;
    memset(e, 0, sizeof *e);
    name_of(py, "x", "x", e->x, sizeof e->x);
    if (xname) snprintf(e->x, sizeof e->x, "%s", xname);
    name_of(py, "y", "y", e->y, sizeof e->y);
    if (!strcmp(e->x, e->y)) snprintf(e->y, sizeof e->y, "%s", strcmp(e->x, "y") ? "y" : "src");
    char sl[256];
    slice_text(op, sl, sizeof sl);
    shape cand[8];
    const int n = candidates(py, "shape", &op->input, op->src_aliased ? &op->src : NULL,
                             op->input_storage_numel, cand);
    int best = -1, best_score = -1;
    for (int i = 0; i < n && best_score < 2; i++) {
        const int score = try_shape(&p, &cand[i], e, sl);
        if (score > best_score) { best = i; best_score = score; }
    }
    if (best < 0) {   /* an empty storage: x is 1-D of 0 elements */
        const shape empty = {1, {0}};
        try_shape(&p, &empty, e, sl);
        best_score = 0;
    } else {
        try_shape(&p, &cand[best], e, sl);
    }
    e->exact = best_score == 2;
    if (!op->src_aliased) e->exact = spell_separate(c, py, e) && e->exact;
    snprintf(e->line, sizeof e->line, "%s = %s", e->lhs, e->rhs);
    return 0;
}

int ss_pyexpr_derive(const ss_case *c, ss_pyexpr *e) { return derive(c, NULL, e); }

int ss_pyexpr_derive_named(const ss_case *c, const char *xname, ss_pyexpr *e) { return derive(c, xname, e); }

int ss_pyexpr_two_inputs(const ss_case *c, ss_pyexpr *e) {
    ss_plan p;
    if (ss_plan_build(&c->op, &p, NULL)) return -1;
    memset(e, 0, sizeof *e);
    snprintf(e->x, sizeof e->x, "x");
    snprintf(e->y, sizeof e->y, "src");
    snprintf(e->target, sizeof e->target, "x");
    snprintf(e->rhs, sizeof e->rhs, "src");
    char sl[256];
    slice_text(&c->op, sl, sizeof sl);
    buf l = {e->lhs, sizeof e->lhs, 0};
    put(&l, "x");
    if (sl[0]) chain_subscript(&l, &c->op.input, p.dim, sl);
    const size_t k = strlen(e->lhs);
    if (k && e->lhs[k - 1] != ']') put(&l, "[:]");   /* assign into, never rebind */
    e->x_ndim = c->op.input.ndim;
    memcpy(e->x_shape, c->op.input.sizes, sizeof(int64_t) * (size_t)c->op.input.ndim);
    e->exact = 1;
    snprintf(e->line, sizeof e->line, "%s = %s", e->lhs, e->rhs);
    return 0;
}
