/* ss_replay.c - replay one case on the reference and a set of targets. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_batch.h"
#include "ss_clock.h"
#include "ss_exit.h"
#include "ss_fuzz.h"
#include "ss_isolate.h"
#include "ss_plan_build.h"
#include "ss_replay.h"
#include "ss_storage.h"
#include "ss_text.h"

void ss_replay_opts_init(ss_replay_opts *o) {
    memset(o, 0, sizeof *o);
    o->all_schedules = 1;
    o->seed = 1;
}

int ss_replay_add_target(ss_replay_opts *o, const char *name, ss_error *err) {
    if (ss_target_set_add(o->targets, &o->n_targets, name, "--target", err)) return -1;
    o->targets_named = 1;
    return 0;
}

int ss_replay_set_schedule(ss_replay_opts *o, const char *name, ss_error *err) {
    if (!strcmp(name, "all")) { o->all_schedules = 1; o->schedule_named = 1; return 0; }
    if (!ss_schedule_known(name) || strlen(name) >= sizeof o->schedule)
        return ss_fail(err, "--schedule", "unknown schedule '%s' (%s)", name, ss_schedule_list());
    snprintf(o->schedule, sizeof o->schedule, "%s", name);
    o->all_schedules = 0;
    o->schedule_named = 1;
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
    rc->check.nan_payload_is_finding = o->nan_payload_is_finding;
    rc->default_targets = rc->opts.n_targets == 0;
    if (rc->opts.n_targets == 0)
        for (size_t i = 0; i < ss_target_count() && rc->opts.n_targets < SS_MAX_TARGETS; i++) {
            const ss_target *t = ss_target_at(i);
            /* probed in a child for cuda: a CUDA runtime started here would not
             * survive the fork of a crash reproducer's isolated run */
            if (!t->mutant && !t->explicit_only && !ss_fuzz_probe_unavailable(t))
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
    free(r->diag);
    memset(r, 0, sizeof *r);
}

/* The case is not run, for the reason in r->err: said in one line on diag, with
 * its exit code and the count it adds to. exit_code SS_EXIT_USAGE is an invalid
 * case ("LABEL: invalid: FIELD: MSG", n_invalid); SS_EXIT_TARGET a case its
 * targets cannot run ("LABEL: MSG", n_target_error). */
static void not_run(ss_replay_ctx *rc, const char *label, ss_replay_case_result *r, FILE *diag, int exit_code) {
    if (exit_code == SS_EXIT_USAGE) fprintf(diag, "%s: invalid: %s: %s\n", label, r->err.field, r->err.msg);
    else fprintf(diag, "%s: %s\n", label, r->err.msg);
    r->exit_code = exit_code;
    if (exit_code == SS_EXIT_USAGE) rc->n_invalid++;
    else rc->n_target_error++;
}

/* An invalid case: r->err says why (diag: the diagnostics stream). */
static void invalid(ss_replay_ctx *rc, const char *label, ss_replay_case_result *r, FILE *diag) {
    not_run(rc, label, r, diag, SS_EXIT_USAGE);
}

static int keep_final(ss_replay_run *run, const ss_check_ctx *ck) {
    if (ss_storage_reserve(&run->final_in, ck->tgt_in.bytes, ck->tgt_in.guard) ||
        ss_storage_reserve(&run->final_src, ck->tgt_src.bytes, ck->tgt_src.guard))
        return -1;
    ss_storage_copy(&run->final_in, &ck->tgt_in);
    ss_storage_copy(&run->final_src, &ck->tgt_src);
    return 0;
}

/* A wrong result of a target with pipeline stages (torch.compile): the stage
 * first wrong, in one line (nothing for a target without stages). */
static void print_stage(ss_replay_ctx *rc, const char *label, const ss_target *t, const ss_run_opts *ro,
                        ss_run_status ref_status, FILE *out) {
    char detail[600];
    const char *stage = ss_check_stage(&rc->check, &rc->plan, ref_status, t, ro, detail, sizeof detail);
    if (stage || detail[0]) fprintf(out, "%s: stage: %s (%s)\n", label, stage ? stage : "unknown", detail);
}

