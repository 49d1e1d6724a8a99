/* test_cuda.c - on a machine with a CUDA device: cuda:* targets and the batched entry agree with the reference. */
/* (Elsewhere these tests skip, except under SSFUZZ_FAKE_CUDA=1, where they run the same paths on the emulator;
 * on a machine with a GPU a build that fell back to the stub fails.) */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ss_check.h"
#include "ss_cuda.h"
#include "ss_cuda_iso.h"
#include "ss_emu.h"
#include "ss_gen.h"
#include "ss_plan_build.h"
#include "ss_reference.h"
#include "ss_storage.h"
#include "ss_target.h"
#include "ss_test_util.h"

static const char *const correct[] = {"cuda:reinplace", "cuda:functional", "cuda:index"};

/* Generated cases (and their large ones): each correct cuda target agrees. */
static void test_generated_cases_agree(void **state) {
    (void)state;
    if (ss_cuda_unavailable()) { skip(); return; }
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = 1 << 16;
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    for (uint64_t i = 0; i < 400; i++) {
        ss_case c;
        ss_case_init(&c);
        assert_int_equal(ss_gen_case(&cfg, 77, i, &c, NULL), 0);
        ss_plan plan;
        ss_error err;
        assert_int_equal(ss_plan_build(&c.op, &plan, &err), 0);
        ss_run_status ref;
        char why[256];
        if (ss_check_prepare(&ctx, &c, &plan, &ref, why, sizeof why)) fail_msg("%s", why);
        for (size_t k = 0; k < 3; k++) {
            const ss_run_opts opts = {SS_SCHED_FORWARD, 0, 0};
            ss_check_result res;
            ss_check_target(&ctx, &plan, ref, ss_target_find(correct[k]), &opts, &res);
            if (res.verdict != SS_AGREE) {
                char diff[256] = "";
                ss_diff_format(&plan, &res.diff, diff, sizeof diff);
                fail_msg("case %llu on %s: %s %s %s", (unsigned long long)i, correct[k],
                         ss_verdict_name(res.verdict), res.why, diff);
            }
        }
        ss_case_free(&c);
    }
    ss_check_ctx_free(&ctx);
}

/* The batched entry point gives the reference's storages, and the same as one case at a time. */
static void test_batch_matches_single(void **state) {
    (void)state;
    if (ss_cuda_unavailable()) { skip(); return; }
    enum { N = 64 };
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = 4096;
    cfg.large_per_mille = 0;
    static ss_case cases[N];
    static ss_kprog progs[N];
    static ss_storage in[N], src[N], in1[N], src1[N], inr[N], srcr[N];
    static ss_plan plans[N];
    static ss_cuda_batch_item items[N];
    size_t n = 0;
    char why[256];
    for (uint64_t i = 0; n < N; i++) {
        ss_case *c = &cases[n];
        ss_case_init(c);
        assert_int_equal(ss_gen_case(&cfg, 5, i, c, NULL), 0);
        const int aliased = c->op.src_aliased;
        ss_error err;
        if (ss_plan_build(&c->op, &plans[n], &err) ||
            ss_kprog_build(SS_KERNEL_REINPLACE, &c->op, SS_GUARD_DEFAULT, SS_GUARD_DEFAULT, &progs[n],
                           why, sizeof why) != SS_RUN_OK) { ss_case_free(c); continue; }
        const size_t es = c->op.elem_size;
        assert_int_equal(ss_storage_reserve(&in[n], (size_t)c->op.input_storage_numel * es, SS_GUARD_DEFAULT), 0);
        assert_int_equal(ss_storage_reserve(&src[n], aliased ? 0 : (size_t)c->op.src_storage_numel * es, SS_GUARD_DEFAULT), 0);
        assert_int_equal(ss_storage_reserve(&in1[n], in[n].bytes, SS_GUARD_DEFAULT), 0);
        assert_int_equal(ss_storage_reserve(&src1[n], src[n].bytes, SS_GUARD_DEFAULT), 0);
        assert_int_equal(ss_storage_reserve(&inr[n], in[n].bytes, SS_GUARD_DEFAULT), 0);
        assert_int_equal(ss_storage_reserve(&srcr[n], src[n].bytes, SS_GUARD_DEFAULT), 0);
        ss_fill_case(c, &in[n], &src[n]);
        ss_storage_copy(&in1[n], &in[n]);
        ss_storage_copy(&src1[n], &src[n]);
        ss_storage_copy(&inr[n], &in[n]);
        ss_storage_copy(&srcr[n], &src[n]);
        assert_int_equal(ss_ref_run(&plans[n], &inr[n], aliased ? NULL : &srcr[n], why, sizeof why), SS_RUN_OK);
        items[n] = (ss_cuda_batch_item){&progs[n], &in[n], aliased ? NULL : &src[n]};
        n++;
    }
    assert_int_equal(ss_cuda_exec_batch(items, n, why, sizeof why), SS_RUN_OK);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(ss_cuda_exec(&progs[i], &in1[i], cases[i].op.src_aliased ? NULL : &src1[i],
                                      why, sizeof why), SS_RUN_OK);
        /* the batch against the reference, then against the single path */
        assert_memory_equal(in[i].base, inr[i].base, in[i].bytes + 2 * in[i].guard);
        assert_memory_equal(src[i].base, srcr[i].base, src[i].bytes + 2 * src[i].guard);
        assert_memory_equal(in[i].base, in1[i].base, in[i].bytes + 2 * in[i].guard);
        assert_memory_equal(src[i].base, src1[i].base, src[i].bytes + 2 * src[i].guard);
        ss_storage_free(&in[i]); ss_storage_free(&src[i]);
        ss_storage_free(&inr[i]); ss_storage_free(&srcr[i]);
        ss_storage_free(&in1[i]); ss_storage_free(&src1[i]);
        ss_case_free(&cases[i]);
    }
}

