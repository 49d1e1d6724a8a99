/* ss_fuzz.c - the campaign engine: a parent dispatching case batches to fork-server workers. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ss_bits.h"
#include "ss_batch.h"
#include "ss_check.h"
#include "ss_confirm.h"
#include "ss_fuzz.h"
#include "ss_minimize.h"
#include "ss_plan_build.h"
#include "ss_test_hook.h"

/* Shared with the parent: what the worker is doing right now. */
typedef struct fz_slot {
    uint64_t done, skipped, refused, cur_index;
    uint64_t errors, nan_payload;   /* runs counted, not findings (see ss_check.h) */
    char first_error[240], first_nan[240];   /* this slot's first of each: "TARGET: what" */
    int64_t started_ns;        /* start of the run in flight; 0 when idle */
    int64_t budget_ns;         /* that run's own limit (an engine's slow start); 0: case_timeout */
    int phase;                 /* 0 idle, 1 checking, 2 minimizing */
    int target, sched, verdict;
    int stop;                  /* set by the parent: finish the current case and report */
    uint64_t batches, batched_cases;   /* batched target runs, and the cases they ran */
    uint64_t size_cases[SS_SIZE_CLASS_COUNT];   /* cases finished per size class */
    int64_t size_ns[SS_SIZE_CLASS_COUNT];       /* and the time they took (checks, minimizing) */
} fz_slot;

typedef struct fz_cmd { uint64_t first, count; } fz_cmd;   /* count 0: exit */

enum { MSG_DONE = 1, MSG_FINDING = 2 };
enum { FZ_EXIT_POISONED = 4 };   /* a worker whose CUDA context a sticky error poisoned */
typedef struct fz_msg {        /* < PIPE_BUF, so each write is atomic */
    int type, is_new, target, sched;
    int unwritten;             /* 1: the reproducer could not be written (--out full or gone) */
    uint64_t index;
    char kind[32];
    char bug[160];             /* the bug's dedup key when this hit is its first here; else "" */
    char file[1024];
    char line[1536];
} fz_msg;
_Static_assert(sizeof(fz_msg) <= 4096, "fz_msg must fit in PIPE_BUF for atomic writes");

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

