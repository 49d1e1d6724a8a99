/* test_targets.c - the target registry, schedule names, and the CUDA target's availability. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "ss_kernels.h"
#include "ss_plan_build.h"
#include "ss_target.h"
#include "ss_torch.h"
#include "ss_test_util.h"

static void test_registry(void **state) {
    (void)state;
    assert_int_equal(ss_target_count(), 2 * SS_KERNEL_COUNT + ss_torch_target_count());
    for (int k = 0; k < SS_KERNEL_COUNT; k++) {
        static const char *const engines[] = {"emu", "cuda"};
        for (int e = 0; e < 2; e++) {
            char name[64];
            snprintf(name, sizeof name, "%s:%s", engines[e], ss_kernel_name((ss_kernel_id)k));
            const ss_target *t = ss_target_find(name);
            if (!t) fail_msg("no target %s", name);
            assert_string_equal(t->engine->name, engines[e]);
            assert_string_equal(t->kernel, ss_kernel_name((ss_kernel_id)k));
            assert_int_equal(t->mutant, ss_kernel_is_mutant((ss_kernel_id)k));
            assert_int_equal(t->scheduled, e == 0 ? SS_SCHED_COUNT : 0);
            assert_int_equal(t->explicit_only, 0);
            ss_kernel_id back;
            assert_int_equal(ss_kernel_from_name(t->kernel, &back), 0);
            assert_int_equal(back, k);
        }
    }
    assert_null(ss_target_find("emu:nope"));
    assert_null(ss_target_find("reinplace"));
    assert_null(ss_target_at(ss_target_count()));
    assert_null(ss_target_find("emu:reinplace")->unavailable(ss_target_find("emu:reinplace")));
}

static void test_schedule_names(void **state) {
    (void)state;
    for (int s = 0; s < SS_SCHED_COUNT; s++) {
        ss_schedule back;
        assert_int_equal(ss_schedule_from_name(ss_schedule_name((ss_schedule)s), &back), 0);
        assert_int_equal(back, s);
    }
    ss_schedule x;
    assert_int_equal(ss_schedule_from_name("all", &x), -1);
    assert_int_equal(ss_schedule_from_name("Forward", &x), -1);
    assert_string_equal(ss_schedule_name(SS_SCHED_LOCKSTEP), "lockstep");
}

/* Where there is no device, every cuda:* target says why, the same way,
 * and its run reports SS_RUN_UNAVAILABLE with that reason. */
static void test_cuda_unavailable_reason(void **state) {
    (void)state;
    const ss_target *t = ss_target_find("cuda:reinplace");
    const char *why = t->unavailable(t);
    if (!why) { skip(); return; }
    assert_true(strstr(why, "nvcc") || strstr(why, "no CUDA device"));
    for (size_t i = 0; i < ss_target_count(); i++)
        if (!strcmp(ss_target_at(i)->engine->name, "cuda"))
            assert_string_equal(ss_target_at(i)->unavailable(ss_target_at(i)), why);
    const ss_op op = tu_op(4, 4, tu_contig(0, 1, TU_ARR(4)), tu_contig(0, 1, TU_ARR(3)), 0, 1, 1, 0, 0, 1);
    ss_plan plan;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &plan, &err), 0);
    uint8_t in_bytes[16 + 2 * 64] = {0}, src_bytes[2 * 64] = {0};
    ss_storage in = {.base = in_bytes, .guard = 64, .bytes = 16, .cap = sizeof in_bytes};
    ss_storage src = {.base = src_bytes, .guard = 64, .bytes = 0, .cap = sizeof src_bytes};
    const ss_run_opts opts = {SS_SCHED_FORWARD, 0, 0};
    char msg[256];
    assert_int_equal(t->run(t, &plan, &in, &src, &opts, msg, sizeof msg), SS_RUN_UNAVAILABLE);
    assert_string_equal(msg, why);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_schedule_names),
        cmocka_unit_test(test_cuda_unavailable_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
