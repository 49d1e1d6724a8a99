/* test_gen.c - the generator: determinism, validity, and coverage of kinds and dtypes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ss_gen.h"
#include "ss_plan_build.h"

#define N_CASES 20000

static void test_deterministic(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    for (uint64_t i = 0; i < 2000; i++) {
        ss_case a, b;
        ss_alias_kind ka, kb;
        assert_int_equal(ss_gen_case(&cfg, 42, i, &a, &ka), 0);
        assert_int_equal(ss_gen_case(&cfg, 42, i, &b, &kb), 0);
        assert_int_equal(ka, kb);
        assert_memory_equal(&a, &b, sizeof a);
    }
    /* a different seed gives a different stream */
    int differ = 0;
    for (uint64_t i = 0; i < 50; i++) {
        ss_case a, b;
        ss_gen_case(&cfg, 1, i, &a, NULL);
        ss_gen_case(&cfg, 2, i, &b, NULL);
        differ += memcmp(&a.op, &b.op, sizeof a.op) != 0;
    }
    assert_true(differ > 40);
}

static void test_valid_and_covering(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    int kinds[SS_ALIAS_KIND_COUNT] = {0}, dtypes[SS_DTYPE_COUNT] = {0};
    int overlaps[5] = {0}, ndims[SS_MAX_NDIM + 1] = {0};
    int neg_dim = 0, null_start = 0, null_end = 0, neg_start = 0, big_end = 0, end_lt_start = 0;
    int step_big = 0, step_small = 0, offset = 0, zero_size = 0, internal = 0, large = 0;
    for (uint64_t i = 0; i < N_CASES; i++) {
        ss_case c;
        ss_alias_kind k;
        assert_int_equal(ss_gen_case(&cfg, 7, i, &c, &k), 0);
        ss_plan p;
        ss_error err;
        if (ss_plan_build(&c.op, &p, &err) != 0)
            fail_msg("case %llu (%s): %s: %s", (unsigned long long)i, ss_alias_kind_name(k),
                     err.field, err.msg);
        assert_int_equal(c.op.elem_size, ss_dtype_size(c.dtype));
        assert_int_equal(c.explicit_values, 0);
        assert_true(c.op.input_storage_numel <= cfg.max_numel);
        kinds[k]++;
        dtypes[c.dtype]++;
        overlaps[ss_plan_overlap(&p)]++;
        ndims[c.op.input.ndim]++;
        if (k == SS_ALIAS_INVALID_INPUT) assert_true(p.internal_overlap);
        else assert_false(p.internal_overlap);
        if (k == SS_ALIAS_SEPARATE) assert_int_equal(ss_plan_overlap(&p), SS_OVL_SEPARATE);
        if (k == SS_ALIAS_SAME_VIEW && p.slice_numel > 0) assert_int_equal(ss_plan_overlap(&p), SS_OVL_SAME_VIEW);
        if (k == SS_ALIAS_OUTSIDE_SLICE) assert_int_equal(ss_plan_overlap(&p), SS_OVL_OUTSIDE_SLICE);
        internal += p.internal_overlap;
        neg_dim += c.op.dim < 0;
        null_start += !c.op.has_start;
        null_end += !c.op.has_end;
        neg_start += c.op.has_start && c.op.start < 0;
        big_end += c.op.has_end && c.op.end > c.op.input.sizes[p.dim];
        end_lt_start += c.op.has_start && c.op.has_end && c.op.end >= 0 && c.op.start >= 0 &&
                        c.op.end < c.op.start;
        step_big += c.op.step > c.op.input.sizes[p.dim];
        step_small += c.op.step > 1 && c.op.step <= c.op.input.sizes[p.dim];
        offset += c.op.input.offset > 0;
        zero_size += p.input_numel == 0;
        large += p.input_numel > (1 << 20);
    }
    for (int k = 0; k < SS_ALIAS_KIND_COUNT; k++) {
        print_message("kind %-14s %d\n", ss_alias_kind_name((ss_alias_kind)k), kinds[k]);
        assert_true(kinds[k] > N_CASES / 200);
    }
    for (int t = 0; t < SS_DTYPE_COUNT; t++) assert_true(dtypes[t] > N_CASES / 100);
    for (int o = 0; o < 5; o++) {
        print_message("overlap %-14s %d\n", ss_overlap_name((ss_overlap)o), overlaps[o]);
        assert_true(overlaps[o] > 0);
    }
    assert_true(overlaps[SS_OVL_PARTIAL] > N_CASES / 5);   /* the bug class dominates */
    assert_true(ndims[1] > ndims[2] && ndims[2] > ndims[3] && ndims[4] > 0);
    assert_true(internal > 0 && internal < N_CASES / 10);
    assert_true(neg_dim > 0 && null_start > 0 && null_end > 0 && neg_start > 0 && big_end > 0);
    assert_true(end_lt_start > 0 && step_big > 0 && step_small > 0 && offset > 0 && zero_size > 0);
    assert_true(large > 0 && large < N_CASES / 100);
    print_message("large %d, internal %d, empty %d\n", large, internal, zero_size);
}

/* Weights and caps are honoured: one kind only, one dtype only, small numel. */
static void test_config(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    memset(cfg.alias_weight, 0, sizeof cfg.alias_weight);
    cfg.alias_weight[SS_ALIAS_PERMUTED] = 1;
    memset(cfg.dtype_weight, 0, sizeof cfg.dtype_weight);
    cfg.dtype_weight[SS_INT16] = 1;
    cfg.max_numel = 200;
    cfg.max_ndim = 3;
    for (uint64_t i = 0; i < 3000; i++) {
        ss_case c;
        ss_alias_kind k;
        ss_gen_case(&cfg, 9, i, &c, &k);
        ss_plan p;
        assert_int_equal(ss_plan_build(&c.op, &p, NULL), 0);
        assert_int_equal(k, SS_ALIAS_PERMUTED);
        assert_int_equal(c.dtype, SS_INT16);
        assert_true(c.op.input.ndim >= 2 && c.op.input.ndim <= 3);
        assert_true(c.op.input_storage_numel <= 200);
    }
    /* a byte budget below the large cases keeps them out */
    ss_gen_config_default(&cfg);
    cfg.large_per_mille = 1000;
    cfg.max_bytes = 1 << 16;
    for (uint64_t i = 0; i < 500; i++) {
        ss_case c;
        ss_gen_case(&cfg, 3, i, &c, NULL);
        size_t bytes = (size_t)c.op.input_storage_numel * c.op.elem_size;
        if (!c.op.src_aliased) bytes += (size_t)c.op.src_storage_numel * c.op.elem_size;
        assert_true(bytes <= cfg.max_bytes);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_valid_and_covering),
        cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
