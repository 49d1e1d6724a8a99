/* ss_plan_build.c - validation (PyTorch's rules) and normalization of an op into a plan. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_plan_build.h"


/* Checked int64 arithmetic: every size computation here sees hostile input. */
static int add_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static int mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }


int64_t ss_view_offset_of(const ss_view *v, const int64_t *idx) {
    int64_t off = v->offset;
    for (int d = 0; d < v->ndim; d++) off += idx[d] * v->strides[d];
    return off;
}

/* Checks one view against its storage, rule by rule, each failure with its
 * own message; on success *numel and *last hold its element count and the
 * largest storage index it touches (-1 when empty). */
static int check_view_rules(const ss_view *v, int64_t storage_numel, const char *name,
                            int64_t *numel, int64_t *last, ss_error *err) {
    /* Field names are formatted only on failure: this runs twice per case. */
    char field[64];
    if (v->ndim < 0 || v->ndim > SS_MAX_NDIM)
        return ss_fail(err, name, "rank %d outside [0, %d]", v->ndim, SS_MAX_NDIM);
    if (v->offset < 0) {
        snprintf(field, sizeof field, "%s.offset", name);
        return ss_fail(err, field, "must be >= 0 (got %lld)", (long long)v->offset);
    }
    int64_t n = 1, span = 0;
    int overflow = 0;
    for (int d = 0; d < v->ndim; d++) {
        if (v->sizes[d] < 0) {
            snprintf(field, sizeof field, "%s.sizes[%d]", name, d);
            return ss_fail(err, field, "must be >= 0 (got %lld)", (long long)v->sizes[d]);
        }
        if (v->strides[d] < 0) {
            snprintf(field, sizeof field, "%s.strides[%d]", name, d);
            return ss_fail(err, field, "must be >= 0 (got %lld)", (long long)v->strides[d]);
        }
        if (!mul_ok(n, v->sizes[d], &n)) overflow = 1;
    }
    if (overflow || n > SS_MAX_NUMEL) {
        snprintf(field, sizeof field, "%s.sizes", name);
        return ss_fail(err, field, "numel exceeds the limit %lld", (long long)SS_MAX_NUMEL);
    }
    *numel = n;
    if (n == 0) {   /* an empty view touches no element (PyTorch: any offset fits) */
        *last = -1;
        return 0;
    }
    for (int d = 0; d < v->ndim; d++) {
        int64_t extent;
        if (!mul_ok(v->sizes[d] - 1, v->strides[d], &extent) || !add_ok(span, extent, &span)) {
            snprintf(field, sizeof field, "%s.sizes", name);
            return ss_fail(err, field, "view extends past the storage (offset arithmetic overflows)");
        }
    }
    int64_t end;
    if (!add_ok(v->offset, span, &end))
        return ss_fail(err, name, "view reaches an element beyond 2^63 (offset %lld + extent %lld)",
                       (long long)v->offset, (long long)span);
    if (end >= storage_numel)   /* end < 2^63 - 1 here, so end + 1 fits */
        return ss_fail(err, name, "view reaches element %lld (offset %lld + extent %lld, the sum of "
                       "(size - 1) * stride) but its storage has %lld elements: numel must be >= %lld",
                       (long long)end, (long long)v->offset, (long long)span, (long long)storage_numel,
                       (long long)end + 1);
    *last = end;
    return 0;
}

/* check_view_rules in one pass over the dims: the same arithmetic in the same
 * order, every failure only flagged; a view that fails any rule (or whose
 * rule order decides the message) goes through check_view_rules. This runs
 * twice per case. */
static int check_view(const ss_view *v, int64_t storage_numel, const char *name,
                      int64_t *numel, int64_t *last, ss_error *err) {
    if (v->ndim < 0 || v->ndim > SS_MAX_NDIM || v->offset < 0)
        return check_view_rules(v, storage_numel, name, numel, last, err);
    int64_t n = 1, span = 0, below, extent;
    int bad = 0, bad_span = 0;
    for (int d = 0; d < v->ndim; d++) {
        const int64_t size = v->sizes[d], stride = v->strides[d];
        bad |= (size < 0) | (stride < 0) | !mul_ok(n, size, &n);
        bad_span |= __builtin_sub_overflow(size, 1, &below) | !mul_ok(below, stride, &extent) |
                    !add_ok(span, extent, &span);
    }
    if (bad || n > SS_MAX_NUMEL) return check_view_rules(v, storage_numel, name, numel, last, err);
    *numel = n;
    if (n == 0) {   /* an empty view touches no element (PyTorch: any offset fits) */
        *last = -1;
        return 0;
    }
    int64_t end;
    if (bad_span || !add_ok(v->offset, span, &end) || end >= storage_numel)
        return check_view_rules(v, storage_numel, name, numel, last, err);
    *last = end;
    return 0;
}

/* ss_normalize_slice, inlined into the plan's build (thirteen arguments, most
 * of them on the stack, on every case). */
