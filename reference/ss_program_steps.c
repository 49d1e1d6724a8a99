/* ss_program_steps.c - the view, write, in-place, index_put and return steps of the program reference.
 *
 * Each step first checks its operands (shapes, dtypes) and PyTorch's
 * refusals, then reads every operand completely, then writes (the snapshot
 * rule). PyTorch's checks (ATen's TensorIterator and index_put_):
 *  - the written view: a stride-0 dim of size > 1 raises ("more than one
 *    element of the written-to tensor refers to a single memory location"),
 *    unless the view is empty (nothing is written, and PyTorch runs it);
 *    other internal overlap (overlapping as_strided, unfold with step < size)
 *    is not checked, and writing through it has no defined result: refused
 *    with raises = 0. fill_ and zero_ write one value everywhere: allowed.
 *  - copy_ and the in-place binary ops: an operand that partially overlaps
 *    the written view raises, when both are non-overlapping and dense; a
 *    full overlap is allowed; other layouts are not checked (then the
 *    snapshot rule is the meaning).
 *  - index_put_: a values tensor overlapping the indexed view at all raises
 *    (same density condition); internal overlap of the view only warns, and
 *    an element reached twice keeps any one of its values (open). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_plan_build.h"
#include "ss_program_int.h"

/* Equal shapes and dtypes, or INVALID at `key`. */
static int need_same(prun *r, const char *key, const pval *dst, const pval *src, const char *what) {
    char a[200], b[200];
    if (ss_pg_same_shape(dst, src) && dst->dtype == src->dtype) return 0;
    ss_pg_shape_str(&src->v, a, sizeof a);
    ss_pg_shape_str(&dst->v, b, sizeof b);
    return ss_pg_invalid(r, key, "has shape %s and dtype %s; %s has shape %s and dtype %s (no broadcasting "
                         "or casting in v1)", a, ss_dtype_name(src->dtype), what, b, ss_dtype_name(dst->dtype));
}

/* The written view's internal overlap: PyTorch's refusal, or no defined result.
 * An empty view writes nothing, and PyTorch runs the write (1.13 to 2.15:
 * add_, mul_ and copy_ into a [0, 2] view of strides [0, 0] all run). */
static int refuse_internal(prun *r, const pval *dest, const char *op) {
    if (dest->numel == 0) return 0;
    if (ss_pg_torch_internal_overlap(&dest->v))
        return ss_pg_refuse(r, 1, "%s: unsupported operation: more than one element of the written-to "
                            "tensor refers to a single memory location (a stride-0 dim)", op);
    const int ov = ss_view_has_internal_overlap(&dest->v);
    if (ov < 0) return ss_pr_oom(r);
    if (ov)
        return ss_pg_refuse(r, 0, "%s writes through a view with internal overlap: PyTorch does not check "
                            "it and the result has no defined meaning", op);
    return 0;
}

static int refuse_partial(prun *r, const pval *dest, const pval *operand, const char *op) {
    if (operand && ss_pg_overlap_status(dest, operand) == SS_OVL_PARTIAL_)
        return ss_pg_refuse(r, 1, "%s: unsupported operation: some elements of the input tensor and the "
                            "written-to tensor refer to a single memory location (partial overlap)", op);
    return 0;
}

static int step_write(prun *r, const ss_step *s) {
    const pval *V = &r->val[s->of], *R = &r->val[s->operand.name];
    pval D;
    SS_TRY(ss_pg_slice(r, s, V, 1, &D));
    SS_TRY(need_same(r, "src", &D, R, "the written slice"));
    switch (s->kind) {
    case SS_SP_SETITEM: case SS_SP_COPY:
        SS_TRY(refuse_internal(r, &D, "copy_"));
        SS_TRY(refuse_partial(r, &D, R, "copy_"));
        break;
    case SS_SP_SETITEM_CLONE: SS_TRY(refuse_internal(r, &D, "copy_")); break;
    case SS_SP_SCATTER_COPY: case SS_SP_CLONE_SCATTER: SS_TRY(refuse_internal(r, V, "copy_")); break;
    default: {
        const int st = ss_pg_overlap_status(V, R);
        if (st == SS_OVL_FULL || st == SS_OVL_PARTIAL_)
            return ss_pg_refuse(r, 1, "index_put_: unsupported operation: some elements of the input tensor "
                                "and the written-to tensor refer to a single memory location");
    }
    }
    if (!r->exec) return 0;
    int dup = 0;
    if (s->kind == SS_SP_INDEX_PUT && (dup = ss_view_has_internal_overlap(&D.v)) < 0) return ss_pr_oom(r);
    uint8_t *buf = ss_pr_alloc(r, R->dtype, R->numel);
    if (!buf) return -1;
    int rc = ss_pr_gather(r, R, buf);
    if (!rc) {
        ss_el_check_moved(r, R->dtype, buf, R->numel);
        rc = ss_pr_scatter(r, &D, buf, dup);
    }
    free(buf);
    return rc;
}