/* Cases of more work items than one grid has threads (8192 blocks x 256 =
 * 2 097 152): the grid-stride loop wraps. An aliased shift, 1-byte and 16-byte
 * elements, and a 2-D transposed-src case, on each correct target. */
static void test_large_cases_wrap(void **state) {
    (void)state;
    if (ss_cuda_unavailable()) { skip(); return; }
    const int64_t n = 2097152 + 4099;
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    for (int form = 0; form < 3; form++) {
        ss_case c;
        ss_case_init(&c);
        if (form < 2) {
            const int64_t sz[] = {n}, szm[] = {n - 1};
            c.dtype = form ? SS_COMPLEX128 : SS_UINT8;
            c.op = tu_op(form ? 16 : 1, n, tu_contig(0, 1, sz), tu_contig(0, 1, szm), 0, 1, 1, 0, 0, 1);
        } else {   /* x[:, :1024] = y.t(), x 2560 x 2048 float32, y 1024 x 2560 separate */
            const int64_t sz[] = {2560, 2048}, ysz[] = {2560, 1024}, yst[] = {1, 2560};
            c.dtype = SS_FLOAT32;
            c.op = tu_op(4, 2560 * 2048, tu_contig(0, 2, sz), tu_view(0, 2, ysz, yst), 1, 0, 0, 1, 1024, 1);
            c.op.src_aliased = 0;
            c.op.src_storage_numel = 2560 * 1024;
        }
        c.fill_seed = 11;
        ss_plan plan;
        ss_error err;
        if (ss_plan_build(&c.op, &plan, &err)) fail_msg("form %d: %s: %s", form, err.field, err.msg);
        ss_run_status ref;
        char why[256];
        if (ss_check_prepare(&ctx, &c, &plan, &ref, why, sizeof why)) fail_msg("%s", why);
        for (size_t k = 0; k < 3; k++) {
            const ss_run_opts opts = {SS_SCHED_FORWARD, 0, 0};
            ss_check_result res;
            ss_check_target(&ctx, &plan, ref, ss_target_find(correct[k]), &opts, &res);
            if (res.verdict != SS_AGREE)
                fail_msg("form %d on %s: %s %s", form, correct[k], ss_verdict_name(res.verdict), res.why);
        }
        ss_case_free(&c);
    }
    ss_check_ctx_free(&ctx);
}

/* On a machine with an NVIDIA driver (or SS_EXPECT_GPU=1), this build must run
 * the real engine: a build that silently fell back to the stub fails here. */
static void test_gpu_machine_runs_real_engine(void **state) {
    (void)state;
    const char *e = getenv("SS_EXPECT_GPU");
    const int expect = e ? !strcmp(e, "1") : access("/dev/nvidiactl", F_OK) == 0;
    if (!expect) { skip(); return; }
    if (strcmp(ss_cuda_engine(), "cuda"))
        fail_msg("a GPU is expected here, but the CUDA engine is '%s' (built without nvcc, SS_NO_CUDA=1, "
                 "or SSFUZZ_FAKE_CUDA set)", ss_cuda_engine());
    const char *r = ss_cuda_unavailable();
    if (r) fail_msg("a GPU is expected here, but: %s", r);
}