/* The two report streams of one case: results (stdout) and diagnostics (stderr). */
typedef struct streams { FILE *out, *diag; } streams;

/* Says a batch that cannot run, once per case (not again under each schedule). */
static void batch_unusable(const char *label, const ss_target *t, const ss_replay_case_result *r, const ss_error *err,
                           const streams *io) {
    int said = 0;
    for (size_t i = 0; i + 1 < r->runs; i++) said |= r->run[i].target == t;
    if (!said) fprintf(io->diag, "%s: %s: %s; run alone\n", label, err->field, err->msg);
}

/* A failure found only inside a batch (meta.batch) replays inside that
 * batch on the target that found it, when that target runs batches: 1 when
 * it ran so (run->res filled, said in one line), 0 to run it alone. The
 * target is meta.batch.target when given (a corpus case names it there and
 * leaves meta.target out, so that replaying the corpus runs its default
 * targets), else meta.target. A batch that does not load is said, and the
 * case runs alone. */
static int in_batch(ss_replay_ctx *rc, const char *label, const ss_target *t, const ss_run_opts *ro,
                    ss_replay_case_result *r, ss_replay_run *run, const streams *io) {
    const cJSON *batch = rc->c.meta ? cJSON_GetObjectItemCaseSensitive(rc->c.meta, "batch") : NULL;
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(batch, "target");
    ss_error err;
    if (batch && target && !cJSON_IsString(target)) {
        (void)ss_fail(&err, "meta.batch.target", "must be a target name");
        batch_unusable(label, t, r, &err, io);
        return 0;
    }
    if (!target) target = rc->c.meta ? cJSON_GetObjectItemCaseSensitive(rc->c.meta, "target") : NULL;
    if (!batch || !cJSON_IsString(target) || strcmp(target->valuestring, t->name) || ss_target_batch_limit(t) < 2)
        return 0;
    size_t n = 0;
    if (ss_batch_check(&rc->check, &rc->plan, r->ref_status, &rc->c, t, ro, &run->res, &n, &err)) {
        batch_unusable(label, t, r, &err, io);
        return 0;
    }
    fprintf(io->out, "%s: %s run inside its recorded batch of %zu cases (meta.batch)\n", label, t->name, n);
    return 1;
}

/* Runs target t under one schedule (in a child process when `isolate`); reports
 * anything but agreement. */
