/* test_reference.c - the CPU reference on hand-computed aliasing cases, every element size, and compare. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "ss_compare.h"
#include "ss_plan_build.h"
#include "ss_reference.h"
#include "ss_storage.h"
#include "ss_test_util.h"

#define NONE 0, 0
#define SOME(x) 1, (x)

/* Storage of n elements of size es whose element i reads as the integer i+1
 * in its first byte(s) and 0xEE in the rest (so every byte is checked). */
static void fill_counting(ss_storage *s, size_t es, int64_t n) {
    assert_int_equal(ss_storage_reserve(s, (size_t)n * es, SS_GUARD_DEFAULT), 0);
    uint8_t *d = ss_storage_data(s);
    for (int64_t i = 0; i < n; i++) {
        memset(d + i * (int64_t)es, 0xEE, es);
        d[i * (int64_t)es] = (uint8_t)(i + 1);
    }
}

static uint8_t value_at(const ss_storage *s, size_t es, int64_t i) {
    const uint8_t *d = ss_storage_data(s);
    for (size_t b = 1; b < es; b++) assert_int_equal(d[i * (int64_t)es + (int64_t)b], 0xEE);
    return d[i * (int64_t)es];
}

/* Runs the reference and checks the input storage against want[] (1-based values). */
static void expect_storage(ss_op op, const uint8_t *want, int64_t n) {
    ss_plan p;
    ss_error err;
    if (ss_plan_build(&op, &p, &err)) fail_msg("%s: %s", err.field, err.msg);
    ss_storage in = {0}, src = {0};
    fill_counting(&in, op.elem_size, op.input_storage_numel);
    fill_counting(&src, op.elem_size, op.src_aliased ? 0 : op.src_storage_numel);
    if (!op.src_aliased)   /* distinct values: src element j holds 101 + j */
        for (int64_t j = 0; j < op.src_storage_numel; j++) ss_storage_data(&src)[j * (int64_t)op.elem_size] = (uint8_t)(101 + j);
    char why[128];
    assert_int_equal(ss_ref_run(&p, &in, &src, why, sizeof why), SS_RUN_OK);
    for (int64_t i = 0; i < n; i++)
        if (value_at(&in, op.elem_size, i) != want[i])
            fail_msg("es %zu: element %lld is %d, expected %d", op.elem_size, (long long)i,
                     value_at(&in, op.elem_size, i), want[i]);
    assert_true(ss_storage_guards_intact(&in));
    if (!op.src_aliased) {
        for (int64_t j = 0; j < op.src_storage_numel; j++)
            assert_int_equal(value_at(&src, op.elem_size, j), 101 + j);   /* src never changes */
        assert_true(ss_storage_guards_intact(&src));
    }
    ss_storage_free(&in);
    ss_storage_free(&src);
}

static const size_t sizes_all[] = {1, 2, 4, 8, 16};

static void test_shift_right(void **state) {   /* x[1:] = x[:-1] */
    (void)state;
    const uint8_t want[8] = {1, 1, 2, 3, 4, 5, 6, 7};
    for (size_t k = 0; k < 5; k++)
        expect_storage(tu_op(sizes_all[k], 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(0, 1, TU_ARR(7)), 0,
                             SOME(1), NONE, 1), want, 8);
}

static void test_shift_left(void **state) {    /* x[:-1] = x[1:] */
    (void)state;
    const uint8_t want[8] = {2, 3, 4, 5, 6, 7, 8, 8};
    for (size_t k = 0; k < 5; k++)
        expect_storage(tu_op(sizes_all[k], 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(1, 1, TU_ARR(7)), 0,
                             NONE, SOME(-1), 1), want, 8);
}

static void test_shift_inner_dim(void **state) {   /* x[:, 1:] = x[:, :-1], x is 3x4 */
    (void)state;
    const uint8_t want[12] = {1, 1, 2, 3, 5, 5, 6, 7, 9, 9, 10, 11};
    expect_storage(tu_op(4, 12, tu_contig(0, 2, TU_ARR(3, 4)), tu_view(0, 2, TU_ARR(3, 3), TU_ARR(4, 1)), 1,
                         SOME(1), NONE, 1), want, 12);
}

