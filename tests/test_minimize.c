/* test_minimize.c - the minimizer: results still fail, are 1-minimal and never grow. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ss_check.h"
#include "ss_gen.h"
#include "ss_minimize.h"
#include "ss_plan_build.h"
#include "ss_storage.h"
#include "ss_target.h"

/* A local stand-in for a mutant: an in-place forward copy with no overlap
 * check, written against the plan alone. */
static ss_run_status naive_run(const ss_target *t, const ss_plan *p, ss_storage *in, ss_storage *src,
                               const ss_run_opts *o, char *why, size_t n) {
    (void)t; (void)o;
    if (p->internal_overlap) { snprintf(why, n, "internal overlap"); return SS_RUN_REJECTED; }
    uint8_t *di = ss_storage_data(in), *ds = p->op.src_aliased ? di : ss_storage_data(src);
    const size_t es = p->op.elem_size;
    int64_t idx[SS_MAX_NDIM] = {0};
    for (int64_t k = 0; k < p->slice_numel; k++) {
        memcpy(di + ss_view_offset_of(&p->slice, idx) * es, ds + ss_view_offset_of(&p->op.src, idx) * es, es);
        for (int d = p->slice.ndim - 1; d >= 0 && ++idx[d] == p->slice.sizes[d]; d--) idx[d] = 0;
    }
    return SS_RUN_OK;
}

/* An engine of its own: not deterministic, so a finding is confirmed by reruns. */
static const ss_engine test_engine = {.name = "test", .kind = "kernel"};
static const ss_target naive = {"test:naive-forward", &test_engine, "naive-forward", 1, 0, NULL, 0, NULL, naive_run};

typedef struct probe {
    ss_check_ctx ctx;
    const ss_target *t;        /* NULL: the local naive target */
    ss_schedule sched;
    ss_verdict want;
    long calls;
    ss_case first;     /* for the never-grow check: every accepted step is smaller */
} probe;

static int still_fails(const ss_case *c, const ss_plan *plan, void *user) {
    probe *p = user;
    p->calls++;
    ss_run_status ref;
    char why[256];
    if (ss_check_prepare(&p->ctx, c, plan, &ref, why, sizeof why)) return 0;
    ss_check_result res;
    ss_run_opts ro = {p->sched, 1, 0};
    ss_check_target(&p->ctx, plan, ref, p->t ? p->t : &naive, &ro, &res);
    return res.verdict == p->want;
}

static ss_verdict verdict_of(probe *p, const ss_case *c) {
    ss_plan plan;
    assert_int_equal(ss_plan_build(&c->op, &plan, NULL), 0);
    ss_run_status ref;
    char why[256];
    assert_int_equal(ss_check_prepare(&p->ctx, c, &plan, &ref, why, sizeof why), 0);
    ss_check_result res;
    ss_run_opts ro = {p->sched, 1, 0};
    ss_check_target(&p->ctx, &plan, ref, p->t ? p->t : &naive, &ro, &res);
    return res.verdict;
}

