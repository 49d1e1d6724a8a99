/* test_torch_modes.c - the torch mode table: names, the listed modes first, the stage order,
 * and each compiled mode's stage modes and baseline, the table as the worker reads it, and
 * the modes docs/torch.md lists, and what the --issue report reads of it (decorators, pick order). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_export_issue.h"
#include "ss_torch_modes.h"

static void test_names_and_order(void **state) {
    (void)state;
    const size_t n = ss_torch_mode_count(), listed = ss_torch_listed_mode_count();
    assert_int_equal(listed, 10);
    for (size_t i = 0; i < n; i++) {
        const ss_torch_mode *m = ss_torch_mode_at(i);
        char want[64];
        snprintf(want, sizeof want, "%s-%s", m->kind, m->cuda ? "cuda" : "cpu");
        assert_string_equal(m->name, want);   /* the name is the kind on a device */
        assert_int_equal(m->listed, i < listed);
        assert_ptr_equal(ss_torch_mode_named(m->name), m);
        assert_ptr_equal(ss_torch_mode_of_kind(m->kind, m->cuda), m);
        assert_int_equal(m->dynamic, strstr(m->kind, "dynamic") != NULL);
        assert_int_equal(ss_torch_stage_rank(m), (int)m->backend + (m->dynamic ? SS_TB_COUNT : 0));
    }
    assert_null(ss_torch_mode_at(n));
    assert_null(ss_torch_mode_named("compile-tpu"));
    /* every backend and shape on every device: each compiled mode has its stage modes */
    for (int cuda = 0; cuda < 2; cuda++)
        for (int b = SS_TB_EAGER; b < SS_TB_COUNT; b++)
            for (int dyn = 0; dyn < 2; dyn++) {
                int found = 0;
                for (size_t i = 0; i < n; i++) {
                    const ss_torch_mode *m = ss_torch_mode_at(i);
                    found += m->cuda == cuda && (int)m->backend == b && m->dynamic == dyn;
                }
                assert_int_equal(found, 1);
            }
}

static void expect_stages(const char *name, const char *want) {
    const ss_torch_mode *m = ss_torch_mode_named(name), *st[4];
    assert_non_null(m);
    const int n = ss_torch_stage_modes(m, st, 4);
    char got[200] = "";
    for (int i = 0; i < n; i++) {
        strcat(got, i ? " " : "");
        strcat(got, st[i]->name);
    }
    assert_string_equal(got, want);
}

static void test_stage_order(void **state) {
    (void)state;
    expect_stages("compile-cpu", "dynamo-eager-cpu aot-eager-cpu");
    expect_stages("compile-dynamic-cpu", "dynamo-eager-dynamic-cpu aot-eager-dynamic-cpu");
    expect_stages("compile-cuda", "dynamo-eager-cuda aot-eager-cuda");
    expect_stages("aot-eager-cuda", "dynamo-eager-cuda");
    expect_stages("aot-eager-dynamic-cpu", "dynamo-eager-dynamic-cpu");
    expect_stages("dynamo-eager-cpu", "");
    expect_stages("eager-cpu", "");
    const ss_torch_mode *st[4];
    assert_int_equal(ss_torch_stage_modes(ss_torch_mode_named("compile-cpu"), st, 1), 1);   /* cap */
    assert_string_equal(ss_torch_baseline_mode(ss_torch_mode_named("compile-dynamic-cuda"))->name, "eager-cuda");
    assert_string_equal(ss_torch_baseline_mode(ss_torch_mode_named("dynamo-eager-cpu"))->name, "eager-cpu");
    assert_null(ss_torch_baseline_mode(ss_torch_mode_named("eager-cpu")));
    assert_string_equal(ss_torch_stage_name(SS_TB_NONE), "eager");
    assert_string_equal(ss_torch_stage_name(SS_TB_EAGER), "dynamo");
    assert_string_equal(ss_torch_stage_name(SS_TB_AOT_EAGER), "aot");
    assert_string_equal(ss_torch_stage_name(SS_TB_INDUCTOR), "inductor");
    assert_true(ss_torch_stage_rank(ss_torch_mode_named("compile-cpu")) <
                ss_torch_stage_rank(ss_torch_mode_named("dynamo-eager-dynamic-cpu")));
}

