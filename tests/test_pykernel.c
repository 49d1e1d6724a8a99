/* test_pykernel.c - Python kernel modules: names read from the source without running it, targets registered, meta checked, the RUN part encoded. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ss_pykernel.h"
#include "ss_torch_proto.h"

static char names[SS_PYKERNEL_MAX_KERNELS][SS_PYKERNEL_NAME_MAX + 1];

static int scan(const char *text, int *count, char *why, size_t n) {
    return ss_pykernel_scan(text, strlen(text), names, SS_PYKERNEL_MAX_KERNELS, count, why, n);
}

static void test_scan_reads_the_dict(void **state) {
    (void)state;
    int n;
    char why[300];
    const char *src =
        "\"\"\"Kernels.\n"
        "SSFUZZ_KERNELS = {\"in_docstring\": f}\n"
        "\"\"\"\n"
        "# SSFUZZ_KERNELS = {\"in_comment\": f}\n"
        "import torch\n"
        "def f(x, src, dim, start, end, step):\n"
        "    SSFUZZ_KERNELS = {\"indented\": f}\n"
        "    return {'}': [1, (2, 3)]}\n"
        "TABLE = {'SSFUZZ_KERNELS': 1}\n"
        "SSFUZZ_KERNELS = {\n"
        "    \"naive\": f,   # the first one\n"
        "    'staged.v2': lambda *a: f(*a, **{'k': '}'}),\n"
        "    \"with-dash\": (f if True else None),\n"
        "}\n";
    assert_int_equal(scan(src, &n, why, sizeof why), 0);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "naive");
    assert_string_equal(names[1], "staged.v2");
    assert_string_equal(names[2], "with-dash");
    /* the last top-level assignment wins, as in Python; an annotation is allowed */
    assert_int_equal(scan("SSFUZZ_KERNELS = {'a': f}\nSSFUZZ_KERNELS: dict = {'b': f, 'c': g}\n", &n, why,
                          sizeof why), 0);
    assert_int_equal(n, 2);
    assert_string_equal(names[0], "b");
    assert_int_equal(scan("SSFUZZ_KERNELS={'x':f}", &n, why, sizeof why), 0);
    assert_int_equal(n, 1);
}

