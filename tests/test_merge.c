/* test_merge.c - shards and `merge`: I/N and Slurm's variables, the index partition, a shard's
 * summary and resume point, merging shard directories (one reproducer per bug, every run once,
 * missing shards, unreadable summaries, merging twice). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include "ss_files.h"
#include "ss_fuzz.h"
#include "ss_gen.h"
#include "ss_merge.h"
#include "ss_report.h"
#include "ss_shard.h"
#include "ss_summary_merge.h"
#include "ss_target.h"

static char root[256];

static int setup(void **state) {
    (void)state;
    snprintf(root, sizeof root, "/tmp/ssfuzz-test-shards-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_parse(void **state) {
    (void)state;
    ss_shard s;
    ss_error err;
    assert_int_equal(ss_shard_parse("3/8", &s, &err), 0);
    assert_int_equal(s.index, 3);
    assert_int_equal(s.count, 8);
    assert_int_equal(ss_shard_parse("0/1", &s, &err), 0);
    static const char *const bad[] = {"8/8", "0/0", "1", "/2", "1/", "a/2", "-1/2", "1/+2", " 1/2", "1/2 ",
                                      "1/2/3", "0/1048577", "0/99999999999999999999", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ss_shard_parse(bad[i], &s, &err), -1);
        assert_string_equal(err.field, "--shard");
    }
}

static void set_env(const char *id, const char *count, const char *min, const char *step) {
    const char *names[] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
                           "SLURM_ARRAY_TASK_STEP"};
    const char *vals[] = {id, count, min, step};
    for (int i = 0; i < 4; i++) {
        if (vals[i]) setenv(names[i], vals[i], 1);
        else unsetenv(names[i]);
    }
}

static void test_slurm_env(void **state) {
    (void)state;
    ss_shard s;
    ss_error err;
    set_env(NULL, NULL, NULL, NULL);
    assert_int_equal(ss_shard_from_env(&s, &err), 0);   /* not an array task */
    set_env("5", "4", "4", NULL);                          /* --array=4-7 */
    assert_int_equal(ss_shard_from_env(&s, &err), 1);
    assert_int_equal(s.index, 1);
    assert_int_equal(s.count, 4);
    set_env("8", "4", "0", "4");                           /* --array=0-12:4 */
    assert_int_equal(ss_shard_from_env(&s, &err), 1);
    assert_int_equal(s.index, 2);
    set_env("5", "3", "1", NULL);                          /* --array=1,5,9: no shard numbering */
    assert_int_equal(ss_shard_from_env(&s, &err), -1);
    assert_string_equal(err.field, "SLURM_ARRAY_TASK_ID");
    set_env("6", "4", "0", "4");                           /* off the step */
    assert_int_equal(ss_shard_from_env(&s, &err), -1);
    set_env("1", NULL, NULL, NULL);
    assert_int_equal(ss_shard_from_env(&s, &err), -1);
    assert_string_equal(err.field, "SLURM_ARRAY_TASK_COUNT");
    set_env("1x", "4", NULL, NULL);
    assert_int_equal(ss_shard_from_env(&s, &err), -1);
    set_env(NULL, NULL, NULL, NULL);
}

/* N shards' local cases cover every index once. */
static void test_partition(void **state) {
    (void)state;
    enum { N = 7, PER = 50 };
    unsigned char seen[N * PER] = {0};
    ss_fuzz_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.shard_count = N;
    for (uint64_t i = 0; i < N; i++) {
        cfg.shard_index = i;
        for (uint64_t j = 0; j < PER; j++) seen[ss_fuzz_case_index(&cfg, j)]++;
    }
    for (size_t k = 0; k < sizeof seen; k++) assert_int_equal(seen[k], 1);
    cfg.shard_count = 0;
    assert_int_equal(ss_fuzz_case_index(&cfg, 12345), 12345);
}

static void mkdir_in(const char *name, char *out, size_t n) {
    snprintf(out, n, "%s/%s", root, name);
    mkdir(out, 0755);
}