/* Minimizes the first failing generated cases of a seed; checks the properties. */
static void test_generated_failures(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.large_per_mille = 0;
    probe p;
    memset(&p, 0, sizeof p);
    ss_check_ctx_init(&p.ctx);
    int found = 0;
    int64_t worst_numel = 0;
    for (uint64_t i = 0; i < 5000 && found < 25; i++) {
        ss_case c;
        ss_gen_case(&cfg, 11, i, &c, NULL);
        ss_plan plan;
        assert_int_equal(ss_plan_build(&c.op, &plan, NULL), 0);
        p.want = verdict_of(&p, &c);
        if (p.want == SS_AGREE) continue;
        found++;
        ss_case orig = c;
        ss_min_stats st;
        assert_int_equal(ss_minimize(&c, NULL, still_fails, &p, &st), 0);
        assert_false(st.budget_hit);
        assert_int_equal(verdict_of(&p, &c), p.want);                  /* still fails */
        assert_int_equal(ss_min_is_minimal(&c, 0, still_fails, &p), 1); /* 1-minimal */
        assert_true(ss_min_compare(&c, &orig) <= 0);                    /* never grows */
        assert_true(st.numel_after <= st.numel_before && st.ndim_after <= st.ndim_before);
        if (c.op.input.ndim != 1) {
            char *j = ss_case_to_json(&c);
            print_message("case %llu:\n%s\n", (unsigned long long)i, j);
            free(j);
        }
        assert_int_equal(c.op.input.ndim, 1);
        if (st.numel_after > worst_numel) worst_numel = st.numel_after;
        ss_case_free(&c);
    }
    print_message("%d failures minimized, largest storage after: %lld\n", found, (long long)worst_numel);
    assert_true(found >= 10);
    assert_true(worst_numel <= 4);
    ss_check_ctx_free(&p.ctx);
}

/* A hand-made 3-D mismatch with explicit values, a negative dim and float64. */
static void test_explicit_values(void **state) {
    (void)state;
    ss_case c;
    ss_case_init(&c);
    c.dtype = SS_FLOAT64;
    c.op.elem_size = 8;
    c.op.input_storage_numel = c.op.src_storage_numel = 40;
    c.op.src_aliased = 1;
    c.op.input = (ss_view){3, 3, {2, 3, 5}, {15, 5, 1}};
    c.op.dim = -1;
    c.op.has_start = 1;
    c.op.start = 1;
    c.op.step = 1;
    c.op.src = (ss_view){2, 3, {2, 3, 4}, {15, 5, 1}};   /* x[..., 1:] <- x[..., :-1] */
    c.explicit_values = 1;
    c.values_input = malloc(40 * 8);
    for (int i = 0; i < 40; i++) { double d = i * 1.5; memcpy(c.values_input + i * 8, &d, 8); }
    probe p;
    memset(&p, 0, sizeof p);
    ss_check_ctx_init(&p.ctx);
    p.want = verdict_of(&p, &c);
    assert_int_equal(p.want, SS_MISMATCH);
    ss_case orig;
    assert_int_equal(ss_case_copy(&orig, &c), 0);
    ss_min_stats st;
    assert_int_equal(ss_minimize(&c, NULL, still_fails, &p, &st), 0);
    assert_int_equal(verdict_of(&p, &c), SS_MISMATCH);
    assert_int_equal(ss_min_is_minimal(&c, 0, still_fails, &p), 1);
    assert_true(ss_min_compare(&c, &orig) < 0);
    assert_int_equal(c.explicit_values, 0);
    assert_int_equal(c.op.input.ndim, 1);
    assert_int_equal(c.dtype, SS_UINT8);
    assert_true(ss_min_numel(&c) <= 3);
    print_message("explicit case: %lld -> %lld elements in %ld attempts\n",
                  (long long)st.numel_before, (long long)st.numel_after, st.attempts);
    ss_case_free(&c);
    ss_case_free(&orig);
    ss_check_ctx_free(&p.ctx);
}

/* Every emulated mutant: the first failing generated case per schedule
 * shrinks to a 1-minimal, still failing, no larger case; aliasing mutants'
 * mismatches end as a 1-D storage of a handful of elements. */
