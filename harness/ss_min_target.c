/* ss_min_target.c - minimizing for the usual signature: one target's verdict against the reference. */
#include <stdio.h>
#include "ss_minimize.h"
#include "ss_plan_build.h"

int ss_min_target_pred(const ss_case *c, const ss_plan *plan, void *user) {
    ss_min_target *p = user;
    if (p->on_step) p->on_step(p->step_user);
    ss_run_status ref;
    char why[256];
    if (ss_check_prepare(p->ctx, c, plan, &ref, why, sizeof why)) return 0;
    ss_check_target(p->ctx, plan, ref, p->target, &p->opts, &p->last);
    return p->last.verdict == p->want;
}

int ss_min_target_run(ss_case *c, const ss_min_opts *opts, ss_min_target *p, ss_min_stats *stats,
                      char *detail, size_t detail_len) {
    const int rc = ss_minimize(c, opts, ss_min_target_pred, p, stats);
    detail[0] = 0;
    ss_plan plan;
    if (ss_plan_build_limited(&c->op, opts->max_bytes, &plan, NULL) == 0 &&
        ss_min_target_pred(c, &plan, p)) {
        if (p->last.verdict == SS_MISMATCH || p->last.verdict == SS_GUARD_WRITE)
            ss_diff_format(&plan, &p->last.diff, detail, detail_len);
        else
            snprintf(detail, detail_len, "%s", p->last.why);
    }
    return rc;
}
