/* test_report.c - reproducers: round trip with meta, atomic no-overwrite writes, dedup, summary. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include "ss_cli.h"
#include "ss_files.h"
#include "ss_gen.h"
#include "ss_report.h"
#include "ss_target.h"

static char dir[256];

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ssfuzz-test-report-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[600];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    if (d) closedir(d);
    rmdir(dir);
    return 0;
}

/* Files in dir, dot-files (temp files) counted apart. */
static int count_files(int *hidden) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    *hidden = 0;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (e->d_name[0] == '.') ++*hidden;
        else n++;
    }
    closedir(d);
    return n;
}

static ss_case small_alias_case(void) {
    ss_case c;
    ss_case_init(&c);
    c.dtype = SS_FLOAT32;
    c.op.elem_size = 4;
    c.op.input_storage_numel = c.op.src_storage_numel = 3;
    c.op.src_aliased = 1;
    c.op.input = (ss_view){0, 1, {3}, {1}};
    c.op.src = (ss_view){0, 1, {2}, {1}};
    c.op.dim = 0;
    c.op.has_start = 1;
    c.op.start = 1;
    c.op.step = 1;
    c.fill_seed = 7;
    return c;
}

/* A raise's key: the exception's type and four words, numbers as '#'. */
static void test_raise_key(void **state) {
    (void)state;
    char k[64];
    ss_raise_key("compiled raises AssertionError: incorrect out shape after application of ViewMeta sequence: "
                 "(31,) (actual) vs (27,) (expected); eager runs it", k, sizeof k);
    assert_string_equal(k, "AssertionError: incorrect out shape after / eager runs");
    /* eager refusing the same case: another key */
    char k2[64];
    ss_raise_key("compiled raises AssertionError: incorrect out shape after application of ViewMeta sequence: "
                 "(3,) (actual) vs (2,) (expected); eager raises RuntimeError: unsupported operation: some", k2,
                 sizeof k2);
    assert_string_equal(k2, "AssertionError: incorrect out shape after / eager RuntimeError:");
    /* the numbers of a smaller case do not make another key */
    ss_raise_key("compiled raises RuntimeError: expected size 70==100, stride 1==1; eager runs it", k, sizeof k);
    ss_raise_key("compiled raises RuntimeError: expected size 3==5, stride 1==1; eager runs it", k2, sizeof k2);
    assert_string_equal(k, "RuntimeError: expected size #==#, stride / eager runs");
    assert_string_equal(k, k2);
    ss_raise_key("compiled raises TorchRuntimeError: RuntimeError when making fake tensor call; eager runs it", k2,
                 sizeof k2);
    assert_string_equal(k2, "TorchRuntimeError: RuntimeError when making fake / eager runs");
    /* a backend's wrapper: the key is its cause's, so two failures inside inductor differ */
    ss_raise_key("compiled raises BackendCompilerFailed: backend='inductor' raised: RuntimeError: While executing "
                 "unfold, functionalization encountered a tensor; eager runs it", k, sizeof k);
    /* (the words cut to leave what eager did its room in the 64 bytes) */
    assert_string_equal(k, "RuntimeError: While executing unfold, functionaliz / eager runs");
    ss_raise_key("compiled raises BackendCompilerFailed: backend='inductor' raised: AssertionError: expected size "
                 "3==5; eager runs it", k2, sizeof k2);
    assert_string_equal(k2, "AssertionError: expected size #==# / eager runs");
    /* dynamo's fake-tensor failure: the key is the cause the worker put in parentheses */
    ss_raise_key("compiled raises TorchRuntimeError: RuntimeError when making fake tensor call (got "
                 "RuntimeError('more than one element of the written-to tensor')); eager runs it", k, sizeof k);
    assert_string_equal(k, "RuntimeError('more than one element of / eager runs");
    /* a wrapper without its cause (a worker before the cause was kept) keys on the wrapper */
    ss_raise_key("compiled raises BackendCompilerFailed: backend='inductor' raised:; eager runs it", k, sizeof k);
    assert_string_equal(k, "BackendCompilerFailed: backend='inductor' raised: / eager runs");
    /* no "raises": the reason's own first words; '|' never reaches a key; short buffers cut */
    ss_raise_key("ValueError: a|b  c", k, sizeof k);
    assert_string_equal(k, "ValueError: a/b c");
    ss_raise_key("compiled raises X", k, 4);
    assert_string_equal(k, "X");
    ss_raise_key("", k, sizeof k);
    assert_string_equal(k, "");
    ss_raise_key(NULL, k, sizeof k);
    assert_string_equal(k, "");
    ss_raise_key("compiled raises LongNameError: x", k, 5);
    assert_string_equal(k, "Long");   /* n - 1 bytes */
    /* a raised finding's dedup key ends with it: two exceptions, two files */
    ss_case c = small_alias_case();
    ss_finding f = {.kind = "raised", .target = ss_target_find("emu:reinplace"),
                    .detail = "compiled raises AssertionError: incorrect out shape after application; eager runs it"};
    char key[256], name[256], name2[256];
    ss_report_key(&c, &f, key, sizeof key);
    assert_string_equal(key, "raised|emu:reinplace||overlap|AssertionError: incorrect out shape after / eager runs");
    ss_report_name(&c, &f, 0, name, sizeof name);
    f.detail = "compiled raises TorchRuntimeError: RuntimeError when making fake tensor call; eager runs it";
    ss_report_name(&c, &f, 0, name2, sizeof name2);
    assert_string_not_equal(name, name2);
    /* a mismatch's detail is no exception: its key is as before */
    f.kind = "mismatch";
    ss_report_key(&c, &f, key, sizeof key);
    assert_string_equal(key, "mismatch|emu:reinplace||overlap");
    ss_case_free(&c);
}

