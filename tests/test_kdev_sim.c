/* test_kdev_sim.c - the device's code path (ss_k_offsets, grid-stride waves, aligned typed accesses) simulated on the CPU agrees with the emulator, for every kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_emu.h"
#include "ss_gen.h"
#include "ss_kdev_sim.h"
#include "ss_kernels.h"
#include "ss_plan_build.h"
#include "ss_storage.h"
#include "ss_test_util.h"

/* One case's storages: the initial fill and a working copy. */
typedef struct sim_case {
    ss_storage in0, src0, in, src;
    int aliased;
} sim_case;

static void sim_reset(sim_case *s) {
    ss_storage_copy(&s->in, &s->in0);
    ss_storage_copy(&s->src, &s->src0);
}

/* Run prog through the simulation on s's working copy (data pointers 16-byte aligned, as on the device). */
static void sim_run(const ss_kprog *prog, sim_case *s, ss_kdev_order order, const char *what) {
    uint8_t *tmp = aligned_alloc(16, ((size_t)prog->tmp_bytes + 16) & ~(size_t)15);
    uint8_t *idx = aligned_alloc(16, ((size_t)prog->idx_bytes + 16) & ~(size_t)15);
    assert_non_null(tmp);
    assert_non_null(idx);
    uint8_t *bufs[SS_KB_COUNT];
    bufs[SS_KB_INPUT] = ss_storage_data(&s->in);
    bufs[SS_KB_SRC] = s->aliased ? bufs[SS_KB_INPUT] : ss_storage_data(&s->src);
    bufs[SS_KB_TMP] = tmp;
    bufs[SS_KB_IDX] = idx;
    for (int b = 0; b < SS_KB_COUNT; b++) assert_int_equal((uintptr_t)bufs[b] % 16, 0);
    char why[256];
    if (ss_kdev_sim_exec(prog, bufs, order, why, sizeof why)) fail_msg("%s: %s", what, why);
    free(tmp);
    free(idx);
}

static int all_independent(const ss_kprog *p) {
    for (int i = 0; i < p->nlaunch; i++) if (!p->launch[i].indep) return 0;
    return 1;
}

static void storages_equal(const ss_storage *a, const ss_storage *b, const char *what) {
    if (memcmp(a->base, b->base, a->bytes + 2 * a->guard))
        fail_msg("%s: storages differ", what);
}

/* Kernel k on case c: sequential simulation == emulator forward, always; the
 * wave simulation too when no launch depends on order, and for every correct
 * kernel (whose result never depends on it). */
static int check_case(ss_kernel_id k, const ss_case *c, sim_case *s) {
    const int correct = k == SS_KERNEL_REINPLACE || k == SS_KERNEL_FUNCTIONAL || k == SS_KERNEL_INDEX;
    char why[256], what[160];
    ss_kprog prog;
    const size_t es = c->op.elem_size;
    if (ss_kprog_build(k, &c->op, SS_GUARD_DEFAULT, SS_GUARD_DEFAULT, &prog, why, sizeof why) != SS_RUN_OK)
        return 0;
    s->aliased = c->op.src_aliased;
    assert_int_equal(ss_storage_reserve(&s->in0, (size_t)c->op.input_storage_numel * es, SS_GUARD_DEFAULT), 0);
    assert_int_equal(ss_storage_reserve(&s->src0, s->aliased ? 0 : (size_t)c->op.src_storage_numel * es,
                                        SS_GUARD_DEFAULT), 0);
    assert_int_equal(ss_storage_reserve(&s->in, s->in0.bytes, SS_GUARD_DEFAULT), 0);
    assert_int_equal(ss_storage_reserve(&s->src, s->src0.bytes, SS_GUARD_DEFAULT), 0);
    ss_fill_case(c, &s->in0, &s->src0);
    sim_reset(s);
    const ss_run_opts fwd = {SS_SCHED_FORWARD, 0, 0};
    assert_int_equal(ss_emu_run(k, &c->op, &s->in, s->aliased ? NULL : &s->src, &fwd, why, sizeof why), SS_RUN_OK);
    ss_storage e_in = {0}, e_src = {0};
    assert_int_equal(ss_storage_reserve(&e_in, s->in.bytes, SS_GUARD_DEFAULT), 0);
    assert_int_equal(ss_storage_reserve(&e_src, s->src.bytes, SS_GUARD_DEFAULT), 0);
    ss_storage_copy(&e_in, &s->in);
    ss_storage_copy(&e_src, &s->src);
    snprintf(what, sizeof what, "%s, %d launches, sequential", ss_kernel_name(k), prog.nlaunch);
    sim_reset(s);
    sim_run(&prog, s, SS_KDEV_SEQUENTIAL, what);
    storages_equal(&s->in, &e_in, what);
    storages_equal(&s->src, &e_src, what);
    int waves = 0;
    if (correct || all_independent(&prog)) {
        snprintf(what, sizeof what, "%s, %d launches, waves", ss_kernel_name(k), prog.nlaunch);
        sim_reset(s);
        sim_run(&prog, s, SS_KDEV_WAVES, what);
        storages_equal(&s->in, &e_in, what);
        storages_equal(&s->src, &e_src, what);
        waves = 1;
    }
    ss_storage_free(&e_in);
    ss_storage_free(&e_src);
    ss_storage_free(&s->in0); ss_storage_free(&s->src0);
    ss_storage_free(&s->in); ss_storage_free(&s->src);
    return 1 + waves;
}

static void test_generated_cases_every_kernel(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = 1 << 14;
    cfg.large_per_mille = 0;
    for (int k = 0; k < SS_KERNEL_COUNT; k++) {
        int ran = 0, waves = 0;
        for (uint64_t i = 0; i < 300; i++) {
            ss_case c;
            ss_case_init(&c);
            assert_int_equal(ss_gen_case(&cfg, 2026, i, &c, NULL), 0);
            sim_case s;
            memset(&s, 0, sizeof s);
            const int r = check_case((ss_kernel_id)k, &c, &s);
            ran += r > 0;
            waves += r > 1;
            ss_case_free(&c);
        }
        if (ran < 200) fail_msg("%s: only %d of 300 cases ran", ss_kernel_name((ss_kernel_id)k), ran);
        if (k < 3 && waves != ran) fail_msg("%s: %d of %d programs order-dependent",
                                            ss_kernel_name((ss_kernel_id)k), ran - waves, ran);
    }
}

/* More items than one grid of threads (8192 blocks x 256 = 2 097 152): the
 * grid-stride loop wraps, and the waves still give the emulator's result. */
static void test_grid_stride_wraps(void **state) {
    (void)state;
    const int64_t n = (int64_t)SS_K_MAX_GRID * SS_K_BLOCK + 4099;
    const int64_t sz[] = {n}, szm[] = {n - 1};
    static const ss_kernel_id kernels[] = {SS_KERNEL_REINPLACE, SS_KERNEL_FUNCTIONAL, SS_KERNEL_INDEX};
    for (size_t e = 0; e < 2; e++) {
        ss_case c;
        ss_case_init(&c);
        c.op = tu_op(e ? 16 : 1, n, tu_contig(0, 1, sz), tu_contig(0, 1, szm), 0, 1, 1, 0, 0, 1);
        c.fill_seed = 9;
        c.dtype = e ? SS_COMPLEX128 : SS_UINT8;
        for (size_t k = 0; k < 3; k++) {
            sim_case s;
            memset(&s, 0, sizeof s);
            assert_int_equal(check_case(kernels[k], &c, &s), 2);
        }
        ss_case_free(&c);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_cases_every_kernel),
        cmocka_unit_test(test_grid_stride_wraps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
