/* fuzz_report.h - what fuzz_case does with a disagreement: minimize it, write the reproducer (ss_report: atomic, deduplicated), abort. */
#ifndef FUZZ_REPORT_H
#define FUZZ_REPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_helpers.h"
#include "ss_case.h"
#include "ss_check.h"
#include "ss_files.h"
#include "ss_minimize.h"
#include "ss_report.h"
#include "ss_target.h"

/* Minimization budget: enough for the rank <= 4 cases this target decodes. */
#define FUZZ_MIN_SECONDS 20.0

typedef struct fuzz_min_state {
    const ss_target *target;
    ss_run_opts opts;
    ss_verdict want;
    ss_check_ctx ctx;
} fuzz_min_state;

/* Still failing the same way: same target, schedule and verdict kind. */
static int fuzz_min_pred(const ss_case *c, const ss_plan *plan, void *user) {
    fuzz_min_state *st = user;
    ss_run_status ref_status;
    char why[256];
    if (ss_check_prepare(&st->ctx, c, plan, &ref_status, why, sizeof why) != 0) return 0;
    ss_check_result res;
    ss_check_target(&st->ctx, plan, ref_status, st->target, &st->opts, &res);
    return res.verdict == st->want;
}

/* Never returns: the abort lets libFuzzer keep the raw input as its artifact. */
static void fuzz_report_finding(const ss_case *found, const ss_plan *plan, const ss_target *t,
                                const ss_run_opts *opts, const ss_check_result *res) {
    char line[512];
    ss_diff_format(plan, &res->diff, line, sizeof line);
    fprintf(stderr, "fuzz_case: %s under %s: %s%s%s\n", t->name,
            t->scheduled ? ss_schedule_name(opts->schedule) : "its own order",
            ss_verdict_name(res->verdict),
            res->verdict == SS_MISMATCH || res->verdict == SS_GUARD_WRITE ? ": " : "",
            res->verdict == SS_MISMATCH || res->verdict == SS_GUARD_WRITE ? line : res->why);

    ss_case c;
    FUZZ_ASSERT_MSG(ss_case_copy(&c, found) == 0, "out of memory copying the finding");
    fuzz_min_state st;
    st.target = t;
    st.opts = *opts;
    st.want = res->verdict;
    ss_check_ctx_init(&st.ctx);
    const ss_min_opts mo = {0, FUZZ_MIN_SECONDS, 0};
    ss_min_stats stats;
    memset(&stats, 0, sizeof stats);
    if (ss_minimize(&c, &mo, fuzz_min_pred, &st, &stats) != 0)
        fprintf(stderr, "fuzz_case: minimizer ran out of memory; writing the best case so far\n");
    ss_check_ctx_free(&st.ctx);

    ss_finding f;
    memset(&f, 0, sizeof f);
    f.kind = ss_verdict_name(res->verdict);
    f.target = t;
    f.schedule = ss_target_schedule(t, opts->schedule);
    f.schedule_seed = opts->seed;
    f.numel_before = ss_min_numel(found);
    f.ndim_before = found->op.input.ndim;
    f.minimized = !stats.budget_hit;
    f.found_by = "libFuzzer fuzz_case";
    f.detail = res->verdict == SS_MISMATCH || res->verdict == SS_GUARD_WRITE ? line : res->why;

    const char *dir = getenv("SSFUZZ_OUT");
    if (!dir || !*dir) dir = "reports";
    ss_error err;
    char path[4096], summary[2048];
    int rc = ss_ensure_writable_dir(dir, &err);
    if (rc == 0) rc = ss_report_write(dir, &c, &f, 0, path, sizeof path, &err);
    if (rc < 0) {
        fprintf(stderr, "fuzz_case: cannot write the reproducer to %s: %s: %s\n", dir, err.field, err.msg);
    } else {
        ss_report_line(&c, &f, path, rc == 1, summary, sizeof summary);
        fprintf(stderr, "fuzz_case: %s\n", summary);
    }
    ss_case_free(&c);
    abort();
}

#endif