static void run_one(ss_replay_ctx *rc, const char *label, const ss_target *t, const ss_run_opts *ro,
                    int isolate, ss_replay_case_result *r, const streams *io) {
    for (size_t i = 0; i < r->runs; i++)   /* the meta target's run is not repeated */
        if (r->run[i].target == t &&
            (!t->scheduled || r->run[i].schedule == ss_target_schedule(t, ro->schedule)))
            return;
    ss_replay_run *run = &r->run[r->runs++];
    memset(run, 0, sizeof *run);
    run->target = t;
    run->schedule = ss_target_schedule(t, ro->schedule);
    run->isolated = isolate;
    const double t0 = ss_now_s();
    int batched = 0;
    if (isolate)
        ss_isolated_check(&rc->check, &rc->plan, r->ref_status, t, ro,
                          rc->opts.case_timeout > 0 ? rc->opts.case_timeout : 10.0, &run->res);
    else if (!(batched = in_batch(rc, label, t, ro, r, run, io)))
        ss_check_target(&rc->check, &rc->plan, r->ref_status, t, ro, &run->res);
    run->seconds = ss_now_s() - t0;
    run->status = run->res.verdict == SS_TARGET_UNAVAILABLE ? SS_RUN_UNAVAILABLE
                : run->res.verdict == SS_TARGET_FAILED || run->res.verdict == SS_TARGET_TIMEOUT ? SS_RUN_FAILED
                : run->res.verdict == SS_REFUSED ? SS_RUN_REFUSED
                : run->res.verdict == SS_RAISED ? SS_RUN_RAISED
                : run->res.verdict == SS_ERROR ? SS_RUN_ERROR
                : (run->res.verdict == SS_AGREE && r->ref_status == SS_RUN_REJECTED) ||
                          run->res.verdict == SS_REJECTED_BY_TARGET ? SS_RUN_REJECTED : SS_RUN_OK;
    if (rc->opts.keep_finals && keep_final(run, &rc->check))
        fprintf(io->diag, "%s: out of memory keeping %s's final storages\n", label, t->name);
    char where[96] = "";
    if (run->schedule) snprintf(where, sizeof where, " under %s", run->schedule);
    char detail[512];
    FILE *out = io->out;
    /* A batch-only failure's stage is not looked for: the siblings would run it alone. */
    const int stage = rc->opts.find_stage && !isolate && !batched;
    if (ss_verdict_is_finding(run->res.verdict))
        r->exit_code = ss_exit_worse(r->exit_code, SS_EXIT_FINDING);
    switch (run->res.verdict) {
    case SS_AGREE: return;
    case SS_MISMATCH: case SS_GUARD_WRITE:
        ss_check_describe(&rc->plan, &run->res, detail, sizeof detail);
        fprintf(out, "%s: MISMATCH %s%s (%s): %s\n", label, t->name, where,
                ss_verdict_name(run->res.verdict), detail);
        if (stage) print_stage(rc, label, t, ro, r->ref_status, out);
        return;
    case SS_REJECTED_BY_TARGET:
        fprintf(out, "%s: MISMATCH %s%s rejected a case the reference accepts: %s\n", label, t->name,
                where, run->res.why);
        return;
    case SS_ACCEPTED_INVALID:
        fprintf(out, "%s: MISMATCH %s%s wrote a case every target must reject (input view has "
                     "internal overlap)\n", label, t->name, where);
        return;
    case SS_RAISED:
        fprintf(out, "%s: MISMATCH %s%s raised on a case it must run (raised): %s\n", label,
                t->name, where, run->res.why);
        if (stage) print_stage(rc, label, t, ro, r->ref_status, out);
        return;
    case SS_TARGET_FAILED: case SS_TARGET_TIMEOUT: case SS_FLAKY:
        fprintf(out, "%s: FINDING %s on %s%s: %s\n", label, ss_verdict_name(run->res.verdict), t->name,
                where, run->res.why);
        return;
    case SS_ERROR:
        fprintf(out, "%s: error on %s%s (an error of the case or engine, not a finding): %s\n", label,
                t->name, where, run->res.why);
        return;
    case SS_NAN_PAYLOAD:
        ss_diff_format(&rc->plan, &run->res.diff, detail, sizeof detail);
        fprintf(out, "%s: nan-payload on %s%s (only NaNs' bits differ; not a finding unless "
                     "--nan-payload-is-finding): %s\n", label, t->name, where, detail);
        return;
    case SS_REFUSED:
        fprintf(out, "%s: refused by %s%s (its own overlap/safety error, not a finding): %s\n", label,
                t->name, where, run->res.why);
        return;
    case SS_TARGET_UNAVAILABLE:
        fprintf(io->diag, "%s: target %s%s unavailable: %s\n", label, t->name, where, run->res.why);
        r->exit_code = ss_exit_worse(r->exit_code, SS_EXIT_TARGET);
        return;
    }
}