static void test_scan_refuses(void **state) {
    (void)state;
    int n;
    char why[300];
    static const struct { const char *src, *says; } bad[] = {
        {"import torch\n", "no top-level SSFUZZ_KERNELS"},
        {"if True:\n    SSFUZZ_KERNELS = {'a': f}\n", "no top-level"},
        {"SSFUZZ_KERNELS = dict(a=f)\n", "must be a dict literal"},
        {"SSFUZZ_KERNELS = {}\n", "declares no kernel"},
        {"SSFUZZ_KERNELS = {NAME: f}\n", "plain string literal"},
        {"SSFUZZ_KERNELS = {f'a': f}\n", "plain string literal"},
        {"SSFUZZ_KERNELS = {'a b': f}\n", "plain string literal"},
        {"SSFUZZ_KERNELS = {'a@cuda': f}\n", "plain string literal"},
        {"SSFUZZ_KERNELS = {'a:b': f}\n", "plain string literal"},
        {"SSFUZZ_KERNELS = {'': f}\n", "plain string literal"},
        {"SSFUZZ_KERNELS = {**other}\n", "plain string literal"},
        {"SSFUZZ_KERNELS = {'a': f, 'a': g}\n", "twice"},
        {"SSFUZZ_KERNELS = {'a' f}\n", "expected ':'"},
        {"SSFUZZ_KERNELS = {'a': f,\n", "does not end"},
        {"SSFUZZ_KERNELS = {'a': '}\n", "does not end"},
        {"x = '''never closed\nSSFUZZ_KERNELS = {'a': f}\n", "does not end"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        assert_int_equal(scan(bad[i].src, &n, why, sizeof why), -1);
        if (!strstr(why, bad[i].says)) fail_msg("case %zu: '%s' does not say '%s'", i, why, bad[i].says);
    }
    char long_name[100];
    memset(long_name, 'k', 65);
    long_name[65] = '\0';
    char src[200];
    snprintf(src, sizeof src, "SSFUZZ_KERNELS = {'%s': f}\n", long_name);
    assert_int_equal(scan(src, &n, why, sizeof why), -1);
    /* a NUL byte: not a source file */
    assert_int_equal(ss_pykernel_scan("SSFUZZ_KERNELS = {'a': f}\0", 26, names, 4, &n, why, sizeof why), -1);
    assert_non_null(strstr(why, "NUL"));
    /* more kernels than the cap */
    char many[4096] = "SSFUZZ_KERNELS = {";
    for (int i = 0; i < SS_PYKERNEL_MAX_KERNELS + 1; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "'k%d': f, ", i);
    strcat(many, "}\n");
    assert_int_equal(scan(many, &n, why, sizeof why), -1);
    assert_non_null(strstr(why, "more than"));
}

/* Every prefix of a valid source scans without reading past its end (ASan
 * checks the reads; each prefix is its own exact-size allocation). */
static void test_scan_prefixes(void **state) {
    (void)state;
    const char *src = "'''doc'''\n# c\nSSFUZZ_KERNELS = {\n  \"a\": f,  # x\n  'b': (lambda: '}'),\n}\n";
    char why[300];
    int n;
    for (size_t k = 0; k <= strlen(src); k++) {
        char *p = malloc(k ? k : 1);
        assert_non_null(p);
        memcpy(p, src, k);
        (void)ss_pykernel_scan(p, k, names, SS_PYKERNEL_MAX_KERNELS, &n, why, sizeof why);
        free(p);
    }
}

static char dir[64];

static void write_file(const char *name, const char *text) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int load(const char *name, ss_error *err) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return ss_pykernel_load(path, NULL, err);
}

static void test_load_registers_targets(void **state) {
    (void)state;
    ss_error err;
    snprintf(dir, sizeof dir, "/tmp/ss_pykernel_XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_file("mine.py", "import sys\nsys.exit(3)   # never run by loading\nSSFUZZ_KERNELS = {'a': f, 'b': g}\n");
    const size_t before = ss_pykernel_target_count();
    assert_int_equal(load("mine.py", &err), 0);
    assert_int_equal(ss_pykernel_target_count(), before + 4);
    const char *want[] = {"mine:a", "mine:a@cuda", "mine:b", "mine:b@cuda"};
    for (int i = 0; i < 4; i++) {
        const ss_target *t = ss_pykernel_target_at(before + (size_t)i);
        assert_string_equal(t->name, want[i]);
        assert_string_equal(t->engine->name, "pykernel");
        assert_true(t->explicit_only);
        assert_non_null(strstr(t->engine->loaded_from(t), "/mine.py"));
        assert_int_equal(t->engine->large_per_mille(t), i % 2 ? 250 : 0);
        assert_true(t->engine->max_numel(t) == (i % 2 ? 0 : SS_PYKERNEL_CPU_MAX_NUMEL));
    }
    assert_null(ss_pykernel_target_at(before + 4));
    /* the same file again loads once */
    assert_int_equal(load("mine.py", &err), 0);
    assert_int_equal(ss_pykernel_target_count(), before + 4);
    /* another file of the same name: its targets are taken */
    char sub[128];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    write_file("sub/mine.py", "SSFUZZ_KERNELS = {'b': g}\n");
    assert_int_equal(load("sub/mine.py", &err), -1);
    assert_non_null(strstr(err.msg, "duplicate target mine:b (already loaded from"));
}

static void test_load_errors(void **state) {
    (void)state;
    ss_error err;
    static const struct { const char *file, *text, *says; } bad[] = {
        {"missing.py", NULL, "no such file"},
        {"not_python.txt", "SSFUZZ_KERNELS = {'a': f}\n", "a kernel module is NAME.py"},
        {"bad name.py", "SSFUZZ_KERNELS = {'a': f}\n", "a kernel module is NAME.py"},
        {".py", "SSFUZZ_KERNELS = {'a': f}\n", "a kernel module is NAME.py"},
        {"empty.py", "", "no top-level SSFUZZ_KERNELS"},
        {"notdict.py", "SSFUZZ_KERNELS = make()\n", "must be a dict literal"},
    };
    const size_t before = ss_pykernel_target_count();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (bad[i].text) write_file(bad[i].file, bad[i].text);
        assert_int_equal(load(bad[i].file, &err), -1);
        if (!strstr(err.msg, bad[i].says)) fail_msg("%s: '%s' does not say '%s'", bad[i].file, err.msg, bad[i].says);
        assert_non_null(strstr(err.field, bad[i].file));
    }
    assert_int_equal(ss_pykernel_target_count(), before);
}

