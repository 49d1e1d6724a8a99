/* test_plan.c - normalization against PyTorch's rules, every validation rule, overlap detection. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "ss_plan_build.h"
#include "ss_test_util.h"

#define NONE 0, 0
#define SOME(x) 1, (x)

/* PyTorch: x.slice(dim, start, end, step) on a dim of `size` (torch.narrow /
 * basic indexing rules: negatives add size once, then clamp to [0, size]). */
static const struct {
    int64_t size;
    int hs; int64_t s; int he; int64_t e; int64_t step;
    int64_t start, end, len;
} norm_table[] = {
    {5, NONE, NONE, 1, 0, 5, 5},          /* x[:] */
    {5, SOME(1), NONE, 1, 1, 5, 4},       /* x[1:] */
    {5, NONE, SOME(-1), 1, 0, 4, 4},      /* x[:-1] */
    {5, SOME(-2), NONE, 1, 3, 5, 2},      /* x[-2:] */
    {5, SOME(-1), NONE, 1, 4, 5, 1},      /* x[-1:] */
    {5, SOME(-10), SOME(10), 1, 0, 5, 5}, /* out of range both ways: clamped */
    {5, SOME(7), SOME(9), 1, 5, 5, 0},    /* start past the end: empty */
    {5, SOME(3), SOME(1), 1, 3, 3, 0},    /* end < start: empty */
    {5, NONE, SOME(-6), 1, 0, 0, 0},      /* end before the beginning */
    {5, SOME(0), SOME(5), 7, 0, 5, 1},    /* step > size: one element */
    {5, SOME(1), SOME(5), 2, 1, 5, 2},    /* x[1:5:2] */
    {5, NONE, NONE, 3, 0, 5, 2},          /* x[::3] */
    {5, SOME(-3), SOME(-1), 1, 2, 4, 2},  /* x[-3:-1] */
    {0, NONE, NONE, 1, 0, 0, 0},          /* zero-size dim */
    {0, SOME(1), SOME(2), 1, 0, 0, 0},
    {1, SOME(-1), NONE, 1, 0, 1, 1},
    {5, SOME(INT64_MIN), SOME(INT64_MAX), 1, 0, 5, 5},   /* extreme values do not overflow */
};

static void test_normalize_table(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof norm_table / sizeof norm_table[0]; i++) {
        int dim;
        int64_t s, e, len;
        ss_error err;
        const int64_t sizes[1] = {norm_table[i].size};
        assert_int_equal(ss_normalize_slice(1, 0, norm_table[i].hs, norm_table[i].s, norm_table[i].he,
                                            norm_table[i].e, norm_table[i].step, sizes, &dim, &s, &e,
                                            &len, &err), 0);
        if (s != norm_table[i].start || e != norm_table[i].end || len != norm_table[i].len)
            fail_msg("row %zu: got [%lld, %lld) len %lld", i, (long long)s, (long long)e, (long long)len);
    }
}

static void test_normalize_dim(void **state) {
    (void)state;
    const int64_t sizes[3] = {2, 3, 4};
    int dim;
    int64_t s, e, len;
    ss_error err;
    assert_int_equal(ss_normalize_slice(3, -1, NONE, NONE, 1, sizes, &dim, &s, &e, &len, &err), 0);
    assert_int_equal(dim, 2);
    assert_int_equal(len, 4);
    assert_int_equal(ss_normalize_slice(3, -3, NONE, NONE, 1, sizes, &dim, &s, &e, &len, &err), 0);
    assert_int_equal(dim, 0);
    assert_int_equal(ss_normalize_slice(3, 3, NONE, NONE, 1, sizes, &dim, &s, &e, &len, &err), -1);
    assert_string_equal(err.field, "dim");
    assert_int_equal(ss_normalize_slice(3, -4, NONE, NONE, 1, sizes, &dim, &s, &e, &len, &err), -1);
    assert_int_equal(ss_normalize_slice(3, 0, NONE, NONE, 0, sizes, &dim, &s, &e, &len, &err), -1);
    assert_string_equal(err.field, "step");
    assert_int_equal(ss_normalize_slice(3, 0, NONE, NONE, -1, sizes, &dim, &s, &e, &len, &err), -1);
    assert_int_equal(ss_normalize_slice(0, 0, NONE, NONE, 1, sizes, &dim, &s, &e, &len, &err), -1);
}

