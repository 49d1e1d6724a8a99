/* ss_fuzz.c - the campaign engine: a parent dispatching case batches to fork-server workers
 * (ss_fuzz_worker.c), their crashes and hangs, progress and the summary. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ss_bits.h"
#include "ss_confirm.h"
#include "ss_fuzz_int.h"
#include "ss_minimize.h"

/* One past the last local case: the case limit after first_case, and never a
 * local case whose index would pass 2^64 - 1. */
static uint64_t local_limit(const ss_fuzz_config *cfg) {
    const uint64_t n = cfg->shard_count > 1 ? cfg->shard_count : 1;
    const uint64_t most = n > 1 ? (UINT64_MAX - cfg->shard_index) / n + 1 : UINT64_MAX;
    if (cfg->first_case >= most) return cfg->first_case;   /* nothing left to run */
    if (!cfg->cases || cfg->cases > most - cfg->first_case) return most;
    return cfg->first_case + cfg->cases;
}

/* ---- parent ------------------------------------------------------------ */

typedef struct fz_proc {
    pid_t pid;
    int cmd_fd, res_fd;
    fz_slot *slot;
    uint64_t first, end;       /* the batch in flight */
    int busy;
    int64_t batch_start;
} fz_proc;

typedef struct fz_parent {
    const ss_fuzz_config *cfg;
    fz_proc *w;
    int n;
    uint64_t next, limit, batch;
    uint64_t min_batch;        /* a worker's range never shrinks below one whole group */
    uint64_t unrun;            /* the first case a stop left unrun in a cut batch; UINT64_MAX: none */
    int stopping;
    int unwritable;            /* a reproducer could not be written: stop, count the rest */
    int64_t t0;
    ss_summary *sum;
    FILE *log;
} fz_parent;

static void log_line(fz_parent *P, uint64_t index, const char *line);

/* A finding whose reproducer could not be written: the first one is said (once)
 * and stops the campaign; every one is counted, none is silently lost. */
static void unwritten(fz_parent *P, uint64_t index, const char *line) {
    P->sum->unwritten++;
    if (P->unwritable) return;
    P->unwritable = 1;
    char msg[1800];
    snprintf(msg, sizeof msg, "%s; stopping: findings from here on are counted, not written", line);
    log_line(P, index, msg);
}

static int spawn(fz_parent *P, int k) {
    fz_proc *w = &P->w[k];
    int cmd[2], res[2];
    if (pipe2(cmd, O_CLOEXEC)) return -1;
    if (pipe2(res, O_CLOEXEC)) { close(cmd[0]); close(cmd[1]); return -1; }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) { close(cmd[0]); close(cmd[1]); close(res[0]); close(res[1]); return -1; }
    if (pid == 0) {
        for (int j = 0; j < P->n; j++)
            if (j != k && P->w[j].pid > 0) { close(P->w[j].cmd_fd); close(P->w[j].res_fd); }
        close(cmd[1]);
        close(res[0]);
        fz_worker_main(P->cfg, w->slot, cmd[0], res[1]);
    }
    close(cmd[0]);
    close(res[1]);
    w->pid = pid;
    w->cmd_fd = cmd[1];
    w->res_fd = res[0];
    w->busy = 0;
    STORE(w->slot->stop, P->stopping);
    return 0;
}

static void send_batch(fz_parent *P, fz_proc *w, uint64_t first, uint64_t end) {
    if (first >= end || P->stopping) { w->busy = 0; return; }
    fz_cmd c = {first, end - first};
    w->first = first;
    w->end = end;
    w->batch_start = now_ns();
    w->busy = fz_io_full(w->cmd_fd, &c, sizeof c, 1) == 0;
}

static void dispatch(fz_parent *P, fz_proc *w) {
    uint64_t n = P->limit - P->next < P->batch ? P->limit - P->next : P->batch;
    send_batch(P, w, P->next, P->next + n);
    if (w->busy) P->next += n;
}

static void log_line(fz_parent *P, uint64_t index, const char *line) {
    if (P->cfg->progress) fputs("\r\033[K", stderr);
    fprintf(P->log, "finding (%.2f s, case %llu): %s\n", (double)(now_ns() - P->t0) * 1e-9,
            (unsigned long long)index, line);
    fflush(P->log);
}

