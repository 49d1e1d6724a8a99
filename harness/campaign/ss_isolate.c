/* ss_isolate.c - run one target check in a forked child with a time limit. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ss_isolate.h"
#include "ss_test_hook.h"

static size_t span(const ss_storage *s) { return s->base ? s->bytes + 2 * s->guard : 0; }

static void test_fault(void) {
    const char *f = ss_test_hook("SSFUZZ_TEST_FAULT");
    if (f && !strcmp(f, "crash")) raise(SIGSEGV);
    if (f && !strcmp(f, "hang")) for (;;) pause();
}

/* Waits for pid until the deadline; 1 when it exited in time (status in *st). */
static int wait_until(pid_t pid, double timeout_s, int *st) {
    struct timespec t0, now, nap = {0, 2000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        const pid_t r = waitpid(pid, st, WNOHANG);
        if (r == pid) return 1;
        if (r < 0 && errno != EINTR) return 1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9 > timeout_s)
            return 0;
        nanosleep(&nap, NULL);
    }
}

int ss_isolated_check(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref_status,
                      const ss_target *t, const ss_run_opts *opts, double timeout_s,
                      ss_check_result *res) {
    const size_t n_in = span(&ctx->tgt_in), n_src = span(&ctx->tgt_src);
    const size_t total = sizeof *res + n_in + n_src;
    memset(res, 0, sizeof *res);
    res->ref_status = ref_status;
    uint8_t *shared = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        res->verdict = SS_TARGET_UNAVAILABLE;
        snprintf(res->why, sizeof res->why, "cannot isolate the target: mmap: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        munmap(shared, total);
        res->verdict = SS_TARGET_UNAVAILABLE;
        snprintf(res->why, sizeof res->why, "cannot isolate the target: fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        test_fault();
        ss_check_result r;
        ss_check_target(ctx, plan, ref_status, t, opts, &r);
        memcpy(shared, &r, sizeof r);
        if (n_in) memcpy(shared + sizeof r, ctx->tgt_in.base, n_in);
        if (n_src) memcpy(shared + sizeof r + n_in, ctx->tgt_src.base, n_src);
        _exit(0);
    }
    int st = 0;
    if (!wait_until(pid, timeout_s, &st)) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        res->verdict = SS_TARGET_TIMEOUT;
        snprintf(res->why, sizeof res->why, "still running after %g s (killed; run in a child process)",
                 timeout_s);
    } else if (WIFSIGNALED(st)) {
        res->verdict = SS_TARGET_FAILED;
        snprintf(res->why, sizeof res->why, "killed by signal %d (%s) in a child process", WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
    } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        res->verdict = SS_TARGET_FAILED;
        snprintf(res->why, sizeof res->why, "exited with status %d in a child process",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    } else {
        memcpy(res, shared, sizeof *res);
        if (n_in) memcpy(ctx->tgt_in.base, shared + sizeof *res, n_in);
        if (n_src) memcpy(ctx->tgt_src.base, shared + sizeof *res + n_in, n_src);
    }
    munmap(shared, total);
    return 0;
}
