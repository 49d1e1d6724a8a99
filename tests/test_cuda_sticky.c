/* test_cuda_sticky.c - the sticky-error drill on a real GPU: an illegal address poisons a process; through the CUDA child, later runs agree. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "ss_check.h"
#include "ss_cuda.h"
#include "ss_cuda_iso.h"
#include "ss_plan_build.h"
#include "ss_target.h"
#include "ss_test_util.h"

/* x[1:] = x[:-1] on 4096 uint8 elements: planned, its storages prepared in ctx. */
static void shift_case(ss_check_ctx *ctx, ss_case *c, ss_plan *plan, ss_run_status *ref) {
    const int64_t sz[] = {4096}, szm[] = {4095};
    ss_case_init(c);
    c->dtype = SS_UINT8;
    c->op = tu_op(1, 4096, tu_contig(0, 1, sz), tu_contig(0, 1, szm), 0, 1, 1, 0, 0, 1);
    c->fill_seed = 5;
    ss_error err;
    assert_int_equal(ss_plan_build(&c->op, plan, &err), 0);
    char why[256];
    if (ss_check_prepare(ctx, c, plan, ref, why, sizeof why)) fail_msg("%s", why);
}

/* The same program with its first launch's stores moved 2^44 bytes away: an illegal address. */
static void illegal_prog(const ss_plan *plan, const ss_check_ctx *ctx, ss_kprog *prog) {
    char why[256];
    assert_int_equal(ss_kprog_build(SS_KERNEL_REINPLACE, &plan->op, ctx->tgt_in.guard, ctx->tgt_in.guard,
                                    prog, why, sizeof why), SS_RUN_OK);
    prog->launch[prog->nlaunch - 1].dst_off += (int64_t)1 << 44;
}

static ss_verdict run_target(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref, ss_check_result *res) {
    const ss_run_opts opts = {0, 0, 0};
    ss_check_target(ctx, plan, ref, ss_target_find("cuda:reinplace"), &opts, res);
    return res->verdict;
}

/* Good run, illegal address, good runs: through the CUDA child (replay's way),
 * then in this process (which the last step leaves poisoned). */
static void test_sticky_drill(void **state) {
    (void)state;
    const ss_target *t = ss_target_find("cuda:reinplace");
    /* this process must not touch CUDA before the child does: ask the child */
    if (strcmp(ss_cuda_engine(), "cuda") || t->unavailable(t)) { skip(); return; }
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    ss_case c;
    ss_plan plan;
    ss_run_status ref;
    ss_check_result res;
    char why[512];
    shift_case(&ctx, &c, &plan, &ref);
    assert_int_equal(run_target(&ctx, &plan, ref, &res), SS_AGREE);
    const long children = ss_cuda_iso_children();
    ss_kprog bad;
    illegal_prog(&plan, &ctx, &bad);
    const ss_run_status st = ss_cuda_iso_exec(&bad, &ctx.tgt_in, NULL, why, sizeof why);
    print_message("illegal launch through the child: %d, %s\n", (int)st, why);
    assert_int_equal(st, SS_RUN_FAILED);
    for (int i = 0; i < 3; i++) {
        if (run_target(&ctx, &plan, ref, &res) != SS_AGREE)
            fail_msg("run %d after the illegal address: %s (%s)", i + 1, ss_verdict_name(res.verdict), res.why);
    }
    assert_int_equal(ss_cuda_iso_children(), children + 1);
    ss_cuda_iso_stop();

    /* In process: the error is named, the process is poisoned, later runs say so. */
    ss_cuda_iso_set(0);
    ss_storage *in = &ctx.tgt_in;
    ss_kprog good;
    assert_int_equal(ss_kprog_build(SS_KERNEL_REINPLACE, &plan.op, in->guard, in->guard, &good, why, sizeof why), SS_RUN_OK);
    assert_int_equal(ss_cuda_exec(&good, in, NULL, why, sizeof why), SS_RUN_OK);
    assert_int_equal(ss_cuda_exec(&bad, in, NULL, why, sizeof why), SS_RUN_FAILED);
    print_message("illegal launch in process: %s\n", why);
    assert_non_null(ss_cuda_poisoned());
    assert_ptr_equal(ss_cuda_unavailable(), ss_cuda_poisoned());
    assert_int_equal(ss_cuda_exec(&good, in, NULL, why, sizeof why), SS_RUN_UNAVAILABLE);
    ss_case_free(&c);
    ss_check_ctx_free(&ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sticky_drill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
