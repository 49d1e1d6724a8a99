/* ss_program_geom.c - a program's views as PyTorch makes them (slice, select, permute, transpose,
 * diagonal, unfold, as_strided, .view(dtype), real/imag) and PyTorch's overlap rules. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ss_program_int.h"

int ss_pg_invalid(prun *r, const char *key, const char *fmt, ...) {
    ss_prog_result *res = r->res;
    res->status = SS_PROG_INVALID;
    res->step = r->step;
    if (key) snprintf(res->err.field, sizeof res->err.field, "program[%d].%s", r->step, key);
    else snprintf(res->err.field, sizeof res->err.field, "program[%d]", r->step);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->err.msg, sizeof res->err.msg, fmt, ap);
    va_end(ap);
    return -1;
}

int ss_pg_refuse(prun *r, int raises, const char *fmt, ...) {
    ss_prog_result *res = r->res;
    if (res->status == SS_PROG_REFUSED) return -1;   /* a check that goes on keeps the first */
    res->status = SS_PROG_REFUSED;
    res->step = r->step;
    res->raises = raises;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->why, sizeof res->why, fmt, ap);
    va_end(ap);
    return -1;
}

void ss_pg_shape_str(const ss_view *v, char *out, size_t n) {
    size_t k = (size_t)snprintf(out, n, "[");
    for (int d = 0; d < v->ndim && k < n; d++)
        k += (size_t)snprintf(out + k, n - k, "%s%" PRId64, d ? ", " : "", v->sizes[d]);
    if (k < n) snprintf(out + k, n - k, "]");
}

void ss_pg_contiguous(ss_view *v, int ndim, const int64_t *sizes) {
    v->offset = 0;
    v->ndim = ndim;
    int64_t st = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        v->sizes[d] = sizes[d];
        v->strides[d] = st;
        st *= sizes[d] ? sizes[d] : 1;
    }
}

int ss_pg_same_shape(const pval *a, const pval *b) {
    if (a->v.ndim != b->v.ndim) return 0;
    for (int d = 0; d < a->v.ndim; d++)
        if (a->v.sizes[d] != b->v.sizes[d]) return 0;
    return 1;
}

void ss_pg_iter_start(ss_pg_iter *it, const ss_view *v) {
    it->v = v;
    memset(it->idx, 0, sizeof it->idx);
    it->off = v->offset;
}

void ss_pg_iter_next(ss_pg_iter *it) {
    const ss_view *v = it->v;
    for (int d = v->ndim - 1; d >= 0; d--) {
        if (++it->idx[d] < v->sizes[d]) { it->off += v->strides[d]; return; }
        it->off -= (v->sizes[d] - 1) * v->strides[d];
        it->idx[d] = 0;
    }
}

/* ---- PyTorch's overlap rules (ATen MemoryOverlap.cpp, c10 Contiguity.h) ---- */

int ss_pg_dense(const ss_view *v) {
    int perm[SS_MAX_NDIM], n = v->ndim;
    if (n == 1) return v->sizes[0] < 2 || v->strides[0] == 1;
    for (int i = 0; i < n; i++) perm[i] = i;
    /* sizes < 2 last, the rest by stride (an insertion sort: n <= 16) */
    for (int i = 1; i < n; i++) {
        const int x = perm[i];
        int j = i;
        while (j > 0) {
            const int y = perm[j - 1];
            const int x_first = v->sizes[x] >= 2 && (v->sizes[y] < 2 || v->strides[x] < v->strides[y]);
            if (!x_first) break;
            perm[j] = y;
            j--;
        }
        perm[j] = x;
    }
    int64_t require = 1;
    for (int i = 0; i < n; i++) {
        const int64_t size = v->sizes[perm[i]];
        if (size < 2) return 1;
        if (v->strides[perm[i]] != require) return 0;
        require *= size;
    }
    return 1;
}

int ss_pg_torch_internal_overlap(const ss_view *v) {
    if (ss_pg_dense(v)) return 0;
    for (int d = 0; d < v->ndim; d++)
        if (v->strides[d] == 0 && v->sizes[d] > 1) return 1;
    return 0;   /* "too hard": PyTorch lets it through */
}