static int step_inplace(prun *r, const ss_step *s) {
    const pval *V = &r->val[s->of];
    const pval *O = s->has_operand && s->operand.name >= 0 ? &r->val[s->operand.name] : NULL;
    const char *op = ss_inplace_kind_name(s->kind);
    const int fill = s->kind == SS_IK_ZERO || s->kind == SS_IK_FILL;
    const int arith = s->kind == SS_IK_ADD || s->kind == SS_IK_SUB || s->kind == SS_IK_MUL;
    if (V->dtype == SS_BOOL && arith)
        return ss_pg_invalid(r, "kind", "%s on a bool view: PyTorch refuses bool arithmetic", op);
    if (V->dtype == SS_BOOL && s->kind == SS_IK_FILL && s->operand.value > 1)
        return ss_pg_invalid(r, "operand", "fill_ of a bool view takes 0 or 1");
    if (V->dtype == SS_UINT8 && arith && !O && s->operand.value < 0)
        return ss_pg_invalid(r, "operand", "a negative constant on a uint8 view (PyTorch may refuse to "
                             "convert it): not a v1 program");
    if (O) SS_TRY(need_same(r, "operand", V, O, "the view written"));
    if (!fill) {
        SS_TRY(refuse_internal(r, V, op));
        SS_TRY(refuse_partial(r, V, O, op));
    }
    if (!r->exec) return 0;
    const int64_t n = V->numel, es = (int64_t)ss_dtype_size(V->dtype);
    uint8_t *out = ss_pr_alloc(r, V->dtype, n), *b = O ? ss_pr_alloc(r, V->dtype, n) : NULL;
    int rc = !out || (O && !b) ? -1 : 0;
    if (!rc && fill) {
        uint8_t k[16];
        ss_el_const(V->dtype, s->kind == SS_IK_ZERO ? 0 : s->operand.value, k);
        for (int64_t i = 0; i < n; i++) memcpy(out + i * es, k, (size_t)es);
    } else if (!rc && s->kind == SS_IK_COPY) {
        rc = ss_pr_gather(r, O, out);
        if (!rc) ss_el_check_moved(r, V->dtype, out, n);
    } else if (!rc) {
        rc = ss_pr_gather(r, V, out) || (O && ss_pr_gather(r, O, b));
        const ss_el_op e = s->kind == SS_IK_ADD ? SS_EL_ADD : s->kind == SS_IK_SUB ? SS_EL_SUB : SS_EL_MUL;
        for (int64_t i = 0; !rc && i < n; i++)
            ss_el_binary(r, V->dtype, e, out + i * es, b ? b + i * es : NULL, s->operand.value, out + i * es);
    }
    /* fill_ through an overlapping view writes one value to each element, however often */
    if (!rc) rc = ss_pr_scatter(r, V, out, 0);
    free(out);
    free(b);
    return rc;
}

