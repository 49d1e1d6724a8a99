/* test_plugin.c - plugin descriptors are checked, registered as PLUGIN:KERNEL, run and judged like any target. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include "ss_check.h"
#include "ss_plan_build.h"
#include "ss_plugin.h"
#include "ss_test_util.h"
#include "ssfuzz_plugin.h"

/* The naive example, linked in: its descriptor is registered without dlopen. */
#include "../examples/plugins/naive.c"

static int calls, refuse;
static int counting(const ssfuzz_case *c, char *message, size_t message_len) {
    calls++;
    assert_int_equal(c->struct_size, sizeof *c);
    if (refuse) {
        snprintf(message, message_len, "overlap: not supported");
        return SSFUZZ_REFUSED;
    }
    return copy(c, message, message_len);
}
static const ssfuzz_kernel counting_k[] = {{"counting", SSFUZZ_MEMORY_HOST, counting}};
static const ssfuzz_plugin other = {sizeof(ssfuzz_plugin), SSFUZZ_PLUGIN_ABI_VERSION, "other",
                                    counting_k, 1, NULL, NULL};

static int setup(void **state) {
    (void)state;
    ss_error err;
    if (ss_plugin_register(ssfuzz_plugin_v1(), "/x/naive.so", ss_target_find, &err)) fail_msg("%s", err.msg);
    if (ss_plugin_register(&other, "/x/other.so", ss_target_find, &err)) fail_msg("%s", err.msg);
    return 0;
}

static void test_registered(void **state) {
    (void)state;
    const ss_target *t = ss_target_find("naive:copy");
    assert_non_null(t);
    assert_string_equal(t->engine->name, "plugin");
    assert_string_equal(t->kernel, "copy");
    assert_int_equal(t->explicit_only, 1);
    assert_int_equal(t->mutant, 0);
    assert_null(t->unavailable(t));
    const char *name, *path, *memory;
    assert_int_equal(ss_plugin_describe(t, &name, &path, &memory), 0);
    assert_string_equal(name, "naive");
    assert_string_equal(path, "/x/naive.so");
    assert_string_equal(memory, "host");
    assert_int_equal(ss_plugin_describe(ss_target_find("emu:reinplace"), &name, NULL, NULL), -1);
    assert_ptr_equal(ss_target_at(ss_target_count() - 1), ss_target_find("other:counting"));
}

/* Each rule on a descriptor, with the message naming what is wrong. */
static void test_bad_descriptors(void **state) {
    (void)state;
    ss_error err;
    ssfuzz_plugin d = other;
    d.name = "fresh";
    d.abi_version = 2;
    assert_int_equal(ss_plugin_register(&d, "p", ss_target_find, &err), -1);
    assert_non_null(strstr(err.msg, "ABI version 2, this ssfuzz speaks version 1"));
    d.abi_version = SSFUZZ_PLUGIN_ABI_VERSION;
    d.struct_size = 40;
    assert_int_equal(ss_plugin_register(&d, "p", ss_target_find, &err), -1);
    char want[96];
    snprintf(want, sizeof want, "struct_size is 40 bytes, this ssfuzz's is %zu", sizeof(ssfuzz_plugin));
    assert_non_null(strstr(err.msg, want));
    d.struct_size = sizeof d;
    d.name = "bad name";
    assert_int_equal(ss_plugin_register(&d, "p", ss_target_find, &err), -1);
    assert_non_null(strstr(err.msg, "plugin name"));
    ssfuzz_kernel twice[] = {{"k", SSFUZZ_MEMORY_HOST, counting}, {"k", SSFUZZ_MEMORY_HOST, counting}};
    d = other;
    d.name = "twice";
    d.kernels = twice;
    d.n_kernels = 2;
    assert_int_equal(ss_plugin_register(&d, "p", ss_target_find, &err), -1);
    assert_non_null(strstr(err.msg, "duplicate target twice:k (twice in this plugin)"));
    d = other;
    assert_int_equal(ss_plugin_register(&d, "p", ss_target_find, &err), -1);
    assert_non_null(strstr(err.msg, "duplicate target other:counting (already loaded from /x/other.so)"));
    twice[0].memory = 7;
    d.name = "mem";
    d.kernels = twice;
    d.n_kernels = 1;
    assert_int_equal(ss_plugin_register(&d, "p", ss_target_find, &err), -1);
    assert_non_null(strstr(err.msg, "got 7"));
    assert_null(ss_target_find("mem:k"));
}

static ss_verdict check(const ss_target *t, ss_op op, char *why, size_t n) {
    ss_check_result res;
    tu_check(t, op, NULL, &res);
    snprintf(why, n, "%.*s", n > 0 ? (int)n - 1 : 0, res.why);
    return res.verdict;
}

