/* test_confirm.c - confirmation without torch: the script runner (exit codes, output, the
 * time limit, a missing interpreter), meta.torch read as untrusted, and the verdicts a
 * confirmation draws from a script (a shell script stands in for the exported one). */
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
#include "ss_confirm.h"

static void test_runner_exit_and_output(void **state) {
    (void)state;
    const char *args[] = {"-c", "echo out; echo err >&2; exit 3", NULL};
    ss_script_run r;
    assert_int_equal(ss_script_run_python("/bin/sh", args, 10, &r), 0);
    assert_int_equal(r.exit_code, 3);
    assert_false(r.timed_out);
    assert_non_null(strstr(r.output, "out\n"));
    assert_non_null(strstr(r.output, "err\n"));
    ss_script_run_free(&r);
}

static void test_runner_time_limit(void **state) {
    (void)state;
    const char *args[] = {"-c", "sleep 30 & sleep 30", NULL};   /* a child of its own too */
    ss_script_run r;
    assert_int_equal(ss_script_run_python("/bin/sh", args, 0.3, &r), 0);
    assert_true(r.timed_out);
    assert_int_equal(r.exit_code, -1);
    assert_true(r.seconds < 10);
    ss_script_run_free(&r);
}

static void test_runner_missing_interpreter(void **state) {
    (void)state;
    const char *args[] = {"x.py", NULL};
    ss_script_run r;
    assert_int_equal(ss_script_run_python("/nonexistent/python3", args, 5, &r), -1);
    assert_non_null(strstr(r.why, "cannot run /nonexistent/python3"));
    ss_script_run_free(&r);
}

static void test_spec_from_meta(void **state) {
    (void)state;
    ss_confirm_spec s;
    cJSON *m = cJSON_Parse("{\"signature\": \"mismatch\", \"torch\": {\"mode\": \"compile-dynamic-cpu\", "
                           "\"spelling\": \"setitem-clone\", \"form\": \"x-input\"}}");
    assert_int_equal(ss_confirm_spec_from_meta(m, NULL, &s), 0);
    assert_string_equal(s.mode, "compile-dynamic-cpu");
    assert_string_equal(s.form, "x-input");
    assert_string_equal(s.kind, "mismatch");
    cJSON_Delete(m);
    static const char *const hostile[] = {
        "{}", "{\"torch\": 1}", "{\"torch\": {\"mode\": \"eager-cpu\"}}",
        "{\"torch\": {\"mode\": \"eager cpu; rm -rf /\", \"spelling\": \"copy\"}}",
        "{\"torch\": {\"mode\": \"eager-cpu\", \"spelling\": \"copy\", \"form\": \"x'\"}}",
        "{\"torch\": {\"mode\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", \"spelling\": \"copy\"}}",
        "{\"torch\": {\"mode\": \"\", \"spelling\": \"copy\"}}"};
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        m = cJSON_Parse(hostile[i]);
        assert_int_equal(ss_confirm_spec_from_meta(m, NULL, &s), -1);
        cJSON_Delete(m);
    }
}

/* The stand-in exporter writes this shell script; /bin/sh plays the python. */
static const char *script_text;

static int fake_export(const ss_case *c, const ss_confirm_spec *spec, const char *path, ss_error *err) {
    (void)c;
    (void)spec;
    FILE *f = fopen(path, "w");
    if (!f) return ss_fail(err, path, "cannot write");
    fputs(script_text, f);
    return fclose(f) ? -1 : 0;
}

static int failing_export(const ss_case *c, const ss_confirm_spec *spec, const char *path, ss_error *err) {
    (void)c;
    (void)spec;
    (void)path;
    return ss_fail(err, "program", "not exported");
}

static void confirm_within(const char *text, const char *kind, double limit, ss_confirm_result *r) {
    ss_case c;
    ss_case_init(&c);
    ss_confirm_spec spec = {"compile-cpu", "x-input", "setitem", ""};
    snprintf(spec.kind, sizeof spec.kind, "%s", kind);
    script_text = text;
    ss_confirm_set_exporter(fake_export);
    ss_confirm_case(&c, &spec, "/bin/sh", limit, r);
    ss_case_free(&c);
}

static void confirm_with(const char *text, const char *kind, ss_confirm_result *r) { confirm_within(text, kind, 10, r); }

static void test_verdicts(void **state) {
    (void)state;
    ss_confirm_result r;
    confirm_with("echo 'ssfuzz-export: program (setitem): x[1:] = x[:-1]'\n"
                 "echo 'ssfuzz-export: torch.compile(dynamic=False) on cpu, x-input: DIFFER: input storage[1]'\nexit 1\n",
                 "mismatch", &r);
    assert_int_equal(r.state, SS_CONFIRM_YES);
    assert_string_equal(r.value, "standalone");
    assert_string_equal(r.evidence, "torch.compile(dynamic=False) on cpu, x-input: DIFFER: input storage[1]");
    confirm_with("echo 'ssfuzz-export: eager on cpu: agree: final storages identical, 4 bytes'\nexit 0\n", "mismatch", &r);
    assert_int_equal(r.state, SS_CONFIRM_NO);
    assert_non_null(strstr(r.value, "no: the script agreed (exit 0: eager on cpu: agree"));
    /* a raised finding is not confirmed by a DIFFER, nor the reverse */
    confirm_with("echo 'ssfuzz-export: torch.compile(dynamic=False) on cpu, x-input: DIFFER: x'\nexit 1\n", "raised", &r);
    assert_int_equal(r.state, SS_CONFIRM_NO);
    assert_non_null(strstr(r.value, "another kind"));
    confirm_with("echo 'Traceback: \033[31mboom'\nexit 2\n", "mismatch", &r);
    assert_int_equal(r.state, SS_CONFIRM_NO);
    assert_non_null(strstr(r.value, "no: the script errored (exit 2: Traceback: \\x1b[31mboom)"));
    confirm_within("sleep 30\n", "mismatch", 1, &r);
    assert_non_null(strstr(r.value, "no: the script timed out after 1 s"));
    confirm_with("kill -9 $$\n", "mismatch", &r);
    assert_non_null(strstr(r.value, "no: the script died from signal 9"));
    ss_confirm_set_exporter(failing_export);   /* no script (a program case): not tried, no verdict */
    ss_confirm_case(NULL, NULL, "/bin/sh", 5, &r);
    assert_int_equal(r.state, SS_CONFIRM_NOT_TRIED);
    assert_string_equal(r.value, "not tried: no script: program: not exported");
    ss_confirm_case(NULL, NULL, NULL, 5, &r);   /* no python known: said, not crashed */
    assert_int_equal(r.state, SS_CONFIRM_NO);
    assert_non_null(strstr(r.value, "no torch python"));
}