int ss_pg_overlap_status(const pval *a, const pval *b) {
    if (!a->is_view || !b->is_view || a->storage != b->storage) return SS_OVL_NO;
    if (a->numel == 0 || b->numel == 0) return SS_OVL_NO;
    if (!ss_pg_dense(&a->v) || !ss_pg_dense(&b->v)) return SS_OVL_TOO_HARD;
    const int64_t ea = (int64_t)ss_dtype_size(a->dtype), eb = (int64_t)ss_dtype_size(b->dtype);
    const int64_t a0 = a->v.offset * ea, a1 = a0 + a->numel * ea;
    const int64_t b0 = b->v.offset * eb, b1 = b0 + b->numel * eb;
    if (a0 == b0 && a1 == b1) {
        int same = a->v.ndim == b->v.ndim;
        for (int d = 0; same && d < a->v.ndim; d++) same = a->v.strides[d] == b->v.strides[d];
        return same ? SS_OVL_FULL : SS_OVL_PARTIAL_;
    }
    return a0 < b1 && b0 < a1 ? SS_OVL_PARTIAL_ : SS_OVL_NO;
}

/* ---- views ---------------------------------------------------------------- */

/* dim d of an ndim-dim view, wrapped once as PyTorch's maybe_wrap_dim. */
static int wrap(prun *r, const char *key, int64_t d, int ndim, int *out) {
    if (ndim < 1)
        return ss_pg_invalid(r, key, "%" PRId64 " out of range for a 0-dim view (it has no dims)", d);
    if (d < -ndim || d >= ndim)
        return ss_pg_invalid(r, key, "%" PRId64 " out of range for a %d-dim view", d, ndim);
    *out = (int)(d < 0 ? d + ndim : d);
    return 0;
}

/* numel within SS_PROG_MAX_NUMEL, and the view inside its storage. */
static int finish_view(prun *r, const char *key, pval *o) {
    int64_t n = 1;
    for (int d = 0; d < o->v.ndim; d++) {
        if (o->v.sizes[d] == 0) { n = 0; break; }
        if (__builtin_mul_overflow(n, o->v.sizes[d], &n) || n > SS_PROG_MAX_NUMEL)
            return ss_pg_invalid(r, key, "a view of more than 2^24 elements (SS_PROG_MAX_NUMEL)");
    }
    o->numel = n;
    const int64_t es = (int64_t)ss_dtype_size(o->dtype);
    int64_t last = o->v.offset;   /* the last element it reaches */
    for (int d = 0; n && d < o->v.ndim; d++) {
        int64_t span;
        if (__builtin_mul_overflow(o->v.sizes[d] - 1, o->v.strides[d], &span) ||
            __builtin_add_overflow(last, span, &last))
            return ss_pg_invalid(r, key, "the view reaches past 2^63 elements");
    }
    int64_t end;
    if (__builtin_add_overflow(last, n ? 1 : 0, &end) || __builtin_mul_overflow(end, es, &end) ||
        end > r->st_bytes[o->storage])
        return ss_pg_invalid(r, key, "the view reaches past the end of its storage (%" PRId64 " bytes)",
                             r->st_bytes[o->storage]);
    return 0;
}

static void drop_dim(ss_view *v, int d) {
    for (int i = d; i + 1 < v->ndim; i++) {
        v->sizes[i] = v->sizes[i + 1];
        v->strides[i] = v->strides[i + 1];
    }
    v->ndim--;
}

int ss_pg_slice(prun *r, const ss_step *s, const pval *of, int use_case_defaults, pval *out) {
    const ss_op *op = &r->plan->op;
    const int64_t dim = s->has_dim || !use_case_defaults ? s->dim : op->dim;
    const int64_t step = s->has_step || !use_case_defaults ? s->step : op->step;
    int has_s = s->start_state == SS_BOUND_INT, has_e = s->end_state == SS_BOUND_INT;
    int64_t st = s->start, en = s->end;
    if (use_case_defaults && s->start_state == SS_BOUND_ABSENT) { has_s = op->has_start; st = op->start; }
    if (use_case_defaults && s->end_state == SS_BOUND_ABSENT) { has_e = op->has_end; en = op->end; }
    int d;
    SS_TRY(wrap(r, "dim", dim, of->v.ndim, &d));
    if (step < 1) return ss_pg_invalid(r, "step", "must be >= 1 (got %" PRId64 ")", step);
    *out = *of;
    out->bytes = NULL;
    if (!of->is_view) ss_pg_contiguous(&out->v, of->v.ndim, of->v.sizes);
    int64_t a, b;
    ss_slice_clamp(of->v.sizes[d], has_s, st, has_e, en, &a, &b);
    out->v.offset += a * out->v.strides[d];
    out->v.sizes[d] = (b - a + step - 1) / step;
    out->v.strides[d] *= step;
    out->numel = ss_view_numel(&out->v);
    return 0;
}

