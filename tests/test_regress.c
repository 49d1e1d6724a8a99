/* test_regress.c - expect blocks, judging runs against them, XML escaping, JUnit/SARIF files, storage maps. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ss_escape.h"
#include "ss_expect.h"
#include "ss_files.h"
#include "ss_picture.h"
#include "ss_plan_build.h"
#include "ss_regress_out.h"
#include "ss_test_util.h"

static int parse(const char *json, ss_expect *x, ss_error *err) {
    cJSON *j = cJSON_Parse(json);
    if (!j) fail_msg("bad test JSON: %s", json);
    const int rc = ss_expect_parse(j, x, err);
    cJSON_Delete(j);
    return rc;
}

static void test_expect_defaults(void **state) {
    (void)state;
    ss_expect x;
    ss_error err;
    assert_int_equal(ss_expect_parse(NULL, &x, &err), 0);
    assert_int_equal(ss_expect_of(&x, ss_target_find("emu:reinplace"), NULL), SS_EXPECT_AGREE);
    assert_int_equal(ss_expect_of(&x, ss_target_find("emu:mut-alias-unchecked"), NULL), SS_EXPECT_SKIP);
    assert_int_equal(x.reject, 0);
}

static void test_expect_fail_agree_reject(void **state) {
    (void)state;
    ss_expect x;
    ss_error err;
    assert_int_equal(parse("{\"agree\": [\"*\", \"emu:mut-step-ignored\"], \"reject\": true,"
                           " \"fail\": {\"emu:mut-alias-unchecked\": \"mismatch\", \"emu:index\": \"any\"}}",
                           &x, &err), 0);
    const char *sig = NULL;
    assert_int_equal(ss_expect_of(&x, ss_target_find("emu:mut-alias-unchecked"), &sig), SS_EXPECT_FAIL);
    assert_string_equal(sig, "mismatch");
    assert_int_equal(ss_expect_of(&x, ss_target_find("emu:index"), &sig), SS_EXPECT_FAIL);
    assert_string_equal(sig, "any");
    assert_int_equal(ss_expect_of(&x, ss_target_find("emu:mut-step-ignored"), NULL), SS_EXPECT_AGREE);
    assert_int_equal(ss_expect_of(&x, ss_target_find("emu:mut-end-unclamped"), NULL), SS_EXPECT_SKIP);
    assert_int_equal(x.reject, 1);
}

static void test_expect_rejects_mistakes(void **state) {
    (void)state;
    static const struct { const char *json, *field; } bad[] = {
        {"{\"fail\": {\"emu:mut-nope\": \"mismatch\"}}", "expect.fail.emu:mut-nope"},
        {"{\"fail\": {\"emu:reinplace\": \"wrong\"}}", "expect.fail.emu:reinplace"},
        {"{\"fail\": {\"emu:reinplace\": \"agree\"}}", "expect.fail.emu:reinplace"},
        {"{\"fail\": {\"emu:reinplace\": 1}}", "expect.fail.emu:reinplace"},
        {"{\"fail\": []}", "expect.fail"},
        {"{\"agree\": \"all\"}", "expect.agree"},
        {"{\"agree\": [1]}", "expect.agree[0]"},
        {"{\"agree\": [\"emu:index\"], \"fail\": {\"emu:index\": \"mismatch\"}}", "expect.fail.emu:index"},
        {"{\"reject\": 1}", "expect.reject"},
        {"{\"rejects\": true}", "expect.rejects"},
        {"[]", "expect"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ss_expect x;
        ss_error err;
        if (parse(bad[i].json, &x, &err) != -1) fail_msg("accepted %s", bad[i].json);
        assert_string_equal(err.field, bad[i].field);
    }
}

static ss_replay_run run_with(ss_verdict v, const char *schedule) {
    ss_replay_run r;
    memset(&r, 0, sizeof r);
    r.target = ss_target_find("emu:mut-alias-unchecked");
    r.schedule = schedule;
    r.res.verdict = v;
    r.seconds = 0.5;
    if (v == SS_MISMATCH) {
        r.res.diff.count = 3;
        r.res.diff.index = 2;
        r.res.diff.elem_size = 4;
        r.res.diff.in_input_view = 1;
        r.res.diff.logical[0] = 2;
    }
    return r;
}

static void test_judge(void **state) {
    (void)state;
    ss_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.op.input.ndim = 1;
    ss_replay_run runs[3] = {run_with(SS_AGREE, "lockstep"), run_with(SS_MISMATCH, "forward"),
                             run_with(SS_AGREE, "reverse")};
    ss_expect_outcome o;
    ss_expect_judge(SS_EXPECT_FAIL, "mismatch", &plan, runs, 3, &o);
    assert_true(o.held);
    assert_string_equal(o.signature, "mismatch");
    assert_ptr_equal(o.shown, &runs[1]);
    ss_expect_judge(SS_EXPECT_FAIL, "any", &plan, runs, 3, &o);
    assert_true(o.held);
    ss_expect_judge(SS_EXPECT_FAIL, "crash", &plan, runs, 3, &o);
    assert_false(o.held);
    assert_non_null(strstr(o.message, "expected crash"));
    ss_expect_judge(SS_EXPECT_AGREE, NULL, &plan, runs, 3, &o);
    assert_false(o.held);
    assert_non_null(strstr(o.message, "under forward (1 of 3 runs)"));
    assert_true(o.seconds > 1.49 && o.seconds < 1.51);
    ss_expect_judge(SS_EXPECT_FAIL, "mismatch", &plan, runs, 1, &o);   /* lockstep alone survives */
    assert_false(o.held);
    assert_string_equal(o.signature, "missed-expected-failure");
    ss_expect_judge(SS_EXPECT_AGREE, NULL, &plan, runs, 1, &o);
    assert_true(o.held);
}

