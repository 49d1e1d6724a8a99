/* test_mutants.c - each mutant is caught by its smallest hand-written case (docs/targets.md lists them). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "ss_check.h"
#include "ss_emu.h"
#include "ss_plan_build.h"
#include "ss_target.h"
#include "ss_test_util.h"

/* Verdict of `target` on op (float32, seeded fill) under schedule s. */
static ss_verdict verdict(const char *target, ss_op op, ss_schedule s) {
    const ss_target *t = ss_target_find(target);
    if (!t) fail_msg("no target %s", target);
    const ss_run_opts opts = {s, 1, 0};
    ss_check_result res;
    return tu_check(t, op, &opts, &res);
}

static ss_op separate(ss_op op, int64_t src_numel) {
    op.src_aliased = 0;
    op.src_storage_numel = src_numel;
    return op;
}

/* The smallest case of each mutant, as docs/targets.md states them. */
static ss_op smallest(const char *mutant) {
    if (!strcmp(mutant, "mut-alias-unchecked") || !strcmp(mutant, "mut-overlap-off-by-one"))
        /* x = [a, b, c]; x[1:] = x[:-1]: one shared element, forward order reads a stored b */
        return tu_op(4, 3, tu_contig(0, 1, TU_ARR(3)), tu_contig(0, 1, TU_ARR(2)), 0, 1, 1, 0, 0, 1);
    if (!strcmp(mutant, "mut-alias-same-ptr"))
        /* x 2x2; x[:] = x.t(): same data pointer, other layout, never staged */
        return tu_op(4, 4, tu_contig(0, 2, TU_ARR(2, 2)), tu_view(0, 2, TU_ARR(2, 2), TU_ARR(1, 2)),
                     0, 0, 0, 0, 0, 1);
    if (!strcmp(mutant, "mut-ignore-offset"))
        /* x = storage[1:2]; x[0:1] = y: lands on storage[0] */
        return separate(tu_op(4, 2, tu_contig(1, 1, TU_ARR(1)), tu_contig(0, 1, TU_ARR(1)), 0, 1, 0, 1, 1, 1), 1);
    if (!strcmp(mutant, "mut-contiguous-src"))
        /* x[:] = y[::2] (y of 3 elements): reads y[1] instead of y[2] */
        return separate(tu_op(4, 2, tu_contig(0, 1, TU_ARR(2)), tu_view(0, 1, TU_ARR(2), TU_ARR(2)), 0, 0, 0, 0, 0, 1), 3);
    if (!strcmp(mutant, "mut-step-ignored"))
        /* x of 3; x[::2] = y (2 elements): writes x[1] instead of x[2] */
        return separate(tu_op(4, 3, tu_contig(0, 1, TU_ARR(3)), tu_contig(0, 1, TU_ARR(2)), 0, 0, 0, 0, 0, 2), 2);
    /* mut-end-unclamped: x = storage[0:2] of 3; x[1:3] = y (1 element): also writes storage[2] */
    return separate(tu_op(4, 3, tu_contig(0, 1, TU_ARR(2)), tu_contig(0, 1, TU_ARR(1)), 0, 1, 1, 1, 3, 1), 2);
}

static const char *const mutants[] = {
    "mut-alias-unchecked", "mut-alias-same-ptr", "mut-overlap-off-by-one", "mut-ignore-offset",
    "mut-contiguous-src", "mut-step-ignored", "mut-end-unclamped",
};

/* Each mutant mismatches on its case; reinplace agrees on the same case under every schedule. */
static void test_each_mutant_is_caught(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof mutants / sizeof mutants[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "emu:%s", mutants[i]);
        const ss_verdict v = verdict(name, smallest(mutants[i]), SS_SCHED_FORWARD);
        if (v != SS_MISMATCH) fail_msg("%s: expected a mismatch, got %s", name, ss_verdict_name(v));
        for (int s = 0; s < SS_SCHED_COUNT; s++)
            assert_int_equal(verdict("emu:reinplace", smallest(mutants[i]), (ss_schedule)s), SS_AGREE);
    }
}

