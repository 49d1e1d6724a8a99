/* test_kernel_params.c - the kernel's own slice math, self-overlap test, staging and launch planning. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "ss_kernel_params.h"
#include "ss_plan_build.h"
#include "ss_test_util.h"

/* Slice of a 1-D view (offset 3, size 10, stride 2) for dim/start/end/step. */
typedef struct {
    int64_t dim;
    int has_start; int64_t start;
    int has_end; int64_t end;
    int64_t step;
    int64_t want_off, want_len, want_stride;
} slice_row;

static const slice_row rows[] = {
    {0, 0, 0, 0, 0, 1, 3, 10, 2},           /* None:None */
    {-1, 0, 0, 0, 0, 1, 3, 10, 2},          /* negative dim wraps */
    {0, 1, 2, 1, 5, 1, 7, 3, 2},            /* 2:5 */
    {0, 1, -3, 0, 0, 1, 17, 3, 2},          /* -3: */
    {0, 0, 0, 1, -3, 1, 3, 7, 2},           /* :-3 */
    {0, 1, -100, 1, 100, 1, 3, 10, 2},      /* both out of range: clamped */
    {0, 1, 100, 0, 0, 1, 23, 0, 2},         /* start past the end: empty at size */
    {0, 1, 7, 1, 3, 1, 17, 0, 2},           /* end < start: empty */
    {0, 1, -1, 1, -5, 1, 21, 0, 2},         /* negative end < start: empty */
    {0, 0, 0, 0, 0, 3, 3, 4, 6},            /* ::3 -> 0,3,6,9 */
    {0, 1, 1, 1, 9, 4, 5, 2, 8},            /* 1:9:4 -> 1,5 */
    {0, 0, 0, 0, 0, 25, 3, 1, 2},           /* step > size: one element, stride untouched */
    {0, 1, 9, 0, 0, 1000, 21, 1, 2},        /* last element alone */
    {0, 1, 10, 1, 10, 1, 23, 0, 2},         /* 10:10 */
};

static void test_slice_rows(void **state) {
    (void)state;
    const ss_view base = tu_view(3, 1, TU_ARR(10), TU_ARR(2));
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const slice_row *r = &rows[i];
        ss_op op = tu_op(4, 30, base, base, r->dim, r->has_start, r->start, r->has_end, r->end, r->step);
        ss_view out;
        char why[128];
        assert_int_equal(ss_kslice(&base, &op, SS_KERNEL_REINPLACE, &out, why, sizeof why), 0);
        if (out.offset != r->want_off || out.sizes[0] != r->want_len ||
            (r->want_len > 1 && out.strides[0] != r->want_stride))
            fail_msg("row %zu: got offset %lld len %lld stride %lld", i, (long long)out.offset,
                     (long long)out.sizes[0], (long long)out.strides[0]);
    }
}

static void test_slice_errors(void **state) {
    (void)state;
    const ss_view base = tu_contig(0, 2, TU_ARR(3, 4));
    ss_view out;
    char why[128];
    static const int64_t bad_dims[] = {2, -3, 100};
    for (size_t i = 0; i < 3; i++) {
        ss_op op = tu_op(4, 12, base, base, bad_dims[i], 0, 0, 0, 0, 1);
        assert_int_equal(ss_kslice(&base, &op, SS_KERNEL_REINPLACE, &out, why, sizeof why), -1);
        assert_non_null(strstr(why, "dim"));
    }
    ss_op op = tu_op(4, 12, base, base, 0, 0, 0, 0, 0, 0);
    assert_int_equal(ss_kslice(&base, &op, SS_KERNEL_REINPLACE, &out, why, sizeof why), -1);
    assert_non_null(strstr(why, "step"));
    const ss_view scalar = tu_contig(0, 0, NULL);
    op = tu_op(4, 1, scalar, scalar, 0, 0, 0, 0, 0, 1);
    assert_int_equal(ss_kslice(&scalar, &op, SS_KERNEL_REINPLACE, &out, why, sizeof why), -1);
}

