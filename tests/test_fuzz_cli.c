/* test_fuzz_cli.c - `ssfuzz fuzz` end to end: Ctrl-C keeps findings, crashes and hangs are isolated and replay as findings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include "ss_case.h"
#include "ss_files.h"

static char bin[1024];    /* BUILD/ssfuzz, next to BUILD/tests/ */
static char dir[256], out_txt[300];

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ssfuzz-test-fuzz-XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(out_txt, sizeof out_txt, "%s.out", dir);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, out_txt);
    return system(cmd) == 0 ? 0 : -1;
}

/* Starts `ssfuzz ARGS...` with stdout (and stderr) into out_txt; env may be NULL. */
static pid_t start(const char *env, char *const *args) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out_txt, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        if (env) { putenv((char *)env); setenv("SSFUZZ_TEST_HOOKS", "1", 1); }
        execv(bin, args);
        _exit(127);
    }
    return pid;
}

static int wait_exit(pid_t pid, double limit_s) {
    int st = 0;
    for (int i = 0; i < (int)(limit_s * 100); i++) {
        if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    fail_msg("ssfuzz did not exit within %.0f s", limit_s);
    return -1;
}

static char *slurp(const char *path) {
    char *text = NULL;
    size_t len;
    ss_error err;
    if (ss_read_file(path, 1 << 24, &text, &len, &err)) return NULL;
    return text;
}

/* Replays every reproducer in dir with `ssfuzz replay` under its meta's
 * schedule; each must fail again (exit 1). Returns how many there were. */
static int replay_all(const char *kind_prefix) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "summary.json")) continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        assert_int_equal(strncmp(e->d_name, kind_prefix, strlen(kind_prefix)), 0);
        ss_case c;
        ss_error err;
        ss_case_init(&c);
        assert_int_equal(ss_case_load(path, &c, &err), 0);
        const cJSON *t = cJSON_GetObjectItem(c.meta, "target"), *s = cJSON_GetObjectItem(c.meta, "schedule");
        assert_true(cJSON_IsString(t));
        char *args[] = {bin, "replay", "--target", t->valuestring, "--schedule",
                        cJSON_IsString(s) ? s->valuestring : "forward", path, NULL};
        assert_int_equal(wait_exit(start(NULL, args), 30), 1);
        ss_case_free(&c);
        n++;
    }
    closedir(d);
    return n;
}

/* The one reproducer in dir whose name starts with prefix (malloc'ed path), else NULL. */
static char *find_repro(const char *prefix) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char *found = NULL;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix)) && !found) {
            found = malloc(600);
            snprintf(found, 600, "%s/%s", dir, e->d_name);
        }
    if (d) closedir(d);
    return found;
}

static void require_fuzz_command(void) {
    char *args[] = {bin, "fuzz", "--help", NULL};
    if (wait_exit(start(NULL, args), 10) != 0)
        fail_msg("%s has no working `fuzz` subcommand (is cli_fuzz.o linked into it?)", bin);
}

static void test_sigint_keeps_findings(void **state) {
    (void)state;
    require_fuzz_command();
    char *args[] = {bin, "fuzz", "--target", "emu:mut-alias-unchecked", "--time", "20", "--seed", "5",
                    "--out", dir, NULL};
    pid_t pid = start(NULL, args);
    usleep(1500000);
    kill(pid, SIGINT);
    const time_t t0 = time(NULL);
    assert_int_equal(wait_exit(pid, 15), 130);   /* 128 + SIGINT, after the summary */
    assert_true(time(NULL) - t0 < 10);   /* stopped at once, not after --time */
    char *text = slurp(out_txt);
    assert_non_null(text);
    assert_non_null(strstr(text, "stopped by signal"));
    assert_non_null(strstr(text, "fuzz: seed 5, 1 target (emu:mut-alias-unchecked), time limit 20 s"));
    assert_non_null(strstr(text, " unique finding"));
    assert_non_null(strstr(text, " hits) in "));
    assert_non_null(strstr(text, "; next: ssfuzz explain "));
    assert_non_null(strstr(text, "reproduce: ssfuzz fuzz --seed 5"));
    assert_non_null(strstr(text, "finding ("));
    free(text);
    char path[300];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    text = slurp(path);
    assert_non_null(text);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_string_equal(cJSON_GetObjectItem(root, "stopped_by")->valuestring, "signal");
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(root, "findings")) >= 1);
    cJSON_Delete(root);
    free(text);
    /* one file per bug: no rank or dtype in the names */
    assert_true(replay_all("mismatch-emu_mut-alias-unchecked-") >= 1);
    char *r = find_repro("mismatch-");
    assert_non_null(r);
    assert_null(strstr(r, "-1d-"));
    free(r);
}