/* Without a device both entry points say why, as ss_cuda_unavailable does. */
static void test_unavailable_entry_points(void **state) {
    (void)state;
    const char *r = ss_cuda_unavailable();
    if (!r) { skip(); return; }
    char why[256];
    assert_int_equal(ss_cuda_exec_batch(NULL, 0, why, sizeof why), SS_RUN_UNAVAILABLE);
    assert_string_equal(why, r);
}

static int all_independent(const ss_kprog *p) {
    for (int i = 0; i < p->nlaunch; i++) if (!p->launch[i].indep) return 0;
    return 1;
}

/* A mutant whose launches are all order-independent gives one answer under
 * every schedule: the device's must be the emulator's forward one, bit for bit. */
static void test_order_independent_mutants_match_emu(void **state) {
    (void)state;
    if (ss_cuda_unavailable()) { skip(); return; }
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = 1 << 16;
    char why[256];
    for (int k = SS_KERNEL_REINPLACE; k < SS_KERNEL_COUNT; k++) {
        int compared = 0;
        for (uint64_t i = 0; i < 150; i++) {
            ss_case c;
            ss_case_init(&c);
            assert_int_equal(ss_gen_case(&cfg, 31, i, &c, NULL), 0);
            ss_kprog prog;
            const int aliased = c.op.src_aliased;
            if (ss_kprog_build((ss_kernel_id)k, &c.op, SS_GUARD_DEFAULT, SS_GUARD_DEFAULT, &prog, why,
                               sizeof why) != SS_RUN_OK || !all_independent(&prog)) { ss_case_free(&c); continue; }
            const size_t es = c.op.elem_size;
            ss_storage in = {0}, src = {0}, ein = {0}, esrc = {0};
            assert_int_equal(ss_storage_reserve(&in, (size_t)c.op.input_storage_numel * es, SS_GUARD_DEFAULT), 0);
            assert_int_equal(ss_storage_reserve(&src, aliased ? 0 : (size_t)c.op.src_storage_numel * es, SS_GUARD_DEFAULT), 0);
            assert_int_equal(ss_storage_reserve(&ein, in.bytes, SS_GUARD_DEFAULT), 0);
            assert_int_equal(ss_storage_reserve(&esrc, src.bytes, SS_GUARD_DEFAULT), 0);
            ss_fill_case(&c, &in, &src);
            ss_storage_copy(&ein, &in);
            ss_storage_copy(&esrc, &src);
            const ss_run_opts fwd = {SS_SCHED_FORWARD, 0, 0};
            assert_int_equal(ss_emu_run((ss_kernel_id)k, &c.op, &ein, aliased ? NULL : &esrc, &fwd, why, sizeof why), SS_RUN_OK);
            if (ss_cuda_exec(&prog, &in, aliased ? NULL : &src, why, sizeof why) != SS_RUN_OK)
                fail_msg("%s case %llu: %s", ss_kernel_name((ss_kernel_id)k), (unsigned long long)i, why);
            if (memcmp(in.base, ein.base, in.bytes + 2 * in.guard) || memcmp(src.base, esrc.base, src.bytes + 2 * src.guard))
                fail_msg("%s case %llu: the device differs from emu forward", ss_kernel_name((ss_kernel_id)k),
                         (unsigned long long)i);
            compared++;
            ss_storage_free(&in); ss_storage_free(&src); ss_storage_free(&ein); ss_storage_free(&esrc);
            ss_case_free(&c);
        }
        print_message("%s: %d order-independent programs equal to emu forward\n", ss_kernel_name((ss_kernel_id)k), compared);
        if (compared < 20) fail_msg("%s: only %d programs compared", ss_kernel_name((ss_kernel_id)k), compared);
    }
}

int main(void) {
    ss_cuda_iso_set(0);   /* the engine itself, in this process */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_cases_agree),
        cmocka_unit_test(test_batch_matches_single),
        cmocka_unit_test(test_unavailable_entry_points),
        cmocka_unit_test(test_large_cases_wrap),
        cmocka_unit_test(test_gpu_machine_runs_real_engine),
        cmocka_unit_test(test_order_independent_mutants_match_emu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