static inline __attribute__((always_inline)) int
normalize_slice(int64_t ndim, int64_t dim, int has_start, int64_t start, int has_end, int64_t end,
                int64_t step, const int64_t *sizes, int *dim_out, int64_t *start_out, int64_t *end_out,
                int64_t *len_out, ss_error *err) {
    if (ndim < 1) return ss_fail(err, "input.sizes", "slice_scatter needs a tensor of rank >= 1");
    if (dim < -ndim || dim >= ndim)
        return ss_fail(err, "dim", "must be in [%lld, %lld] (got %lld)", (long long)-ndim,
                       (long long)(ndim - 1), (long long)dim);
    if (dim < 0) dim += ndim;      /* wraps once, as PyTorch's maybe_wrap_dim */
    if (step < 1) return ss_fail(err, "step", "must be >= 1 (got %lld)", (long long)step);
    int64_t s, e;
    ss_slice_clamp(sizes[dim], has_start, start, has_end, end, &s, &e);
    *dim_out = (int)dim;
    *start_out = s;
    *end_out = e;
    /* (e - s) <= size <= 2^40, so the division cannot overflow; a step of 1
     * (most slices) needs none. */
    *len_out = step == 1 ? e - s : (e - s + step - 1) / step;
    return 0;
}

int ss_normalize_slice(int64_t ndim, int64_t dim, int has_start, int64_t start,
                       int has_end, int64_t end, int64_t step, const int64_t *sizes,
                       int *dim_out, int64_t *start_out, int64_t *end_out,
                       int64_t *len_out, ss_error *err) {
    return normalize_slice(ndim, dim, has_start, start, has_end, end, step, sizes, dim_out, start_out,
                           end_out, len_out, err);
}


int ss_plan_build(const ss_op *op, ss_plan *plan, ss_error *err) {
    return ss_plan_build_limited(op, 0, plan, err);
}

/* Copies n bytes through the C library's memcpy. For a constant size in the
 * hundreds the compiler inlines `rep movsq`, whose start-up cost dominates a
 * copy this small; hiding the size makes it call the (vector) library copy. */
static void copy_bytes(void *dst, const void *src, size_t n) {
    __asm__("" : "+r"(n));
    memcpy(dst, src, n);
}

/* A view's offset, rank and first ndim sizes and strides (up to rank 4, the
 * first 4): this runs three times per case, and a whole view is 272 bytes of
 * which a fuzzing case uses a few dozen (entries past ndim mean nothing to
 * any reader). A rank outside [0, SS_MAX_NDIM] copies everything, for the
 * error messages to come. Inline: three calls a case cost more than the copies. */
static inline __attribute__((always_inline)) void copy_view_used(ss_view *dst, const ss_view *src) {
    if (src->ndim < 0 || src->ndim > SS_MAX_NDIM) { copy_bytes(dst, src, sizeof *dst); return; }
    dst->offset = src->offset;
    dst->ndim = src->ndim;
#if SS_MAX_NDIM >= 4
    if (src->ndim <= 4) {   /* the usual ranks: fixed 32-byte copies, a few vector moves, no call */
        memcpy(dst->sizes, src->sizes, 4 * sizeof(int64_t));
        memcpy(dst->strides, src->strides, 4 * sizeof(int64_t));
        return;
    }
#endif
    const size_t n = sizeof(int64_t) * (size_t)src->ndim;
    copy_bytes(dst->sizes, src->sizes, n);
    copy_bytes(dst->strides, src->strides, n);
}

/* op as three pieces: the fields before the views, the two views (their used
 * dims), the fields after them. */
static void copy_op(ss_op *dst, const ss_op *src) {
    _Static_assert(offsetof(ss_op, src) == offsetof(ss_op, input) + sizeof(ss_view) &&
                   offsetof(ss_op, dim) == offsetof(ss_op, src) + sizeof(ss_view),
                   "ss_op: the two views sit together, between the storage fields and dim");
    memcpy(dst, src, offsetof(ss_op, input));
    copy_view_used(&dst->input, &src->input);
    copy_view_used(&dst->src, &src->src);
    memcpy(&dst->dim, &src->dim, sizeof *dst - offsetof(ss_op, dim));
}

/* The checks that come before the slice exists; fills the scalar fields they
 * produce. */