static void test_emu_mutants(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.large_per_mille = 0;
    probe p;
    memset(&p, 0, sizeof p);
    ss_check_ctx_init(&p.ctx);
    int mutants = 0;
    for (size_t ti = 0; ti < ss_target_count(); ti++) {
        const ss_target *t = ss_target_at(ti);
        if (!t->mutant || strcmp(t->engine->name, "emu")) continue;
        mutants++;
        p.t = t;
        int killed = 0;
        for (int s = 0; s < SS_SCHED_COUNT; s++) {
            p.sched = (ss_schedule)s;
            for (uint64_t i = 0; i < 3000; i++) {
                ss_case c;
                ss_gen_case(&cfg, 21, i, &c, NULL);
                p.want = verdict_of(&p, &c);
                if (p.want == SS_AGREE) continue;
                ss_case orig = c;
                ss_min_stats st;
                assert_int_equal(ss_minimize(&c, NULL, still_fails, &p, &st), 0);
                assert_false(st.budget_hit);
                assert_int_equal(verdict_of(&p, &c), p.want);
                assert_int_equal(ss_min_is_minimal(&c, 0, still_fails, &p), 1);
                assert_true(ss_min_compare(&c, &orig) <= 0);
                /* random groupings have their own boundaries: no 1-D promise there */
                if (p.want == SS_MISMATCH && !strncmp(t->kernel, "mut-alias", 9) && s != SS_SCHED_RANDOM) {
                    if (c.op.input.ndim != 1) {
                        char *j = ss_case_to_json(&c);
                        print_message("%s\n", j);
                        free(j);
                    }
                    assert_int_equal(c.op.input.ndim, 1);
                    if (s == SS_SCHED_FORWARD || s == SS_SCHED_REVERSE) assert_true(ss_min_numel(&c) <= 4);
                }
                print_message("%-28s %-8s %-24s %d-D -> %d-D, %lld -> %lld elements, %ld tries\n",
                              t->name, ss_schedule_name((ss_schedule)s), ss_verdict_name(p.want),
                              st.ndim_before, st.ndim_after, (long long)st.numel_before,
                              (long long)st.numel_after, st.attempts);
                ss_case_free(&c);
                killed = 1;
                break;
            }
        }
        assert_true(killed);
    }
    assert_true(mutants >= 5);
    ss_check_ctx_free(&p.ctx);
}

static int always(const ss_case *c, const ss_plan *plan, void *user) {
    (void)c; (void)plan;
    ++*(long *)user;
    return 1;
}

/* With a predicate that always holds the case collapses to the order's minimum,
 * and the attempt budget is honoured. */
static void test_budget_and_floor(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    ss_case c;
    ss_gen_case(&cfg, 5, 17, &c, NULL);
    long calls = 0;
    ss_min_opts o = {.max_attempts = 3};
    ss_min_stats st;
    assert_int_equal(ss_minimize(&c, &o, always, &calls, &st), 0);
    assert_true(calls <= 3);
    calls = 0;
    assert_int_equal(ss_minimize(&c, NULL, always, &calls, &st), 0);
    assert_false(st.budget_hit);
    assert_int_equal(ss_min_is_minimal(&c, 0, always, &calls), 1);
    assert_int_equal(c.op.input.ndim, 1);
    assert_int_equal(ss_min_numel(&c), 0);
    ss_case_free(&c);
}

/* A compiler stand-in that raises where eager runs: one exception on storages of
 * 6 elements or more, another below. */
static ss_run_status raising_run(const ss_target *t, const ss_plan *p, ss_storage *in, ss_storage *src,
                                 const ss_run_opts *o, char *why, size_t n) {
    (void)t; (void)in; (void)src; (void)o;
    if (p->op.input_storage_numel >= 6)
        snprintf(why, n, "compiled raises AssertionError: incorrect out shape %lld; eager runs it",
                 (long long)p->op.input_storage_numel);
    else
        snprintf(why, n, "compiled raises KeyError: small; eager runs it");
    return SS_RUN_RAISED;
}
static const ss_target raising = {"test:raising", &test_engine, "raising", 1, 0, NULL, 0, NULL, raising_run};

/* p set up to minimize a raise on target t, with p->last holding c's raise as
 * the campaign found it. */
