/* ss_test_util.h - small builders shared by the test files (ops and views by hand, one check). */
#ifndef SS_TEST_UTIL_H
#define SS_TEST_UTIL_H

#include <string.h>
#include "ss_case.h"
#include "ss_check.h"
#include "ss_plan.h"
#include "ss_plan_build.h"
#include "ss_target.h"

/* A view from up to SS_MAX_NDIM sizes/strides given as arrays. */
static inline ss_view tu_view(int64_t offset, int ndim, const int64_t *sizes, const int64_t *strides) {
    ss_view v;
    memset(&v, 0, sizeof v);
    v.offset = offset;
    v.ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        v.sizes[d] = sizes[d];
        v.strides[d] = strides[d];
    }
    return v;
}

/* A contiguous view of the given sizes at offset. */
static inline ss_view tu_contig(int64_t offset, int ndim, const int64_t *sizes) {
    int64_t strides[SS_MAX_NDIM], st = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = st;
        st *= sizes[d];
    }
    return tu_view(offset, ndim, sizes, strides);
}

/* An op on one storage of `numel` elements; src aliased by default. */
static inline ss_op tu_op(size_t es, int64_t numel, ss_view input, ss_view src, int64_t dim,
                          int has_start, int64_t start, int has_end, int64_t end, int64_t step) {
    ss_op op;
    memset(&op, 0, sizeof op);
    op.elem_size = es;
    op.input_storage_numel = numel;
    op.src_aliased = 1;
    op.src_storage_numel = numel;
    op.input = input;
    op.src = src;
    op.dim = dim;
    op.has_start = has_start;
    op.start = start;
    op.has_end = has_end;
    op.end = end;
    op.step = step;
    return op;
}

/* Checks t on op (float32, seeded fill 3, buffers of its own) under `opts`
 * (NULL: forward) into *res. Fails the test when op does not validate or its
 * storages cannot be prepared (cmocka.h comes before this header). */
static inline ss_verdict tu_check(const ss_target *t, ss_op op, const ss_run_opts *opts, ss_check_result *res) {
    ss_case c;
    ss_case_init(&c);
    c.dtype = SS_FLOAT32;
    c.op = op;
    c.fill_seed = 3;
    ss_plan plan;
    ss_error err;
    if (ss_plan_build(&c.op, &plan, &err)) fail_msg("%s: %s", err.field, err.msg);
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    ss_run_status ref;
    char why[256];
    if (ss_check_prepare(&ctx, &c, &plan, &ref, why, sizeof why)) fail_msg("%s", why);
    ss_check_target(&ctx, &plan, ref, t, opts, res);
    ss_check_ctx_free(&ctx);
    ss_case_free(&c);
    return res->verdict;
}

#define TU_ARR(...) ((const int64_t[]){__VA_ARGS__})

#endif