static void test_worker_json(void **state) {
    (void)state;
    cJSON *o = cJSON_Parse(ss_torch_modes_json());
    assert_non_null(o);
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(o, "modes"), *stages = cJSON_GetObjectItemCaseSensitive(o, "stages");
    assert_int_equal(cJSON_GetArraySize(modes), (int)ss_torch_mode_count());
    for (size_t i = 0; i < ss_torch_mode_count(); i++) {
        const ss_torch_mode *m = ss_torch_mode_at(i);
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(modes, m->name);
        assert_non_null(e);
        if (m->backend == SS_TB_NONE) { assert_true(cJSON_IsNull(e)); continue; }
        assert_string_equal(cJSON_GetArrayItem(e, 0)->valuestring, ss_torch_backend_name(m->backend));
        assert_int_equal(cJSON_IsTrue(cJSON_GetArrayItem(e, 1)), m->dynamic);
    }
    const char *want[][2] = {{"eager", "dynamo"}, {"aot_eager", "aot"}, {"inductor", "inductor"}};
    assert_int_equal(cJSON_GetArraySize(stages), 3);
    for (int k = 0; k < 3; k++) {
        assert_string_equal(cJSON_GetArrayItem(cJSON_GetArrayItem(stages, k), 0)->valuestring, want[k][0]);
        assert_string_equal(cJSON_GetArrayItem(cJSON_GetArrayItem(stages, k), 1)->valuestring, want[k][1]);
    }
    cJSON_Delete(o);
}

/* Every kind once, in the stage order: what scripts run and reports pick in. */
static void test_kinds_in_stage_order(void **state) {
    (void)state;
    char got[300] = "";
    const ss_torch_mode *m;
    for (size_t i = 0; (m = ss_torch_mode_in_stage_order(i, 0)); i++) {
        strcat(got, i ? " " : "");
        strcat(got, m->kind);
        assert_false(m->cuda);
    }
    assert_string_equal(got, "eager dynamo-eager aot-eager compile dynamo-eager-dynamic aot-eager-dynamic compile-dynamic");
    assert_string_equal(ss_torch_mode_in_stage_order(3, 1)->name, "compile-cuda");
    assert_null(ss_torch_mode_in_stage_order(7, 1));
}

/* The --issue report's decorators, from the table: each kind as a user writes it. */
static void test_issue_decorators(void **state) {
    (void)state;
    static const char *const want[][3] = {   /* kind, dynamic=False spelled out, torch's default */
        {"automatic", "@torch.compile", "@torch.compile"},
        {"compile", "@torch.compile(dynamic=False)", "@torch.compile"},
        {"compile-dynamic", "@torch.compile(dynamic=True)", "@torch.compile(dynamic=True)"},
        {"aot-eager", "@torch.compile(backend=\"aot_eager\", dynamic=False)", "@torch.compile(backend=\"aot_eager\")"},
        {"aot-eager-dynamic", "@torch.compile(backend=\"aot_eager\", dynamic=True)",
         "@torch.compile(backend=\"aot_eager\", dynamic=True)"},
        {"dynamo-eager", "@torch.compile(backend=\"eager\", dynamic=False)", "@torch.compile(backend=\"eager\")"},
        {"dynamo-eager-dynamic", "@torch.compile(backend=\"eager\", dynamic=True)",
         "@torch.compile(backend=\"eager\", dynamic=True)"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_string_equal(ss_issue_decorator(want[i][0], 1), want[i][1]);
        assert_string_equal(ss_issue_decorator(want[i][0], 0), want[i][2]);
    }
    assert_null(ss_issue_decorator("eager", 1));
    assert_null(ss_issue_decorator("compile-tpu", 0));
    assert_null(ss_issue_decorator(NULL, 0));
    /* the pick order: the stage order, the automatic switch last */
    const char *order[] = {"eager", "dynamo-eager", "aot-eager", "compile", "dynamo-eager-dynamic",
                           "aot-eager-dynamic", "compile-dynamic", "automatic", NULL};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (!order[i]) assert_null(ss_issue_kind_at(i));
        else assert_string_equal(ss_issue_kind_at(i), order[i]);
    }
}

/* docs/torch.md's MODE table names every listed mode, and no other. */
static void test_docs_table(void **state) {
    (void)state;
    FILE *f = fopen("docs/torch.md", "r");
    if (!f) skip();   /* run from the repository's root */
    char line[1024];
    int seen[64] = {0}, in_table = 0, rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "| MODE |", 8)) { in_table = 1; continue; }
        if (!in_table) continue;
        if (line[0] != '|') break;
        if (!strncmp(line, "|---", 4)) continue;
        rows++;
        const char *end = strchr(line + 1, '|');
        for (const char *p = strchr(line, '`'); p && p < end; p = strchr(p + 1, '`')) {
            const char *q = strchr(p + 1, '`');
            if (!q || q > end) break;
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(q - p - 1), p + 1);
            const ss_torch_mode *m = ss_torch_mode_named(name);
            if (!m || !m->listed) fail_msg("docs/torch.md lists mode '%s', which is not a listed mode", name);
            seen[m - ss_torch_mode_at(0)] = 1;
            p = q;
        }
    }
    fclose(f);
    assert_true(rows > 0);
    for (size_t i = 0; i < ss_torch_listed_mode_count(); i++)
        if (!seen[i]) fail_msg("docs/torch.md's MODE table does not list %s", ss_torch_mode_at(i)->name);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_and_order),
        cmocka_unit_test(test_stage_order),
        cmocka_unit_test(test_worker_json),
        cmocka_unit_test(test_kinds_in_stage_order),
        cmocka_unit_test(test_issue_decorators),
        cmocka_unit_test(test_docs_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