/* A shard's summary: seed 5, shard I/N, cases, one finding of the mutant. */
static void write_shard(const char *dir, uint64_t i, uint64_t n, uint64_t next) {
    ss_summary s;
    memset(&s, 0, sizeof s);
    s.seed = 5;
    s.cases = 1000;
    s.seconds = 2;
    s.stopped_by = "time";
    snprintf(s.targets, sizeof s.targets, "emu:mut-alias-unchecked");
    s.shard_index = i;
    s.shard_count = n;
    s.next_case = next;
    snprintf(s.campaign_id, sizeof s.campaign_id, "host-%llu-%llu", (unsigned long long)i, (unsigned long long)next);
    assert_int_equal(ss_summary_add(&s, "mismatch", "emu:mut-alias-unchecked", "forward", "k", "r.json", 1), 0);
    ss_error err;
    assert_int_equal(ss_summary_write(dir, &s, &err), 0);
    ss_summary_free(&s);
}

static void test_resume_point(void **state) {
    (void)state;
    char d[300];
    mkdir_in("resume", d, sizeof d);
    ss_shard sh = {2, 4, "--shard"}, other = {1, 4, "--shard"};
    uint64_t next = 99;
    ss_error err;
    assert_int_equal(ss_shard_resume_point(d, 5, &sh, &next, &err), 0);
    assert_int_equal(next, 0);                               /* no summary yet */
    write_shard(d, 2, 4, 1000);
    write_shard(d, 2, 4, 1700);                              /* a requeued task's run */
    write_shard(d, 1, 4, 5000);                              /* another shard's file */
    assert_int_equal(ss_shard_resume_point(d, 5, &sh, &next, &err), 0);
    assert_int_equal(next, 1700);
    assert_int_equal(ss_shard_resume_point(d, 6, &sh, &next, &err), 0);
    assert_int_equal(next, 0);                               /* another seed */
    assert_int_equal(ss_shard_resume_point(d, 5, &other, &next, &err), 0);
    assert_int_equal(next, 5000);
    char p[400];
    snprintf(p, sizeof p, "%s/summary-shard-2.json", d);
    assert_int_equal(ss_write_atomic(p, "{\"campaigns\": 3}", 16, &err), 0);
    assert_int_equal(ss_shard_resume_point(d, 5, &sh, &next, &err), -1);
}

/* A reproducer of the mutant from case `index` of seed 5, minimized or not. */
static void write_repro(const char *dir, uint64_t index, int minimized, char *path, size_t n) {
    ss_gen_config g;
    ss_gen_config_default(&g);
    ss_case c;
    assert_int_equal(ss_gen_case(&g, 5, index, &c, NULL), 0);
    const ss_target *t = ss_target_find("emu:mut-alias-unchecked");
    assert_non_null(t);
    ss_finding f = {"mismatch", t, "forward", 1, 1, 5, index, 10, 1, minimized, "test", NULL};
    ss_error err;
    assert_true(ss_report_write(dir, &c, &f, 0, path, n, &err) >= 0);
    ss_case_free(&c);
}

static cJSON *load_json(const char *path) {
    char *text;
    size_t len;
    ss_error err;
    assert_int_equal(ss_read_file(path, 1 << 24, &text, &len, &err), 0);
    cJSON *j = cJSON_Parse(text);
    free(text);
    assert_non_null(j);
    return j;
}

