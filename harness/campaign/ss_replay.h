/* ss_replay.h - replay engine shared by replay, regress and minimize: one case
 * file on the reference and a set of targets, under one or every schedule. */
#ifndef SS_REPLAY_H
#define SS_REPLAY_H

#include <stdio.h>
#include "ss_case.h"
#include "ss_check.h"
#include "ss_plan_build.h"


typedef struct ss_replay_opts {
    const ss_target *targets[SS_MAX_TARGETS];
    size_t n_targets;          /* 0: every available non-mutant target not explicit_only */
    int all_schedules;         /* 1: scheduled targets run under each schedule */
    char schedule[32];         /* when all_schedules == 0; a scheduled target without a
                                  schedule of this name runs under each of its own */
    uint64_t seed;             /* random schedule's seed */
    size_t max_bytes;          /* 0: SS_DEFAULT_MAX_BYTES */
    int keep_finals;           /* 1: keep each run's final storages (for --dump) */
    int use_meta;              /* 1: with no target named, a case's meta.target (under its
                                  meta.schedule unless one was named) runs first, then the defaults */
    int targets_named, schedule_named;   /* set by ss_replay_add_target / _set_schedule */
    double case_timeout;       /* limit of a run isolated in a child; 0: 10 s */
    int nan_payload_is_finding;   /* 1: a NaN-bits-only difference is a mismatch (default: noted) */
    int find_stage;            /* 1: a wrong result of a target with pipeline stages (torch.compile)
                                  is rerun on its siblings and the first wrong stage printed
                                  (ss_check_stage): replay, not regress */
} ss_replay_opts;

void ss_replay_opts_init(ss_replay_opts *o);
int ss_replay_add_target(ss_replay_opts *o, const char *name, ss_error *err);
int ss_replay_set_schedule(ss_replay_opts *o, const char *name, ss_error *err);
/* Strict decimal parse of a CLI number; err names the option. */
int ss_parse_u64(const char *option, const char *s, uint64_t *out, ss_error *err);
/* Combine exit codes: a finding (1) outranks a target error (3), which
 * outranks an invalid case (2), which outranks success (0). */
int ss_exit_worse(int a, int b);

typedef struct ss_replay_run {
    const ss_target *target;
    const char *schedule;      /* NULL for unscheduled targets */
    ss_run_status status;
    ss_check_result res;
    double seconds;
    ss_storage final_in, final_src;   /* only with keep_finals */
    int isolated;              /* 1: ran in a child process (a crash/timeout reproducer's target) */
} ss_replay_run;

typedef struct ss_replay_case_result {
    int exit_code;             /* SS_EXIT_* for this case alone */
    int ran;                   /* 1: the reference ran (plan valid, storages filled) */
    ss_run_status ref_status;
    char *report;              /* results, for stdout: ok, MISMATCH, finding lines (malloc'ed) */
    char note[320];            /* which targets ran and why, when the case chose them (meta) */
    char *diag;                /* diagnostics, for stderr: invalid case, target unavailable */
    ss_replay_run *run;
    size_t runs;
    ss_error err;              /* why the case is invalid, when exit_code == 2; field
                                  "meta.plugin" (exit_code 3): its plugin is not loaded */
} ss_replay_case_result;

typedef struct ss_replay_ctx {
    ss_replay_opts opts;
    ss_case c;                 /* the case last replayed */
    ss_plan plan;
    ss_check_ctx check;
    int default_targets;       /* 1: no target was named: a plugin reproducer adds its own */
    size_t n_agree, n_mismatch, n_invalid, n_target_error;
    size_t n_not_run;          /* program cases with no program target named: nothing ran */
} ss_replay_ctx;

void ss_replay_ctx_init(ss_replay_ctx *rc, const ss_replay_opts *o);
void ss_replay_ctx_free(ss_replay_ctx *rc);
/* Load `path` into rc->c and replay it. */
void ss_replay_file(ss_replay_ctx *rc, const char *path, ss_replay_case_result *r);
/* Replay rc->c (already loaded); `label` names it in the report. */
void ss_replay_loaded(ss_replay_ctx *rc, const char *label, ss_replay_case_result *r);
void ss_replay_case_result_free(ss_replay_case_result *r);

#endif