static void found_raise(ss_min_target *p, ss_check_ctx *ctx, const ss_target *t, const ss_case *c) {
    ss_check_ctx_init(ctx);
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->target = t;
    p->opts = (ss_run_opts){SS_SCHED_FORWARD, 1, 0};
    p->want = SS_RAISED;
    ss_plan plan;
    assert_int_equal(ss_plan_build(&c->op, &plan, NULL), 0);
    assert_int_equal(ss_min_target_pred(c, &plan, p), 1);
}

/* A raised finding minimizes to a case that raises the same exception (its
 * numbers may change), never into another exception of a smaller case. */
static void test_raise_kept(void **state) {
    (void)state;
    ss_case c;
    ss_case_init(&c);
    c.dtype = SS_UINT8;
    c.op.elem_size = 1;
    c.op.input_storage_numel = 40;
    c.op.src_storage_numel = 10;
    c.op.input = (ss_view){0, 1, {40}, {1}};
    c.op.src = (ss_view){0, 1, {10}, {1}};
    c.op.dim = 0;
    c.op.has_start = c.op.has_end = 1;
    c.op.start = 5;
    c.op.end = 15;
    c.op.step = 1;
    ss_check_ctx ctx;
    ss_min_target p;
    found_raise(&p, &ctx, &raising, &c);
    ss_min_stats st;
    char detail[512];
    const ss_min_opts mo = {0, 60, 0, NULL};
    assert_int_equal(ss_min_target_run(&c, &mo, &p, &st, detail, sizeof detail), 0);
    assert_string_equal(p.raise, "AssertionError: incorrect out shape # / eager runs");
    assert_int_equal(c.op.input_storage_numel, 6);   /* the smallest that raises it */
    assert_non_null(strstr(detail, "AssertionError: incorrect out shape 6"));
    ss_case_free(&c);
    ss_check_ctx_free(&ctx);
}

/* A compiler stand-in that raised once, when the campaign found it, and
 * never again: every rerun gives a result the reference disagrees with. */
static int flaky_calls;
static ss_run_status flaky_run(const ss_target *t, const ss_plan *p, ss_storage *in, ss_storage *src,
                               const ss_run_opts *o, char *why, size_t n) {
    (void)t; (void)p; (void)in; (void)src; (void)o;
    if (flaky_calls++) return SS_RUN_OK;
    snprintf(why, n, "compiled raises RuntimeError: race in a kernel 7; eager runs it");
    return SS_RUN_RAISED;
}
static const ss_target flaky = {"test:flaky", &test_engine, "flaky", 1, 0, NULL, 0, NULL, flaky_run};

/* A raised finding that no rerun reproduces keeps its exception in its
 * detail, beside the rerun count: its dedup key is made from the exception. */
static void test_unreproduced_raise_keeps_exception(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = 64;
    cfg.large_per_mille = 0;
    ss_case c;
    assert_int_equal(ss_gen_case(&cfg, 3, 1, &c, NULL), 0);
    ss_check_ctx ctx;
    ss_min_target p;
    flaky_calls = 0;
    found_raise(&p, &ctx, &flaky, &c);   /* the one raise: the finding */
    ss_min_stats st;
    char detail[512], key[SS_RAISE_KEY_LEN];
    const ss_min_opts mo = {0, 60, 0, NULL};
    (void)ss_min_target_run(&c, &mo, &p, &st, detail, sizeof detail);
    assert_string_equal(detail, "compiled raises RuntimeError: race in a kernel 7; eager runs it; "
                                "nondeterministic: failed 0 of 3 reruns of this case");
    ss_raise_key(detail, key, sizeof key);
    assert_string_equal(key, "RuntimeError: race in a kernel / eager runs");
    ss_case_free(&c);
    ss_check_ctx_free(&ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_failures),
        cmocka_unit_test(test_explicit_values),
        cmocka_unit_test(test_emu_mutants),
        cmocka_unit_test(test_budget_and_floor),
        cmocka_unit_test(test_raise_kept),
        cmocka_unit_test(test_unreproduced_raise_keeps_exception),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