static void test_transpose_same_pointer(void **state) {   /* x[0] = x[0].t(), x is 2x3x3 */
    (void)state;
    uint8_t want[18];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) want[i * 3 + j] = (uint8_t)(j * 3 + i + 1);
    for (int k = 9; k < 18; k++) want[k] = (uint8_t)(k + 1);
    for (size_t k = 0; k < 5; k++)
        expect_storage(tu_op(sizes_all[k], 18, tu_contig(0, 3, TU_ARR(2, 3, 3)),
                             tu_view(0, 3, TU_ARR(1, 3, 3), TU_ARR(9, 1, 3)), 0, SOME(0), SOME(1), 1),
                       want, 18);
}

static void test_src_is_the_slice(void **state) {   /* x[2:5] = x[2:5] */
    (void)state;
    const uint8_t want[6] = {1, 2, 3, 4, 5, 6};
    expect_storage(tu_op(8, 6, tu_contig(0, 1, TU_ARR(6)), tu_contig(2, 1, TU_ARR(3)), 0, SOME(2), SOME(5), 1),
                   want, 6);
}

static void test_separate_src_with_step(void **state) {   /* x[0::2] = y, y separate */
    (void)state;
    ss_op op = tu_op(2, 7, tu_contig(0, 1, TU_ARR(7)), tu_contig(1, 1, TU_ARR(4)), 0, NONE, NONE, 2);
    op.src_aliased = 0;
    op.src_storage_numel = 5;
    const uint8_t want[7] = {102, 2, 103, 4, 104, 6, 105};
    expect_storage(op, want, 7);
}

static void test_offset_view_untouched_outside(void **state) {
    (void)state;
    /* input = storage[2:8] viewed as 2x3; x[1] = x[0]; elements 0,1,8,9 outside the view */
    const uint8_t want[10] = {1, 2, 3, 4, 5, 3, 4, 5, 9, 10};
    expect_storage(tu_op(4, 10, tu_contig(2, 2, TU_ARR(2, 3)), tu_contig(2, 2, TU_ARR(1, 3)), 0, SOME(1), NONE, 1),
                   want, 10);
}

static void test_internal_overlap_rejected(void **state) {
    (void)state;
    ss_op op = tu_op(4, 4, tu_view(0, 1, TU_ARR(4), TU_ARR(0)), tu_view(0, 1, TU_ARR(3), TU_ARR(1)), 0, SOME(1), NONE, 1);
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    ss_storage in = {0};
    fill_counting(&in, 4, 4);
    char why[128];
    assert_int_equal(ss_ref_run(&p, &in, NULL, why, sizeof why), SS_RUN_REJECTED);
    assert_non_null(strstr(why, "internal overlap"));
    assert_int_equal(value_at(&in, 4, 0), 1);
    ss_storage_free(&in);
}

static void test_compare_reports_first_difference(void **state) {
    (void)state;
    ss_op op = tu_op(4, 6, tu_contig(0, 2, TU_ARR(2, 3)), tu_contig(0, 2, TU_ARR(1, 3)), 0, SOME(1), NONE, 1);
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    ss_storage a = {0}, b = {0};
    fill_counting(&a, 4, 6);
    fill_counting(&b, 4, 6);
    ss_diff d;
    assert_int_equal(ss_compare(&p, &a, NULL, &b, NULL, &d), 0);
    ss_storage_data(&b)[4 * 4] = 77;   /* element 4 = logical [1, 1] */
    ss_storage_data(&b)[5 * 4 + 3] = 1;
    assert_int_equal(ss_compare(&p, &a, NULL, &b, NULL, &d), 1);
    assert_int_equal(d.count, 2);
    assert_int_equal(d.index, 4);
    assert_true(d.in_input_view);
    assert_int_equal(d.logical[0], 1);
    assert_int_equal(d.logical[1], 1);
    assert_int_equal(d.expected[0], 5);
    assert_int_equal(d.actual[0], 77);
    char line[256];
    ss_diff_format(&p, &d, line, sizeof line);
    assert_non_null(strstr(line, "input storage[4] (input index [1, 1]): expected 0xeeeeee05, got 0xeeeeee4d; 2 elements differ"));
    b.base[0] ^= 1;   /* a write before the storage */
    assert_int_equal(ss_compare(&p, &a, NULL, &b, NULL, &d), 1);
    assert_true(d.guard_corrupt);
    ss_storage_free(&a);
    ss_storage_free(&b);
}

/* Large transposed copies take the tiled path: check every element against a
 * plain per-element loop, both orientations, ragged tile edges, an outer dim. */