/* x (shape [3, 4], contiguous) with x[1:] <- x[:-1]. */
static ss_op shift_op(void) {
    return tu_op(4, 12, tu_contig(0, 2, TU_ARR(3, 4)), tu_contig(0, 2, TU_ARR(2, 4)), 0, SOME(1), NONE, 1);
}

static void expect_invalid(ss_op op, const char *field) {
    ss_plan p;
    ss_error err = {{0}, {0}};
    if (ss_plan_build(&op, &p, &err) == 0) fail_msg("accepted; expected an error on %s", field);
    if (strcmp(err.field, field)) fail_msg("error on '%s' (%s), expected on '%s'", err.field, err.msg, field);
    assert_true(err.msg[0] != 0);
}

static void test_valid_shift_plan(void **state) {
    (void)state;
    ss_op op = shift_op();
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    assert_int_equal(p.dim, 0);
    assert_int_equal(p.start, 1);
    assert_int_equal(p.end, 3);
    assert_int_equal(p.slice_len, 2);
    assert_int_equal(p.slice.offset, 4);
    assert_int_equal(p.slice.sizes[0], 2);
    assert_int_equal(p.slice_numel, 8);
    assert_int_equal(p.input_numel, 12);
    assert_false(p.internal_overlap);
    assert_int_equal(p.overlap, SS_OVL_PARTIAL);
}

static void test_validation_rules(void **state) {
    (void)state;
    ss_op op;
    op = shift_op(); op.input.offset = -1; expect_invalid(op, "input.offset");
    op = shift_op(); op.input.sizes[1] = -4; expect_invalid(op, "input.sizes[1]");
    op = shift_op(); op.input.strides[0] = -4; expect_invalid(op, "input.strides[0]");
    op = shift_op(); op.input.offset = 1; expect_invalid(op, "input");               /* past the end */
    op = shift_op(); op.src.offset = 5; expect_invalid(op, "src");
    op = shift_op(); op.src.sizes[0] = 3; expect_invalid(op, "src.sizes[0]");       /* no broadcasting */
    op = shift_op(); op.src.sizes[1] = 1; expect_invalid(op, "src.sizes[1]");
    op = shift_op(); op.src.ndim = 1; op.src.sizes[0] = 8; op.src.strides[0] = 1; expect_invalid(op, "src.sizes");
    op = shift_op(); op.step = 0; expect_invalid(op, "step");
    op = shift_op(); op.dim = 2; expect_invalid(op, "dim");
    op = shift_op(); op.input.ndim = SS_MAX_NDIM + 1; expect_invalid(op, "input");
    op = shift_op(); op.elem_size = 3; expect_invalid(op, "dtype");
    op = shift_op(); op.input_storage_numel = -1; expect_invalid(op, "storage.numel");
    op = shift_op(); op.input_storage_numel = SS_MAX_NUMEL + 1; expect_invalid(op, "storage.numel");
    op = shift_op(); op.src_storage_numel = 13; expect_invalid(op, "src.storage");
    op = shift_op(); op.src_aliased = 0; op.src_storage_numel = -5; expect_invalid(op, "src_storage.numel");
    op = shift_op(); op.input_storage_numel = op.src_storage_numel = (int64_t)1 << 30;
    expect_invalid(op, "storage.numel");                                             /* over the byte budget */
}

static void test_overflow_is_rejected(void **state) {
    (void)state;
    ss_op op = shift_op();
    /* sizes whose product overflows int64 */
    for (int d = 0; d < 4; d++) { op.input.sizes[d] = (int64_t)1 << 40; op.input.strides[d] = 1; }
    op.input.ndim = 4;
    expect_invalid(op, "input.sizes");
    /* offset + extent past 2^63 */
    op = shift_op();
    op.input.strides[0] = (int64_t)1 << 62;
    op.input.offset = (int64_t)1 << 62;
    expect_invalid(op, "input.sizes");
    op = shift_op();
    op.input.offset = INT64_MAX;
    expect_invalid(op, "input");
    /* an empty view may sit anywhere (PyTorch allows any offset for 0 elements) */
    op = tu_op(4, 4, tu_view(100, 1, TU_ARR(0), TU_ARR(1)), tu_view(0, 1, TU_ARR(0), TU_ARR(1)), 0, NONE, NONE, 1);
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    assert_int_equal(p.slice_numel, 0);
}

