/* ss_check.h - one differential check: reference vs a target on one case. */
#ifndef SS_CHECK_H
#define SS_CHECK_H

#include "ss_case.h"
#include "ss_compare.h"
#include "ss_storage.h"
#include "ss_target.h"

typedef enum ss_verdict {
    SS_AGREE = 0,             /* same final storages, or both rejected */
    SS_MISMATCH,              /* storages differ */
    SS_GUARD_WRITE,           /* the target wrote outside its storages */
    SS_REJECTED_BY_TARGET,    /* target refused a case the reference ran */
    SS_ACCEPTED_INVALID,      /* target ran a case the reference rejects */
    SS_TARGET_UNAVAILABLE,
    SS_TARGET_FAILED,         /* internal failure: crash, CUDA error */
    SS_TARGET_TIMEOUT,
    SS_REFUSED,               /* the target raised its own safety error (PyTorch's overlap
                                 check): counted, not a finding unless asked */
    SS_RAISED,                /* a compiled path raised where eager does not */
    SS_ERROR,                 /* the target raised an error of the case or engine (not its
                                 refusal, not compile-only): counted, not a finding */
    SS_NAN_PAYLOAD,           /* storages differ only in NaNs' bits (quiet bit, payload):
                                 counted, not a finding unless asked */
    SS_FLAKY                  /* the target's worker died once, a fresh one ran the case
                                 and agreed: reported, not minimized */
} ss_verdict;

/* Short stable name, used as the finding's signature kind:
 * "agree", "mismatch", "guard-band write", "rejected-by-target-only",
 * "accepted-invalid", "unavailable", "crash", "timeout", "refused", "raised",
 * "error", "nan-payload", "flaky". */
const char *ss_verdict_name(ss_verdict v);
/* A run's verdict is a finding (mismatch, crash, timeout, flaky, ...); a
 * refusal, an error, a NaN-bits-only difference, agreement and an
 * unavailable target are not (a campaign may still keep refusals). */
int ss_verdict_is_finding(ss_verdict v);

/* Reusable buffers, so a campaign does not allocate per case. init_* hold
 * the prepared case's initial storages while init_ready: from
 * ss_check_prepare until a check of a target takes them as its own
 * (ss_check_target's first run of a seeded case: a block swap instead of a
 * copy); ss_check_initial refills them from `fill` where they are needed
 * again. */
typedef struct ss_check_ctx {
    ss_storage ref_in, ref_src, tgt_in, tgt_src, init_in, init_src;
    int init_ready;           /* 1: init_* hold the initial storages */
    int init_refill;          /* 1: `fill` rebuilds them (a seeded fill, not explicit values) */
    ss_fill_spec fill;
    int dtype;                /* the prepared case's ss_dtype */
    size_t max_bytes;         /* byte budget (see ss_plan_build_limited); 0 = default */
    int value_type;           /* 1 + the prepared case's ss_dtype, copied into each diff */
    int nan_payload_is_finding;   /* 1: a NaN-bits-only difference is a mismatch, not nan-payload */
    const struct ss_program *program;   /* the prepared case's program (not owned), or NULL */
    /* A program case: the prepared case (not owned: it must outlive the
     * checks of this preparation) and the reference's result (owned). */
    const ss_case *c;
    ss_prog_result prog_ref;
} ss_check_ctx;

void ss_check_ctx_init(ss_check_ctx *ctx);
void ss_check_ctx_free(ss_check_ctx *ctx);

typedef struct ss_check_result {
    ss_verdict verdict;
    ss_run_status ref_status;
    ss_diff diff;             /* valid for SS_MISMATCH / SS_GUARD_WRITE (a program case: count
                                 and guard_corrupt only) */
    char why[256];            /* target's reason (rejection, failure); a program case's
                                 mismatch: the first difference and the first wrong step */
    int program;              /* 1: a program case (why describes a mismatch) */
} ss_check_result;

/* One line for a verdict: a mismatch's first difference (a program's from
 * `why`, a statement's from the diff), else the target's reason. */
void ss_check_describe(const ss_plan *plan, const ss_check_result *res, char *out, size_t n);

/* Fill storages from the case and run the reference once; its result stays in
 * ctx->ref_*, the initial contents in ctx->init_* (see ss_check_ctx). Returns 0, or -1 with `why`
 * set when the case exceeds the byte budget or memory runs out. A program case
 * runs the program's reference (ss_prog_ref_run): *ref_status is SS_RUN_OK,
 * or SS_RUN_REFUSED when PyTorch raises at a step (raises = 1); a program the
 * reference finds invalid, or one with no defined result (raises = 0:
 * nothing to compare; a campaign counts it skipped), is -1 with why. */
int ss_check_prepare(ss_check_ctx *ctx, const ss_case *c, const ss_plan *plan,
                     ss_run_status *ref_status, char *why, size_t why_len);
/* Run one target on a fresh copy of the initial storages (left in ctx->tgt_*)
 * and judge it against the prepared reference. A program case on a target
 * that does not run programs (emu, cuda, plugins, torch spellings:
 * ss_check_runs_programs) is SS_TARGET_UNAVAILABLE, SS_CHECK_NOT_APPLICABLE,
 * never a finding. A program case is judged by ss_prog_compare (storages,
 * returned values, their aliasing): a mismatch's why is the first difference
 * and the first wrong step (ss_prog_ref_blame); where the reference refuses
 * (PyTorch raises) a target that refuses is `refused` and one that runs the
 * program agrees (the reference has no answer to hold it to). */
void ss_check_target(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref_status,
                     const ss_target *t, const ss_run_opts *opts, ss_check_result *res);
/* Makes ctx->init_* hold the prepared case's initial storages again (a
 * refill where a target's check took them; nothing to do otherwise). Every
 * reader of init_* after a ss_check_target calls it first. */
void ss_check_initial(ss_check_ctx *ctx);
/* ss_check_target on n runs at once: run i is the prepared case of ctxs[i]
 * (its plan, reference status) under opts[i]; a case may appear more than
 * once (under several schedules). Run together where t's engine runs
 * batches (ss_target_batch_limit > 1: one compile for all), else one by
 * one; res[i] is run i's verdict, judged as alone. The runs' final storages
 * are the batch's own (ctx->tgt_* untouched). At most SS_CHECK_MAX_BATCH. */
#define SS_CHECK_MAX_BATCH 128
void ss_check_batch(ss_check_ctx *const *ctxs, const ss_plan *const *plans, const ss_run_status *refs,
                    const ss_run_opts *opts, size_t n, const ss_target *t, ss_check_result *res);
/* 1 when t runs program cases (its engine's runs_programs hook). */
int ss_check_runs_programs(const ss_target *t);
#define SS_CHECK_NOT_APPLICABLE "not applicable: program cases run on program targets only (torch:MODE:program)"

/* Where in t's pipeline its wrong result on the prepared case first appears:
 * the case is rerun on the siblings t's engine names (ss_engine.stages, under
 * the same schedule name) and the first sibling with a wrong answer (a
 * finding's verdict) names the stage; every sibling right: t's last stage.
 * Returns the stage ("dynamo", "aot", "inductor"), or NULL when t has no
 * stages or a sibling gave no answer (unavailable, an error, a refusal, a
 * crash): detail says which sibling said what either way. Overwrites
 * ctx->tgt_*. */
const char *ss_check_stage(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref_status,
                           const ss_target *t, const ss_run_opts *opts, char *detail, size_t n);

#endif