static char *escaped(const char *s) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ss_xml_escape(f, s);
    fclose(f);
    return buf;
}

static void test_xml_escape(void **state) {
    (void)state;
    char *e = escaped("a<b>&\"c'\x01\t\xff\xc3\xa9");
    assert_string_equal(e, "a&lt;b&gt;&amp;&quot;c&apos;\xEF\xBF\xBD&#9;\xEF\xBF\xBD\xc3\xa9");
    free(e);
    e = escaped("x\xEF\xBF\xBEy\xEF\xBF\xBFz\xEF\xBF\xBD");   /* U+FFFE, U+FFFF: not XML characters */
    assert_string_equal(e, "x\xEF\xBF\xBDy\xEF\xBF\xBDz\xEF\xBF\xBD");
    free(e);
    e = escaped("\xe2\x82");   /* truncated sequence at the end */
    assert_string_equal(e, "\xEF\xBF\xBD\xEF\xBF\xBD");
    free(e);
    char out[8];
    ss_text_sanitize("ok\n\xc3\xa9\xff-long text", out, sizeof out);
    assert_string_equal(out, "ok?\xc3\xa9?-");
}

static char *slurp(const char *path) {
    char *data = NULL;
    size_t len;
    ss_error err;
    if (ss_read_file(path, 1 << 20, &data, &len, &err)) fail_msg("%s: %s", path, err.msg);
    return data;
}

