/* test_summary_merge.c - summary.json shared by campaigns: merge rules, older files, a broken file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include "ss_files.h"
#include "ss_summary_merge.h"

static char dir[256], path[300];

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ssfuzz-test-merge-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(path, sizeof path, "%s/summary.json", dir);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char p[400];
    static const char *const names[] = {"summary.json", "summary.json.broken", ".summary.lock"};
    for (size_t i = 0; i < 3; i++) { snprintf(p, sizeof p, "%s/%s", dir, names[i]); unlink(p); }
    rmdir(dir);
    return 0;
}

static cJSON *campaign(const char *seed, const char *targets, double cases, double secs, const char *sched,
                       double hits) {
    char text[600];
    snprintf(text, sizeof text,
             "{\"seed\":\"%s\",\"targets\":\"%s\",\"cases\":%g,\"seconds\":%g,\"cases_per_second\":%g,"
             "\"aliasing\":{\"kinds\":{\"shifted\":%g}},\"findings\":[{\"signature\":\"mismatch\","
             "\"target\":\"emu:m\",\"schedule\":\"%s\",\"hits\":%g,\"reproducer\":\"r-%s.json\"}]}",
             seed, targets, cases, secs, cases / secs, cases / 2, sched, hits, seed);
    cJSON *c = cJSON_Parse(text);
    assert_non_null(c);
    return c;
}

static cJSON *load(void) {
    char *text;
    size_t len;
    ss_error err;
    assert_int_equal(ss_read_file(path, 1 << 20, &text, &len, &err), 0);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    return root;
}

static double num(const cJSON *o, const char *k) { return cJSON_GetObjectItem(o, k)->valuedouble; }
static const char *str(const cJSON *o, const char *k) { return cJSON_GetObjectItem(o, k)->valuestring; }

static void test_merge_rules(void **state) {
    (void)state;
    ss_error err;
    assert_int_equal(ss_summary_merge_write(dir, campaign("1", "emu:a,emu:b", 100, 10, "forward", 3), &err), 0);
    cJSON *root = load();
    assert_float_equal(num(root, "cases"), 100, 0);   /* one campaign: its own numbers */
    assert_string_equal(str(root, "format"), "ssfuzz-summary");
    cJSON_Delete(root);
    assert_int_equal(ss_summary_merge_write(dir, campaign("2", "emu:b,emu:c", 300, 5, "forward", 4), &err), 0);
    assert_int_equal(ss_summary_merge_write(dir, campaign("3", "emu:a", 50, 2, "reverse", 1), &err), 0);
    root = load();
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "campaigns")), 3);
    assert_float_equal(num(root, "cases"), 450, 0);
    assert_float_equal(num(root, "seconds"), 10, 0);              /* the longest */
    assert_float_equal(num(root, "cases_per_second"), 10 + 60 + 25, 1e-9);   /* side by side */
    assert_string_equal(str(root, "seed"), "1,2,3");
    assert_string_equal(str(root, "targets"), "emu:a,emu:b,emu:c");
    assert_float_equal(num(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "aliasing"), "kinds"), "shifted"), 225, 0);
    const cJSON *fs = cJSON_GetObjectItem(root, "findings");
    assert_int_equal(cJSON_GetArraySize(fs), 2);                   /* forward merged, reverse apart */
    assert_float_equal(num(cJSON_GetArrayItem(fs, 0), "hits"), 7, 0);
    assert_string_equal(str(cJSON_GetArrayItem(fs, 0), "reproducer"), "r-1.json");   /* the first one kept */
    cJSON_Delete(root);
}

static void test_version1_file_is_kept(void **state) {
    (void)state;
    ss_error err;
    const char *v1 = "{\"format\":\"ssfuzz-summary\",\"version\":1,\"seed\":\"9\",\"cases\":70,\"seconds\":1,"
                     "\"findings\":[]}";
    assert_int_equal(ss_write_atomic(path, v1, strlen(v1), &err), 0);
    assert_int_equal(ss_summary_merge_write(dir, campaign("4", "emu:a", 30, 1, "forward", 1), &err), 0);
    cJSON *root = load();
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "campaigns")), 2);
    assert_float_equal(num(root, "cases"), 100, 0);
    assert_string_equal(str(root, "seed"), "9,4");
    cJSON_Delete(root);
}

static void test_broken_file_set_aside(void **state) {
    (void)state;
    ss_error err;
    assert_int_equal(ss_write_atomic(path, "{not json", 9, &err), 0);
    assert_int_equal(ss_summary_merge_write(dir, campaign("5", "emu:a", 10, 1, "forward", 1), &err), 0);
    char aside[400];
    snprintf(aside, sizeof aside, "%s.broken", path);
    assert_int_equal(access(aside, F_OK), 0);
    cJSON *root = load();
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "campaigns")), 1);
    cJSON_Delete(root);
}

static void test_unwritable(void **state) {
    (void)state;
    ss_error err;
    assert_int_equal(ss_summary_merge_write("/nonexistent-dir/x", campaign("6", "t", 1, 1, "forward", 1), &err), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_merge_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version1_file_is_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broken_file_set_aside, setup, teardown),
        cmocka_unit_test(test_unwritable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