/* Every registered mutant has a case above (a new mutant needs one). */
static void test_every_mutant_listed(void **state) {
    (void)state;
    size_t n = 0;
    for (size_t i = 0; i < ss_target_count(); i++) {
        const ss_target *t = ss_target_at(i);
        if (!t->mutant || strcmp(t->engine->name, "emu")) continue;
        int found = 0;
        for (size_t j = 0; j < sizeof mutants / sizeof mutants[0]; j++) found |= !strcmp(mutants[j], t->kernel);
        if (!found) fail_msg("mutant %s has no smallest case", t->name);
        n++;
    }
    assert_int_equal(n, sizeof mutants / sizeof mutants[0]);
}

/* Overlap-check mutants distinguished: the off-by-one test still stages a
 * wider overlap that the unchecked kernel gets wrong. */
static void test_overlap_mutants_differ(void **state) {
    (void)state;
    const ss_op wide = tu_op(4, 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(0, 1, TU_ARR(7)), 0, 1, 1, 0, 0, 1);
    assert_int_equal(verdict("emu:mut-overlap-off-by-one", wide, SS_SCHED_FORWARD), SS_AGREE);
    assert_int_equal(verdict("emu:mut-alias-unchecked", wide, SS_SCHED_FORWARD), SS_MISMATCH);
    assert_int_equal(verdict("emu:mut-alias-same-ptr", wide, SS_SCHED_FORWARD), SS_MISMATCH);
    /* ...and the same-pointer check does stage a same-view copy (harmless either way) */
    const ss_op same = tu_op(4, 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(2, 1, TU_ARR(3)), 0, 1, 2, 1, 5, 1);
    assert_int_equal(verdict("emu:mut-alias-same-ptr", same, SS_SCHED_FORWARD), SS_AGREE);
}

/* Order-dependent mutants are right in one wave and wrong in a sequential
 * order; the reverse order hides x[1:] = x[:-1] but not its mirror. */
static void test_alias_schedules(void **state) {
    (void)state;
    const ss_op right = tu_op(4, 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(0, 1, TU_ARR(7)), 0, 1, 1, 0, 0, 1);
    const ss_op left = tu_op(4, 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(1, 1, TU_ARR(7)), 0, 0, 0, 1, -1, 1);
    assert_int_equal(verdict("emu:mut-alias-unchecked", right, SS_SCHED_LOCKSTEP), SS_AGREE);
    assert_int_equal(verdict("emu:mut-alias-unchecked", right, SS_SCHED_WARP), SS_AGREE);
    assert_int_equal(verdict("emu:mut-alias-unchecked", right, SS_SCHED_FORWARD), SS_MISMATCH);
    assert_int_equal(verdict("emu:mut-alias-unchecked", right, SS_SCHED_REVERSE), SS_AGREE);
    assert_int_equal(verdict("emu:mut-alias-unchecked", left, SS_SCHED_FORWARD), SS_AGREE);
    assert_int_equal(verdict("emu:mut-alias-unchecked", left, SS_SCHED_REVERSE), SS_MISMATCH);
    /* past one warp, lockstep groups of 32 leak the hazard at group edges */
    const ss_op big = tu_op(4, 100, tu_contig(0, 1, TU_ARR(100)), tu_contig(0, 1, TU_ARR(99)), 0, 1, 1, 0, 0, 1);
    assert_int_equal(verdict("emu:mut-alias-unchecked", big, SS_SCHED_LOCKSTEP), SS_AGREE);
    assert_int_equal(verdict("emu:mut-alias-unchecked", big, SS_SCHED_WARP), SS_MISMATCH);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_mutant_is_caught),
        cmocka_unit_test(test_every_mutant_listed),
        cmocka_unit_test(test_overlap_mutants_differ),
        cmocka_unit_test(test_alias_schedules),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    ss_emu_release();
    return rc;
}
