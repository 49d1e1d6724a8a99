/* ss_replay.c - replay one case on the reference and a set of targets. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ss_clock.h"
#include "ss_cli.h"
#include "ss_plugin.h"
#include "ss_replay.h"
#include "ss_storage.h"

void ss_replay_opts_init(ss_replay_opts *o) {
    memset(o, 0, sizeof *o);
    o->all_schedules = 1;
    o->seed = 1;
}

int ss_replay_add_target(ss_replay_opts *o, const char *name, ss_error *err) {
    const ss_target *t = ss_target_find(name);
    if (!t) return ss_fail(err, "--target", "unknown target '%s' (ssfuzz targets lists them)", name);
    if (o->n_targets == SS_REPLAY_MAX_TARGETS)
        return ss_fail(err, "--target", "at most %d targets", SS_REPLAY_MAX_TARGETS);
    for (size_t i = 0; i < o->n_targets; i++)
        if (o->targets[i] == t) return 0;
    o->targets[o->n_targets++] = t;
    return 0;
}

int ss_replay_set_schedule(ss_replay_opts *o, const char *name, ss_error *err) {
    if (!strcmp(name, "all")) { o->all_schedules = 1; return 0; }
    if (!ss_schedule_known(name) || strlen(name) >= sizeof o->schedule)
        return ss_fail(err, "--schedule", "unknown schedule '%s' (%s)", name, ss_schedule_list());
    snprintf(o->schedule, sizeof o->schedule, "%s", name);
    o->all_schedules = 0;
    return 0;
}

int ss_parse_u64(const char *option, const char *s, uint64_t *out, ss_error *err) {
    char *end;
    errno = 0;
    if (!*s || *s == '-' || *s == '+') return ss_fail(err, option, "must be a non-negative integer (got '%s')", s);
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno) return ss_fail(err, option, "must be a non-negative integer below 2^64 (got '%s')", s);
    *out = v;
    return 0;
}

static int rank(int code) {
    switch (code) {
    case SS_EXIT_FINDING: return 3;
    case SS_EXIT_TARGET: return 2;
    case SS_EXIT_USAGE: return 1;
    default: return 0;
    }
}

int ss_exit_worse(int a, int b) { return rank(b) > rank(a) ? b : a; }

void ss_replay_ctx_init(ss_replay_ctx *rc, const ss_replay_opts *o) {
    memset(rc, 0, sizeof *rc);
    rc->opts = *o;
    ss_case_init(&rc->c);
    ss_check_ctx_init(&rc->check);
    rc->check.max_bytes = o->max_bytes;
    rc->default_targets = rc->opts.n_targets == 0;
    if (rc->opts.n_targets == 0)
        for (size_t i = 0; i < ss_target_count() && rc->opts.n_targets < SS_REPLAY_MAX_TARGETS; i++) {
            const ss_target *t = ss_target_at(i);
            if (!t->mutant && !t->explicit_only && !t->unavailable(t))
                rc->opts.targets[rc->opts.n_targets++] = t;
        }
}

void ss_replay_ctx_free(ss_replay_ctx *rc) {
    ss_case_free(&rc->c);
    ss_check_ctx_free(&rc->check);
}

void ss_replay_case_result_free(ss_replay_case_result *r) {
    for (size_t i = 0; i < r->runs; i++) {
        ss_storage_free(&r->run[i].final_in);
        ss_storage_free(&r->run[i].final_src);
    }
    free(r->run);
    free(r->report);
    memset(r, 0, sizeof *r);
}

static void invalid(ss_replay_ctx *rc, const char *label, ss_replay_case_result *r, FILE *out) {
    fprintf(out, "%s: invalid: %s: %s\n", label, r->err.field, r->err.msg);
    r->exit_code = SS_EXIT_USAGE;
    rc->n_invalid++;
}

static int keep_final(ss_replay_run *run, const ss_check_ctx *ck) {
    if (ss_storage_reserve(&run->final_in, ck->tgt_in.bytes, ck->tgt_in.guard) ||
        ss_storage_reserve(&run->final_src, ck->tgt_src.bytes, ck->tgt_src.guard))
        return -1;
    ss_storage_copy(&run->final_in, &ck->tgt_in);
    ss_storage_copy(&run->final_src, &ck->tgt_src);
    return 0;
}

/* Runs target t under one schedule; reports anything but agreement. */
static void run_one(ss_replay_ctx *rc, const char *label, const ss_target *t, const ss_run_opts *ro,
                    ss_replay_case_result *r, FILE *out) {
    ss_replay_run *run = &r->run[r->runs++];
    memset(run, 0, sizeof *run);
    run->target = t->name;
    run->schedule = ss_target_schedule(t, ro->schedule);
    const double t0 = ss_now_s();
    ss_check_target(&rc->check, &rc->plan, r->ref_status, t, ro, &run->res);
    run->seconds = ss_now_s() - t0;
    run->status = run->res.verdict == SS_TARGET_UNAVAILABLE ? SS_RUN_UNAVAILABLE
                : run->res.verdict == SS_TARGET_FAILED ? SS_RUN_FAILED
                : run->res.verdict == SS_REFUSED ? SS_RUN_REFUSED
                : run->res.verdict == SS_RAISED ? SS_RUN_RAISED
                : (run->res.verdict == SS_AGREE && r->ref_status == SS_RUN_REJECTED) ||
                          run->res.verdict == SS_REJECTED_BY_TARGET ? SS_RUN_REJECTED : SS_RUN_OK;
    if (rc->opts.keep_finals && keep_final(run, &rc->check))
        fprintf(out, "%s: out of memory keeping %s's final storages\n", label, t->name);
    char where[96] = "";
    if (run->schedule) snprintf(where, sizeof where, " under %s", run->schedule);
    char detail[512];
    switch (run->res.verdict) {
    case SS_AGREE: return;
    case SS_MISMATCH: case SS_GUARD_WRITE:
        ss_diff_format(&rc->plan, &run->res.diff, detail, sizeof detail);
        fprintf(out, "%s: MISMATCH %s%s (%s): %s\n", label, t->name, where,
                ss_verdict_name(run->res.verdict), detail);
        r->exit_code = ss_exit_worse(r->exit_code, SS_EXIT_FINDING);
        return;
    case SS_REJECTED_BY_TARGET:
        fprintf(out, "%s: MISMATCH %s%s rejected a case the reference accepts: %s\n", label, t->name,
                where, run->res.why);
        r->exit_code = ss_exit_worse(r->exit_code, SS_EXIT_FINDING);
        return;
    case SS_ACCEPTED_INVALID:
        fprintf(out, "%s: MISMATCH %s%s wrote a case every target must reject (input view has "
                     "internal overlap)\n", label, t->name, where);
        r->exit_code = ss_exit_worse(r->exit_code, SS_EXIT_FINDING);
        return;
    case SS_RAISED:
        fprintf(out, "%s: MISMATCH %s%s raised where eager runs the same code (raised): %s\n", label,
                t->name, where, run->res.why);
        r->exit_code = ss_exit_worse(r->exit_code, SS_EXIT_FINDING);
        return;
    case SS_REFUSED:
        fprintf(out, "%s: refused by %s%s (its own overlap/safety error, not a finding): %s\n", label,
                t->name, where, run->res.why);
        return;
    case SS_TARGET_UNAVAILABLE: case SS_TARGET_FAILED: case SS_TARGET_TIMEOUT:
        fprintf(out, "%s: target %s%s %s: %s\n", label, t->name, where,
                run->res.verdict == SS_TARGET_UNAVAILABLE ? "unavailable" : "failed", run->res.why);
        r->exit_code = ss_exit_worse(r->exit_code, SS_EXIT_TARGET);
        return;
    }
}