/* A worker died or hung while on `cur`: record the finding from the parent. */
static void record_dead(fz_parent *P, fz_proc *w, const char *why, int sticky) {
    const fz_slot *s = w->slot;
    const uint64_t index = ss_fuzz_case_index(P->cfg, LOAD(s->cur_index));
    const int ti = LOAD(s->target), sched = LOAD(s->sched), phase = LOAD(s->phase);
    const ss_target *t = P->cfg->targets[ti];
    /* Dying while minimizing: the original case fails as first found. */
    const char *kind = phase == 2 ? ss_verdict_name((ss_verdict)LOAD(s->verdict)) : why;
    char detail[160], found_by[160], path[1024] = "", line[1536];
    snprintf(detail, sizeof detail, phase == 2 ? "the target hit a %s while this case was being "
             "minimized; written unminimized" : sticky ? "the target hit a %s: a sticky CUDA error "
             "(the worker was replaced)" : "the target hit a %s (isolated in a worker process)", why);
    snprintf(found_by, sizeof found_by, "%s", P->cfg->found_by ? P->cfg->found_by : "ssfuzz fuzz");
    ss_case c;
    ss_gen_case(&P->cfg->gen, P->cfg->seed, index, &c, NULL);
    /* The worker died before counting this case in its size class: count it
     * here, with the time its last run took. */
    const int k = ss_size_class(&c.op);
    const int64_t started = LOAD(w->slot->started_ns);
    STORE(w->slot->size_cases[k], w->slot->size_cases[k] + 1);
    if (started) STORE(w->slot->size_ns[k], w->slot->size_ns[k] + (now_ns() - started));
    ss_finding f = {kind, t, ss_target_schedule(t, sched), 1, 1, P->cfg->seed, index,
                    ss_min_numel(&c), c.op.input.ndim, 0, found_by, detail};
    ss_error err;
    char bug[160];
    const int rc = ss_report_write(P->cfg->out, &c, &f, P->cfg->keep_variants, path, sizeof path, &err);
    if (rc < 0) snprintf(line, sizeof line, "%s on %s: cannot write the reproducer: %s", kind, t->name, err.msg);
    else ss_report_line(&c, &f, path, rc == 1, line, sizeof line);
    ss_report_key(&c, &f, bug, sizeof bug);
    ss_case_free(&c);
    ss_summary_add(P->sum, kind, t->name, ss_target_schedule(t, sched), bug, rc < 0 ? NULL : path, rc == 1);
    if (rc < 0) unwritten(P, index, line);
    else log_line(P, index, line);
}

/* Replaces a dead worker and hands it the rest of its batch. */
static int restart(fz_parent *P, fz_proc *w, int crashed) {
    const uint64_t resume = crashed ? LOAD(w->slot->cur_index) + 1 : w->first;
    if (crashed) STORE(w->slot->done, w->slot->done + 1);   /* the case ran: it is a finding */
    const uint64_t end = w->end;
    close(w->cmd_fd);
    close(w->res_fd);
    w->pid = -1;
    STORE(w->slot->phase, 0);
    STORE(w->slot->started_ns, 0);
    STORE(w->slot->budget_ns, 0);
    if (spawn(P, (int)(w - P->w))) return -1;
    send_batch(P, w, resume, end);
    if (!w->busy && !P->stopping) dispatch(P, w);   /* the dead case ended its batch */
    return 0;
}

static int on_hangup(fz_parent *P, fz_proc *w) {
    int st = 0;
    waitpid(w->pid, &st, 0);
    const int was_busy = w->busy && LOAD(w->slot->phase) != 0;
    if (was_busy) {
        /* a signal, or an exit the worker did not choose; or its CUDA context was poisoned */
        record_dead(P, w, "crash", WIFEXITED(st) && WEXITSTATUS(st) == FZ_EXIT_POISONED);
    }
    return restart(P, w, was_busy);
}

static void check_timeouts(fz_parent *P) {
    const int64_t limit = (int64_t)(P->cfg->case_timeout * 1e9), t = now_ns();
    for (int k = 0; k < P->n; k++) {
        fz_proc *w = &P->w[k];
        const int64_t started = LOAD(w->slot->started_ns), budget = LOAD(w->slot->budget_ns);
        if (!w->busy || !started || t - started <= (budget > 0 ? budget : limit)) continue;
        kill(w->pid, SIGKILL);
        waitpid(w->pid, NULL, 0);
        record_dead(P, w, "timeout", 0);
        restart(P, w, 1);
    }
}

/* Errors and NaN-only differences over all workers, with the first example of each. */
static void unfound_totals(const fz_parent *P, ss_summary *sum) {
    sum->errors = sum->nan_payload = 0;
    sum->batches = sum->batched_cases = 0;
    sum->batch = ss_fuzz_group_limit(P->cfg);
    for (int k = 0; k < P->n; k++) {
        const fz_slot *sl = P->w[k].slot;
        if (sl->errors && !sum->error_example[0])
            snprintf(sum->error_example, sizeof sum->error_example, "%s", sl->first_error);
        if (sl->nan_payload && !sum->nan_example[0])
            snprintf(sum->nan_example, sizeof sum->nan_example, "%s", sl->first_nan);
        sum->batches += sl->batches;
        sum->batched_cases += sl->batched_cases;
        sum->errors += (long)sl->errors;
        sum->nan_payload += (long)sl->nan_payload;
    }
}

