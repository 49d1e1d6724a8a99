/* ss_program_read.c - the read step: a fresh tensor computed out of place, its value fixed when the step runs. */
#include <stdlib.h>
#include <string.h>
#include "ss_program_int.h"

/* The read's shape, and the rules its kind has; 0 or -1 (INVALID). */
static int read_shape(prun *r, const ss_step *s, const pval *V, pval *out, pval *slice) {
    const ss_view *v = &V->v;
    const char *k = ss_read_kind_name(s->kind);
    int64_t sizes[SS_MAX_NDIM];
    int nd = v->ndim;
    memcpy(sizes, v->sizes, sizeof sizes);
    switch (s->kind) {
    case SS_RK_ADD: case SS_RK_MUL: case SS_RK_NEG:
        if (V->dtype == SS_BOOL) return ss_pg_invalid(r, "kind", "%s of a bool tensor: only clone and flip take bool", k);
        if (V->dtype == SS_UINT8 && s->kind != SS_RK_NEG && s->operand.value < 0)
            return ss_pg_invalid(r, "value", "a negative constant with uint8 (PyTorch may refuse to convert it): "
                                 "not a v1 program");
        break;
    case SS_RK_FLIP: {
        int seen[SS_MAX_NDIM] = {0};
        for (int i = 0; i < s->ndims; i++) {
            const int64_t d = s->dims[i];
            if (d < -nd || d >= nd) return ss_pg_invalid(r, "dims", "%lld out of range for a %d-dim tensor", (long long)d, nd);
            if (seen[d < 0 ? d + nd : d]++) return ss_pg_invalid(r, "dims", "dim %lld appears twice", (long long)d);
        }
        break;
    }
    case SS_RK_SUM: {
        if (V->dtype == SS_BOOL) return ss_pg_invalid(r, "kind", "sum of a bool tensor: only clone and flip take bool");
        if (s->dim < -nd || s->dim >= nd || nd < 1)
            return ss_pg_invalid(r, "dim", "%lld out of range for a %d-dim tensor", (long long)s->dim, nd);
        const int d = (int)(s->dim < 0 ? s->dim + nd : s->dim);
        memmove(sizes + d, sizes + d + 1, (size_t)(nd - d - 1) * sizeof sizes[0]);
        nd--;
        break;
    }
    case SS_RK_SLICE_SCATTER: {
        pval c = *V;
        c.is_view = 0;
        ss_pg_contiguous(&c.v, v->ndim, v->sizes);
        SS_TRY(ss_pg_slice(r, s, &c, 0, slice));
        const pval *R = &r->val[s->operand.name];
        char a[200], b[200];
        if (!ss_pg_same_shape(slice, R) || R->dtype != V->dtype) {
            ss_pg_shape_str(&R->v, a, sizeof a);
            ss_pg_shape_str(&slice->v, b, sizeof b);
            return ss_pg_invalid(r, "src", "has shape %s and dtype %s; the slice has shape %s and dtype %s",
                                 a, ss_dtype_name(R->dtype), b, ss_dtype_name(V->dtype));
        }
        break;
    }
    default: break;
    }
    memset(out, 0, sizeof *out);
    out->storage = -1;
    out->dtype = V->dtype;
    ss_pg_contiguous(&out->v, nd, sizes);
    out->numel = ss_view_numel(&out->v);
    return 0;
}

/* out = the read's value, from a (V's values, contiguous). */
static int compute(prun *r, const ss_step *s, const pval *V, const uint8_t *a, pval *out, const pval *slice) {
    const ss_dtype t = V->dtype;
    const int64_t es = (int64_t)ss_dtype_size(t), n = V->numel;
    uint8_t *o = out->bytes;
    ss_view c;
    ss_pg_contiguous(&c, V->v.ndim, V->v.sizes);
    switch (s->kind) {
    case SS_RK_CLONE:
        memcpy(o, a, (size_t)(n * es));
        ss_el_check_moved(r, t, o, n);
        return 0;
    case SS_RK_ADD: case SS_RK_MUL: case SS_RK_NEG: {
        const ss_el_op e = s->kind == SS_RK_ADD ? SS_EL_ADD : s->kind == SS_RK_MUL ? SS_EL_MUL : SS_EL_NEG;
        for (int64_t i = 0; i < n; i++) ss_el_binary(r, t, e, a + i * es, NULL, s->operand.value, o + i * es);
        return 0;
    }
    case SS_RK_FLIP: {
        /* a walk of `a` backwards along the flipped dims */
        for (int i = 0; i < s->ndims; i++) {
            const int d = (int)(s->dims[i] < 0 ? s->dims[i] + c.ndim : s->dims[i]);
            if (c.sizes[d] == 0) continue;
            c.offset += (c.sizes[d] - 1) * c.strides[d];
            c.strides[d] = -c.strides[d];
        }
        ss_pg_iter it;
        ss_pg_iter_start(&it, &c);
        for (int64_t i = 0; i < n; i++, ss_pg_iter_next(&it)) memcpy(o + i * es, a + it.off * es, (size_t)es);
        ss_el_check_moved(r, t, o, n);
        return 0;
    }
    case SS_RK_SUM: {
        const int d = (int)(s->dim < 0 ? s->dim + c.ndim : s->dim);
        const int64_t len = c.sizes[d], st = c.strides[d];
        c.sizes[d] = 1;   /* walk every output element: the summed dim held at 0 */
        ss_pg_iter it;
        ss_pg_iter_start(&it, &c);
        for (int64_t i = 0; i < out->numel; i++, ss_pg_iter_next(&it))
            ss_el_sum(r, t, a + it.off * es, len, st * es, o + i * es);
        return 0;
    }
    default: {   /* slice_scatter: a copy of V with the slice replaced by src */
        const pval *R = &r->val[s->operand.name];
        uint8_t *b = ss_pr_alloc(r, t, R->numel);
        if (!b) return -1;
        memcpy(o, a, (size_t)(n * es));
        if (ss_pr_gather(r, R, b)) { free(b); return -1; }
        ss_pg_iter it;
        ss_pg_iter_start(&it, &slice->v);
        for (int64_t i = 0; i < R->numel; i++, ss_pg_iter_next(&it)) memcpy(o + it.off * es, b + i * es, (size_t)es);
        free(b);
        ss_el_check_moved(r, t, o, n);
        return 0;
    }
    }
}

int ss_pr_read(prun *r, const ss_step *s) {
    const pval *V = &r->val[s->of];
    pval out, slice;
    SS_TRY(read_shape(r, s, V, &out, &slice));
    if (r->exec) {
        uint8_t *a = ss_pr_alloc(r, V->dtype, V->numel);
        if (!a) return -1;
        out.bytes = ss_pr_alloc(r, V->dtype, out.numel);
        int rc = !out.bytes || ss_pr_gather(r, V, a) || compute(r, s, V, a, &out, &slice);
        free(a);
        if (rc) { free(out.bytes); return -1; }
    }
    r->val[s->name] = out;
    return 0;
}