/* x[1:] = x[:-1] on 4 elements: the naive copy smears x[0]; a separate src agrees. */
static void test_runs_as_a_target(void **state) {
    (void)state;
    const int64_t n4[] = {4}, n3[] = {3}, zero[] = {0};
    char why[256];
    ss_op shift = tu_op(4, 4, tu_contig(0, 1, n4), tu_contig(0, 1, n3), 0, 1, 1, 0, 0, 1);
    assert_int_equal(check(ss_target_find("naive:copy"), shift, why, sizeof why), SS_MISMATCH);
    ss_op separate = shift;
    separate.src_aliased = 0;
    separate.src_storage_numel = 3;
    assert_int_equal(check(ss_target_find("naive:copy"), separate, why, sizeof why), SS_AGREE);
    /* Refusing a valid case is the kernel being safe; refusing a stride-0 input agrees. */
    const ss_target *t = ss_target_find("other:counting");
    refuse = 1;
    calls = 0;
    assert_int_equal(check(t, shift, why, sizeof why), SS_REFUSED);
    assert_string_equal(why, "overlap: not supported");
    ss_op internal = tu_op(4, 3, tu_view(0, 1, n4, zero), tu_contig(0, 1, n3), 0, 1, 1, 0, 0, 1);
    assert_int_equal(check(t, internal, why, sizeof why), SS_AGREE);
    assert_int_equal(calls, 2);
    refuse = 0;
}

static void test_meta(void **state) {
    (void)state;
    cJSON *m = cJSON_Parse("{\"target\": \"gone:k\", \"plugin\": {\"name\": \"gone\", \"path\": \"/p/gone.so\"}}");
    char why[256] = "";
    assert_int_equal(ss_plugin_check_meta(m, why, sizeof why), -1);
    assert_string_equal(why, "plugin gone is not loaded (its target gone:k): rerun with --plugin /p/gone.so");
    assert_null(ss_plugin_meta_target(m));
    cJSON_Delete(m);
    m = cJSON_Parse("{\"target\": \"naive:copy\", \"plugin\": {\"name\": \"naive\", \"path\": \"/x/naive.so\"}}");
    assert_int_equal(ss_plugin_check_meta(m, why, sizeof why), 0);
    assert_ptr_equal(ss_plugin_meta_target(m), ss_target_find("naive:copy"));
    cJSON_Delete(m);
    m = cJSON_Parse("{\"target\": \"emu:reinplace\"}");
    assert_int_equal(ss_plugin_check_meta(m, why, sizeof why), 0);
    assert_null(ss_plugin_meta_target(m));
    cJSON_Delete(m);
    assert_int_equal(ss_plugin_check_meta(NULL, why, sizeof why), 0);
}

static int inits, finis, init_fails;
static int init(char *message, size_t message_len) {
    inits++;
    if (init_fails) snprintf(message, message_len, "no license");
    return init_fails;
}
static void fini(void) { finis++; }

/* init runs once per process before the first run (a failure makes the targets
 * unavailable with its message); fini runs once at shutdown, only after a good init. */
static void test_init_fini(void **state) {
    (void)state;
    static const ssfuzz_kernel k1[] = {{"a", SSFUZZ_MEMORY_HOST, counting}};
    static const ssfuzz_kernel k2[] = {{"b", SSFUZZ_MEMORY_HOST, counting}};
    static const ssfuzz_plugin good = {sizeof(ssfuzz_plugin), SSFUZZ_PLUGIN_ABI_VERSION, "good", k1, 1, init, fini};
    static const ssfuzz_plugin bad = {sizeof(ssfuzz_plugin), SSFUZZ_PLUGIN_ABI_VERSION, "bad", k2, 1, init, fini};
    ss_error err;
    assert_int_equal(ss_plugin_register(&good, "/x/good.so", ss_target_find, &err), 0);
    assert_int_equal(ss_plugin_register(&bad, "/x/bad.so", ss_target_find, &err), 0);
    const ss_target *g = ss_target_find("good:a"), *b = ss_target_find("bad:b");
    assert_int_equal(inits, 0);   /* nothing runs at load */
    assert_null(g->unavailable(g));
    assert_null(g->unavailable(g));
    assert_int_equal(inits, 1);
    init_fails = 1;
    assert_string_equal(b->unavailable(b), "plugin bad: init failed: no license");
    assert_string_equal(b->unavailable(b), "plugin bad: init failed: no license");
    assert_int_equal(inits, 2);
    char why[128];
    const int64_t n4[] = {4}, n3[] = {3};
    ss_op shift = tu_op(4, 4, tu_contig(0, 1, n4), tu_contig(0, 1, n3), 0, 1, 1, 0, 0, 1);
    assert_int_equal(check(b, shift, why, sizeof why), SS_TARGET_UNAVAILABLE);
    assert_string_equal(why, "plugin bad: init failed: no license");
    init_fails = 0;
    ss_plugin_shutdown();
    assert_int_equal(finis, 1);
    ss_plugin_shutdown();
    assert_int_equal(finis, 1);
}

static void test_load_errors(void **state) {
    (void)state;
    ss_error err;
    assert_int_equal(ss_plugin_load("/nonexistent/p.so", ss_target_find, &err), -1);
    assert_non_null(strstr(err.msg, "cannot open"));
    assert_int_equal(ss_plugin_load("/etc/hostname", ss_target_find, &err), -1);
    assert_non_null(strstr(err.msg, "cannot load"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registered),       cmocka_unit_test(test_bad_descriptors),
        cmocka_unit_test(test_runs_as_a_target), cmocka_unit_test(test_meta),
        cmocka_unit_test(test_init_fini),        cmocka_unit_test(test_load_errors),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