static uint64_t cases_done(const fz_parent *P, uint64_t *skipped, uint64_t *refused) {
    uint64_t d = 0, s = 0, r = 0;
    for (int k = 0; k < P->n; k++) {
        d += LOAD(P->w[k].slot->done);
        s += LOAD(P->w[k].slot->skipped);
        r += LOAD(P->w[k].slot->refused);
    }
    if (skipped) *skipped = s;
    if (refused) *refused = r;
    return d;
}

/* Cases and worker time per size class, over all workers. */
static void size_totals(const fz_parent *P, ss_summary *sum) {
    for (int c = 0; c < SS_SIZE_CLASS_COUNT; c++) {
        sum->size_cases[c] = 0;
        sum->size_seconds[c] = 0;
        for (int k = 0; k < P->n; k++) {
            sum->size_cases[c] += LOAD(P->w[k].slot->size_cases[c]);
            sum->size_seconds[c] += (double)LOAD(P->w[k].slot->size_ns[c]) * 1e-9;
        }
    }
}

static void progress(fz_parent *P, double elapsed) {
    const uint64_t d = cases_done(P, NULL, NULL);
    char cases[48], secs[48];
    if (P->cfg->cases) snprintf(cases, sizeof cases, "%llu/%llu", (unsigned long long)d,
                                (unsigned long long)P->cfg->cases);
    else snprintf(cases, sizeof cases, "%llu", (unsigned long long)d);
    if (P->cfg->seconds) snprintf(secs, sizeof secs, "%.0f/%g s", elapsed, P->cfg->seconds);
    else snprintf(secs, sizeof secs, "%.0f s", elapsed);
    fprintf(stderr, "\r\033[Kfuzz: %s cases, %.0f/s, %ld unique findings (%ld hits), %s", cases,
            elapsed > 0 ? (double)d / elapsed : 0.0, ss_summary_unique(P->sum), ss_summary_hits(P->sum), secs);
    fflush(stderr);
}

/* A stop cuts batches short: a resumed run must start at the first case any
 * worker left unrun (cases after it that did run then run again; none is skipped). */
static void note_unrun(fz_parent *P, const fz_proc *w) {
    const uint64_t cur = LOAD(w->slot->cur_index);
    const uint64_t u = cur >= w->first && cur < w->end ? cur + (LOAD(w->slot->phase) == 0) : w->first;
    if (u < w->end && u < P->unrun) P->unrun = u;
}

static void on_message(fz_parent *P, fz_proc *w, const fz_msg *m) {
    if (m->type == MSG_FINDING) {
        const ss_target *t = P->cfg->targets[m->target];
        ss_summary_add(P->sum, m->kind, t->name, ss_target_schedule(t, m->sched), m->bug, m->file, m->is_new);
        if (m->is_new && m->file[0]) ss_confirm_tally(P->sum, m->file);
        if (m->unwritten) unwritten(P, m->index, m->line);
        else if (m->line[0] && (m->is_new || !m->file[0])) log_line(P, m->index, m->line);
        return;
    }
    /* batch done: size the next one for about 50 ms of work */
    const double secs = (double)(now_ns() - w->batch_start) * 1e-9;
    const uint64_t n = w->end - w->first;
    if (secs > 0.1 && P->batch / 2 >= P->min_batch) P->batch /= 2;
    else if (secs < 0.025 && n == P->batch && P->batch < 4096) P->batch *= 2;
    w->busy = 0;
    if (P->stopping) note_unrun(P, w);
    else dispatch(P, w);
}