/* The kernel's slice equals the reference's normalization over a grid of bounds. */
static void test_slice_matches_reference(void **state) {
    (void)state;
    const ss_view base = tu_view(5, 2, TU_ARR(4, 7), TU_ARR(9, 1));
    for (int64_t dim = -2; dim < 2; dim++)
        for (int hs = 0; hs < 2; hs++)
            for (int64_t s = -10; s <= 10; s++)
                for (int he = 0; he < 2; he++)
                    for (int64_t e = -10; e <= 10; e++)
                        for (int64_t step = 1; step <= 8; step++) {
                            ss_op op = tu_op(4, 64, base, base, dim, hs, s, he, e, step);
                            int d;
                            int64_t rs, re, len;
                            ss_error err;
                            assert_int_equal(ss_normalize_slice(2, dim, hs, s, he, e, step, base.sizes,
                                                                &d, &rs, &re, &len, &err), 0);
                            ss_view out;
                            char why[64];
                            assert_int_equal(ss_kslice(&base, &op, SS_KERNEL_REINPLACE, &out, why, sizeof why), 0);
                            assert_int_equal(out.sizes[d], len);
                            assert_int_equal(out.sizes[1 - d], base.sizes[1 - d]);
                            assert_int_equal(out.offset, base.offset + rs * base.strides[d]);
                            if (len > 1) assert_int_equal(out.strides[d], base.strides[d] * step);
                        }
}

/* Mutants bend the slice in exactly their one way. */
static void test_slice_mutants(void **state) {
    (void)state;
    const ss_view base = tu_view(3, 1, TU_ARR(10), TU_ARR(2));
    ss_op op = tu_op(4, 30, base, base, 0, 1, 2, 1, 40, 3);
    ss_view out;
    char why[64];
    assert_int_equal(ss_kslice(&base, &op, SS_KERNEL_MUT_IGNORE_OFFSET, &out, why, sizeof why), 0);
    assert_int_equal(out.offset, 4);
    assert_int_equal(ss_kslice(&base, &op, SS_KERNEL_MUT_STEP_IGNORED, &out, why, sizeof why), 0);
    assert_int_equal(out.strides[0], 2);
    assert_int_equal(out.sizes[0], 3);
    assert_int_equal(ss_kslice(&base, &op, SS_KERNEL_MUT_END_UNCLAMPED, &out, why, sizeof why), 0);
    assert_int_equal(out.sizes[0], 13);   /* ceil((40 - 2) / 3) */
    assert_int_equal(ss_kslice(&base, &op, SS_KERNEL_REINPLACE, &out, why, sizeof why), 0);
    assert_int_equal(out.sizes[0], 3);
}

/* The kernel's self-overlap test equals the plan's exact one on every small
 * layout (strides 0..5, sizes 0..3, up to 3 dims). */
static void test_self_overlap_exhaustive(void **state) {
    (void)state;
    int64_t n_overlap = 0, n = 0;
    for (int ndim = 0; ndim <= 3; ndim++) {
        int64_t total = 1;
        for (int d = 0; d < ndim; d++) total *= 4 * 6;
        for (int64_t code = 0; code < total; code++) {
            int64_t sizes[3] = {0}, strides[3] = {0}, c = code;
            for (int d = 0; d < ndim; d++) { sizes[d] = c % 4; c /= 4; strides[d] = c % 6; c /= 6; }
            const ss_view v = tu_view(0, ndim, sizes, strides);
            const int want = ss_view_has_internal_overlap(&v);
            if (ss_kview_overlaps_self(&v) != want)
                fail_msg("sizes [%lld %lld %lld] strides [%lld %lld %lld]: kernel %d, plan %d",
                         (long long)sizes[0], (long long)sizes[1], (long long)sizes[2],
                         (long long)strides[0], (long long)strides[1], (long long)strides[2], !want, want);
            n_overlap += want;
            n++;
        }
    }
    assert_true(n_overlap > 0 && n_overlap < n);
    /* interleaved but injective: strides 2 and 3 over sizes 3 and 2 */
    const ss_view inter = tu_view(0, 2, TU_ARR(3, 2), TU_ARR(2, 3));
    assert_int_equal(ss_kview_overlaps_self(&inter), 0);
    const ss_view clash = tu_view(0, 2, TU_ARR(4, 3), TU_ARR(2, 3));   /* 3*2 + 0*3 == 0*2 + 2*3 */
    assert_int_equal(ss_kview_overlaps_self(&clash), 1);
}