static int overlaps(int ndim, const int64_t *sizes, const int64_t *strides) {
    ss_view v = tu_view(0, ndim, sizes, strides);
    return ss_view_has_internal_overlap(&v);
}

static void test_internal_overlap(void **state) {
    (void)state;
    assert_true(overlaps(2, TU_ARR(2, 2), TU_ARR(1, 1)));
    assert_true(overlaps(1, TU_ARR(3), TU_ARR(0)));            /* expanded */
    assert_true(overlaps(2, TU_ARR(2, 3), TU_ARR(2, 1)));       /* 0 1 2 | 2 3 4 */
    assert_true(overlaps(2, TU_ARR(3, 3), TU_ARR(2, 1)));
    assert_true(overlaps(3, TU_ARR(2, 2, 3), TU_ARR(5, 0, 1)));
    assert_false(overlaps(1, TU_ARR(1), TU_ARR(0)));           /* size 1: stride irrelevant */
    assert_false(overlaps(2, TU_ARR(0, 5), TU_ARR(0, 0)));      /* empty */
    assert_false(overlaps(2, TU_ARR(2, 3), TU_ARR(3, 1)));      /* contiguous */
    assert_false(overlaps(2, TU_ARR(3, 2), TU_ARR(1, 3)));      /* transposed */
    assert_false(overlaps(2, TU_ARR(3, 2), TU_ARR(2, 3)));      /* 0 2 4 | 3 5 7: not nested, disjoint */
    assert_false(overlaps(3, TU_ARR(2, 2, 2), TU_ARR(4, 2, 1)));
    assert_false(overlaps(2, TU_ARR(2, 2), TU_ARR(2, 1 + 2)));  /* 0 3 | 2 5 */
    /* the plan marks such an input, without refusing the case */
    ss_op op = tu_op(4, 3, tu_view(0, 2, TU_ARR(2, 2), TU_ARR(1, 1)), tu_view(0, 2, TU_ARR(1, 2), TU_ARR(1, 1)),
                     0, SOME(1), NONE, 1);
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    assert_true(p.internal_overlap);
}

static ss_overlap overlap_of(ss_op op) {
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    return p.overlap;
}

static void test_overlap_classes(void **state) {
    (void)state;
    const ss_view x10 = tu_contig(0, 1, TU_ARR(10));
    /* x[1:] <- x[:-1] */
    assert_int_equal(overlap_of(tu_op(4, 10, x10, tu_contig(0, 1, TU_ARR(9)), 0, SOME(1), NONE, 1)), SS_OVL_PARTIAL);
    /* x[2:5] <- x[2:5] */
    assert_int_equal(overlap_of(tu_op(4, 10, x10, tu_contig(2, 1, TU_ARR(3)), 0, SOME(2), SOME(5), 1)), SS_OVL_SAME_VIEW);
    /* x[0:5] <- x[5:10]: src is inside input but outside the slice */
    assert_int_equal(overlap_of(tu_op(4, 10, x10, tu_contig(5, 1, TU_ARR(5)), 0, SOME(0), SOME(5), 1)), SS_OVL_OUTSIDE_SLICE);
    /* input is x[0:5], src lives at 6..7: no shared element */
    assert_int_equal(overlap_of(tu_op(4, 10, tu_contig(0, 1, TU_ARR(5)), tu_contig(6, 1, TU_ARR(2)), 0, SOME(0), SOME(2), 1)),
                     SS_OVL_DISJOINT);
    /* interleaved: x[0::2] <- x[1::2] has intersecting byte ranges but no shared element */
    assert_int_equal(overlap_of(tu_op(4, 10, x10, tu_view(1, 1, TU_ARR(5), TU_ARR(2)), 0, NONE, NONE, 2)),
                     SS_OVL_OUTSIDE_SLICE);
    ss_op sep = tu_op(4, 10, x10, tu_contig(0, 1, TU_ARR(9)), 0, SOME(1), NONE, 1);
    sep.src_aliased = 0;
    sep.src_storage_numel = 9;
    assert_int_equal(overlap_of(sep), SS_OVL_SEPARATE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalize_table),
        cmocka_unit_test(test_normalize_dim),
        cmocka_unit_test(test_valid_shift_plan),
        cmocka_unit_test(test_validation_rules),
        cmocka_unit_test(test_overflow_is_rejected),
        cmocka_unit_test(test_internal_overlap),
        cmocka_unit_test(test_overlap_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