int ss_fuzz_run(const ss_fuzz_config *cfg, ss_summary *sum) {
    fz_parent P;
    memset(&P, 0, sizeof P);
    P.cfg = cfg;
    P.n = cfg->jobs > 0 ? cfg->jobs : 1;
    P.next = cfg->first_case;
    P.limit = local_limit(cfg);
    P.unrun = UINT64_MAX;
    const int group = ss_fuzz_group_limit(cfg);
    /* A worker's range holds at least one whole group: a range of fewer
     * cases than --batch would cut every group short. */
    P.min_batch = group > 8 ? (uint64_t)group : 8;
    P.batch = group > 16 ? (uint64_t)group : 16;
    P.sum = sum;
    P.log = cfg->log ? cfg->log : stdout;
    sum->seed = cfg->seed;
    P.w = calloc((size_t)P.n, sizeof *P.w);
    fz_slot *slots = mmap(NULL, (size_t)P.n * sizeof *slots, PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!P.w || slots == MAP_FAILED) {
        fprintf(stderr, "ssfuzz fuzz: out of memory starting workers\n");
        free(P.w);
        return -1;
    }
    for (int k = 0; k < P.n; k++) { P.w[k].pid = -1; P.w[k].slot = &slots[k]; }
    ss_engines_before_fork();   /* e.g. a torch worker probed here must not be shared by the forks */
    const int64_t t0 = P.t0 = now_ns();
    int rc = 0;
    for (int k = 0; k < P.n && rc == 0; k++) {
        rc = spawn(&P, k);
        if (rc == 0) dispatch(&P, &P.w[k]);
    }
    if (rc) fprintf(stderr, "ssfuzz fuzz: cannot start a worker process: %s\n", strerror(errno));
    int64_t last_progress = t0, stop_deadline = 0;
    struct pollfd *pf = calloc((size_t)P.n, sizeof *pf);
    sum->stopped_by = "cases";
    while (rc == 0 && pf) {
        const int64_t t = now_ns();
        const double elapsed = (double)(t - t0) * 1e-9;
        if (!P.stopping && ((cfg->stop && *cfg->stop) || P.unwritable ||
                            (cfg->seconds > 0 && elapsed >= cfg->seconds))) {
            P.stopping = 1;
            sum->stopped_by = cfg->stop && *cfg->stop ? "signal" : P.unwritable ? "unwritable --out" : "time";
            for (int k = 0; k < P.n; k++) STORE(P.w[k].slot->stop, 1);
            /* A batch in flight holds a compile and several runs: it gets
             * longer to finish (and to write what it found) than one run. */
            const double grace = group > 1 ? 2 * cfg->case_timeout + 30 : cfg->case_timeout + 2;
            stop_deadline = t + (int64_t)(grace * 1e9);
        }
        int busy = 0;
        for (int k = 0; k < P.n; k++) busy += P.w[k].busy;
        if (!busy) break;
        if (P.stopping && t > stop_deadline) break;
        for (int k = 0; k < P.n; k++) pf[k] = (struct pollfd){P.w[k].res_fd, POLLIN, 0};
        const int got = poll(pf, (nfds_t)P.n, 100);
        for (int k = 0; k < P.n && got > 0; k++) {
            if (!pf[k].revents) continue;
            fz_msg m;
            if ((pf[k].revents & POLLIN) && fz_io_full(P.w[k].res_fd, &m, sizeof m, 0) == 0)
                on_message(&P, &P.w[k], &m);
            else if (on_hangup(&P, &P.w[k]))
                rc = -1;
        }
        check_timeouts(&P);
        if (cfg->progress && t - last_progress >= 1000000000) {
            progress(&P, elapsed);
            last_progress = t;
        }
    }
    for (int k = 0; k < P.n; k++) {   /* shut down: close commands, reap (or kill) */
        if (P.w[k].busy) note_unrun(&P, &P.w[k]);   /* still on a case at the stop deadline */
        if (P.w[k].pid <= 0) continue;
        close(P.w[k].cmd_fd);
        close(P.w[k].res_fd);
        int st;
        for (int i = 0; i < 50 && waitpid(P.w[k].pid, &st, WNOHANG) == 0; i++) usleep(20000);
        if (waitpid(P.w[k].pid, &st, WNOHANG) == 0) { kill(P.w[k].pid, SIGKILL); waitpid(P.w[k].pid, &st, 0); }
    }
    if (cfg->progress) fputs("\r\033[K", stderr);
    sum->seconds = (double)(now_ns() - t0) * 1e-9;
    uint64_t skipped, refused;
    sum->cases = cases_done(&P, &skipped, &refused);
    sum->next_case = P.unrun < P.next ? P.unrun : P.next;
    sum->skipped = (long)skipped;
    sum->refused = (long)refused;
    unfound_totals(&P, sum);
    size_totals(&P, sum);
    free(pf);
    munmap(slots, (size_t)P.n * sizeof *slots);
    free(P.w);
    return rc;
}

const char *ss_fuzz_probe_unavailable(const ss_target *t) {
    static char why[256];
    /* emu runs in process; torch's check starts a Python worker, not torch itself */
    if (!t->engine->probe_in_child) return t->unavailable(t);
    int p[2];
    if (pipe(p)) return t->unavailable(t);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        const char *r = t->unavailable(t);
        if (r && write(p[1], r, strlen(r)) < 0) _exit(1);
        _exit(0);
    }
    close(p[1]);
    ssize_t n = pid > 0 ? read(p[0], why, sizeof why - 1) : -1;
    close(p[0]);
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    if (pid < 0 || n < 0 || !WIFEXITED(st)) return "could not probe the target (its check crashed)";
    why[n] = 0;
    return n > 0 ? why : NULL;
}