static const char *meta_str(const ss_case *c, const char *key) {
    const cJSON *v = c->meta ? cJSON_GetObjectItemCaseSensitive(c->meta, key) : NULL;
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A reproducer replayed on another version of an engine than the one that
 * found it (torch): each engine that ran says so in one line. */
static void version_notes(const ss_replay_ctx *rc, const char *label, const ss_replay_case_result *r,
                          FILE *diag) {
    for (size_t e = 0; e < ss_engine_count(); e++) {
        const ss_engine *engine = ss_engine_at(e);
        int ran = 0;
        for (size_t i = 0; i < r->runs; i++) ran |= r->run[i].target->engine == engine;
        char note[400];
        if (!ran || !engine->meta_note) continue;
        engine->meta_note(rc->c.meta, note, sizeof note);
        char shown[sizeof note];   /* the engine quotes the case file's meta: untrusted */
        ss_text_inert(note, shown, sizeof shown);
        if (note[0]) fprintf(diag, "%s: note: %s\n", label, shown);
    }
}

/* Runs t under the requested schedule, every schedule, or `only` (>= 0). */
static void run_target(ss_replay_ctx *rc, const char *label, const ss_target *t, int only, int isolate,
                       ss_replay_case_result *r, const streams *io) {
    const int one = only >= 0 ? only
                  : rc->opts.all_schedules ? -1 : ss_target_schedule_index(t, rc->opts.schedule);
    ss_run_opts ro = {one < 0 ? 0 : one, rc->opts.seed, 0};
    if (t->scheduled && one < 0) {
        for (int s = 0; s < t->scheduled; s++) {
            ro.schedule = s;
            run_one(rc, label, t, &ro, isolate, r, io);
        }
    } else {
        run_one(rc, label, t, &ro, isolate, r, io);
    }
}

/* The case's own target (meta.target), run before the defaults when no
 * --target was given; its schedule is meta.schedule unless --schedule named
 * one. A crash or timeout reproducer's target runs in a child process. Says
 * so in one line. */
static const ss_target *meta_target(ss_replay_ctx *rc, const char *label, int *only, int *isolate,
                                    ss_replay_case_result *r, FILE *out) {
    const char *name = meta_str(&rc->c, "target"), *sched = meta_str(&rc->c, "schedule");
    const char *sig = meta_str(&rc->c, "signature");
    *only = -1;
    *isolate = sig && (!strcmp(sig, "crash") || !strcmp(sig, "timeout")) && name;
    if (!rc->opts.use_meta || rc->opts.targets_named || !name) return NULL;
    const ss_target *t = ss_target_find(name);
    if (!t) {
        char shown[160];
        ss_text_inert(name, shown, sizeof shown);
        fprintf(out, "%s: meta.target %s is not a target of this build; replaying the defaults\n",
                label, shown);
        return NULL;
    }
    if (t->scheduled && sched && !rc->opts.schedule_named) *only = ss_target_schedule_index(t, sched);
    const char *shown = *only >= 0 ? ss_target_schedule(t, *only) : NULL;
    char iso[96] = "";
    if (*isolate) snprintf(iso, sizeof iso, " in a child process (a %s reproducer)", sig);
    snprintf(r->note, sizeof r->note, "replaying its meta.target %s%s%s%s, then %zu default target%s "
             "(--target overrides)", t->name, shown ? " under " : "", shown ? shown : "", iso,
             rc->opts.n_targets, rc->opts.n_targets == 1 ? "" : "s");
    fprintf(out, "%s: %s\n", label, r->note);
    return t;
}

void ss_replay_loaded(ss_replay_ctx *rc, const char *label, ss_replay_case_result *r) {
    char shown[4096];   /* a file name may hold escape sequences too: every line shows it inert */
    ss_text_inert(label, shown, sizeof shown);
    label = shown;
    memset(r, 0, sizeof *r);
    size_t len = 0, dlen = 0;
    streams io = {open_memstream(&r->report, &len), open_memstream(&r->diag, &dlen)};
    if (!io.out || !io.diag) {
        if (io.out) fclose(io.out);
        if (io.diag) fclose(io.diag);
        r->exit_code = SS_EXIT_TARGET;
        return;
    }
    char why[256] = "";
    /* A plugin's reproducer names its plugin: without it loaded, say so (exit 3). */
    const char *meta_field;
    if (rc->default_targets && ss_engines_meta_check(rc->c.meta, &meta_field, why, sizeof why)) {
        ss_fail(&r->err, meta_field, "%s", why);
        not_run(rc, label, r, io.diag, SS_EXIT_TARGET);
        goto done;
    }
    if (ss_plan_build_limited(&rc->c.op, rc->opts.max_bytes, &rc->plan, &r->err)) {
        invalid(rc, label, r, io.diag);
        goto done;
    }
    if (ss_check_prepare(&rc->check, &rc->c, &rc->plan, &r->ref_status, why, sizeof why)) {
        ss_fail(&r->err, strncmp(why, "program", 7) ? "storage" : "program", "%s", why);
        invalid(rc, label, r, io.diag);
        goto done;
    }
    r->ran = 1;
    int only, isolate;
    const ss_target *mt = meta_target(rc, label, &only, &isolate, r, io.out);
    const char *meta_name = meta_str(&rc->c, "target");
    size_t max_runs = mt && mt->scheduled ? (size_t)mt->scheduled : 1;
    for (size_t i = 0; i < rc->opts.n_targets; i++)
        max_runs += rc->opts.targets[i]->scheduled ? (size_t)rc->opts.targets[i]->scheduled : 1;
    r->run = calloc(max_runs, sizeof *r->run);
    if (!r->run) { r->exit_code = SS_EXIT_TARGET; goto done; }
    /* A crash reproducer of a device engine (cuda) may leave a broken context:
     * then every run of that engine in this case is isolated too. */
    const ss_target *named = meta_name ? ss_target_find(meta_name) : NULL;
    const ss_engine *iso_engine = isolate && named && named->engine->shared_state ? named->engine : NULL;
    if (mt) {   /* its other default runs follow at once, so one target's runs stay together */
        run_target(rc, label, mt, only, isolate, r, &io);
        for (size_t i = 0; i < rc->opts.n_targets; i++)
            if (rc->opts.targets[i] == mt) run_target(rc, label, mt, -1, isolate, r, &io);
    }
    for (size_t i = 0; i < rc->opts.n_targets; i++) {
        const ss_target *t = rc->opts.targets[i];
        const int iso = (isolate && !strcmp(t->name, meta_name)) || (iso_engine && t->engine == iso_engine);
        /* A default target that cannot take this kind of case (a kernel and a
         * program) is left out, not reported unavailable: nothing was asked of it. */
        if (rc->default_targets && ss_check_runs_programs(t) != (rc->c.program != NULL)) continue;
        if (t != mt) run_target(rc, label, t, -1, iso, r, &io);
    }
    if (r->runs == 0 && rc->c.program && r->exit_code == SS_EXIT_OK) {
        fprintf(io.out, "%s: not run: a program case runs on program targets only, and none was named "
                        "(-t torch:eager-cpu:program; regress runs those its expect block names)\n", label);
        rc->n_not_run++;
        goto done;
    }
    version_notes(rc, label, r, io.diag);
    size_t n_runs_ok = 0;
    for (size_t i = 0; i < r->runs; i++) n_runs_ok += r->run[i].res.verdict == SS_AGREE;
    if (r->exit_code == SS_EXIT_OK) {
        if (r->ref_status == SS_RUN_REJECTED)
            fprintf(io.out, "%s: ok: rejected by the reference and %zu target run%s alike (input view "
                            "has internal overlap: invalid for reinplacing)\n",
                    label, n_runs_ok, n_runs_ok == 1 ? "" : "s");
        else
            fprintf(io.out, "%s: ok: %zu target run%s agree with the reference (%s, %s)\n", label,
                    n_runs_ok, n_runs_ok == 1 ? "" : "s", ss_dtype_name(rc->c.dtype),
                    ss_overlap_name(ss_plan_overlap(&rc->plan)));
        rc->n_agree++;
    } else if (r->exit_code == SS_EXIT_FINDING) {
        rc->n_mismatch++;
    } else {
        rc->n_target_error++;
    }
done:
    fclose(io.out);
    fclose(io.diag);
}

void ss_replay_file(ss_replay_ctx *rc, const char *path, ss_replay_case_result *r) {
    memset(r, 0, sizeof *r);
    ss_case_free(&rc->c);
    ss_case_init(&rc->c);
    if (ss_case_load(path, &rc->c, &r->err)) {
        size_t len = 0;
        FILE *diag = open_memstream(&r->diag, &len);
        if (diag) {
            char shown[4096];
            ss_text_inert(path, shown, sizeof shown);
            invalid(rc, shown, r, diag);
            fclose(diag);
        }
        return;
    }
    ss_replay_loaded(rc, path, r);
}