void ss_replay_loaded(ss_replay_ctx *rc, const char *label, ss_replay_case_result *r) {
    memset(r, 0, sizeof *r);
    size_t len = 0;
    FILE *out = open_memstream(&r->report, &len);
    if (!out) { r->exit_code = SS_EXIT_TARGET; return; }
    /* A plugin's reproducer, replayed on the default targets, runs on its plugin target too. */
    const ss_target *targets[SS_REPLAY_MAX_TARGETS + 1];
    size_t n_targets = rc->opts.n_targets;
    memcpy(targets, rc->opts.targets, n_targets * sizeof *targets);
    char why[256] = "";
    if (rc->default_targets) {
        if (ss_plugin_check_meta(rc->c.meta, why, sizeof why)) {
            fprintf(out, "%s: %s\n", label, why);
            snprintf(r->err.field, sizeof r->err.field, "meta.plugin");
            snprintf(r->err.msg, sizeof r->err.msg, "%s", why);
            r->exit_code = SS_EXIT_TARGET;
            rc->n_target_error++;
            fclose(out);
            return;
        }
        const ss_target *own = ss_plugin_meta_target(rc->c.meta);
        int listed = 0;
        for (size_t i = 0; i < n_targets; i++) listed |= targets[i] == own;
        if (own && !listed) targets[n_targets++] = own;
    }
    if (ss_plan_build_limited(&rc->c.op, rc->opts.max_bytes, &rc->plan, &r->err)) {
        invalid(rc, label, r, out);
        fclose(out);
        return;
    }
    if (ss_check_prepare(&rc->check, &rc->c, &rc->plan, &r->ref_status, why, sizeof why)) {
        fprintf(out, "%s: invalid: storage: %s\n", label, why);
        snprintf(r->err.field, sizeof r->err.field, "storage");
        snprintf(r->err.msg, sizeof r->err.msg, "%s", why);
        r->exit_code = SS_EXIT_USAGE;
        rc->n_invalid++;
        fclose(out);
        return;
    }
    r->ran = 1;
    size_t max_runs = 0;
    for (size_t i = 0; i < n_targets; i++)
        max_runs += targets[i]->scheduled ? (size_t)targets[i]->scheduled : 1;
    r->run = calloc(max_runs ? max_runs : 1, sizeof *r->run);
    if (!r->run) { fclose(out); r->exit_code = SS_EXIT_TARGET; return; }
    size_t n_runs_ok = 0;
    for (size_t i = 0; i < n_targets; i++) {
        const ss_target *t = targets[i];
        const int one = rc->opts.all_schedules ? -1 : ss_target_schedule_index(t, rc->opts.schedule);
        ss_run_opts ro = {one < 0 ? 0 : one, rc->opts.seed, 0};
        if (t->scheduled && one < 0) {
            for (int s = 0; s < t->scheduled; s++) {
                ro.schedule = s;
                run_one(rc, label, t, &ro, r, out);
            }
        } else {
            run_one(rc, label, t, &ro, r, out);
        }
    }
    for (size_t i = 0; i < r->runs; i++) n_runs_ok += r->run[i].res.verdict == SS_AGREE;
    if (r->exit_code == SS_EXIT_OK) {
        if (r->ref_status == SS_RUN_REJECTED)
            fprintf(out, "%s: ok: rejected by the reference and %zu target run%s alike (input view "
                         "has internal overlap: invalid for reinplacing)\n",
                    label, n_runs_ok, n_runs_ok == 1 ? "" : "s");
        else
            fprintf(out, "%s: ok: %zu target run%s agree with the reference (%s, %s)\n", label,
                    n_runs_ok, n_runs_ok == 1 ? "" : "s", ss_dtype_name(rc->c.dtype),
                    ss_overlap_name(rc->plan.overlap));
        rc->n_agree++;
    } else if (r->exit_code == SS_EXIT_FINDING) {
        rc->n_mismatch++;
    } else {
        rc->n_target_error++;
    }
    fclose(out);
}

void ss_replay_file(ss_replay_ctx *rc, const char *path, ss_replay_case_result *r) {
    memset(r, 0, sizeof *r);
    ss_case_free(&rc->c);
    ss_case_init(&rc->c);
    if (ss_case_load(path, &rc->c, &r->err)) {
        size_t len = 0;
        FILE *out = open_memstream(&r->report, &len);
        if (out) {
            invalid(rc, path, r, out);
            fclose(out);
        }
        return;
    }
    ss_replay_loaded(rc, path, r);
}
