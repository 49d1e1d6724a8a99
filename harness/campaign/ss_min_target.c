/* ss_min_target.c - minimizing for the usual signature: one target's verdict against the reference. */
#include <stdio.h>
#include <string.h>
#include "ss_minimize.h"
#include "ss_plan_build.h"
#include "ss_report.h"

int ss_min_target_pred(const ss_case *c, const ss_plan *plan, void *user) {
    ss_min_target *p = user;
    if (p->on_step) p->on_step(p->step_user);
    ss_run_status ref;
    char why[256];
    if (ss_check_prepare(p->ctx, c, plan, &ref, why, sizeof why)) return 0;
    ss_check_target(p->ctx, plan, ref, p->target, &p->opts, &p->last);
    if (p->last.verdict != p->want) return 0;
    if (!p->raise[0]) return 1;
    /* A smaller case that raises something else is another bug: shrinking
     * into it would leave the reproducer of a bug nobody found. */
    char raise[sizeof p->raise];
    ss_raise_key(p->last.why, raise, sizeof raise);
    return strcmp(raise, p->raise) == 0;
}

/* Runs of the final case that decide whether an external engine's finding is
 * deterministic: a race inside PyTorch can fail on one run and pass the next. */
#define CONFIRM_RUNS 3

int ss_min_target_run(ss_case *c, const ss_min_opts *opts, ss_min_target *p, ss_min_stats *stats,
                      char *detail, size_t detail_len) {
    p->raise[0] = 0;
    if (p->want == SS_RAISED) ss_raise_key(p->last.why, p->raise, sizeof p->raise);
    /* What the finding said when found: its detail if no rerun of the final
     * case fails again (a raised finding's key is made from its exception). */
    char found[sizeof p->last.why];
    snprintf(found, sizeof found, "%s", p->last.why);
    const int rc = ss_minimize(c, opts, ss_min_target_pred, p, stats);
    detail[0] = 0;
    ss_plan plan;
    if (ss_plan_build_limited(&c->op, opts->max_bytes, &plan, NULL)) return rc;
    /* A deterministic engine (the emulator) needs one run to say it all. */
    const int runs = p->target->engine->deterministic ? 1 : CONFIRM_RUNS;
    int held = 0;
    for (int i = 0; i < runs; i++) {
        if (!ss_min_target_pred(c, &plan, p)) continue;
        if (held++) continue;
        ss_check_describe(&plan, &p->last, detail, detail_len);
    }
    if (runs > 1 && held < runs) {
        if (!held) snprintf(detail, detail_len, "%s", found);
        const size_t len = strlen(detail);
        snprintf(detail + len, detail_len - len, "%snondeterministic: failed %d of %d reruns of this case",
                 len ? "; " : "", held, runs);
    }
    return rc;
}