static int check_op(const ss_op *op, size_t max_bytes, ss_plan *plan, ss_error *err) {
    const size_t es = op->elem_size;
    if (es != 1 && es != 2 && es != 4 && es != 8 && es != 16)
        return ss_fail(err, "dtype", "element size %zu is not 1, 2, 4, 8 or 16", es);
    if (op->input_storage_numel < 0 || op->input_storage_numel > SS_MAX_NUMEL)
        return ss_fail(err, "storage.numel", "must be in [0, %lld]", (long long)SS_MAX_NUMEL);
    const int64_t src_numel_storage = op->src_aliased ? op->input_storage_numel
                                                      : op->src_storage_numel;
    if (op->src_aliased && op->src_storage_numel != op->input_storage_numel)
        return ss_fail(err, "src.storage", "an aliased src shares input's storage of %lld elements",
                       (long long)op->input_storage_numel);
    if (src_numel_storage < 0 || src_numel_storage > SS_MAX_NUMEL)
        return ss_fail(err, "src_storage.numel", "must be in [0, %lld]", (long long)SS_MAX_NUMEL);

    /* Both numels are <= 2^40 and es <= 16: the products fit in 64 bits. */
    uint64_t bytes = (uint64_t)op->input_storage_numel * es;
    if (!op->src_aliased) bytes += (uint64_t)src_numel_storage * es;
    if (bytes > max_bytes)
        return ss_fail(err, op->src_aliased ? "storage.numel" : "src_storage.numel",
                       "storages need %llu bytes, above the byte budget of %zu (--max-bytes)",
                       (unsigned long long)bytes, max_bytes);

    int64_t last;
    SS_TRY(check_view(&op->input, op->input_storage_numel, "input", &plan->input_numel, &last, err));
    SS_TRY(normalize_slice(op->input.ndim, op->dim, op->has_start, op->start, op->has_end,
                           op->end, op->step, op->input.sizes, &plan->dim, &plan->start,
                           &plan->end, &plan->slice_len, err));
    return 0;
}

/* src checked as a view of its storage, with the slice's rank and sizes
 * (*numel: check_view's count of src's elements). A program's src is an
 * operand of its steps: only a view of its storage here, the program's own
 * rules (the reference's) say what shape each step needs. */
static int check_src(const ss_op *op, const ss_view *slice, int64_t *numel, ss_error *err) {
    const int64_t storage_numel = op->src_aliased ? op->input_storage_numel : op->src_storage_numel;
    int64_t last;
    SS_TRY(check_view(&op->src, storage_numel, "src", numel, &last, err));
    if (op->src_is_operand) return 0;
    if (op->src.ndim != op->input.ndim)
        return ss_fail(err, "src.sizes", "rank %d must equal the input's rank %d", op->src.ndim,
                       op->input.ndim);
    for (int d = 0; d < op->src.ndim; d++) {
        if (op->src.sizes[d] != slice->sizes[d]) {
            char field[40];
            snprintf(field, sizeof field, "src.sizes[%d]", d);
            return ss_fail(err, field, "must equal the slice's size %lld (got %lld; no broadcasting)",
                           (long long)slice->sizes[d], (long long)op->src.sizes[d]);
        }
    }
    return 0;
}

int ss_plan_build_limited(const ss_op *op, size_t max_bytes, ss_plan *plan, ss_error *err) {
    if (max_bytes == 0) max_bytes = SS_DEFAULT_MAX_BYTES;
    /* Every byte after op is zero until set (a failed build leaves zeros),
     * but for the dims of op's views and of the slice past their rank, which
     * are not copied. This runs for every case, so no byte is written twice:
     * the scalars around the slice are zeroed here, the slice only when no
     * copy of the input view will overwrite it. */
    _Static_assert(offsetof(ss_plan, op) == 0, "ss_plan.op comes first");
    copy_op(&plan->op, op);
    memset((char *)plan + sizeof plan->op, 0, offsetof(ss_plan, slice) - sizeof plan->op);
    memset(&plan->input_numel, 0, sizeof *plan - offsetof(ss_plan, input_numel));
    if (check_op(op, max_bytes, plan, err) != 0) {
        memset(&plan->slice, 0, sizeof plan->slice);
        return -1;
    }
    plan->step = op->step;

    /* The slice as a view of input's storage. Offsets/strides of an empty or
     * single-element slice are irrelevant; keep them in range regardless. */
    ss_view *s = &plan->slice;
    copy_view_used(s, &op->input);
    s->sizes[plan->dim] = plan->slice_len;
    int64_t shift, stride;
    if (plan->slice_len > 0 && mul_ok(plan->start, op->input.strides[plan->dim], &shift))
        s->offset += shift;   /* inside the validated input view */
    if (plan->slice_len > 1 && mul_ok(op->step, op->input.strides[plan->dim], &stride))
        s->strides[plan->dim] = stride;

    int64_t src_numel;
    if (check_src(op, s, &src_numel, err) != 0) {
        plan->slice_numel = ss_view_numel(s);   /* what a failed build has always held */
        return -1;
    }
    /* src has the slice's sizes: check_view's count of src (its product
     * without overflow) is the slice's, and no pass over the dims counts it
     * (a program's src need not: the slice is counted, inside the input view) */
    plan->slice_numel = op->src_is_operand ? ss_view_numel(s) : src_numel;
    plan->internal_overlap = ss_view_internal_overlap_n(&op->input, plan->input_numel);   /* check_view's count */
    if (plan->internal_overlap < 0)
        return ss_fail(err, "input", "out of memory for the internal-overlap test");
    return 0;
}
