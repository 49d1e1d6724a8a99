/* test_batch.c - a batch-only failure's batch in meta.batch: written, read back
 * exactly, and every hostile field refused with its name and rule. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_batch.h"
#include "ss_gen.h"

#define N 5

static void gen_batch(ss_case *cases) {
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    for (int i = 0; i < N; i++) assert_int_equal(ss_gen_case(&cfg, 7, (uint64_t)i, &cases[i], NULL), 0);
}

/* Recorded at position 2 of 5, read back: the other four, in order, equal. */
static void test_round_trip(void **state) {
    (void)state;
    ss_case cases[N], mine, others[N];
    const ss_case *ptrs[N];
    gen_batch(cases);
    for (int i = 0; i < N; i++) ptrs[i] = &cases[i];
    assert_int_equal(ss_case_copy(&mine, &cases[2]), 0);
    const char *scheds[] = {"x-input", "storage-input", "two-inputs"};
    const char *rotated[N] = {"two-inputs", "x-input", "storage-input", "two-inputs", "x-input"};
    assert_int_equal(ss_batch_record(&mine, ptrs, N, 2, scheds, 3, rotated), 0);
    /* through the file format: written and parsed as a reproducer is */
    char *text = ss_case_to_json(&mine);
    ss_case back;
    ss_error err;
    assert_int_equal(ss_case_from_json(text, strlen(text), &back, &err), 0);
    ss_batch_spec spec;
    assert_int_equal(ss_batch_load(&back, others, N, &spec, &err), 1);
    assert_int_equal(spec.n_others, N - 1);
    assert_int_equal(spec.pos, 2);
    assert_int_equal(spec.n_schedules, 3);
    assert_string_equal(spec.schedules[1], "storage-input");
    assert_int_equal(spec.rotated, 1);
    for (int i = 0; i < N; i++) assert_string_equal(spec.case_schedules[i], rotated[i]);
    for (int i = 0, k = 0; i < N; i++) {
        if (i == 2) continue;
        char *a = ss_case_to_json(&cases[i]), *b = ss_case_to_json(&others[k]);
        assert_string_equal(a, b);
        free(a);
        free(b);
        ss_case_free(&others[k++]);
    }
    free(text);
    ss_case_free(&back);
    ss_case_free(&mine);
    for (int i = 0; i < N; i++) ss_case_free(&cases[i]);
}

/* A case without meta.batch records none. */
static void test_none(void **state) {
    (void)state;
    ss_case c, others[2];
    ss_batch_spec spec;
    ss_error err;
    ss_case_init(&c);
    assert_int_equal(ss_batch_load(&c, others, 2, &spec, &err), 0);
}

/* Each hostile meta.batch (a JSON edit of a recorded one) is refused with its field. */
static void test_hostile(void **state) {
    (void)state;
    static const struct { const char *key, *value, *field; } bad[] = {
        {"size", "1", "meta.batch.size"},
        {"size", "500", "meta.batch.size"},
        {"size", "\"x\"", "meta.batch.size"},
        {"size", "2.5", "meta.batch.size"},
        {"position", "5", "meta.batch.position"},
        {"position", "-1", "meta.batch.position"},
        {"schedules", "\"x-input\"", "meta.batch.schedules"},
        {"schedules", "[1]", "meta.batch.schedules"},
        {"schedules", "[\"\"]", "meta.batch.schedules"},
        {"schedules", "[\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\"]", "meta.batch.schedules"},
        {"cases", "{}", "meta.batch.cases"},
        {"cases", "[]", "meta.batch.cases"},
        {"cases", "[1,2,3,4]", "meta.batch.cases"},
        {"case_schedules", "\"x-input\"", "meta.batch.case_schedules"},
        {"case_schedules", "[\"x-input\"]", "meta.batch.case_schedules"},
        {"case_schedules", "[\"a\",\"a\",\"a\",\"a\",7]", "meta.batch.case_schedules"},
        {"case_schedules", "[\"a\",\"a\",\"\",\"a\",\"a\"]", "meta.batch.case_schedules"},
        {"case_schedules", "[\"a\",\"a\",\"a\",\"a\",\"a\",\"a\"]", "meta.batch.case_schedules"},
        {"case_schedules", "[\"a\",\"a\",\"a\",\"a\",\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]",
         "meta.batch.case_schedules"},
    };
    const char *rotated[N] = {"x-input", "x-input", "x-input", "x-input", "x-input"};
    ss_case cases[N], mine, others[N];
    const ss_case *ptrs[N];
    gen_batch(cases);
    for (int i = 0; i < N; i++) ptrs[i] = &cases[i];
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        assert_int_equal(ss_case_copy(&mine, &cases[0]), 0);
        const char *sched[] = {"x-input"};
        assert_int_equal(ss_batch_record(&mine, ptrs, N, 0, sched, 1, rotated), 0);
        cJSON *batch = cJSON_GetObjectItemCaseSensitive(mine.meta, "batch");
        cJSON_ReplaceItemInObjectCaseSensitive(batch, bad[b].key, cJSON_Parse(bad[b].value));
        ss_batch_spec spec;
        ss_error err;
        memset(&err, 0, sizeof err);
        assert_int_equal(ss_batch_load(&mine, others, N, &spec, &err), -1);
        assert_string_equal(err.field, bad[b].field);
        assert_true(err.msg[0] != '\0');
        ss_case_free(&mine);
    }
    /* one of the other cases with a field that breaks its rule: named inside the batch */
    assert_int_equal(ss_case_copy(&mine, &cases[0]), 0);
    const char *sched[] = {"x-input"};
    assert_int_equal(ss_batch_record(&mine, ptrs, N, 0, sched, 1, NULL), 0);
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(mine.meta, "batch"), "cases");
    cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetArrayItem(arr, 3), "dtype", cJSON_CreateString("float99"));
    ss_batch_spec spec;
    ss_error err;
    assert_int_equal(ss_batch_load(&mine, others, N, &spec, &err), -1);
    assert_non_null(strstr(err.field, "meta.batch.cases[3]"));
    ss_case_free(&mine);
    for (int i = 0; i < N; i++) ss_case_free(&cases[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