static ss_kprog plan_of(ss_kernel_id k, ss_op op, ss_run_status want) {
    ss_kprog p;
    char why[128] = "";
    const ss_run_status st = ss_kprog_build(k, &op, 64, 64, &p, why, sizeof why);
    if (st != want) fail_msg("status %d, expected %d: %s", st, want, why);
    return p;
}

static void test_staging_and_launches(void **state) {
    (void)state;
    const ss_op shift = tu_op(4, 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(0, 1, TU_ARR(7)), 0, 1, 1, 0, 0, 1);
    ss_kprog p = plan_of(SS_KERNEL_REINPLACE, shift, SS_RUN_OK);
    assert_int_equal(p.staged, 1);
    assert_int_equal(p.nlaunch, 2);
    assert_int_equal(p.tmp_bytes, 28);
    p = plan_of(SS_KERNEL_MUT_ALIAS_UNCHECKED, shift, SS_RUN_OK);
    assert_int_equal(p.staged, 0);
    assert_int_equal(p.nlaunch, 1);
    p = plan_of(SS_KERNEL_FUNCTIONAL, shift, SS_RUN_OK);
    assert_int_equal(p.nlaunch, 3);
    p = plan_of(SS_KERNEL_INDEX, shift, SS_RUN_OK);
    assert_int_equal(p.nlaunch, 3);
    assert_int_equal(p.launch[0].kind, SS_KL_INDEX_BUILD);
    assert_int_equal(p.launch[2].kind, SS_KL_INDEX_SCATTER);
    assert_int_equal(p.idx_bytes, 7 * 8);
    /* touching but disjoint: not staged */
    const ss_op touch = tu_op(4, 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(0, 1, TU_ARR(4)), 0, 1, 4, 0, 0, 1);
    assert_int_equal(plan_of(SS_KERNEL_REINPLACE, touch, SS_RUN_OK).staged, 0);
    /* one shared element: staged; the off-by-one mutant misses it */
    const ss_op edge = tu_op(4, 3, tu_contig(0, 1, TU_ARR(3)), tu_contig(0, 1, TU_ARR(2)), 0, 1, 1, 0, 0, 1);
    assert_int_equal(plan_of(SS_KERNEL_REINPLACE, edge, SS_RUN_OK).staged, 1);
    assert_int_equal(plan_of(SS_KERNEL_MUT_OVERLAP_OFF_BY_ONE, edge, SS_RUN_OK).staged, 0);
    /* internal overlap: rejected by every kernel */
    const ss_op bad = tu_op(4, 8, tu_view(0, 1, TU_ARR(3), TU_ARR(0)), tu_contig(0, 1, TU_ARR(2)), 0, 1, 1, 0, 0, 1);
    for (int k = 0; k < SS_KERNEL_COUNT; k++) plan_of((ss_kernel_id)k, bad, SS_RUN_REJECTED);
}

/* Coalescing merges contiguous dims; aligned contiguous runs take the 16-byte path. */
static void test_coalesce_and_fast_path(void **state) {
    (void)state;
    ss_op op = tu_op(4, 4096, tu_contig(0, 3, TU_ARR(4, 16, 64)), tu_contig(0, 3, TU_ARR(4, 16, 64)),
                     0, 0, 0, 0, 0, 1);
    op.src_aliased = 0;
    op.src_storage_numel = 4096;
    ss_kprog p = plan_of(SS_KERNEL_REINPLACE, op, SS_RUN_OK);
    assert_int_equal(p.launch[0].ndim, 1);
    assert_int_equal(p.launch[0].vec, 1);
    assert_int_equal(p.launch[0].elem, 16);
    assert_int_equal(p.launch[0].n, 1024);
    /* x[:, 1:] columns at odd offsets: no fast path, two dims */
    op.src = tu_view(0, 3, TU_ARR(4, 16, 63), TU_ARR(1024, 64, 1));
    op.dim = 2;
    op.has_start = 1;
    op.start = 1;
    p = plan_of(SS_KERNEL_REINPLACE, op, SS_RUN_OK);
    assert_int_equal(p.launch[0].vec, 0);
    assert_int_equal(p.launch[0].ndim, 2);
    assert_int_equal(p.launch[0].n, 4 * 16 * 63);
}