static int view_dtype(prun *r, const ss_step *s, const pval *of, pval *o) {
    const int64_t eo = (int64_t)ss_dtype_size(of->dtype), en = (int64_t)ss_dtype_size(s->dtype);
    o->dtype = s->dtype;
    if (eo == en) return 0;
    ss_view *v = &o->v;
    const int last = v->ndim - 1;
    if (v->ndim == 0)
        return ss_pg_invalid(r, "dtype", "a 0-dim view cannot change its element size (%s to %s)",
                             ss_dtype_name(of->dtype), ss_dtype_name(s->dtype));
    if (v->strides[last] != 1)
        return ss_pg_invalid(r, "dtype", "the last dim's stride must be 1 to view %s as %s",
                             ss_dtype_name(of->dtype), ss_dtype_name(s->dtype));
    if (en < eo) {   /* smaller elements: the last dim grows, the rest rescale */
        const int64_t k = eo / en;
        v->sizes[last] *= k;
        for (int d = 0; d < last; d++) v->strides[d] *= k;
        v->offset *= k;
        return 0;
    }
    const int64_t k = en / eo;
    if (v->sizes[last] % k)
        return ss_pg_invalid(r, "dtype", "the last dim's size (%" PRId64 ") must be a multiple of %" PRId64
                             " to view %s as %s", v->sizes[last], k, ss_dtype_name(of->dtype), ss_dtype_name(s->dtype));
    if (v->offset % k)
        return ss_pg_invalid(r, "dtype", "the storage offset (%" PRId64 ") must be a multiple of %" PRId64
                             " to view %s as %s", v->offset, k, ss_dtype_name(of->dtype), ss_dtype_name(s->dtype));
    for (int d = 0; d < last; d++)
        if (v->strides[d] % k)
            return ss_pg_invalid(r, "dtype", "stride %d (%" PRId64 ") must be a multiple of %" PRId64
                                 " to view %s as %s", d, v->strides[d], k, ss_dtype_name(of->dtype), ss_dtype_name(s->dtype));
    v->sizes[last] /= k;
    for (int d = 0; d < last; d++) v->strides[d] /= k;
    v->offset /= k;
    return 0;
}

static int view_diagonal(prun *r, const ss_step *s, pval *o) {
    ss_view *v = &o->v;
    int d1, d2;
    if (v->ndim < 2) return ss_pg_invalid(r, "dim1", "diagonal needs a view of >= 2 dims (got %d)", v->ndim);
    SS_TRY(wrap(r, "dim1", s->d0, v->ndim, &d1));
    SS_TRY(wrap(r, "dim2", s->d1, v->ndim, &d2));
    if (d1 == d2) return ss_pg_invalid(r, "dim2", "must differ from dim1 (both are dim %d)", d1);
    const int64_t s1 = v->sizes[d1], s2 = v->sizes[d2], off = s->offset;
    int64_t n = off >= 0 ? (s2 - off < s1 ? s2 - off : s1) : (s1 + off < s2 ? s1 + off : s2);
    if (n < 0) n = 0;
    /* as PyTorch: no offset shift for an empty diagonal ("off the end") */
    if (n > 0) v->offset += off >= 0 ? off * v->strides[d2] : -off * v->strides[d1];
    const int64_t st = v->strides[d1] + v->strides[d2];
    drop_dim(v, d1 > d2 ? d1 : d2);
    drop_dim(v, d1 > d2 ? d2 : d1);
    v->sizes[v->ndim] = n;
    v->strides[v->ndim] = st;
    v->ndim++;
    return 0;
}