static void test_reports(void **state) {
    (void)state;
    char dir[] = "/tmp/ss-test-regress-XXXXXX";
    assert_non_null(mkdtemp(dir));
    ss_check_list l = {0};
    ss_diff d;
    memset(&d, 0, sizeof d);
    d.count = 6, d.index = 2, d.elem_size = 4, d.in_input_view = 1, d.logical[0] = 2;
    d.expected[0] = 0x40, d.actual[0] = 0x41;
    assert_int_equal(ss_check_list_add(&l, "corpus/a<b>.json", "emu:reinplace", NULL, SS_CHECK_HELD, 0.1,
                                       "agree", "agrees", NULL, 1), 0);
    assert_int_equal(ss_check_list_add(&l, "corpus/a<b>.json", "emu:mut-alias-unchecked", "forward",
                                       SS_CHECK_FAILED, 0.2, "mismatch", "expected \"crash\"", &d, 1), 0);
    assert_int_equal(ss_check_list_add(&l, "corpus/c.json", "(case)", NULL, SS_CHECK_ERROR, 0,
                                       "invalid-case", "dim: out of range", NULL, 0), 0);
    char junit[64], sarif[64];
    snprintf(junit, sizeof junit, "%s/r.xml", dir);
    snprintf(sarif, sizeof sarif, "%s/r.sarif", dir);
    ss_error err;
    assert_int_equal(ss_junit_write(junit, &l, 1.0, &err), 0);
    assert_int_equal(ss_sarif_write(sarif, &l, &err), 0);
    char *x = slurp(junit);
    assert_non_null(strstr(x, "<testsuites name=\"ssfuzz regress\" tests=\"3\" failures=\"1\" errors=\"1\""));
    assert_non_null(strstr(x, "<testsuite name=\"corpus/a&lt;b&gt;.json\" tests=\"2\" failures=\"1\""));
    assert_non_null(strstr(x, "classname=\"corpus.a&lt;b&gt;\" name=\"emu:reinplace\" time=\"0.100000\"/>"));
    assert_non_null(strstr(x, "<failure type=\"mismatch\" message=\"expected &quot;crash&quot;\">"));
    assert_non_null(strstr(x, "first difference: input storage index 2, logical index [2]"));
    assert_non_null(strstr(x, "expected: 0x00000040\nactual: 0x00000041\ndiffering elements: 6"));
    assert_non_null(strstr(x, "<error type=\"invalid-case\" message=\"dim: out of range\"/>"));
    free(x);
    char *s = slurp(sarif);
    cJSON *j = cJSON_Parse(s);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItem(j, "version")->valuestring, "2.1.0");
    const cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "runs"), 0);
    const cJSON *res = cJSON_GetObjectItem(run, "results");
    assert_int_equal(cJSON_GetArraySize(res), 2);
    const cJSON *r0 = cJSON_GetArrayItem(res, 0);
    assert_string_equal(cJSON_GetObjectItem(r0, "ruleId")->valuestring, "mismatch");
    const cJSON *loc = cJSON_GetArrayItem(cJSON_GetObjectItem(r0, "locations"), 0);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(loc, "physicalLocation"),
                                                                "artifactLocation"), "uri")->valuestring,
                        "corpus/a%3Cb%3E.json");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(res, 1), "ruleId")->valuestring, "invalid-case");
    cJSON_Delete(j);
    free(s);
    ss_check_list_free(&l);
    unlink(junit);
    unlink(sarif);
    rmdir(dir);
}

static void test_picture(void **state) {
    (void)state;
    /* x of 8 in a storage of 10 at offset 1; x[1:] = x[:-1] */
    ss_op op = tu_op(4, 10, tu_contig(1, 1, TU_ARR(8)), tu_contig(1, 1, TU_ARR(7)), 0, 1, 1, 0, 0, 1);
    ss_plan plan;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &plan, &err), 0);
    ss_picture p;
    assert_int_equal(ss_picture_build(&plan, SS_STORAGE_INPUT, &p), 0);
    char line[16] = "";
    for (int64_t i = 0; i < p.numel; i++) line[i] = ss_picture_char(p.cell[i]);
    assert_string_equal(line, " RXXXXXXW ");
    uint8_t a[40] = {0}, b[40] = {0};
    b[4 * 3] = 1;
    assert_int_equal(ss_picture_mark_wrong(&p, a, b, 4), 1);
    assert_int_equal(ss_picture_char(p.cell[3]), '!');
    ss_picture_free(&p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expect_defaults),   cmocka_unit_test(test_expect_fail_agree_reject),
        cmocka_unit_test(test_expect_rejects_mistakes), cmocka_unit_test(test_judge),
        cmocka_unit_test(test_xml_escape),        cmocka_unit_test(test_reports),
        cmocka_unit_test(test_picture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
