/* test_ledger.c - the findings ledger: round trip, fields people add, refusals; triage's classes and exit code. */
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
#include "ss_history.h"
#include "ss_ledger.h"
#include "ss_triage_out.h"

static char dir[256], path[300];

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ssfuzz-test-ledger-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(path, sizeof path, "%s/ledger.json", dir);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char p[400];
    static const char *const names[] = {"ledger.json", "history.jsonl"};
    for (size_t i = 0; i < 2; i++) { snprintf(p, sizeof p, "%s/%s", dir, names[i]); unlink(p); }
    rmdir(dir);
    return 0;
}

static void put(const char *text) {
    ss_error err;
    assert_int_equal(ss_write_atomic(path, text, strlen(text), &err), 0);
}

static void test_missing_is_empty(void **state) {
    (void)state;
    ss_ledger l;
    ss_error err;
    assert_int_equal(ss_ledger_load(path, &l, &err), 0);
    assert_int_equal(l.n, 0);
    assert_string_equal(l.dir, dir);
    ss_ledger_free(&l);
}

static void test_round_trip_keeps_extra_fields(void **state) {
    (void)state;
    put("{\"format\":\"ssfuzz-ledger\",\"version\":1,\"findings\":[{\"kind\":\"mismatch\",\"target\":\"emu:b\","
        "\"schedule\":\"forward\",\"status\":\"fixed\",\"reproducer\":\"b.json\",\"upstream\":\"https://x/1\","
        "\"owner\":\"kernel team\"},{\"kind\":\"crash\",\"target\":\"emu:a\",\"reproducer\":\"a.json\"}]}");
    ss_ledger l;
    ss_error err;
    assert_int_equal(ss_ledger_load(path, &l, &err), 0);
    assert_int_equal(l.n, 2);
    ss_ledger_entry *e = ss_ledger_find(&l, "mismatch|emu:b|forward");
    assert_non_null(e);
    assert_int_equal(e->status, SS_LEDGER_FIXED);
    assert_string_equal(e->upstream, "https://x/1");
    assert_non_null(ss_ledger_find(&l, "crash|emu:a|"));
    snprintf(e->last_seen, sizeof e->last_seen, "2026-03-01");
    assert_int_equal(ss_ledger_save(&l, &err), 0);
    ss_ledger_free(&l);
    assert_int_equal(ss_ledger_load(path, &l, &err), 0);
    assert_string_equal(l.e[0].signature, "crash|emu:a|");   /* saved sorted by signature */
    assert_string_equal(l.e[1].last_seen, "2026-03-01");
    const cJSON *owner = cJSON_GetObjectItem(l.e[1].extra, "owner");
    assert_non_null(owner);
    assert_string_equal(owner->valuestring, "kernel team");
    ss_ledger_free(&l);
}

static void test_refusals(void **state) {
    (void)state;
    static const char *const bad[] = {
        "[]",
        "{\"format\":\"other\",\"findings\":[]}",
        "{\"format\":\"ssfuzz-ledger\",\"findings\":[{\"kind\":\"m\",\"target\":\"t\",\"status\":\"maybe\"}]}",
        "{\"format\":\"ssfuzz-ledger\",\"findings\":[{\"kind\":\"m\",\"target\":\"t\",\"reproducer\":\"../x.json\"}]}",
        "{\"format\":\"ssfuzz-ledger\",\"findings\":[{\"kind\":\"m\"}]}",
        "{\"format\":\"ssfuzz-ledger\",\"findings\":[{\"kind\":\"m\",\"target\":\"t\"},{\"kind\":\"m\",\"target\":\"t\"}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        put(bad[i]);
        ss_ledger l;
        ss_error err;
        assert_int_equal(ss_ledger_load(path, &l, &err), -1);
        assert_int_equal(l.n, 0);
    }
}

static void test_exit_codes(void **state) {
    (void)state;
    ss_triage t;
    memset(&t, 0, sizeof t);
    ss_night n;
    memset(&n, 0, sizeof n);
    ss_night_verdict(&n, &t);
    assert_int_equal(n.exit_code, 0);
    t.count[SS_TRIAGE_KNOWN] = 2;
    t.count[SS_TRIAGE_FIXED] = 1;
    t.count[SS_TRIAGE_UNCHECKED] = 1;
    ss_night_verdict(&n, &t);
    assert_int_equal(n.exit_code, 0);                 /* only known findings recur */
    assert_string_equal(n.verdict, "known findings only");
    n.fuzz_rc = 3;
    ss_night_verdict(&n, &t);
    assert_int_equal(n.exit_code, 2);                 /* the campaign did not run */
    t.count[SS_TRIAGE_REGRESSED] = 1;
    ss_night_verdict(&n, &t);
    assert_int_equal(n.exit_code, 1);                 /* a finding outranks a tool error */
    t.count[SS_TRIAGE_REGRESSED] = 0;
    n.fuzz_rc = 0;
    n.regress_rc = 1;
    ss_night_verdict(&n, &t);
    assert_int_equal(n.exit_code, 1);                 /* a failed corpus expectation */
}

static void test_history_keeps_last_rows(void **state) {
    (void)state;
    char hist[400];
    snprintf(hist, sizeof hist, "%s/history.jsonl", dir);
    ss_triage t;
    memset(&t, 0, sizeof t);
    ss_night n;
    memset(&n, 0, sizeof n);
    ss_error err;
    for (int i = 1; i <= 7; i++) {
        snprintf(n.date, sizeof n.date, "2026-01-0%d", i);
        n.cases_per_second = 100.0 * i;
        t.count[SS_TRIAGE_NEW] = (size_t)i;
        assert_int_equal(ss_history_append(hist, &n, &t, &err), 0);
    }
    ss_history_row *rows;
    size_t k;
    assert_int_equal(ss_history_read(hist, 5, &rows, &k, &err), 0);
    assert_int_equal(k, 5);
    assert_string_equal(rows[0].date, "2026-01-03");  /* oldest kept first */
    assert_string_equal(rows[4].date, "2026-01-07");
    assert_int_equal(rows[4].n_new, 7);
    assert_float_equal(rows[4].cases_per_second, 700, 0);
    free(rows);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_missing_is_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip_keeps_extra_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test_setup_teardown(test_history_keeps_last_rows, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