static int view_shape_op(prun *r, const ss_step *s, pval *o) {
    ss_view *v = &o->v;
    int d, e;
    switch (s->kind) {
    case SS_VK_SELECT: {
        SS_TRY(wrap(r, "dim", s->dim, v->ndim, &d));
        const int64_t size = v->sizes[d];
        if (s->index < -size || s->index >= size)
            return ss_pg_invalid(r, "index", "%" PRId64 " out of range for a dim of size %" PRId64, s->index, size);
        v->offset += (s->index < 0 ? s->index + size : s->index) * v->strides[d];
        drop_dim(v, d);
        return 0;
    }
    case SS_VK_PERMUTE: {
        if (s->ndims != v->ndim)
            return ss_pg_invalid(r, "dims", "has %d entries for a %d-dim view", s->ndims, v->ndim);
        ss_view w = *v;
        int seen[SS_MAX_NDIM] = {0};
        for (int i = 0; i < s->ndims; i++) {
            SS_TRY(wrap(r, "dims", s->dims[i], v->ndim, &d));
            if (seen[d]++) return ss_pg_invalid(r, "dims", "dim %d appears twice", d);
            w.sizes[i] = v->sizes[d];
            w.strides[i] = v->strides[d];
        }
        *v = w;
        return 0;
    }
    case SS_VK_TRANSPOSE: {
        SS_TRY(wrap(r, "dim0", s->d0, v->ndim, &d));
        SS_TRY(wrap(r, "dim1", s->d1, v->ndim, &e));
        const int64_t sz = v->sizes[d], st = v->strides[d];
        v->sizes[d] = v->sizes[e];
        v->strides[d] = v->strides[e];
        v->sizes[e] = sz;
        v->strides[e] = st;
        return 0;
    }
    case SS_VK_UNFOLD: {
        SS_TRY(wrap(r, "dim", s->dim, v->ndim, &d));
        if (s->size < 1 || s->size > v->sizes[d])
            return ss_pg_invalid(r, "size", "must be in [1, %" PRId64 "] (the dim's size)", v->sizes[d]);
        if (v->ndim >= SS_MAX_NDIM) return ss_pg_invalid(r, "dim", "unfold would make more than %d dims", SS_MAX_NDIM);
        const int64_t st = v->strides[d];
        v->sizes[d] = (v->sizes[d] - s->size) / s->step + 1;
        v->strides[d] = st * s->step;
        v->sizes[v->ndim] = s->size;
        v->strides[v->ndim] = st;
        v->ndim++;
        return 0;
    }
    default: return view_diagonal(r, s, o);
    }
}

int ss_pg_view(prun *r, const ss_step *s, const pval *of, pval *o) {
    *o = *of;
    o->bytes = NULL;
    const char *key = "kind";
    switch (s->kind) {
    case SS_VK_SLICE: SS_TRY(ss_pg_slice(r, s, of, 0, o)); break;
    case SS_VK_AS_STRIDED:
        key = "sizes";
        o->v.offset = s->offset;
        o->v.ndim = s->ndims;
        memcpy(o->v.sizes, s->dims, sizeof s->dims);
        memcpy(o->v.strides, s->strides, sizeof s->strides);
        break;
    case SS_VK_DTYPE: key = "dtype"; SS_TRY(view_dtype(r, s, of, o)); break;
    case SS_VK_REAL: case SS_VK_IMAG:
        if (of->dtype != SS_COMPLEX64 && of->dtype != SS_COMPLEX128)
            return ss_pg_invalid(r, "kind", "%s needs a complex view (got %s)", ss_view_kind_name(s->kind),
                                 ss_dtype_name(of->dtype));
        o->dtype = of->dtype == SS_COMPLEX64 ? SS_FLOAT32 : SS_FLOAT64;
        o->v.offset = of->v.offset * 2 + (s->kind == SS_VK_IMAG);
        for (int d = 0; d < o->v.ndim; d++) o->v.strides[d] *= 2;
        break;
    default: SS_TRY(view_shape_op(r, s, o)); break;
    }
    return finish_view(r, key, o);
}