static void test_tiled_transpose_matches_naive(void **state) {
    (void)state;
    const int64_t B = 2, R = 45, C = 70;   /* not multiples of the 32-element tile */
    for (int orient = 0; orient < 2; orient++) {
        for (size_t k = 0; k < 5; k++) {
            const size_t es = sizes_all[k];
            /* input: B x R x C contiguous; slice = all of it; src: separate storage,
             * viewed transposed (orient 0) or the input viewed transposed (orient 1). */
            ss_view in_v = orient == 0 ? tu_contig(0, 3, TU_ARR(B, R, C))
                                       : tu_view(0, 3, TU_ARR(B, R, C), TU_ARR(R * C, 1, R));
            ss_view src_v = orient == 0 ? tu_view(0, 3, TU_ARR(B, R, C), TU_ARR(R * C, 1, R))
                                        : tu_contig(0, 3, TU_ARR(B, R, C));
            ss_op op = tu_op(es, B * R * C, in_v, src_v, 0, NONE, NONE, 1);
            op.src_aliased = 0;
            op.src_storage_numel = B * R * C;
            ss_plan p;
            ss_error err;
            if (ss_plan_build(&op, &p, &err)) fail_msg("%s: %s", err.field, err.msg);
            ss_storage in = {0}, src = {0};
            assert_int_equal(ss_storage_reserve(&in, (size_t)(B * R * C) * es, SS_GUARD_DEFAULT), 0);
            assert_int_equal(ss_storage_reserve(&src, (size_t)(B * R * C) * es, SS_GUARD_DEFAULT), 0);
            ss_fill_seeded(SS_INT64, 3, 0, ss_storage_data(&in), (int64_t)((size_t)(B * R * C) * es / 8));
            ss_fill_seeded(SS_INT64, 4, 1 << 20, ss_storage_data(&src), (int64_t)((size_t)(B * R * C) * es / 8));
            uint8_t *want = malloc((size_t)(B * R * C) * es);
            assert_non_null(want);
            memcpy(want, ss_storage_data(&in), (size_t)(B * R * C) * es);
            int64_t idx[3];
            for (idx[0] = 0; idx[0] < B; idx[0]++)
                for (idx[1] = 0; idx[1] < R; idx[1]++)
                    for (idx[2] = 0; idx[2] < C; idx[2]++)
                        memcpy(want + ss_view_offset_of(&in_v, idx) * (int64_t)es,
                               ss_storage_data(&src) + ss_view_offset_of(&src_v, idx) * (int64_t)es, es);
            char why[128];
            assert_int_equal(ss_ref_run(&p, &in, &src, why, sizeof why), SS_RUN_OK);
            assert_memory_equal(ss_storage_data(&in), want, (size_t)(B * R * C) * es);
            assert_true(ss_storage_guards_intact(&in));
            free(want);
            ss_storage_free(&in);
            ss_storage_free(&src);
        }
    }
}

static void test_fill_distinct(void **state) {
    (void)state;
    for (int t = SS_UINT8; t < SS_DTYPE_COUNT; t++) {
        const size_t es = ss_dtype_size((ss_dtype)t);
        const int64_t n = es == 1 ? 200 : 3000;   /* 3000 > 2048: float16 switches to bit patterns */
        uint8_t buf[3000 * 16];
        ss_fill_seeded((ss_dtype)t, 42, 0, buf, n);
        for (int64_t i = 1; i < n; i++)
            if (!memcmp(buf + (i - 1) * (int64_t)es, buf + i * (int64_t)es, es))
                fail_msg("%s: elements %lld and %lld equal", ss_dtype_name((ss_dtype)t), (long long)i - 1, (long long)i);
        uint8_t again[3000 * 16];
        ss_fill_seeded((ss_dtype)t, 42, 0, again, n);
        assert_memory_equal(buf, again, (size_t)n * es);   /* deterministic */
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shift_right),
        cmocka_unit_test(test_shift_left),
        cmocka_unit_test(test_shift_inner_dim),
        cmocka_unit_test(test_transpose_same_pointer),
        cmocka_unit_test(test_src_is_the_slice),
        cmocka_unit_test(test_separate_src_with_step),
        cmocka_unit_test(test_offset_view_untouched_outside),
        cmocka_unit_test(test_internal_overlap_rejected),
        cmocka_unit_test(test_compare_reports_first_difference),
        cmocka_unit_test(test_tiled_transpose_matches_naive),
        cmocka_unit_test(test_fill_distinct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
