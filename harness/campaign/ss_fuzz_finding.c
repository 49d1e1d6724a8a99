/* ss_fuzz_finding.c - a campaign's finding policy: which runs are findings, a finding's
 * class (seen before: counted only), its minimization, stage and standalone confirmation,
 * its reproducer, and a batched failure rerun alone before it is called batch-only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ss_batch.h"
#include "ss_confirm.h"
#include "ss_fuzz_int.h"
#include "ss_minimize.h"
#include "ss_plan_build.h"

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
    if (fz_io_full(w->res_fd, &m, sizeof m, 1)) _exit(3);
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
    fz_restart_clock(w);
    const char *stage = ss_check_stage(&w->mctx, &plan, ref, t, ro, checks, sizeof checks);
    if (!checks[0] || ss_report_set_stage(path, t, stage, checks, &err)) return;
    const size_t used = strlen(line);
    snprintf(line + used, n - used, "; stage %s", stage ? stage : "unknown");
}

void fz_on_finding(fz_worker_state *w, const ss_case *c0, const ss_plan *plan, uint64_t index,
                       int ti, const ss_run_opts *ro, const ss_check_result *res) {
    const ss_fuzz_config *cfg = w->cfg;
    const ss_target *t = cfg->targets[ti];
    const char *kind = ss_verdict_name(res->verdict);
    char cls[160];
    snprintf(cls, sizeof cls, "%d|%d|%s|%s", (int)res->verdict, ti, ss_schedule_class(ss_target_schedule(t, (int)ro->schedule)),
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
    ss_min_target p = {&w->mctx, t, *ro, res->verdict, *res, fz_restart_clock, w, ""};
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
        ss_finding f = {kind, t, ss_target_schedule(t, (int)ro->schedule), ro->seed, 1, cfg->seed, index,
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
void fz_count_unfound(fz_worker_state *w, const ss_plan *plan, const ss_target *t, const ss_check_result *res) {
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
        for (int s = first; s <= last && ns < SS_CHECK_MAX_BATCH; s++) scheds[ns++] = ss_target_schedule(t, s);
    const int rotated = fz_rotates_on(cfg, t);   /* each case ran one schedule: record which */
    for (size_t i = 0; rotated && i < nm; i++) case_scheds[i] = ss_target_schedule(t, member_sched[i]);
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
    ss_finding f = {kind, t, ss_target_schedule(t, (int)ro->schedule), ro->seed, 1, cfg->seed, me->index,
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

/* A failing run of a batch (res, under opts) judged as the campaign reports
 * it: rerun alone first; failing alone, an ordinary finding (minimized);
 * agreeing alone every time, a batch-only one with the batch's cases. */
void fz_batched_finding(fz_worker_state *w, fz_group *g, int ti, const fz_run *runs, size_t n, size_t r,
                            const ss_run_opts *opts, const ss_check_result *res) {
    const ss_target *t = w->cfg->targets[ti];
    fz_member *m = &g->m[runs[r].j];
    ss_check_result alone;
    int failed_alone = 0;
    for (int again = 0; again < FZ_ALONE_RERUNS && !failed_alone; again++) {
        fz_start_run(w, ti, runs[r].s, 0);
        ss_check_target(&g->ctx[runs[r].j], &m->plan, m->ref, t, opts, &alone);
        if (ss_target_poisoned(t)) _exit(FZ_EXIT_POISONED);
        failed_alone = fz_is_finding(w->cfg, alone.verdict);
    }
    if (failed_alone) {
        fz_on_finding(w, &m->c, &m->plan, m->index, ti, opts, &alone);
        return;
    }
    size_t members[SS_CHECK_MAX_BATCH] = {0}, nm = 0, pos = 0;   /* zeroed: a rare path, and the compiler cannot see the loop fill it */
    int member_sched[SS_CHECK_MAX_BATCH];
    for (size_t q = 0; q < n; q++) {   /* the batch's cases, in order (runs are case-major) */
        if (nm && members[nm - 1] == runs[q].j) continue;
        if (runs[q].j == runs[r].j) pos = nm;
        member_sched[nm] = runs[q].s;
        members[nm++] = runs[q].j;
    }
    on_batch_only(w, g, members, member_sched, nm, pos, ti, opts, res);
}
