/* cli_minimize.c - `ssfuzz minimize CASE --target T`: shrink a failing case to a 1-minimal reproducer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "cli_opts.h"
#include "ss_check.h"
#include "ss_cli.h"
#include "ss_minimize.h"
#include "ss_plan_build.h"
#include "ss_replay.h"
#include "ss_report.h"
#include "ss_text.h"

static const char *meta_string(const ss_case *c, const char *key) {
    const cJSON *v = c->meta ? cJSON_GetObjectItemCaseSensitive(c->meta, key) : NULL;
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Puts back every key of the user's meta that the reproducer's meta does not
 * set (upstream, title, notes...), in their order, ahead of the owned keys. */
static int keep_user_meta(ss_case *c, const cJSON *old) {
    if (!old) return 0;
    cJSON *m = cJSON_CreateObject();
    if (!m) return -1;
    for (const cJSON *it = old->child; it; it = it->next) {
        if (!it->string || cJSON_GetObjectItemCaseSensitive(c->meta, it->string)) continue;
        cJSON *dup = cJSON_Duplicate(it, 1);
        if (!dup) { cJSON_Delete(m); return -1; }
        cJSON_AddItemToObject(m, it->string, dup);
    }
    while (c->meta->child) {
        cJSON *it = cJSON_DetachItemViaPointer(c->meta, c->meta->child);
        cJSON_AddItemToObject(m, it->string, it);
    }
    cJSON_Delete(c->meta);
    c->meta = m;
    return 0;
}