static int step_index_put(prun *r, const ss_step *s) {
    const pval *V = &r->val[s->of];
    const pval *O = s->operand.name >= 0 ? &r->val[s->operand.name] : NULL;
    const int k = s->nidx, L = s->idx_len, nd = V->v.ndim;
    if (k > nd) return ss_pg_invalid(r, "indices", "%d index lists for a %d-dim view", k, nd);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < L; i++) {
            const int64_t e = s->idx[(size_t)j * (size_t)L + (size_t)i], size = V->v.sizes[j];
            if (e < -size || e >= size)
                return ss_pg_invalid(r, "indices", "list %d entry %d: %lld out of range for a dim of size %lld",
                                     j, i, (long long)e, (long long)size);
        }
    if (V->dtype == SS_BOOL && s->accumulate)
        return ss_pg_invalid(r, "accumulate", "accumulating into a bool view is not a v1 program");
    if (V->dtype == SS_BOOL && !O && s->operand.value > 1)
        return ss_pg_invalid(r, "values", "a bool view takes the constant 0 or 1");
    /* the values' shape: [L] + the view's trailing dims */
    ss_view t = V->v;
    t.ndim = nd - k;
    memmove(t.sizes, V->v.sizes + k, (size_t)t.ndim * sizeof t.sizes[0]);
    memmove(t.strides, V->v.strides + k, (size_t)t.ndim * sizeof t.strides[0]);
    const int64_t tn = ss_view_numel(&t), n = tn * L;
    if (n > SS_PROG_MAX_NUMEL) return ss_pg_invalid(r, "indices", "writes more than 2^24 elements");
    if (O) {
        pval want = *V;
        int64_t sizes[SS_MAX_NDIM];
        sizes[0] = L;
        memcpy(sizes + 1, t.sizes, (size_t)t.ndim * sizeof sizes[0]);
        if (t.ndim + 1 > SS_MAX_NDIM) return ss_pg_invalid(r, "values", "would need more than 16 dims");
        ss_pg_contiguous(&want.v, t.ndim + 1, sizes);
        SS_TRY(need_same(r, "values", &want, O, "[L] + the view's trailing dims"));
        const int st = ss_pg_overlap_status(V, O);
        if (st == SS_OVL_FULL || st == SS_OVL_PARTIAL_)
            return ss_pg_refuse(r, 1, "index_put_: unsupported operation: some elements of the input tensor "
                                "and the written-to tensor refer to a single memory location");
    }
    if (!r->exec) return 0;
    const int64_t es = (int64_t)ss_dtype_size(V->dtype);
    uint8_t *vals = ss_pr_alloc(r, V->dtype, n);
    int64_t *offs = vals ? malloc((size_t)(n > 0 ? n : 1) * sizeof *offs) : NULL;
    int rc = !vals || !offs ? ss_pr_oom(r) : 0;
    if (!rc && O) {
        rc = ss_pr_gather(r, O, vals);
        if (!rc) ss_el_check_moved(r, V->dtype, vals, n);
    } else if (!rc) {
        uint8_t c[16];
        ss_el_const(V->dtype, s->operand.value, c);
        for (int64_t i = 0; i < n; i++) memcpy(vals + i * es, c, (size_t)es);
    }
    for (int i = 0; !rc && i < L; i++) {
        t.offset = V->v.offset;
        for (int j = 0; j < k; j++) {
            int64_t e = s->idx[(size_t)j * (size_t)L + (size_t)i];
            if (e < 0) e += V->v.sizes[j];
            t.offset += e * V->v.strides[j];
        }
        ss_pg_iter it;
        ss_pg_iter_start(&it, &t);
        for (int64_t q = 0; q < tn; q++, ss_pg_iter_next(&it)) offs[(int64_t)i * tn + q] = it.off;
    }
    if (!rc) rc = ss_pr_scatter_offsets(r, V->storage, V->dtype, offs, vals, n, s->accumulate);
    free(vals);
    free(offs);
    return rc;
}

static int step_return(prun *r, const ss_step *s) {
    ss_prog_result *res = r->res;
    for (int i = 0; i < s->nret; i++) {
        const pval *v = &r->val[s->ret[i]];
        ss_prog_value *out = &res->ret[res->nret];
        *out = (ss_prog_value){s->ret[i], v->is_view, v->is_view ? v->storage : -1, v->dtype, v->v, v->numel, NULL};
        res->nret++;
        if (!r->exec) continue;
        const int64_t es = (int64_t)ss_dtype_size(v->dtype);
        if (!(out->bytes = ss_pr_alloc(r, v->dtype, v->numel))) return -1;
        if (!v->is_view) { memcpy(out->bytes, v->bytes, (size_t)(v->numel * es)); continue; }
        /* a returned view's elements as they end: an open one holds the last value written */
        ss_pg_iter it;
        ss_pg_iter_start(&it, &v->v);
        for (int64_t q = 0; q < v->numel; q++, ss_pg_iter_next(&it))
            memcpy(out->bytes + q * es, r->st[v->storage] + it.off * es, (size_t)es);
    }
    return 0;
}

int ss_pr_steps_run(prun *r, const ss_step *s) {
    switch (s->op) {
    case SS_STEP_VIEW: return ss_pg_view(r, s, &r->val[s->of], &r->val[s->name]);
    case SS_STEP_WRITE: return step_write(r, s);
    case SS_STEP_INPLACE: return step_inplace(r, s);
    case SS_STEP_INDEX_PUT: return step_index_put(r, s);
    case SS_STEP_RETURN: return step_return(r, s);
    default: return ss_pg_invalid(r, "op", "not a step of this kind here");
    }
}
