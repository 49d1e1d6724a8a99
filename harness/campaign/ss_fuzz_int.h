/* ss_fuzz_int.h - the campaign's internals shared by its parent (ss_fuzz.c), its workers
 * (ss_fuzz_worker.c) and its finding policy (ss_fuzz_finding.c): the slot each worker
 * shares with the parent, the messages they exchange, a worker's state and its groups.
 * The files use each other in one direction: parent -> worker -> finding policy -> cases. */
#ifndef SS_FUZZ_INT_H
#define SS_FUZZ_INT_H

#include <stdint.h>
#include <time.h>
#include "ss_check.h"
#include "ss_fuzz.h"

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

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

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

/* Runs of a group on one target: case j of the group under schedule s. */
typedef struct fz_run { size_t j; int s; } fz_run;

typedef struct fz_worker_state {
    const ss_fuzz_config *cfg;
    fz_slot *slot;
    int res_fd;
    ss_check_ctx ctx, mctx;    /* campaign and minimization buffers, reused */
    fz_group *group;    /* cases run together (batches); NULL until a target batches */
    uint64_t seen[1024];       /* pre-minimization signatures already handled */
    uint64_t fault_index;      /* test hook (SSFUZZ_TEST_FAULT=crash:N / hang:N / full:N, the
                                  last: reproducers of cases >= N cannot be written) */
    int fault;                 /* 0 none, 1 crash, 2 hang */
} fz_worker_state;

/* ss_fuzz_cases.c */
/* Reads (writing 0) or writes (1) all n bytes; 0, or -1 on error or end of file. */
int fz_io_full(int fd, void *buf, size_t n, int writing);
/* Whether each case runs one schedule of t, chosen by its index (--schedule rotate). */
int fz_rotates_on(const ss_fuzz_config *cfg, const ss_target *t);

/* ss_fuzz_worker.c */
/* A worker's life: runs the ranges the parent sends on cmd_fd, answers on res_fd; never returns. */
void fz_worker_main(const ss_fuzz_config *cfg, fz_slot *slot, int cmd_fd, int res_fd);

/* The slot's clocks, inline here: a worker and its finding policy both keep them. */
/* The slot's clock for a run of target ti under schedule s (budget_ns 0: the case timeout). */
static inline void fz_start_run(fz_worker_state *w, int ti, int s, int64_t budget_ns) {
    STORE(w->slot->target, ti);
    STORE(w->slot->sched, s);
    STORE(w->slot->budget_ns, budget_ns);
    STORE(w->slot->started_ns, now_ns());
}

/* The per-case time limit applies to each minimization step. */
static inline void fz_restart_clock(void *user) {
    fz_worker_state *w = user;
    STORE(w->slot->budget_ns, 0);
    STORE(w->slot->started_ns, now_ns());
}

/* ss_fuzz_finding.c */
/* An error of the case or engine, or a NaN-bits-only difference: counted, the slot's
 * first one kept as an example for the summary. */
void fz_count_unfound(fz_worker_state *w, const ss_plan *plan, const ss_target *t, const ss_check_result *res);

/* Whether v is a finding (else agreement, or a run counted only). Inline: once a run. */
static inline int fz_is_finding(const ss_fuzz_config *cfg, ss_verdict v) {
    return ss_verdict_is_finding(v) || (v == SS_REFUSED && cfg->refusal_is_finding);
}

/* Counts the runs that are no finding: a refusal (kept as a finding too with
 * --refusal-is-finding), an error, a NaN-bits-only difference. Inline: once a run. */
static inline void fz_count_run(fz_worker_state *w, const ss_plan *plan, const ss_target *t,
                                const ss_check_result *res) {
    if (res->verdict == SS_REFUSED) STORE(w->slot->refused, w->slot->refused + 1);
    if (res->verdict == SS_ERROR || res->verdict == SS_NAN_PAYLOAD) fz_count_unfound(w, plan, t, res);
}

/* A finding of case `index` on target ti: deduplicated by its class, minimized, its stage
 * placed, confirmed standalone, written and sent to the parent. */
void fz_on_finding(fz_worker_state *w, const ss_case *c0, const ss_plan *plan, uint64_t index,
                   int ti, const ss_run_opts *ro, const ss_check_result *res);
/* A failing run r of a batch: rerun alone; a finding as above, or a batch-only one. */
void fz_batched_finding(fz_worker_state *w, fz_group *g, int ti, const fz_run *runs, size_t n, size_t r,
                        const ss_run_opts *opts, const ss_check_result *res);

#endif
