/* test_cuda_fault.c - sticky CUDA errors, injected through the fake engine: the process is poisoned, a CUDA child is replaced. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ss_check.h"
#include "ss_cuda.h"
#include "ss_cuda_iso.h"
#include "ss_gen.h"
#include "ss_plan_build.h"
#include "ss_storage.h"
#include "ss_target.h"

/* A generated case, planned, with the reference's result prepared in ctx. */
static void prepare(ss_check_ctx *ctx, uint64_t index, ss_case *c, ss_plan *plan, ss_run_status *ref) {
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = 4096;
    cfg.large_per_mille = 0;
    char why[256];
    for (;; index += 1000) {
        ss_case_init(c);
        assert_int_equal(ss_gen_case(&cfg, 3, index, c, NULL), 0);
        ss_error err;
        if (ss_plan_build(&c->op, plan, &err) == 0 && !plan->internal_overlap) break;
        ss_case_free(c);
    }
    if (ss_check_prepare(ctx, c, plan, ref, why, sizeof why)) fail_msg("%s", why);
}

/* In one process: the faulting run fails naming the error, and poisons every later run. */
static void test_fault_poisons_the_process(void **state) {
    (void)state;
    assert_int_equal(ss_cuda_fake_configure("fault:2"), 0);
    assert_string_equal(ss_cuda_engine(), "fake");
    assert_null(ss_cuda_unavailable());
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    ss_case c;
    ss_plan plan;
    ss_run_status ref;
    prepare(&ctx, 1, &c, &plan, &ref);
    ss_kprog prog;
    char why[512];
    assert_int_equal(ss_kprog_build(SS_KERNEL_REINPLACE, &plan.op, ctx.tgt_in.guard, ctx.tgt_in.guard,
                                    &prog, why, sizeof why), SS_RUN_OK);
    ss_storage *src = plan.op.src_aliased ? NULL : &ctx.tgt_src;
    assert_int_equal(ss_cuda_exec(&prog, &ctx.tgt_in, src, why, sizeof why), SS_RUN_OK);
    assert_null(ss_cuda_poisoned());
    assert_int_equal(ss_cuda_exec(&prog, &ctx.tgt_in, src, why, sizeof why), SS_RUN_FAILED);
    assert_non_null(strstr(why, "illegal memory access"));
    assert_non_null(ss_cuda_poisoned());
    assert_ptr_equal(ss_cuda_unavailable(), ss_cuda_poisoned());
    assert_int_equal(ss_cuda_exec(&prog, &ctx.tgt_in, src, why, sizeof why), SS_RUN_UNAVAILABLE);
    assert_non_null(strstr(why, "poisoned"));
    assert_int_equal(ss_cuda_exec_batch(NULL, 0, why, sizeof why), SS_RUN_UNAVAILABLE);
    assert_int_equal(ss_cuda_fake_configure("1"), 0);   /* a fresh state */
    assert_null(ss_cuda_poisoned());
    assert_int_equal(ss_cuda_exec(&prog, &ctx.tgt_in, src, why, sizeof why), SS_RUN_OK);
    assert_int_equal(ss_cuda_fake_configure("fault:x"), -1);
    assert_int_equal(ss_cuda_fake_active(), 0);
    assert_int_equal(ss_cuda_fake_configure(NULL), 0);
    ss_case_free(&c);
    ss_check_ctx_free(&ctx);
}

/* Through the target (a CUDA child): the run after a poisoning agrees with the
 * reference again, in a new child; the faulting run is a crash, not a mismatch. */
static void test_child_replaced_after_poisoning(void **state) {
    (void)state;
    assert_int_equal(ss_cuda_fake_configure("fault:2"), 0);
    assert_true(ss_cuda_iso_enabled());
    const ss_target *t = ss_target_find("cuda:reinplace");
    assert_non_null(t);
    assert_null(t->unavailable(t));
    const long before = ss_cuda_iso_children();
    static const ss_verdict want[] = {SS_AGREE, SS_TARGET_FAILED, SS_AGREE, SS_TARGET_FAILED, SS_AGREE};
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    for (int i = 0; i < 5; i++) {
        ss_case c;
        ss_plan plan;
        ss_run_status ref;
        prepare(&ctx, (uint64_t)i + 10, &c, &plan, &ref);
        ss_check_result res;
        const ss_run_opts opts = {0, 0, 0};
        ss_check_target(&ctx, &plan, ref, t, &opts, &res);
        if (res.verdict != want[i])
            fail_msg("run %d: %s (%s), expected %s", i + 1, ss_verdict_name(res.verdict), res.why,
                     ss_verdict_name(want[i]));
        ss_case_free(&c);
    }
    assert_int_equal(ss_cuda_iso_children() - before, 2);   /* the probe started the first: one per poisoning */
    assert_null(ss_cuda_poisoned());                         /* this process never ran CUDA */
    ss_cuda_iso_stop();
    ss_check_ctx_free(&ctx);
    assert_int_equal(ss_cuda_fake_configure(NULL), 0);
}

/* A fork of a process with a CUDA child (triage's rechecks) starts its own
 * child instead of talking to its parent's; both keep working. */
static void test_fork_starts_its_own_child(void **state) {
    (void)state;
    assert_int_equal(ss_cuda_fake_configure("1"), 0);
    const ss_target *t = ss_target_find("cuda:reinplace");
    assert_null(t->unavailable(t));
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    ss_case c;
    ss_plan plan;
    ss_run_status ref;
    ss_check_result res;
    const ss_run_opts opts = {0, 0, 0};
    prepare(&ctx, 7, &c, &plan, &ref);
    ss_check_target(&ctx, &plan, ref, t, &opts, &res);
    assert_int_equal(res.verdict, SS_AGREE);
    const long mine = ss_cuda_iso_children();
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        ss_check_target(&ctx, &plan, ref, t, &opts, &res);
        _exit(res.verdict == SS_AGREE && ss_cuda_iso_children() == mine + 1 ? 0 : 1);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    ss_check_target(&ctx, &plan, ref, t, &opts, &res);   /* the parent's child is untouched */
    assert_int_equal(res.verdict, SS_AGREE);
    assert_int_equal(ss_cuda_iso_children(), mine);
    ss_cuda_iso_stop();
    ss_case_free(&c);
    ss_check_ctx_free(&ctx);
    assert_int_equal(ss_cuda_fake_configure(NULL), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_poisons_the_process),
        cmocka_unit_test(test_child_replaced_after_poisoning),
        cmocka_unit_test(test_fork_starts_its_own_child),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
