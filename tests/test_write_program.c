/* test_write_program.c - a case's single write and its one-step program (ss_program_of_write):
 * the write's reference (ss_ref_run) and the program reference agree bit for bit on generated
 * cases of every dtype, alias kind and spelling, raw bit fills (NaN payloads, -0.0) included. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "ss_gen.h"
#include "ss_plan_build.h"
#include "ss_program.h"
#include "ss_program_ref.h"
#include "ss_reference.h"
#include "ss_storage.h"

static const char *const spellings[] = {"setitem", "setitem-clone", "copy", "scatter-copy",
                                        "scatter-return", "clone-scatter", "index-put"};
#define NSPELLINGS (sizeof spellings / sizeof spellings[0])

/* Whether eager PyTorch may refuse the spelling on this overlap class: copy_ (setitem,
 * copy) when src partially overlaps the slice it writes (the same elements count as
 * partial when a size-1 dim's stride differs: PyTorch compares the strides whole);
 * index_put_ when its values share any element with x, which it writes as a whole. The
 * other spellings read src into a fresh tensor first. */
static int pytorch_refuses(const char *spelling, ss_overlap o) {
    if (!strcmp(spelling, "setitem") || !strcmp(spelling, "copy"))
        return o == SS_OVL_PARTIAL || o == SS_OVL_SAME_VIEW;
    if (!strcmp(spelling, "index-put"))
        return o == SS_OVL_PARTIAL || o == SS_OVL_SAME_VIEW || o == SS_OVL_OUTSIDE_SLICE;
    return 0;
}

typedef struct tally {
    long agree, refused, rejected;
    long per_dtype[SS_DTYPE_COUNT], per_alias[SS_ALIAS_KIND_COUNT];
} tally;

/* One case under one spelling: both references from the same initial storages. */
static void check_one(const ss_case *c, const ss_plan *plan, ss_alias_kind kind, const char *spelling,
                      const ss_storage *init_in, const ss_storage *init_src, tally *t) {
    ss_storage ref_in = {0}, ref_src = {0}, prog_in = {0}, prog_src = {0};
    assert_int_equal(ss_storage_reserve(&ref_in, init_in->bytes, SS_GUARD_DEFAULT), 0);
    assert_int_equal(ss_storage_reserve(&ref_src, init_src->bytes, SS_GUARD_DEFAULT), 0);
    assert_int_equal(ss_storage_reserve(&prog_in, init_in->bytes, SS_GUARD_DEFAULT), 0);
    assert_int_equal(ss_storage_reserve(&prog_src, init_src->bytes, SS_GUARD_DEFAULT), 0);
    ss_storage_copy(&ref_in, init_in);
    ss_storage_copy(&ref_src, init_src);
    ss_storage_copy(&prog_in, init_in);
    ss_storage_copy(&prog_src, init_src);

    char why[256];
    const ss_run_status ref = ss_ref_run(plan, &ref_in, &ref_src, why, sizeof why);
    ss_case pc = *c;   /* the case with its write as a program (the program is ours to free) */
    pc.program = ss_program_of_write(&c->op, spelling);
    assert_non_null(pc.program);
    ss_prog_result res;
    const ss_prog_status st = ss_prog_ref_run(&pc, plan, &prog_in, &prog_src, &res);

    char where[160];
    snprintf(where, sizeof where, "%s %s %s, overlap %s", ss_dtype_name(c->dtype), ss_alias_kind_name(kind),
             spelling, plan->internal_overlap ? "internal" : ss_overlap_name(ss_plan_overlap(plan)));
    if (ref == SS_RUN_REJECTED) {
        /* x has internal overlap: the write (slice_scatter written back through all of x)
         * has no defined result. A program writes only what its steps write: a slice
         * without internal overlap of its own is written (setitem, copy), and index_put_
         * runs anyway (PyTorch only warns; elements reached twice are left open). */
        const int slice_ok = ss_view_has_internal_overlap(&plan->slice) == 0 &&
                             (!strcmp(spelling, "setitem") || !strcmp(spelling, "setitem-clone") ||
                              !strcmp(spelling, "copy"));
        if (st != SS_PROG_REFUSED && !(st == SS_PROG_OK && (slice_ok || !strcmp(spelling, "index-put"))))
            fail_msg("%s: the write is rejected, the program %d", where, st);
        t->rejected++;
    } else if (st == SS_PROG_REFUSED && res.raises && pytorch_refuses(spelling, ss_plan_overlap(plan))) {
        t->refused++;   /* PyTorch's own refusal, which the write world leaves to the engine */
    } else {
        if (ref != SS_RUN_OK) fail_msg("%s: the write's reference: %s", where, why);
        if (st != SS_PROG_OK) fail_msg("%s: the program: status %d (%s%s)", where, st, res.why, res.err.msg);
        if (memcmp(ss_storage_data(&ref_in), ss_storage_data(&prog_in), ref_in.bytes))
            fail_msg("%s: the input storages differ", where);
        if (ref_src.bytes && memcmp(ss_storage_data(&ref_src), ss_storage_data(&prog_src), ref_src.bytes))
            fail_msg("%s: the src storages differ", where);
        assert_true(ss_storage_guards_intact(&prog_in));
        t->agree++;
        t->per_dtype[c->dtype]++;
        t->per_alias[kind]++;
    }
    ss_prog_result_free(&res);
    ss_program_free(pc.program);
    ss_storage_free(&ref_in);
    ss_storage_free(&ref_src);
    ss_storage_free(&prog_in);
    ss_storage_free(&prog_src);
}