static void test_crash_isolated(void **state) {
    (void)state;
    require_fuzz_command();
    char *args[] = {bin, "fuzz", "--target", "emu:reinplace", "--cases", "300", "--seed", "3",
                    "--out", dir, "-q", NULL};
    assert_int_equal(wait_exit(start("SSFUZZ_TEST_FAULT=crash:40", args), 60), 1);
    char *text = slurp(out_txt);
    assert_non_null(strstr(text, "fuzz: 300 cases"));   /* the campaign went on */
    assert_non_null(strstr(text, "crash on emu:reinplace"));
    assert_non_null(strstr(text, "case 40"));
    free(text);
    /* the reproducer replays itself in a child process: a crash is a finding (1), not 3 */
    char *r = find_repro("crash-");
    assert_non_null(r);
    char *replay[] = {bin, "replay", r, NULL};
    assert_int_equal(wait_exit(start("SSFUZZ_TEST_FAULT=crash", replay), 30), 1);
    text = slurp(out_txt);
    assert_non_null(strstr(text, "replaying its meta.target emu:reinplace"));
    assert_non_null(strstr(text, "in a child process (a crash reproducer)"));
    assert_non_null(strstr(text, "FINDING crash on emu:reinplace"));
    /* signal 11, or (under ASan, whose handler turns the signal into exit 1) an exit status */
    assert_true(strstr(text, "signal 11") || strstr(text, "exited with status"));
    free(text);
    free(r);
}

static void test_hang_isolated(void **state) {
    (void)state;
    require_fuzz_command();
    char *args[] = {bin, "fuzz", "--target", "emu:reinplace", "--cases", "60", "--seed", "3",
                    "--case-timeout", "0.3", "--out", dir, "-q", NULL};
    assert_int_equal(wait_exit(start("SSFUZZ_TEST_FAULT=hang:10", args), 60), 1);
    char *text = slurp(out_txt);
    assert_non_null(strstr(text, "fuzz: 60 cases"));
    assert_non_null(strstr(text, "timeout on emu:reinplace"));
    free(text);
    char *r = find_repro("timeout-");
    assert_non_null(r);
    char *replay[] = {bin, "replay", "--case-timeout", "0.5", r, NULL};
    assert_int_equal(wait_exit(start("SSFUZZ_TEST_FAULT=hang", replay), 30), 1);
    text = slurp(out_txt);
    assert_non_null(strstr(text, "FINDING timeout on emu:reinplace"));
    free(text);
    char *explain[] = {bin, "explain", "--color", "never", r, NULL};
    assert_int_equal(wait_exit(start("SSFUZZ_TEST_FAULT=crash", explain), 30), 1);
    text = slurp(out_txt);
    assert_non_null(strstr(text, "replaying its meta.target emu:reinplace"));
    assert_non_null(strstr(text, "crash in 5 of 5 runs"));
    free(text);
    free(r);
}

static void test_clean_and_usage(void **state) {
    (void)state;
    require_fuzz_command();
    char *ok[] = {bin, "fuzz", "--target", "emu:reinplace", "--cases", "3000", "--jobs", "2",
                  "--seed", "9", "--out", dir, "-q", NULL};
    assert_int_equal(wait_exit(start(NULL, ok), 120), 0);
    char *text = slurp(out_txt);
    assert_non_null(strstr(text, "fuzz: 3000 cases"));
    free(text);
    char *unwritable[] = {bin, "fuzz", "--cases", "1", "--out", "/proc/ssfuzz-no", NULL};
    assert_int_equal(wait_exit(start(NULL, unwritable), 10), 2);
    text = slurp(out_txt);
    assert_non_null(strstr(text, "not a writable directory"));
    free(text);
    char *bad[] = {bin, "fuzz", "--cases", "x", NULL};
    assert_int_equal(wait_exit(start(NULL, bad), 10), 2);
    char *unknown[] = {bin, "fuzz", "--target", "emu:nope", NULL};
    assert_int_equal(wait_exit(start(NULL, unknown), 10), 2);
}

int main(int argc, char **argv) {
    (void)argc;
    const char *env = getenv("SSFUZZ_BIN");
    if (env) {
        snprintf(bin, sizeof bin, "%s", env);
    } else {   /* BUILD/tests/test_fuzz_cli -> BUILD/ssfuzz */
        snprintf(bin, sizeof bin, "%s", argv[0]);
        char *slash = strrchr(bin, '/');
        if (slash) *slash = 0;
        slash = strrchr(bin, '/');
        if (slash) snprintf(slash + 1, sizeof bin - (size_t)(slash + 1 - bin), "ssfuzz");
        else snprintf(bin, sizeof bin, "../ssfuzz");
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sigint_keeps_findings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crash_isolated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hang_isolated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clean_and_usage, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