static void test_meta(void **state) {
    (void)state;
    cJSON *m = cJSON_CreateObject();
    ss_confirm_result r = {SS_CONFIRM_YES, "standalone", "x: DIFFER: y", 1.0};
    assert_int_equal(ss_confirm_set_meta(m, &r), 0);
    r = (ss_confirm_result){SS_CONFIRM_NO, "no: the script agreed", "", 1.0};
    assert_int_equal(ss_confirm_set_meta(m, &r), 0);   /* replaces, never duplicates */
    assert_string_equal(cJSON_GetObjectItem(m, "confirmed")->valuestring, "no: the script agreed");
    assert_null(cJSON_GetObjectItem(m, "confirmed_by"));
    assert_int_equal(cJSON_GetArraySize(m), 1);
    cJSON_Delete(m);
}

/* The script runs with an empty inductor cache of its own, removed after; when
 * it agrees there, again with the campaign's cache (SSFUZZ_INDUCTOR_CACHE). */
static void test_inductor_cache(void **state) {
    (void)state;
    char campaign[] = "/tmp/ssfuzz-test-cache-XXXXXX", seen[300], marker[300], text[1200];
    assert_non_null(mkdtemp(campaign));
    snprintf(seen, sizeof seen, "%s/seen", campaign);
    snprintf(marker, sizeof marker, "%s/marker", campaign);
    unsetenv("TORCHINDUCTOR_CACHE_DIR");
    setenv("SSFUZZ_INDUCTOR_CACHE", campaign, 1);
    ss_confirm_result r;
    /* wrong with an empty cache: standalone, and the cache it filled is gone */
    snprintf(text, sizeof text, "echo \"$TORCHINDUCTOR_CACHE_DIR\" > %s; mkdir -p \"$TORCHINDUCTOR_CACHE_DIR/fx\"\n"
             "[ -z \"$(ls -A \"$TORCHINDUCTOR_CACHE_DIR/fx\")\" ] || exit 0\n"
             "echo 'ssfuzz-export: torch.compile(dynamic=False) on cpu, x-input: DIFFER: a'; exit 1\n", seen);
    confirm_with(text, "mismatch", &r);
    assert_int_equal(r.state, SS_CONFIRM_YES);
    assert_string_equal(r.value, "standalone");
    char used[300] = "";
    FILE *f = fopen(seen, "r");
    assert_non_null(f);
    assert_non_null(fgets(used, sizeof used, f));
    fclose(f);
    used[strcspn(used, "\n")] = 0;
    assert_non_null(strstr(used, "ssfuzz-confirm-"));
    struct stat st;
    assert_int_not_equal(stat(used, &st), 0);   /* removed with the script */
    /* wrong only with the campaign's cache: confirmed as the cache's */
    f = fopen(marker, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(text, sizeof text, "[ -e \"$TORCHINDUCTOR_CACHE_DIR/marker\" ] || "
             "{ echo 'ssfuzz-export: torch.compile(dynamic=False) on cpu, x-input: agree: identical'; exit 0; }\n"
             "echo 'ssfuzz-export: torch.compile(dynamic=False) on cpu, x-input: DIFFER: b'; exit 1\n");
    confirm_with(text, "mismatch", &r);
    assert_int_equal(r.state, SS_CONFIRM_YES);
    assert_non_null(strstr(r.value, "standalone with the campaign's inductor cache ("));
    assert_non_null(strstr(r.value, campaign));
    assert_string_equal(r.evidence, "torch.compile(dynamic=False) on cpu, x-input: DIFFER: b");
    /* agreeing with both: said; an eager finding is not run again */
    confirm_with("echo 'ssfuzz-export: x: agree: identical'\nexit 0\n", "mismatch", &r);
    assert_int_equal(r.state, SS_CONFIRM_NO);
    assert_non_null(strstr(r.value, "no: the script agreed (exit 0: x: agree: identical); also with the campaign's"));
    ss_case c;
    ss_case_init(&c);
    ss_confirm_spec eager = {"eager-cpu", "", "setitem", "mismatch"};
    script_text = text;
    ss_confirm_case(&c, &eager, "/bin/sh", 10, &r);
    assert_int_equal(r.state, SS_CONFIRM_NO);
    assert_null(strstr(r.value, "campaign"));
    ss_case_free(&c);
    unlink(seen);
    unlink(marker);
    rmdir(campaign);
    unsetenv("SSFUZZ_INDUCTOR_CACHE");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runner_exit_and_output), cmocka_unit_test(test_runner_time_limit),
        cmocka_unit_test(test_runner_missing_interpreter), cmocka_unit_test(test_spec_from_meta),
        cmocka_unit_test(test_verdicts), cmocka_unit_test(test_meta), cmocka_unit_test(test_inductor_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
