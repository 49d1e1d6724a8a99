/* fuzz_report.h - what fuzz_case does with a disagreement: minimize it, write the reproducer atomically, abort. */
#ifndef FUZZ_REPORT_H
#define FUZZ_REPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "fuzz_helpers.h"
#include "ss_case.h"
#include "ss_check.h"
#include "ss_files.h"
#include "ss_minimize.h"
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

static void fuzz_set_meta(ss_case *c, const ss_target *t, const ss_run_opts *opts,
                          const ss_check_result *res, int64_t numel_before) {
    cJSON_Delete(c->meta);
    c->meta = cJSON_CreateObject();
    if (!c->meta) return;
    cJSON_AddStringToObject(c->meta, "target", t->name);
    if (t->scheduled) cJSON_AddStringToObject(c->meta, "schedule", ss_schedule_name(opts->schedule));
    cJSON_AddStringToObject(c->meta, "signature", ss_verdict_name(res->verdict));
    cJSON_AddStringToObject(c->meta, "found_by", "libFuzzer fuzz_case");
    cJSON_AddNumberToObject(c->meta, "numel_before_minimization", (double)numel_before);
    if (res->why[0]) cJSON_AddStringToObject(c->meta, "why", res->why);
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
    fuzz_set_meta(&c, t, opts, res, ss_min_numel(found));

    const char *dir = getenv("SSFUZZ_OUT");
    if (!dir || !*dir) dir = "reports";
    ss_error err;
    char path[4096];
    if (ss_ensure_writable_dir(dir, &err) != 0) {
        fprintf(stderr, "fuzz_case: cannot write reproducer to %s: %s: %s\n", dir, err.field, err.msg);
    } else {
        char *text = ss_case_to_json(&c);
        uint64_t h = 1469598103934665603ull;          /* name by content: reruns dedupe */
        for (const char *p = text ? text : ""; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
        free(text);
        char name[128];
        snprintf(name, sizeof name, "%s", t->name);
        for (char *p = name; *p; p++) if (*p == ':') *p = '-';
        snprintf(path, sizeof path, "%s/fuzz_case-%s-%s-%016llx.json", dir, name,
                 ss_verdict_name(res->verdict), (unsigned long long)h);
        for (char *p = path + strlen(dir); *p; p++) if (*p == ' ') *p = '-';
        if (ss_case_save_atomic(path, &c, &err) != 0)
            fprintf(stderr, "fuzz_case: writing %s failed: %s: %s\n", path, err.field, err.msg);
        else
            fprintf(stderr, "fuzz_case: minimized reproducer (storage numel %lld -> %lld, rank %d -> %d%s): %s\n",
                    (long long)stats.numel_before, (long long)stats.numel_after, stats.ndim_before,
                    stats.ndim_after, stats.budget_hit ? ", budget hit" : "", path);
    }
    ss_case_free(&c);
    abort();
}

#endif