static void test_write_is_a_one_step_program(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = 2048;   /* a program's views stay under SS_PROG_MAX_NUMEL */
    tally t;
    memset(&t, 0, sizeof t);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        for (uint64_t i = 0; i < 1500; i++) {
            ss_case c;
            ss_alias_kind kind;
            assert_int_equal(ss_gen_case(&cfg, seed, i, &c, &kind), 0);
            ss_plan plan;
            ss_error err;
            if (ss_plan_build(&c.op, &plan, &err)) fail_msg("seed %llu case %llu: %s: %s",
                                                            (unsigned long long)seed, (unsigned long long)i,
                                                            err.field, err.msg);
            const size_t es = c.op.elem_size;
            ss_storage in = {0}, src = {0};
            assert_int_equal(ss_storage_reserve(&in, (size_t)c.op.input_storage_numel * es, SS_GUARD_DEFAULT), 0);
            assert_int_equal(ss_storage_reserve(&src, c.op.src_aliased ? 0 : (size_t)c.op.src_storage_numel * es,
                                                SS_GUARD_DEFAULT), 0);
            ss_fill_case(&c, &in, &src);
            for (size_t s = 0; s < NSPELLINGS; s++) check_one(&c, &plan, kind, spellings[s], &in, &src, &t);
            ss_storage_free(&in);
            ss_storage_free(&src);
            ss_case_free(&c);
        }
    }
    print_message("%ld agree, %ld refused by PyTorch's overlap rule, %ld rejected (internal overlap)\n",
                  t.agree, t.refused, t.rejected);
    /* the sample reaches every dtype and alias kind with a defined result */
    for (int d = 0; d < SS_DTYPE_COUNT; d++)
        if (t.per_dtype[d] == 0) fail_msg("no case of dtype %s agreed", ss_dtype_name((ss_dtype)d));
    for (int k = 0; k < SS_ALIAS_KIND_COUNT; k++)
        if (k != SS_ALIAS_INVALID_INPUT && t.per_alias[k] == 0)
            fail_msg("no case of alias kind %s agreed", ss_alias_kind_name((ss_alias_kind)k));
    assert_true(t.rejected > 0);
    assert_true(t.refused > 0);
}

/* What the translation writes, step by step. */
static void test_translation(void **state) {
    (void)state;
    ss_op op;
    memset(&op, 0, sizeof op);
    op.dim = -1;
    op.has_start = 1;
    op.start = 2;
    op.step = 3;
    ss_program *p = ss_program_of_write(&op, "copy");
    assert_non_null(p);
    assert_int_equal(p->nsteps, 1);
    assert_int_equal(p->steps[0].op, SS_STEP_WRITE);
    assert_string_equal(ss_spelling_name(p->steps[0].kind), "copy");
    assert_int_equal(p->steps[0].of, SS_NAME_X);
    assert_int_equal(p->steps[0].operand.name, SS_NAME_SRC);
    assert_false(p->steps[0].has_dim);   /* the case's dim/start/end/step */
    assert_int_equal(p->steps[0].start_state, SS_BOUND_ABSENT);
    ss_program_free(p);

    p = ss_program_of_write(&op, "scatter-return");
    assert_non_null(p);
    assert_int_equal(p->nsteps, 3);
    assert_int_equal(p->steps[0].kind, SS_RK_SLICE_SCATTER);
    assert_int_equal(p->steps[0].dim, -1);
    assert_int_equal(p->steps[0].start_state, SS_BOUND_INT);
    assert_int_equal(p->steps[0].start, 2);
    assert_int_equal(p->steps[0].end_state, SS_BOUND_NULL);
    assert_int_equal(p->steps[0].step, 3);
    assert_int_equal(p->steps[1].kind, SS_IK_ZERO);
    assert_int_equal(p->steps[2].kind, SS_IK_COPY);
    assert_int_equal(p->steps[2].operand.name, p->steps[0].name);
    ss_program_free(p);

    assert_null(ss_program_of_write(&op, "program"));
    assert_null(ss_program_of_write(&op, "setitem "));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_translation),
        cmocka_unit_test(test_write_is_a_one_step_program),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