/* A broken slice that would leave its storage (and guards) is refused, not run. */
static void test_out_of_bounds_refused(void **state) {
    (void)state;
    ss_op op = tu_op(4, 4, tu_contig(0, 1, TU_ARR(2)), tu_contig(0, 1, TU_ARR(1)), 0, 1, 1, 1, 1000, 1);
    op.src_aliased = 0;
    op.src_storage_numel = 2;
    plan_of(SS_KERNEL_MUT_END_UNCLAMPED, op, SS_RUN_FAILED);
    plan_of(SS_KERNEL_REINPLACE, op, SS_RUN_OK);
    op.end = (int64_t)1 << 53;
    plan_of(SS_KERNEL_MUT_END_UNCLAMPED, op, SS_RUN_FAILED);
}

/* The kernel's overlap test is a public entry point: views the plan would
 * refuse (negative strides or sizes, bad rank, extents past 2^63) are answered
 * conservatively, without walking memory. */
static void test_overlap_hostile_views(void **state) {
    (void)state;
    ss_view v = tu_view(0, 2, TU_ARR(3, 4), TU_ARR(4, -1));
    assert_true(ss_kview_overlaps_self(&v));
    v = tu_view(0, 1, TU_ARR(-3), TU_ARR(1));
    assert_true(ss_kview_overlaps_self(&v));
    v = tu_contig(0, 2, TU_ARR(2, 2));
    v.ndim = SS_MAX_NDIM + 1;
    assert_true(ss_kview_overlaps_self(&v));
    v = tu_view(0, 2, TU_ARR((int64_t)1 << 40, (int64_t)1 << 40), TU_ARR((int64_t)1 << 40, 3));
    assert_true(ss_kview_overlaps_self(&v));   /* extent overflows: not provably injective */
    v = tu_view(0, 2, TU_ARR(3, 4), TU_ARR(4, 1));
    assert_false(ss_kview_overlaps_self(&v));  /* and an ordinary view is still fine */
}

/* Issue 14 item 1: views over 2^27 elements whose rows interleave are walked
 * exactly (the kernel used to give up and answer "overlaps"), and kernels
 * and plan agree on them. 3 x 2 x 2^25 uint8 needs a storage of 2^28. */
static void test_overlap_exact_above_2pow27(void **state) {
    (void)state;
    const int64_t m = (int64_t)1 << 25;
    const ss_view ok = tu_view(0, 3, TU_ARR(3, 2, m), TU_ARR(2 * m, 3 * m, 1));
    assert_int_equal(ss_kview_overlaps_self(&ok), 0);
    assert_int_equal(ss_view_has_internal_overlap(&ok), 0);
    const ss_view clash = tu_view(0, 3, TU_ARR(3, 2, m), TU_ARR(2 * m, 2 * m, 1));
    assert_int_equal(ss_kview_overlaps_self(&clash), 1);
    assert_int_equal(ss_view_has_internal_overlap(&clash), 1);
    /* the whole case plans on every correct kernel: x[1:] = y, y separate */
    ss_op op = tu_op(1, (int64_t)1 << 28, ok, tu_view(0, 3, TU_ARR(2, 2, m), TU_ARR(2 * m, m, 1)),
                     0, 1, 1, 0, 0, 1);
    op.src_aliased = 0;
    op.src_storage_numel = 4 * m;
    plan_of(SS_KERNEL_REINPLACE, op, SS_RUN_OK);
    plan_of(SS_KERNEL_FUNCTIONAL, op, SS_RUN_OK);
    plan_of(SS_KERNEL_INDEX, op, SS_RUN_OK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slice_rows),
        cmocka_unit_test(test_slice_errors),
        cmocka_unit_test(test_slice_matches_reference),
        cmocka_unit_test(test_slice_mutants),
        cmocka_unit_test(test_self_overlap_exhaustive),
        cmocka_unit_test(test_staging_and_launches),
        cmocka_unit_test(test_coalesce_and_fast_path),
        cmocka_unit_test(test_out_of_bounds_refused),
        cmocka_unit_test(test_overlap_hostile_views),
        cmocka_unit_test(test_overlap_exact_above_2pow27),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