static void test_merge_dirs(void **state) {
    (void)state;
    char a[300], b[300], out[300], pa[1024], pb[1024], pb2[1024];
    mkdir_in("a", a, sizeof a);
    mkdir_in("b", b, sizeof b);
    snprintf(out, sizeof out, "%s/merged", root);
    write_shard(a, 0, 3, 1000);
    write_shard(b, 1, 3, 1000);
    write_repro(a, 0, 0, pa, sizeof pa);     /* one bug in both shards: b's minimized copy wins */
    write_repro(b, 0, 1, pb, sizeof pb);
    write_repro(b, 1, 1, pb2, sizeof pb2);   /* whatever case 1 is: its key decides */
    char bad[400];
    snprintf(bad, sizeof bad, "%s/summary-shard-9.json", b);
    ss_error err;
    assert_int_equal(ss_write_atomic(bad, "{\"format\": \"x\"}", 15, &err), 0);
    const char *dirs[] = {a, b};
    ss_merge_opts o = {dirs, 2, out, 0};
    ss_merge_result r;
    assert_int_equal(ss_merge_run(&o, &r, &err), 0);
    assert_int_equal(r.runs, 2);
    assert_int_equal(r.unreadable, 1);
    assert_int_equal(r.shard_count, 3);
    assert_int_equal(r.shards_present, 2);
    assert_int_equal(r.shards_missing, 1);
    assert_string_equal(r.missing, "2");
    assert_true(r.bugs >= 1 && r.bugs <= 2);
    assert_int_equal(r.copied, r.bugs);
    char sp[400];
    snprintf(sp, sizeof sp, "%s/summary.json", out);
    cJSON *s = load_json(sp);
    assert_int_equal((int)cJSON_GetObjectItem(s, "cases")->valuedouble, 2000);
    assert_int_equal((int)cJSON_GetObjectItem(s, "unique_findings")->valuedouble, (int)r.bugs);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(s, "campaigns")), 2);
    const cJSON *sh = cJSON_GetObjectItem(s, "shards");
    assert_int_equal((int)cJSON_GetObjectItem(sh, "count")->valuedouble, 3);
    assert_int_equal((int)cJSON_GetArrayItem(cJSON_GetObjectItem(sh, "missing"), 0)->valuedouble, 2);
    const char *rp = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(s, "findings"), 0), "reproducer")->valuestring;
    assert_int_equal(strncmp(rp, out, strlen(out)), 0);   /* points into OUT */
    assert_null(cJSON_GetObjectItem(s, "campaign_id"));    /* a run's own key, not a total */
    cJSON_Delete(s);
    /* the bug both shards wrote: the minimized copy (b's) was kept */
    const char *base = strrchr(pb, '/') + 1;
    char kept[1400];
    snprintf(kept, sizeof kept, "%s/%s", out, base);
    cJSON *k = load_json(kept);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "meta"), "minimized")));
    cJSON_Delete(k);
    /* merging again, with OUT among the inputs: every run once, nothing copied */
    const char *again[] = {a, b, out};
    ss_merge_opts o2 = {again, 3, out, 0};
    assert_int_equal(ss_merge_run(&o2, &r, &err), 0);
    assert_int_equal(r.runs, 2);
    assert_int_equal(r.duplicate_runs, 2);
    assert_int_equal(r.copied, 0);
    s = load_json(sp);
    assert_int_equal((int)cJSON_GetObjectItem(s, "cases")->valuedouble, 2000);
    cJSON_Delete(s);
}

/* Runs of many seeds: the top level lists 256 of them, then "...", in linear time. */
static void test_totals_capped(void **state) {
    (void)state;
    cJSON *runs = cJSON_CreateArray();
    for (int i = 0; i < 300; i++) {
        char text[160];
        snprintf(text, sizeof text, "{\"seed\": \"%d\", \"targets\": \"emu:a\", \"cases\": 1}", i);
        cJSON_AddItemToArray(runs, cJSON_Parse(text));
    }
    cJSON *t = ss_summary_totals(runs);
    assert_non_null(t);
    const char *seeds = cJSON_GetStringValue(cJSON_GetObjectItem(t, "seed"));
    size_t commas = 0;
    for (const char *p = seeds; *p; p++) commas += *p == ',';
    assert_int_equal(commas, 256);                        /* 256 seeds and "..." */
    assert_string_equal(seeds + strlen(seeds) - 4, ",...");
    assert_int_equal(strncmp(seeds, "0,1,2,", 6), 0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(t, "targets")), "emu:a");
    assert_int_equal((int)cJSON_GetObjectItem(t, "cases")->valuedouble, 300);
    cJSON_Delete(t);
    cJSON_Delete(runs);
}

static void test_merge_errors(void **state) {
    (void)state;
    char f[300];
    snprintf(f, sizeof f, "%s/file", root);
    ss_error err;
    assert_int_equal(ss_write_atomic(f, "x", 1, &err), 0);
    const char *dirs[] = {f};
    char out[300];
    snprintf(out, sizeof out, "%s/out2", root);
    ss_merge_opts o = {dirs, 1, out, 0};
    ss_merge_result r;
    assert_int_equal(ss_merge_run(&o, &r, &err), -1);
    assert_string_equal(err.msg, "not a directory");
    o.out = f;   /* OUT a file: not writable as a directory */
    const char *d2[] = {root};
    o.dirs = d2;
    assert_int_equal(ss_merge_run(&o, &r, &err), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_slurm_env),
        cmocka_unit_test(test_partition),
        cmocka_unit_test_setup_teardown(test_resume_point, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_dirs, setup, teardown),
        cmocka_unit_test(test_totals_capped),
        cmocka_unit_test_setup_teardown(test_merge_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
