/* ss_minimize.h - shrinking a failing case to a 1-minimal one, step by structural step.
 *
 * The minimizer edits the structured case (never bytes): it drops dims,
 * reduces sizes, offsets and strides, simplifies dim/start/end/step, turns an
 * aliased src into a separate or a plainly shifted one, shrinks storages to
 * what the views need, replaces explicit values by a fill and prefers smaller,
 * simpler dtypes. A step is kept only when the candidate is well formed, is
 * strictly smaller in the size order below, and the caller's predicate says
 * it still fails with the same signature. It stops when no single step is
 * kept (1-minimal with respect to these steps) or a budget runs out.
 *
 * A case's program (ss_program.h) shrinks first: steps go (with the steps
 * that use what they defined), a view or read is replaced by its source,
 * returned values go, writes take their plainest spelling; a candidate whose
 * program the reference finds invalid is never tried.
 *
 * Size order (lexicographic, every component a non-negative integer, so
 * minimization terminates): the program's steps, largest storage numel, rank, element size, dtype
 * simplicity (uint8 < int8 < bool < int16 < ... < complex128), explicit
 * values, aliasing (separate < src with the slice's strides < other aliased),
 * then the sum of |parameters| (sizes, strides, offsets, |dim|, |start|,
 * |end|, step - 1, fill seed != 0; a null bound counts 0, an explicit one 1 +
 * its magnitude; the program's kinds, constants, bounds and returns), then
 * the total numel of the storages.
 *
 * Ownership: ss_minimize edits *c in place; meta and expect are kept as they
 * are. The predicate must not keep pointers into the case it is given. */
#ifndef SS_MINIMIZE_H
#define SS_MINIMIZE_H

#include "ss_case.h"
#include "ss_check.h"
#include "ss_plan.h"
#include "ss_program.h"
#include "ss_report.h"

/* 1 when `c` (with its validated plan) still fails with the signature being
 * minimized, 0 otherwise. */
typedef int (*ss_min_pred)(const ss_case *c, const ss_plan *plan, void *user);

typedef struct ss_min_opts {
    long max_attempts;     /* predicate calls; 0 = 20000 */
    double max_seconds;    /* wall-clock budget; 0 = none */
    size_t max_bytes;      /* byte budget for candidates (ss_plan_build_limited); 0 = default */
    const int *stop;       /* non-NULL: minimizing ends (budget_hit) once *stop is set (a campaign
                              stopping: the finding is written as far as it got); read atomically */
} ss_min_opts;

typedef struct ss_min_stats {
    long attempts;         /* predicate calls */
    long accepted;         /* steps kept */
    int budget_hit;        /* 1: stopped by a budget, so maybe not 1-minimal */
    int64_t numel_before, numel_after;   /* largest storage numel */
    int ndim_before, ndim_after;
} ss_min_stats;

/* Minimize *c while pred holds. The caller guarantees pred(c) holds at entry.
 * Returns 0, or -1 on out of memory (*c is then the best case so far). */
int ss_minimize(ss_case *c, const ss_min_opts *opts, ss_min_pred pred, void *user,
                ss_min_stats *stats);

/* 1 when no single step from c is well formed, smaller and accepted by pred
 * (the 1-minimality check, for tests and the CLI's report). -1 out of memory. */
int ss_min_is_minimal(const ss_case *c, size_t max_bytes, ss_min_pred pred, void *user);

/* Compare in the size order: <0 when a is smaller, 0 equal, >0 larger. */
int ss_min_compare(const ss_case *a, const ss_case *b);

/* ss_min_program.c: up to cap edited copies of p, each one step smaller or
 * simpler (the caller frees them); and p's step count, its parameters' sum
 * in *params. */
int ss_min_program_edits(const ss_program *p, ss_program **out, int cap);
int64_t ss_min_program_size(const ss_program *p, int64_t *params);

/* The largest storage numel of a case (the order's first component after a program's steps). */
int64_t ss_min_numel(const ss_case *c);

/* The usual signature: `target` under `opts` still gives verdict `want`
 * against the reference (a raise: the same exception, ss_raise_key). ctx is reused across calls; `last` holds the latest
 * check; on_step (optional) runs before each check (a campaign restarts its
 * per-case clock there). */
typedef struct ss_min_target {
    ss_check_ctx *ctx;
    const ss_target *target;
    ss_run_opts opts;
    ss_verdict want;
    ss_check_result last;
    void (*on_step)(void *step_user);
    void *step_user;
    char raise[SS_RAISE_KEY_LEN];   /* want SS_RAISED: the exception kept (ss_raise_key), set by
                                  ss_min_target_run from `last` */
} ss_min_target;

/* ss_min_pred for an ss_min_target passed as `user`. */
int ss_min_target_pred(const ss_case *c, const ss_plan *plan, void *user);

/* Minimize c for p's signature (p->last: the failure found), then re-check the
 * result and describe its failure in detail[] (the first difference, or the
 * target's reason).
 * Returns ss_minimize's result. */
int ss_min_target_run(ss_case *c, const ss_min_opts *opts, ss_min_target *p, ss_min_stats *stats,
                      char *detail, size_t detail_len);

#endif