static int io_full(int fd, void *buf, size_t n, int writing) {
    char *p = buf;
    while (n) {
        ssize_t k = writing ? write(fd, p, n) : read(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static const char *sched_of(const ss_target *t, int s) { return ss_target_schedule(t, s); }

uint64_t ss_fuzz_case_index(const ss_fuzz_config *cfg, uint64_t local) {
    return cfg->shard_count > 1 ? local * cfg->shard_count + cfg->shard_index : local;
}

/* One past the last local case: the case limit after first_case, and never a
 * local case whose index would pass 2^64 - 1. */
static uint64_t local_limit(const ss_fuzz_config *cfg) {
    const uint64_t n = cfg->shard_count > 1 ? cfg->shard_count : 1;
    const uint64_t most = n > 1 ? (UINT64_MAX - cfg->shard_index) / n + 1 : UINT64_MAX;
    if (cfg->first_case >= most) return cfg->first_case;   /* nothing left to run */
    if (!cfg->cases || cfg->cases > most - cfg->first_case) return most;
    return cfg->first_case + cfg->cases;
}

int ss_fuzz_schedules(const ss_fuzz_config *cfg, const ss_target *t, int *first, int *last) {
    *first = *last = 0;
    if (!t->scheduled) return 0;
    if (cfg->all_schedules) { *last = t->scheduled - 1; return 0; }
    *first = *last = ss_target_schedule_index(t, cfg->schedule ? cfg->schedule : "");
    return *first < 0 ? -1 : 0;
}

static int rotates_on(const ss_fuzz_config *cfg, const ss_target *t) {
    if (!cfg->all_schedules || t->scheduled < 2) return 0;
    return cfg->rotate == SS_ROTATE_ALWAYS || (cfg->rotate == SS_ROTATE_BATCHING && ss_target_batch_limit(t) > 1);
}

int ss_fuzz_case_schedules(const ss_fuzz_config *cfg, const ss_target *t, uint64_t index, int *first, int *last) {
    if (ss_fuzz_schedules(cfg, t, first, last)) return -1;
    /* By a hash of the index, not the index itself: shard I of N sees only
     * indices I mod N, and those would fall on one schedule when N shares a
     * factor with the schedule count. */
    if (rotates_on(cfg, t)) *first = *last = (int)(ss_mix64(index) % (uint64_t)t->scheduled);
    return 0;
}

const char *ss_fuzz_schedule_mode(const ss_fuzz_config *cfg) {
    if (!cfg->all_schedules) return cfg->schedule;
    if (cfg->rotate == SS_ROTATE_ALWAYS) return "rotate";
    for (size_t i = 0; cfg->rotate == SS_ROTATE_BATCHING && i < cfg->n_targets; i++)
        if (rotates_on(cfg, cfg->targets[i])) return "all; rotate on compiled targets";
    return "all";
}

/* ---- worker ------------------------------------------------------------ */

typedef struct fz_worker_state {
    const ss_fuzz_config *cfg;
    fz_slot *slot;
    int res_fd;
    ss_check_ctx ctx, mctx;    /* campaign and minimization buffers, reused */
    struct fz_group *group;    /* cases run together (batches); NULL until a target batches */
    uint64_t seen[1024];       /* pre-minimization signatures already handled */
    uint64_t fault_index;      /* test hook (SSFUZZ_TEST_FAULT=crash:N / hang:N / full:N, the
                                  last: reproducers of cases >= N cannot be written) */
    int fault;                 /* 0 none, 1 crash, 2 hang */
} fz_worker_state;

/* The per-case time limit applies to each minimization step. */
static void restart_clock(void *user) {
    fz_worker_state *w = user;
    STORE(w->slot->budget_ns, 0);
    STORE(w->slot->started_ns, now_ns());
}

/* An engine's slow phase (worker start, first compile) gets its own limit. */
static void engine_clock(void *user, double budget_s) {
    fz_worker_state *w = user;
    STORE(w->slot->budget_ns, (int64_t)(budget_s * 1e9));
    STORE(w->slot->started_ns, now_ns());
}

/* 1 when the bug class (kind, target, schedule, overlap; with --keep-variants also
 * rank and dtype; for a raise, its exception) was seen before: only counted, not
 * minimized again. */
static int seen_before(fz_worker_state *w, uint64_t key) {
    key |= 1;
    for (size_t i = 0, h = key % 1024; i < 1024; i++, h = (h + 1) % 1024) {
        if (w->seen[h] == key) return 1;
        if (!w->seen[h]) { w->seen[h] = key; return 0; }
    }
    return 1;   /* table full: count the rest as repeats */
}

static void send_finding(fz_worker_state *w, int ti, int sched, const char *kind, const char *bug,
                         const char *file, int is_new, const char *line, int unwritten) {
    fz_msg m;
    memset(&m, 0, sizeof m);
    m.unwritten = unwritten;
    m.type = MSG_FINDING;
    m.index = ss_fuzz_case_index(w->cfg, LOAD(w->slot->cur_index));
    m.target = ti;
    m.sched = sched;
    m.is_new = is_new;
    snprintf(m.kind, sizeof m.kind, "%s", kind);
    snprintf(m.bug, sizeof m.bug, "%s", bug ? bug : "");
    snprintf(m.file, sizeof m.file, "%s", file ? file : "");
    snprintf(m.line, sizeof m.line, "%s", line ? line : "");
    if (io_full(w->res_fd, &m, sizeof m, 1)) _exit(3);
}

/* A minimized finding of a target with pipeline stages (torch.compile) is
 * rerun on the target's siblings; the first wrong stage goes into the
 * reproducer's meta (ss_report_set_stage) and the finding's line. */
static void note_stage(fz_worker_state *w, const ss_case *m, const ss_target *t, const ss_run_opts *ro,
                       const char *path, char *line, size_t n) {
    ss_plan plan;
    ss_run_status ref;
    char why[256], checks[600];
    ss_error err;
    if (!t->engine->stages || ss_plan_build_limited(&m->op, w->cfg->max_bytes, &plan, NULL) ||
        ss_check_prepare(&w->mctx, m, &plan, &ref, why, sizeof why))
        return;
    restart_clock(w);
    const char *stage = ss_check_stage(&w->mctx, &plan, ref, t, ro, checks, sizeof checks);
    if (!checks[0] || ss_report_set_stage(path, t, stage, checks, &err)) return;
    const size_t used = strlen(line);
    snprintf(line + used, n - used, "; stage %s", stage ? stage : "unknown");
}

static void on_finding(fz_worker_state *w, const ss_case *c0, const ss_plan *plan, uint64_t index,
                       int ti, const ss_run_opts *ro, const ss_check_result *res) {
    const ss_fuzz_config *cfg = w->cfg;
    const ss_target *t = cfg->targets[ti];
    const char *kind = ss_verdict_name(res->verdict);
    char cls[160];
    snprintf(cls, sizeof cls, "%d|%d|%s|%s", (int)res->verdict, ti, ss_schedule_class(sched_of(t, (int)ro->schedule)),
             ss_overlap_class(plan->internal_overlap, ss_plan_overlap(plan)));
    if (cfg->keep_variants)
        snprintf(cls + strlen(cls), sizeof cls - strlen(cls), "|%d|%d", plan->op.input.ndim, (int)c0->dtype);
    char raise[SS_RAISE_KEY_LEN + 1];   /* another exception is another bug */
    ss_raise_suffix(kind, res->why, raise);
    snprintf(cls + strlen(cls), sizeof cls - strlen(cls), "%s", raise);
    uint64_t key = 14695981039346656037ull;   /* FNV-1a 64 */
    for (const char *p = cls; *p; p++) key = (key ^ (uint8_t)*p) * 1099511628211ull;
    if (seen_before(w, key)) {
        send_finding(w, ti, (int)ro->schedule, kind, NULL, NULL, 0, NULL, 0);
        return;
    }
    STORE(w->slot->verdict, (int)res->verdict);
    STORE(w->slot->phase, 2);
    ss_case m;
    ss_min_target p = {&w->mctx, t, *ro, res->verdict, *res, restart_clock, w, ""};
    ss_min_stats st = {0};
    char path[1024] = "", line[1536], detail[512] = "", bug[160];
    ss_error err;
    if (ss_case_copy(&m, c0) == 0) {
        /* A campaign that stops cuts the minimization short: the finding is
         * written as far as it got, never lost to the stop deadline. */
        const ss_min_opts mo = {0, cfg->minimize_seconds, cfg->max_bytes, &w->slot->stop};
        if (res->verdict == SS_FLAKY) {   /* it did not recur: nothing to minimize against */
            st.numel_before = plan->op.input_storage_numel;
            st.ndim_before = plan->op.input.ndim;
            st.budget_hit = 1;
            snprintf(detail, sizeof detail, "%.500s", res->why);
        } else {
            ss_min_target_run(&m, &mo, &p, &st, detail, sizeof detail);
        }
        char found_by[160];
        snprintf(found_by, sizeof found_by, "%s", cfg->found_by ? cfg->found_by : "ssfuzz fuzz");
        ss_finding f = {kind, t, sched_of(t, (int)ro->schedule), ro->seed, 1, cfg->seed, index,
                        st.numel_before, st.ndim_before, !st.budget_hit, found_by, detail};
        int rc = ss_report_write(cfg->out, &m, &f, cfg->keep_variants, path, sizeof path, &err);
        if (w->fault == 3 && index >= w->fault_index) {   /* test hook: the disk is full */
            rc = -1;
            snprintf(err.field, sizeof err.field, "%s", cfg->out);
            snprintf(err.msg, sizeof err.msg, "cannot write: No space left on device (SSFUZZ_TEST_FAULT)");
        }
        if (rc < 0) snprintf(line, sizeof line, "%s on %s: cannot write the reproducer: %s: %s",
                             kind, t->name, err.field, err.msg);
        else ss_report_line(&m, &f, path, rc == 1, line, sizeof line);
        /* The stage and the standalone confirmation are skipped once the
         * campaign stops: `replay` and `replay --confirm` give both later. */
        const int stopping = LOAD(w->slot->stop);
        if (rc == 1 && !stopping &&
            (res->verdict == SS_MISMATCH || res->verdict == SS_GUARD_WRITE || res->verdict == SS_RAISED))
            note_stage(w, &m, t, ro, path, line, sizeof line);
        if (rc == 1 && !stopping) ss_confirm_finding(path, line, sizeof line);   /* torch: its script, standalone */
        ss_report_key(&m, &f, bug, sizeof bug);
        send_finding(w, ti, (int)ro->schedule, kind, bug, rc < 0 ? NULL : path, rc == 1, line, rc < 0);
        ss_case_free(&m);
    } else {
        send_finding(w, ti, (int)ro->schedule, kind, NULL, NULL, 0, "out of memory copying a finding", 1);
    }
    STORE(w->slot->phase, 1);
}

/* An error of the case or engine, or a NaN-bits-only difference: counted,
 * with the slot's first one kept as an example for the summary. */
static void count_unfound(fz_worker_state *w, const ss_plan *plan, const ss_target *t, const ss_check_result *res) {
    const int err = res->verdict == SS_ERROR;
    uint64_t *n = err ? &w->slot->errors : &w->slot->nan_payload;
    char *example = err ? w->slot->first_error : w->slot->first_nan;
    if ((*n)++ == 0) {   /* written before the parent reads it: the worker ends first */
        char what[160];
        if (err) snprintf(what, sizeof what, "%.159s", res->why);
        else ss_diff_format(plan, &res->diff, what, sizeof what);
        snprintf(example, sizeof w->slot->first_error, "%.60s: %.159s", t->name, what);
    }
}

/* Whether v is a finding (else agreement, or a run counted only). */
static int is_finding(const ss_fuzz_config *cfg, ss_verdict v) {
    return ss_verdict_is_finding(v) || (v == SS_REFUSED && cfg->refusal_is_finding);
}

/* Counts the runs that are no finding: a refusal (kept as a finding too
 * with --refusal-is-finding), an error, a NaN-bits-only difference. */
static void count_run(fz_worker_state *w, const ss_plan *plan, const ss_target *t, const ss_check_result *res) {
    if (res->verdict == SS_REFUSED) STORE(w->slot->refused, w->slot->refused + 1);
    if (res->verdict == SS_ERROR || res->verdict == SS_NAN_PAYLOAD) count_unfound(w, plan, t, res);
}

static void start_run(fz_worker_state *w, int ti, int s, int64_t budget_ns) {
    STORE(w->slot->target, ti);
    STORE(w->slot->sched, s);
    STORE(w->slot->budget_ns, budget_ns);
    STORE(w->slot->started_ns, now_ns());
}

/* The test hook SSFUZZ_TEST_FAULT=crash:N / hang:N on case N. */
static void maybe_fault(fz_worker_state *w, uint64_t index) {
    if (w->fault && w->fault != 3 && index == w->fault_index) {
        if (w->fault == 1) raise(SIGSEGV);
        for (;;) pause();
    }
}

/* The schedules of t that case `index` (`plan`) runs under: [first, *last]. */
static int schedules_for(const ss_fuzz_config *cfg, const ss_target *t, uint64_t index, const ss_plan *plan,
                         int *first, int *last) {
    if (ss_fuzz_case_schedules(cfg, t, index, first, last)) return -1;
    /* Where every schedule gives one result, the others would rerun the
     * same code on the same storages: one run stands for all. */
    if (*last > *first && ss_target_schedules_agree(t, plan)) *last = *first;
    return 0;
}

/* Runs the prepared case on target ti, schedule by schedule, up to its first finding. */
static void check_on_target(fz_worker_state *w, ss_check_ctx *ctx, const ss_case *c, const ss_plan *plan,
                            ss_run_status ref, uint64_t index, int ti) {
    const ss_target *t = w->cfg->targets[ti];
    int first, last;
    if (schedules_for(w->cfg, t, index, plan, &first, &last)) return;
    for (int s = first; s <= last; s++) {
        const ss_run_opts ro = {s, 1, 0};
        start_run(w, ti, s, 0);
        maybe_fault(w, index);
        ss_check_result res;
        ss_check_target(ctx, plan, ref, t, &ro, &res);
        /* A sticky CUDA error leaves this worker's context unusable: end it with
         * the case in its slot; the parent records the finding and respawns. */
        if (ss_target_poisoned(t)) _exit(FZ_EXIT_POISONED);
        count_run(w, plan, t, &res);
        if (!is_finding(w->cfg, res.verdict)) continue;
        on_finding(w, c, plan, index, ti, &ro, &res);
        break;   /* one finding per target and case: the first failing schedule */
    }
}

/* Runs case `index` on every target; returns its size class. */
static int run_case(fz_worker_state *w, uint64_t index) {
    const ss_fuzz_config *cfg = w->cfg;
    ss_case c;
    ss_plan plan;
    ss_run_status ref;
    char why[256];
    ss_gen_case(&cfg->gen, cfg->seed, index, &c, NULL);
    const int size_class = ss_size_class(&c.op);
    if (ss_plan_build_limited(&c.op, cfg->max_bytes, &plan, NULL) ||
        ss_check_prepare(&w->ctx, &c, &plan, &ref, why, sizeof why)) {
        STORE(w->slot->skipped, w->slot->skipped + 1);
        ss_case_free(&c);   /* a program case owns its program */
        return size_class;
    }
    for (size_t ti = 0; ti < cfg->n_targets; ti++) check_on_target(w, &w->ctx, &c, &plan, ref, index, (int)ti);
    ss_case_free(&c);
    return size_class;
}

/* ---- groups: cases run together where a target runs batches -------------- */

/* A group holds at most this many bytes of storage in all (inputs and
 * separate srcs; each case keeps six copies: initial, reference, target):
 * a larger case runs in a group of its own. Large cases batch too: a
 * compile costs the same whatever the sizes, moving their bytes little. */
#define FZ_GROUP_BYTES ((int64_t)512 << 20)

typedef struct fz_member {
    ss_case c;
    ss_plan plan;
    ss_run_status ref;
    uint64_t index, local;     /* the case's index, and the campaign's local number for it */
    int size_class, found;
} fz_member;

typedef struct fz_group {
    fz_member m[SS_CHECK_MAX_BATCH];
    ss_check_ctx ctx[SS_CHECK_MAX_BATCH];
    size_t n;
} fz_group;

/* The most cases a group holds: --batch, else the largest batch any target
 * runs (1: no target batches; cases run one by one, as run_case). */
int ss_fuzz_group_limit(const ss_fuzz_config *cfg) {
    int k = 1;
    for (size_t ti = 0; ti < cfg->n_targets; ti++) {
        const int b = ss_target_batch_limit(cfg->targets[ti]);
        if (b > k) k = b;
    }
    if (cfg->batch > 0 && k > 1) k = cfg->batch;
    return k > SS_CHECK_MAX_BATCH ? SS_CHECK_MAX_BATCH : k;
}

static int64_t case_bytes(const ss_case *c) {
    const int64_t n = c->op.input_storage_numel + (c->op.src_aliased ? 0 : c->op.src_storage_numel);
    return n > INT64_MAX / 16 ? INT64_MAX / 16 : n * (int64_t)c->op.elem_size;
}

/* A batched failure is rerun alone up to this many times before it is
 * called batch-only: a race (a parallel kernel over overlapping memory) may
 * pass once by chance, and the reruns cost little (the compile is cached). */
#define FZ_ALONE_RERUNS 3

/* A failure only its batch shows: written unminimized, with the batch in
 * meta.batch (ss_batch_record: the batch's cases in order, this one's
 * position, the schedules each ran under), which replay runs as one batch
 * again. members: the group's cases in the batch, in order; member_sched:
 * the first schedule each ran (its only one where the campaign rotates). */
static void on_batch_only(fz_worker_state *w, const fz_group *g, const size_t *members, const int *member_sched,
                          size_t nm, size_t pos, int ti, const ss_run_opts *ro, const ss_check_result *res) {
    const ss_fuzz_config *cfg = w->cfg;
    const ss_target *t = cfg->targets[ti];
    const char *kind = ss_verdict_name(res->verdict);
    const ss_case *cases[SS_CHECK_MAX_BATCH];
    const char *scheds[SS_CHECK_MAX_BATCH], *case_scheds[SS_CHECK_MAX_BATCH];
    char path[1024] = "", line[1536], detail[512], bug[160], what[300], found_by[160];
    int first, last, ns = 0;
    ss_case m;
    ss_error err;
    const fz_member *me = &g->m[members[pos]];
    for (size_t i = 0; i < nm; i++) cases[i] = &g->m[members[i]].c;
    if (ss_fuzz_schedules(cfg, t, &first, &last) == 0)
        for (int s = first; s <= last && ns < SS_CHECK_MAX_BATCH; s++) scheds[ns++] = sched_of(t, s);
    const int rotated = rotates_on(cfg, t);   /* each case ran one schedule: record which */
    for (size_t i = 0; rotated && i < nm; i++) case_scheds[i] = sched_of(t, member_sched[i]);
    if (ss_case_copy(&m, &me->c)) {
        send_finding(w, ti, (int)ro->schedule, kind, NULL, NULL, 0, "out of memory copying a finding", 1);
        return;
    }
    if (ss_batch_record(&m, cases, nm, pos, scheds, (size_t)ns, rotated ? case_scheds : NULL)) {
        ss_case_free(&m);
        send_finding(w, ti, (int)ro->schedule, kind, NULL, NULL, 0, "out of memory recording a batch", 1);
        return;
    }
    ss_check_describe(&me->plan, res, what, sizeof what);
    snprintf(detail, sizeof detail, "only inside a batch of %zu cases (this one at %zu; alone it agreed %d times: "
             "a failure of the batch, or a nondeterministic one): %.280s", nm, pos, FZ_ALONE_RERUNS, what);
    snprintf(found_by, sizeof found_by, "%s", cfg->found_by ? cfg->found_by : "ssfuzz fuzz");
    ss_finding f = {kind, t, sched_of(t, (int)ro->schedule), ro->seed, 1, cfg->seed, me->index,
                    ss_min_numel(&m), m.op.input.ndim, 0, found_by, detail};
    const int rc = ss_report_write(cfg->out, &m, &f, cfg->keep_variants, path, sizeof path, &err);
    if (rc < 0) snprintf(line, sizeof line, "%s on %s: cannot write the reproducer: %s: %s", kind, t->name,
                         err.field, err.msg);
    else ss_report_line(&m, &f, path, rc == 1, line, sizeof line);
    const size_t used = strlen(line);
    snprintf(line + used, sizeof line - used, "; only inside its batch of %zu cases (alone it agreed %d times; "
             "replay reruns the batch)", nm, FZ_ALONE_RERUNS);
    ss_report_key(&m, &f, bug, sizeof bug);
    send_finding(w, ti, (int)ro->schedule, kind, bug, rc < 0 ? NULL : path, rc == 1, line, rc < 0);
    ss_case_free(&m);
}

/* Runs of a group on one target: case j of the group under schedule s. */
typedef struct fz_run { size_t j; int s; } fz_run;

/* A failing run of a batch (res, under opts) judged as the campaign reports
 * it: rerun alone first; failing alone, an ordinary finding (minimized);
 * agreeing alone every time, a batch-only one with the batch's cases. */
static void batched_finding(fz_worker_state *w, fz_group *g, int ti, const fz_run *runs, size_t n, size_t r,
                            const ss_run_opts *opts, const ss_check_result *res) {
    const ss_target *t = w->cfg->targets[ti];
    fz_member *m = &g->m[runs[r].j];
    ss_check_result alone;
    int failed_alone = 0;
    for (int again = 0; again < FZ_ALONE_RERUNS && !failed_alone; again++) {
        start_run(w, ti, runs[r].s, 0);
        ss_check_target(&g->ctx[runs[r].j], &m->plan, m->ref, t, opts, &alone);
        if (ss_target_poisoned(t)) _exit(FZ_EXIT_POISONED);
        failed_alone = is_finding(w->cfg, alone.verdict);
    }
    if (failed_alone) {
        on_finding(w, &m->c, &m->plan, m->index, ti, opts, &alone);
        return;
    }
    size_t members[SS_CHECK_MAX_BATCH], nm = 0, pos = 0;
    int member_sched[SS_CHECK_MAX_BATCH];
    for (size_t q = 0; q < n; q++) {   /* the batch's cases, in order (runs are case-major) */
        if (nm && members[nm - 1] == runs[q].j) continue;
        if (runs[q].j == runs[r].j) pos = nm;
        member_sched[nm] = runs[q].s;
        members[nm++] = runs[q].j;
    }
    on_batch_only(w, g, members, member_sched, nm, pos, ti, opts, res);
}

/* Runs runs[0..n) of the group on target ti as one batch (one case's forms
 * alone make no batch, meta.batch records the other cases: they run one by
 * one, as without batches) and reports each case's first failing run. */
static void run_batch(fz_worker_state *w, fz_group *g, int ti, const fz_run *runs, size_t n) {
    const ss_fuzz_config *cfg = w->cfg;
    const ss_target *t = cfg->targets[ti];
    ss_check_ctx *ctxs[SS_CHECK_MAX_BATCH];
    const ss_plan *plans[SS_CHECK_MAX_BATCH];
    ss_run_status refs[SS_CHECK_MAX_BATCH];
    ss_run_opts opts[SS_CHECK_MAX_BATCH];
    ss_check_result res[SS_CHECK_MAX_BATCH];
    for (size_t r = 0; r < n; r++) {
        ctxs[r] = &g->ctx[runs[r].j];
        plans[r] = &g->m[runs[r].j].plan;
        refs[r] = g->m[runs[r].j].ref;
        opts[r] = (ss_run_opts){runs[r].s, 1, 0};
    }
    const int one_case = runs[0].j == runs[n - 1].j;
    STORE(w->slot->cur_index, g->m[runs[0].j].local);
    start_run(w, ti, runs[0].s, (int64_t)(cfg->case_timeout * 1e9) * (int64_t)n);
    for (size_t r = 0; r < n; r++) maybe_fault(w, g->m[runs[r].j].index);
    for (size_t r = 0; one_case && r < n; r++) ss_check_target(ctxs[r], plans[r], refs[r], t, &opts[r], &res[r]);
    if (!one_case) ss_check_batch(ctxs, plans, refs, opts, n, t, res);
    if (ss_target_poisoned(t)) _exit(FZ_EXIT_POISONED);
    if (!one_case) {
        STORE(w->slot->batches, w->slot->batches + 1);
        STORE(w->slot->batched_cases, w->slot->batched_cases + n);
    }
    for (size_t r = 0; r < n; r++) {
        fz_member *m = &g->m[runs[r].j];
        count_run(w, &m->plan, t, &res[r]);
        if (m->found || !is_finding(cfg, res[r].verdict)) continue;
        m->found = 1;   /* runs are in schedule order: this is the case's first failing one */
        STORE(w->slot->cur_index, m->local);
        STORE(w->slot->sched, runs[r].s);
        if (one_case) on_finding(w, &m->c, &m->plan, m->index, ti, &opts[r], &res[r]);
        else batched_finding(w, g, ti, runs, n, r, &opts[r], &res[r]);
    }
}

/* The group's cases on a batching target ti: every case under every
 * schedule it runs, in batches of at most SS_CHECK_MAX_BATCH runs (a case
 * never split across two). */
static void check_group_on_target(fz_worker_state *w, fz_group *g, int ti) {
    const ss_target *t = w->cfg->targets[ti];
    fz_run runs[SS_CHECK_MAX_BATCH];
    size_t n = 0;
    for (size_t j = 0; j < g->n; j++) g->m[j].found = 0;
    for (size_t j = 0; j < g->n; j++) {
        int first, last;
        if (schedules_for(w->cfg, t, g->m[j].index, &g->m[j].plan, &first, &last)) return;
        if (n && n + (size_t)(last - first + 1) > SS_CHECK_MAX_BATCH) {
            run_batch(w, g, ti, runs, n);
            n = 0;
        }
        for (int s = first; s <= last && n < SS_CHECK_MAX_BATCH; s++) runs[n++] = (fz_run){j, s};
    }
    if (n) run_batch(w, g, ti, runs, n);
}

static void free_group(fz_group *g) {
    for (size_t j = 0; j < g->n; j++) ss_case_free(&g->m[j].c);
    g->n = 0;
}

/* Runs a group of cases from local case *next (below end, at most k, at
 * most FZ_GROUP_BYTES unless one case alone is larger) on every
 * target: batching targets run the group as batches, the others case by
 * case. *next moves past every case it ran or skipped. */
static void run_group(fz_worker_state *w, uint64_t *next, uint64_t end, int k) {
    const ss_fuzz_config *cfg = w->cfg;
    fz_group *g = w->group;
    int64_t bytes = 0;
    const int64_t t0 = now_ns();
    uint64_t skipped_here = 0;
    int skipped_class[SS_CHECK_MAX_BATCH];
    char why[256];
    g->n = 0;
    while (*next < end && g->n < (size_t)k && !LOAD(w->slot->stop)) {
        fz_member *m = &g->m[g->n];
        const uint64_t index = ss_fuzz_case_index(cfg, *next);
        ss_gen_case(&cfg->gen, cfg->seed, index, &m->c, NULL);
        if (g->n && bytes + case_bytes(&m->c) > FZ_GROUP_BYTES) { ss_case_free(&m->c); break; }
        ++*next;
        STORE(w->slot->cur_index, *next - 1);
        m->index = index;
        m->local = *next - 1;
        m->size_class = ss_size_class(&m->c.op);
        if (ss_plan_build_limited(&m->c.op, cfg->max_bytes, &m->plan, NULL) ||
            ss_check_prepare(&g->ctx[g->n], &m->c, &m->plan, &m->ref, why, sizeof why)) {
            STORE(w->slot->skipped, w->slot->skipped + 1);
            if (skipped_here < SS_CHECK_MAX_BATCH) skipped_class[skipped_here++] = m->size_class;
            ss_case_free(&m->c);
            continue;
        }
        bytes += case_bytes(&m->c);
        g->n++;
    }
    for (size_t ti = 0; ti < cfg->n_targets; ti++) {
        if (ss_target_batch_limit(cfg->targets[ti]) > 1) { check_group_on_target(w, g, (int)ti); continue; }
        for (size_t j = 0; j < g->n; j++) {
            STORE(w->slot->cur_index, g->m[j].local);
            check_on_target(w, &g->ctx[j], &g->m[j].c, &g->m[j].plan, g->m[j].ref, g->m[j].index, (int)ti);
        }
    }
    /* The group's time, shared evenly by its cases. */
    const uint64_t ran = g->n + skipped_here;
    const int64_t each = ran ? (now_ns() - t0) / (int64_t)ran : 0;
    for (size_t j = 0; j < g->n + skipped_here; j++) {
        const int c = j < g->n ? g->m[j].size_class : skipped_class[j - g->n];
        STORE(w->slot->size_ns[c], w->slot->size_ns[c] + each);
        STORE(w->slot->size_cases[c], w->slot->size_cases[c] + 1);
    }
    STORE(w->slot->done, w->slot->done + ran);
    free_group(g);
}

static void worker_main(const ss_fuzz_config *cfg, fz_slot *slot, int cmd_fd, int res_fd) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGINT, SIG_IGN);    /* the parent decides when to stop */
    signal(SIGTERM, SIG_IGN);
    signal(SIGPIPE, SIG_DFL);
    fz_worker_state *w = calloc(1, sizeof *w);
    if (!w) _exit(3);
    w->cfg = cfg;
    w->slot = slot;
    w->res_fd = res_fd;
    ss_check_ctx_init(&w->ctx);
    ss_check_ctx_init(&w->mctx);
    w->ctx.max_bytes = w->mctx.max_bytes = cfg->max_bytes;
    w->ctx.nan_payload_is_finding = w->mctx.nan_payload_is_finding = cfg->nan_payload_is_finding;
    ss_target_set_clock_hook(engine_clock, w);
    ss_engines_enter_worker();  /* e.g. this worker is the CUDA process; it ends when poisoned */
    const char *fault = ss_test_hook("SSFUZZ_TEST_FAULT");
    if (fault && (!strncmp(fault, "crash:", 6) || !strncmp(fault, "hang:", 5) || !strncmp(fault, "full:", 5))) {
        w->fault = fault[0] == 'c' ? 1 : fault[0] == 'h' ? 2 : 3;
        w->fault_index = strtoull(strchr(fault, ':') + 1, NULL, 10);
    }
    const int group = ss_fuzz_group_limit(cfg);
    if (group > 1 && !(w->group = calloc(1, sizeof *w->group))) _exit(3);
    for (int j = 0; w->group && j < SS_CHECK_MAX_BATCH; j++) {
        w->group->ctx[j].max_bytes = cfg->max_bytes;
        w->group->ctx[j].nan_payload_is_finding = cfg->nan_payload_is_finding;
    }
    /* Groups start small and double up to `group`: the first answers (and a
     * bug every case shows) come after a small compile, not a full one. */
    int ramp = group > 2 ? 2 : group;
    fz_cmd cmd;
    while (io_full(cmd_fd, &cmd, sizeof cmd, 0) == 0 && cmd.count) {
        for (uint64_t i = cmd.first; group > 1 && i < cmd.first + cmd.count && !LOAD(slot->stop);) {
            STORE(slot->phase, 1);
            run_group(w, &i, cmd.first + cmd.count, ramp);
            ramp = ramp * 2 < group ? ramp * 2 : group;
            STORE(slot->phase, 0);
            STORE(slot->started_ns, 0);
        }
        for (uint64_t i = cmd.first; group == 1 && i < cmd.first + cmd.count && !LOAD(slot->stop); i++) {
            STORE(slot->cur_index, i);
            STORE(slot->phase, 1);
            const int64_t t0 = now_ns();
            const int k = run_case(w, ss_fuzz_case_index(cfg, i));
            STORE(slot->size_ns[k], slot->size_ns[k] + (now_ns() - t0));
            STORE(slot->size_cases[k], slot->size_cases[k] + 1);
            STORE(slot->phase, 0);
            STORE(slot->started_ns, 0);
            STORE(slot->done, slot->done + 1);
        }
        fz_msg m;
        memset(&m, 0, sizeof m);
        m.type = MSG_DONE;
        if (io_full(res_fd, &m, sizeof m, 1)) break;
    }
    ss_check_ctx_free(&w->ctx);
    ss_check_ctx_free(&w->mctx);
    for (size_t j = 0; w->group && j < SS_CHECK_MAX_BATCH; j++) ss_check_ctx_free(&w->group->ctx[j]);
    free(w->group);
    ss_engines_shutdown();
    free(w);
    _exit(0);
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
        worker_main(P->cfg, w->slot, cmd[0], res[1]);
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
    w->busy = io_full(w->cmd_fd, &c, sizeof c, 1) == 0;
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
    ss_finding f = {kind, t, sched_of(t, sched), 1, 1, P->cfg->seed, index,
                    ss_min_numel(&c), c.op.input.ndim, 0, found_by, detail};
    ss_error err;
    char bug[160];
    const int rc = ss_report_write(P->cfg->out, &c, &f, P->cfg->keep_variants, path, sizeof path, &err);
    if (rc < 0) snprintf(line, sizeof line, "%s on %s: cannot write the reproducer: %s", kind, t->name, err.msg);
    else ss_report_line(&c, &f, path, rc == 1, line, sizeof line);
    ss_report_key(&c, &f, bug, sizeof bug);
    ss_case_free(&c);
    ss_summary_add(P->sum, kind, t->name, sched_of(t, sched), bug, rc < 0 ? NULL : path, rc == 1);
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
        ss_summary_add(P->sum, m->kind, t->name, sched_of(t, m->sched), m->bug, m->file, m->is_new);
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
            if ((pf[k].revents & POLLIN) && io_full(P.w[k].res_fd, &m, sizeof m, 0) == 0)
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