static void test_name_and_key(void **state) {
    (void)state;
    ss_case c = small_alias_case();
    ss_finding f = {.kind = "mismatch", .target = ss_target_find("emu:mut-alias-unchecked"), .schedule = "forward"};
    char key[256], name[256];
    ss_report_key(&c, &f, key, sizeof key);
    ss_report_name(&c, &f, 0, name, sizeof name);
    /* one bug: kind, target, schedule class, overlap class; no rank or dtype */
    assert_string_equal(key, "mismatch|emu:mut-alias-unchecked|sequential|overlap");
    assert_int_equal(strncmp(name, "mismatch-emu_mut-alias-unchecked-sequential-overlap-", 52), 0);
    assert_int_equal(strlen(name), 52 + 8 + 5);
    /* --keep-variants: rank and dtype join the name */
    char name2[256];
    ss_report_name(&c, &f, 1, name2, sizeof name2);
    assert_int_equal(strncmp(name2, "mismatch-emu_mut-alias-unchecked-sequential-1d-f32-overlap-", 59), 0);
    /* reverse is another sequential order: the same bug, the same file */
    f.schedule = "reverse";
    ss_report_name(&c, &f, 0, name2, sizeof name2);
    assert_string_equal(name, name2);
    /* a wave schedule is another class: another file */
    f.schedule = "lockstep";
    ss_report_name(&c, &f, 0, name2, sizeof name2);
    assert_string_not_equal(name, name2);
    /* torch's input forms are each their own class */
    assert_string_equal(ss_schedule_class("x-input"), "x-input");
    assert_string_equal(ss_schedule_class(NULL), "");
    f.kind = "guard-band write";
    ss_report_name(&c, &f, 0, name2, sizeof name2);
    assert_int_equal(strncmp(name2, "guard-band-write-emu_mut", 24), 0);
    /* another dtype and rank of the same bug: the same file */
    f.kind = "mismatch";
    f.schedule = "forward";
    ss_case c3 = small_alias_case();
    c3.dtype = SS_INT16;
    c3.op.elem_size = 2;
    ss_report_name(&c3, &f, 0, name2, sizeof name2);
    assert_string_equal(name, name2);
    ss_report_name(&c3, &f, 1, name2, sizeof name2);
    assert_string_not_equal(name, name2);
    ss_case_free(&c3);
}