static void test_meta_check(void **state) {
    (void)state;
    char why[512];
    cJSON *meta = cJSON_Parse("{\"target\": \"gone:k\", \"pykernel\": {\"name\": \"gone\", "
                              "\"path\": \"/x/it's \\u001b[31mred.py\", \"kernel\": \"k\"}}");
    assert_non_null(meta);
    assert_int_equal(ss_pykernel_check_meta(meta, why, sizeof why), -1);
    assert_non_null(strstr(why, "Python kernel module gone is not loaded (its target gone:k): rerun with --py-kernel '"));
    assert_null(strchr(why, '\x1b'));   /* shown inert */
    cJSON_Delete(meta);
    /* a loaded target, or no pykernel block: nothing to say */
    meta = cJSON_Parse("{\"target\": \"mine:a\", \"pykernel\": {\"name\": \"mine\", \"path\": \"/elsewhere/mine.py\"}}");
    assert_int_equal(ss_pykernel_check_meta(meta, why, sizeof why), 0);
    cJSON_Delete(meta);
    meta = cJSON_Parse("{\"target\": \"gone:k\"}");
    assert_int_equal(ss_pykernel_check_meta(meta, why, sizeof why), 0);
    cJSON_Delete(meta);
}

static void test_run_part(void **state) {
    (void)state;
    uint8_t head[SS_TP_RUN_HEAD_MAX] = {0}, part[256];
    const size_t size = ss_tp_run_pykernel_size(strlen("/m/k.py"), strlen("tiled"));
    assert_int_equal(size % 16, 0);
    assert_int_equal(size, 32);
    memset(part, 0xee, sizeof part);
    assert_int_equal(ss_tp_run_pykernel_encode(head, part, "/m/k.py", "tiled", 64), 0);
    assert_int_equal(head[92] & SS_TP_F_PYKERNEL, SS_TP_F_PYKERNEL);
    assert_int_equal(part[0], 64);
    assert_int_equal(part[4], 7);
    assert_int_equal(part[8], 5);
    assert_memory_equal(part + 16, "/m/k.pytiled", 12);
    for (size_t i = 28; i < size; i++) assert_int_equal(part[i], 0);
    assert_int_equal(part[size], 0xee);   /* nothing written past it */
    assert_int_equal(ss_tp_run_pykernel_encode(head, part, "/m/k.py", "tiled", 8), -1);   /* guard not 16-aligned */
    char kernel[SS_TP_MAX_KERNEL + 2];
    memset(kernel, 'k', sizeof kernel - 1);
    kernel[sizeof kernel - 1] = '\0';
    assert_int_equal(ss_tp_run_pykernel_encode(head, part, "/m/k.py", kernel, 64), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_reads_the_dict), cmocka_unit_test(test_scan_refuses),
        cmocka_unit_test(test_scan_prefixes),       cmocka_unit_test(test_load_registers_targets),
        cmocka_unit_test(test_load_errors),         cmocka_unit_test(test_meta_check),
        cmocka_unit_test(test_run_part),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    if (dir[0]) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd)) return 1;
    }
    return failed;
}
