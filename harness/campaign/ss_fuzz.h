/* ss_fuzz.h - the campaign engine behind `ssfuzz fuzz`: fork-server workers, findings, summary.
 *
 * The parent hands out batches of case indices to `jobs` long-lived worker
 * processes over pipes. A worker regenerates each case from (seed, index),
 * checks every target (scheduled targets under each requested schedule),
 * minimizes a new failure and writes its reproducer itself. Progress lives in
 * a shared-memory slot per worker (index, target and start time of the case in
 * flight), so the parent can tell which case a worker that died from a signal
 * or overran the per-case time limit was running: it records a `crash` or
 * `timeout` finding for that case (regenerated from seed and index), starts a
 * new worker, and goes on with the rest of the batch. Jobs share the seed and
 * split the index space, so (seed, index) alone reproduces any case. */
#ifndef SS_FUZZ_H
#define SS_FUZZ_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "ss_gen.h"
#include "ss_report.h"
#include "ss_target.h"


typedef struct ss_fuzz_config {
    const ss_target *targets[SS_MAX_TARGETS];
    size_t n_targets;
    uint64_t seed;
    double seconds;            /* 0: no time limit */
    uint64_t cases;            /* 0: no case limit */
    int jobs;                  /* worker processes, >= 1 */
    const char *out;           /* reproducer directory (already checked writable) */
    ss_gen_config gen;
    size_t max_bytes;          /* byte budget per case; 0 = SS_DEFAULT_MAX_BYTES */
    int all_schedules;         /* 1: scheduled targets run under every schedule (or in turn: rotate) */
    int rotate;                /* with all_schedules: SS_ROTATE_* */
    const char *schedule;      /* when all_schedules == 0: a schedule every scheduled target has */
    int refusal_is_finding;    /* 1: a `refused` run is a finding (default: counted only) */
    int nan_payload_is_finding;   /* 1: a NaN-bits-only difference is a mismatch (default: counted) */
    double case_timeout;       /* seconds per target run (and per minimization step) */
    double minimize_seconds;   /* budget per minimization */
    int progress;              /* 1: a progress line on stderr, at most once a second */
    volatile sig_atomic_t *stop;   /* set asynchronously (signal handler) to stop */
    FILE *log;                 /* one line per finding; NULL = stdout */
    const char *found_by;      /* meta.found_by of reproducers */
    int keep_variants;         /* 1: one reproducer per shape (rank, dtype) of a bug, not per bug */
    /* Shard I of N (ss_shard.h): the campaign's local case j is case index
     * j * N + I of the seed, so N shards split one index space. N 0 or 1: no shards. */
    uint64_t shard_index, shard_count;
    uint64_t first_case;       /* first local case (a resumed shard goes on from here) */
    int batch;                 /* --batch: cases run together on a batching target; 0: the target's own */
} ss_fuzz_config;

/* How `all` schedules are spread over cases. A compiled target compiles
 * every run, so a case under its three input forms costs three compiles:
 * there, by default, a case runs one schedule, chosen by a hash of its
 * index (each form sees a third of the cases, and the campaign three times
 * as many shapes). */
enum {
    SS_ROTATE_NEVER = 0,       /* --schedule all: every case under every schedule */
    SS_ROTATE_BATCHING = 1,    /* the default: rotate on targets that batch (compiled torch), all elsewhere */
    SS_ROTATE_ALWAYS = 2       /* --schedule rotate: one schedule per case on every target */
};

/* The schedules [*first, *last] of t a campaign runs, rotation aside; -1
 * when t lacks the requested schedule. Unscheduled targets run once (0, 0). */
int ss_fuzz_schedules(const ss_fuzz_config *cfg, const ss_target *t, int *first, int *last);

/* The schedules [*first, *last] case `index` runs on t: ss_fuzz_schedules,
 * narrowed to schedule ss_mix64(index) mod n where the campaign rotates on t. */
int ss_fuzz_case_schedules(const ss_fuzz_config *cfg, const ss_target *t, uint64_t index, int *first, int *last);

/* What the campaign's schedules are, for the summary: a schedule's name,
 * "all", "rotate", or "all; rotate on compiled targets". */
const char *ss_fuzz_schedule_mode(const ss_fuzz_config *cfg);

/* The most cases a worker runs together (one batch on targets that batch:
 * compiled torch targets): --batch, else the largest batch a target asks
 * for; 1 when no target batches. */
int ss_fuzz_group_limit(const ss_fuzz_config *cfg);

/* Case index of the campaign's local case j (j * N + I for shard I of N). */
uint64_t ss_fuzz_case_index(const ss_fuzz_config *cfg, uint64_t local);

/* Runs the campaign; fills sum (seed, cases, seconds, stopped_by, findings, and
 * next_case: the first local case never handed to a worker, where a resumed
 * run goes on).
 * Returns 0, or -1 when workers cannot be started (message on stderr). */
int ss_fuzz_run(const ss_fuzz_config *cfg, ss_summary *sum);

/* Whether t can run here, asked in a short-lived child for engines other than
 * emu (a CUDA runtime initialized in this process would not survive fork). */
const char *ss_fuzz_probe_unavailable(const ss_target *t);

#endif