static void test_round_trip_and_dedup(void **state) {
    (void)state;
    ss_case c = small_alias_case();
    ss_finding f = {"mismatch", ss_target_find("emu:mut-alias-unchecked"), "random", UINT64_MAX - 2, 1, 123456789012345ull, 77,
                    812, 4, 1, "ssfuzz fuzz --seed 123456789012345", "input storage[2]: differs"};
    char path[1024];
    ss_error err;
    assert_int_equal(ss_report_write(dir, &c, &f, 0, path, sizeof path, &err), 1);
    int hidden;
    assert_int_equal(count_files(&hidden), 1);
    assert_int_equal(hidden, 0);   /* no temp file left behind */

    ss_case back;
    ss_case_init(&back);
    assert_int_equal(ss_case_load(path, &back, &err), 0);
    assert_memory_equal(&back.op, &c.op, sizeof c.op);
    assert_int_equal(back.dtype, c.dtype);
    assert_int_equal(back.fill_seed, 7);
    const cJSON *m = back.meta;
    assert_non_null(m);
    assert_string_equal(cJSON_GetObjectItem(m, "target")->valuestring, "emu:mut-alias-unchecked");
    assert_string_equal(cJSON_GetObjectItem(m, "schedule")->valuestring, "random");
    /* beyond 2^53: a decimal string, exact (a JSON number would round it) */
    assert_string_equal(cJSON_GetObjectItem(m, "schedule_seed")->valuestring, "18446744073709551613");
    assert_string_equal(cJSON_GetObjectItem(m, "signature")->valuestring, "mismatch");
    assert_string_equal(cJSON_GetObjectItem(m, "campaign_seed")->valuestring, "123456789012345");
    assert_string_equal(cJSON_GetObjectItem(m, "case_index")->valuestring, "77");
    assert_string_equal(cJSON_GetObjectItem(m, "version")->valuestring, SS_VERSION);
    const cJSON *b = cJSON_GetObjectItem(m, "before_minimization");
    assert_int_equal((int)cJSON_GetObjectItem(b, "numel")->valuedouble, 812);
    assert_int_equal((int)cJSON_GetObjectItem(b, "ndim")->valuedouble, 4);

    assert_string_equal(cJSON_GetObjectItem(m, "dedup_key")->valuestring, "mismatch|emu:mut-alias-unchecked|wave|overlap");

    /* the same signature and overlap class again: counted, not rewritten */
    struct stat st1, st2;
    stat(path, &st1);
    ss_case c2 = small_alias_case();
    c2.fill_seed = 99;
    char path2[1024];
    assert_int_equal(ss_report_write(dir, &c2, &f, 0, path2, sizeof path2, &err), 0);
    assert_string_equal(path, path2);
    stat(path2, &st2);
    assert_int_equal(st1.st_ino, st2.st_ino);
    ss_case_free(&back);
    ss_case_init(&back);
    assert_int_equal(ss_case_load(path, &back, &err), 0);
    assert_int_equal(back.fill_seed, 7);
    /* another dtype of the same bug: one file, unless variants are kept */
    c2.dtype = SS_UINT8;
    c2.op.elem_size = 1;
    assert_int_equal(ss_report_write(dir, &c2, &f, 0, path2, sizeof path2, &err), 0);
    assert_int_equal(count_files(&hidden), 1);
    assert_int_equal(ss_report_write(dir, &c2, &f, 1, path2, sizeof path2, &err), 1);
    assert_int_equal(count_files(&hidden), 2);
    assert_int_equal(hidden, 0);
    char line[2048];
    ss_report_line(&c2, &f, path2, 1, line, sizeof line);
    /* the line shows the case's own overlap and schedule, not their classes */
    assert_non_null(strstr(line, "mismatch on emu:mut-alias-unchecked (random): 1-D uint8 partial, 3 elements (was 4-D, 812)"));
    /* the line ends with the next command to run */
    char next[1200];
    snprintf(next, sizeof next, "; next: ssfuzz explain %s -t emu:mut-alias-unchecked --schedule random", path2);
    assert_non_null(strstr(line, next));
    assert_string_equal(line + strlen(line) - strlen(next), next);
    ss_case_free(&back);
    ss_case_free(&c);
    ss_case_free(&c2);
}

static void test_unwritable(void **state) {
    (void)state;
    ss_case c = small_alias_case();
    static const ss_engine none = {.name = "emu"};
    static const ss_target x = {.name = "emu:x", .engine = &none, .kernel = "x"};
    ss_finding f = {.kind = "mismatch", .target = &x};
    ss_error err;
    assert_int_equal(ss_report_write("/nonexistent-dir/x", &c, &f, 0, NULL, 0, &err), -1);
    ss_case_free(&c);
}

static void test_summary(void **state) {
    (void)state;
    ss_summary s;
    memset(&s, 0, sizeof s);
    s.seed = 42;
    s.cases = 1000;
    s.seconds = 2;
    s.stopped_by = "signal";
    snprintf(s.targets, sizeof s.targets, "emu:a,emu:b");
    assert_int_equal(ss_summary_add(&s, "mismatch", "emu:a", "forward", "mismatch|emu:a|forward|partial", "x.json", 1), 0);
    assert_int_equal(ss_summary_add(&s, "mismatch", "emu:a", "forward", NULL, NULL, 0), 0);
    assert_int_equal(ss_summary_add(&s, "mismatch", "emu:a", "forward", "mismatch|emu:a|forward|partial", "x.json", 0), 0);
    assert_int_equal(ss_summary_add(&s, "crash", "emu:b", NULL, "crash|emu:b||separate", "y.json", 1), 0);
    assert_int_equal(s.n, 2);
    assert_int_equal(ss_summary_hits(&s), 4);
    assert_int_equal(ss_summary_unique(&s), 2);
    ss_error err;
    assert_int_equal(ss_summary_write(dir, &s, &err), 0);
    char path[600], *text;
    size_t len;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    assert_int_equal(ss_read_file(path, 1 << 20, &text, &len, &err), 0);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_string_equal(cJSON_GetObjectItem(root, "seed")->valuestring, "42");
    assert_string_equal(cJSON_GetObjectItem(root, "stopped_by")->valuestring, "signal");
    const cJSON *fs = cJSON_GetObjectItem(root, "findings");
    assert_int_equal(cJSON_GetArraySize(fs), 2);
    assert_int_equal((int)cJSON_GetObjectItem(cJSON_GetArrayItem(fs, 0), "hits")->valuedouble, 3);
    assert_int_equal((int)cJSON_GetObjectItem(root, "unique_findings")->valuedouble, 2);
    assert_int_equal((int)cJSON_GetObjectItem(root, "hits")->valuedouble, 4);
    cJSON_Delete(root);
    free(text);
    ss_summary_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name_and_key),
        cmocka_unit_test(test_raise_key),
        cmocka_unit_test_setup_teardown(test_round_trip_and_dedup, setup, teardown),
        cmocka_unit_test(test_unwritable),
        cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