int ss_cmd_minimize(int argc, char **argv) {
    const char *target = NULL, *sched_name = NULL, *out = NULL;
    uint64_t seed = 0;
    double seconds = 60;
    size_t max_bytes = 0;
    ss_error err;
    cli_opt opts[] = {
        CLI_OPT_STR('t', "target", "T", &target, "the target that fails (default: the case's meta.target)"),
        CLI_OPT_STR(0, "schedule", "S", &sched_name, "emulator schedule (default: the case's meta.schedule, else "
                    "the first of forward, reverse, lockstep, warp, random that fails)"),
        CLI_OPT_UINT(0, "seed", "N", &seed, 0, UINT64_MAX,
                     "seed of the random schedule (default: meta.schedule_seed, else 1)"),
        CLI_OPT_STR('o', "out", "OUT", &out, "write here instead of stdout"),
        CLI_OPT_SECS(0, "time", "S", &seconds, 0, 10000000, "minimization budget in seconds (default 60)"),
        CLI_OPT_UINT(0, "max-bytes", "N", &max_bytes, 0, UINT64_MAX, "byte budget of one case's storages (default 1 GiB)"),
        CLI_OPT_END};
    const cli_cmd cmd = {"minimize", "CASE [--target T] [--schedule S] [-o OUT]",
        "Replays CASE on T, takes its failure signature (kind, target, and for emu:* the\n"
        "failing schedule), and shrinks the case while that signature still holds: fewer\n"
        "dims, smaller sizes/offsets/strides, simpler bounds, aliasing and dtype, no\n"
        "explicit values. The result is 1-minimal; it is written atomically to OUT, or\n"
        "printed on stdout, with meta describing the signature.",
        "exit: 0 written, 1 the case does not fail on T (nothing to minimize),\n"
        "      2 usage or invalid case, 3 target unavailable\n", opts, "one CASE", 1, 1};
    const int pr = cli_parse(&cmd, &argc, argv);
    if (pr >= 0) return pr;
    const int have_seed = cli_seen(opts, "seed");
    const char *path = argv[1];
    ss_check_ctx ctx;
    ss_min_target p;
    memset(&p, 0, sizeof p);
    p.ctx = &ctx;
    ss_case cs;
    ss_case_init(&cs);
    if (ss_case_load(path, &cs, &err)) {
        fprintf(stderr, "%s: invalid: %s: %s\n", path, err.field, err.msg);
        return SS_EXIT_USAGE;
    }
    const int from_meta = !target;
    if (from_meta && !(target = meta_string(&cs, "target"))) {
        fprintf(stderr, "ssfuzz minimize: %s has no meta.target: name the failing one with --target T\n", path);
        ss_case_free(&cs);
        return SS_EXIT_USAGE;
    }
    char shown[1024];   /* the case file's words, or the user's: shown inert */
    if (!(p.target = ss_target_find(target))) {
        ss_text_inert(target, shown, sizeof shown);
        fprintf(stderr, "ssfuzz minimize: %s: unknown target '%s' (ssfuzz targets lists them)\n",
                from_meta ? "meta.target" : "--target", shown);
        ss_case_free(&cs);
        return SS_EXIT_USAGE;
    }
    target = p.target->name;   /* meta's string goes when meta is rewritten */
    const char *why = p.target->unavailable(p.target);
    if (why) {
        ss_text_inert(why, shown, sizeof shown);   /* an engine's words: shown inert */
        fprintf(stderr, "ssfuzz minimize: target %s is unavailable: %s\n", target, shown);
        ss_case_free(&cs);
        return SS_EXIT_TARGET;
    }
    ss_text_inert(!sched_name && p.target->scheduled ? meta_string(&cs, "schedule") : NULL, shown, sizeof shown);
    if (from_meta)
        fprintf(stderr, "minimize: on its meta.target %s%s%s (--target overrides)\n", target,
                shown[0] ? " under " : "", shown);
    ss_plan plan;
    if (ss_plan_build_limited(&cs.op, max_bytes, &plan, &err)) {
        fprintf(stderr, "%s: invalid: %s: %s\n", path, err.field, err.msg);
        ss_case_free(&cs);
        return SS_EXIT_USAGE;
    }
    /* schedule: the option, else the case's meta, else every schedule in turn */
    if (!sched_name && p.target->scheduled) sched_name = meta_string(&cs, "schedule");
    const cJSON *ms = cs.meta ? cJSON_GetObjectItemCaseSensitive(cs.meta, "schedule_seed") : NULL;
    /* A decimal string (exact to 2^64), or a number in [0, 2^53] (older files);
     * anything else is refused rather than silently replaced by seed 1. */
    uint64_t meta_seed = 1;
    if (ms && !have_seed) {
        ss_error serr;
        const int ok = cJSON_IsString(ms)
            ? ss_parse_u64("meta.schedule_seed", ms->valuestring, &meta_seed, &serr) == 0
            : cJSON_IsNumber(ms) && ms->valuedouble >= 0 && ms->valuedouble <= (double)SS_MAX_JSON_INT &&
              ms->valuedouble == (double)(uint64_t)ms->valuedouble;
        if (!ok) {
            fprintf(stderr, "%s: invalid: meta.schedule_seed: must be a decimal string below 2^64 or "
                            "an integer in [0, 2^53] (or pass --seed)\n", path);
            ss_case_free(&cs);
            return SS_EXIT_USAGE;
        }
        if (cJSON_IsNumber(ms)) meta_seed = (uint64_t)ms->valuedouble;
    }
    p.opts.seed = have_seed ? seed : meta_seed;
    int first = 0, last = p.target->scheduled ? p.target->scheduled - 1 : 0;
    if (sched_name && p.target->scheduled) {
        const int s = ss_target_schedule_index(p.target, sched_name);
        if (s < 0) {
            ss_text_inert(sched_name, shown, sizeof shown);
            fprintf(stderr, "ssfuzz minimize: unknown schedule '%s'\n", shown);
            ss_case_free(&cs);
            return SS_EXIT_USAGE;
        }
        first = last = (int)s;
    }
    ss_check_ctx_init(&ctx);
    ctx.max_bytes = max_bytes;
    int rc = SS_EXIT_FINDING;
    p.want = SS_AGREE;
    for (int s = first; s <= last && p.want == SS_AGREE; s++) {
        p.opts.schedule = s;
        ss_run_status ref;
        char pwhy[256];
        if (ss_check_prepare(&ctx, &cs, &plan, &ref, pwhy, sizeof pwhy)) {
            fprintf(stderr, "%s: invalid: storage: %s\n", path, pwhy);
            rc = SS_EXIT_USAGE;
            goto done;
        }
        ss_check_target(&ctx, &plan, ref, p.target, &p.opts, &p.last);
        if (p.last.verdict == SS_TARGET_UNAVAILABLE) {
            fprintf(stderr, "ssfuzz minimize: target %s is unavailable: %s\n", target, p.last.why);
            rc = SS_EXIT_TARGET;
            goto done;
        }
        if (p.last.verdict != SS_AGREE) p.want = p.last.verdict;
    }
    const char *sched = ss_target_schedule(p.target, p.opts.schedule);
    if (p.want == SS_AGREE) {
        fprintf(stderr, "%s: agrees with the reference on %s%s%s: nothing to minimize\n", path, target,
                sched_name ? " under " : "", sched_name ? sched_name : "");
        goto done;
    }
    ss_min_stats st;
    const ss_min_opts mo = {0, seconds, max_bytes, NULL};
    char detail[512], seedbuf[32], idxbuf[32];
    if (ss_min_target_run(&cs, &mo, &p, &st, detail, sizeof detail)) {
        fprintf(stderr, "ssfuzz minimize: out of memory\n");
        rc = SS_EXIT_TARGET;
        goto done;
    }
    const char *cseed = meta_string(&cs, "campaign_seed"), *cidx = meta_string(&cs, "case_index");
    snprintf(seedbuf, sizeof seedbuf, "%s", cseed ? cseed : "0");
    snprintf(idxbuf, sizeof idxbuf, "%s", cidx ? cidx : "0");
    /* found_by says where the case came from: minimizing does not change that */
    const char *found_by = meta_string(&cs, "found_by");
    ss_finding f = {ss_verdict_name(p.want), p.target, sched, p.opts.seed, cseed && cidx,
                    strtoull(seedbuf, NULL, 10), strtoull(idxbuf, NULL, 10), st.numel_before,
                    st.ndim_before, !st.budget_hit, found_by ? found_by : "ssfuzz minimize", detail};
    cJSON *user_meta = cs.meta;
    cs.meta = NULL;
    const int meta_rc = ss_report_set_meta(&cs, &f) || keep_user_meta(&cs, user_meta);
    cJSON_Delete(user_meta);
    if (meta_rc) { fprintf(stderr, "ssfuzz minimize: out of memory\n"); rc = SS_EXIT_TARGET; goto done; }
    fprintf(stderr, "minimize: %s on %s%s%s: %d-D, %lld elements -> %d-D, %lld elements "
                    "(%ld steps kept of %ld tried)%s\n",
            f.kind, target, sched ? " under " : "", sched ? sched : "", st.ndim_before,
            (long long)st.numel_before, st.ndim_after, (long long)st.numel_after, st.accepted,
            st.attempts, st.budget_hit ? "; budget hit: may not be 1-minimal" : "; 1-minimal");
    if (out) {
        if (ss_case_save_atomic(out, &cs, &err)) {
            fprintf(stderr, "ssfuzz minimize: %s: %s\n", err.field, err.msg);
            rc = SS_EXIT_USAGE;
            goto done;
        }
    } else {
        char *text = ss_case_to_json(&cs);
        if (!text) { fprintf(stderr, "ssfuzz minimize: out of memory\n"); rc = SS_EXIT_TARGET; goto done; }
        puts(text);
        free(text);
    }
    rc = SS_EXIT_OK;
done:
    ss_check_ctx_free(&ctx);
    ss_case_free(&cs);
    return rc;
}
