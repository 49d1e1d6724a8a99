/* cli_regress.c - `ssfuzz regress`: replay cases on their targets and check their expectations. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_opts.h"
#include "ss_clock.h"
#include "ss_check.h"
#include "ss_cli.h"
#include "ss_expect.h"
#include "ss_files.h"
#include "ss_regress_out.h"
#include "ss_replay.h"
#include "ss_result_json.h"
#include "ss_text.h"

typedef struct regress {
    const ss_target *requested[SS_MAX_TARGETS];
    size_t n_requested;
    int quiet, json, exit_code, oom;
    size_t n_cases, n_invalid, n_errors;
    size_t n_checked;        /* expectations that ran and were judged, held or failed */
    ss_check_list checks;
} regress;

static void record(regress *g, const char *path, const char *target, const char *schedule,
                   ss_check_status st, double secs, const char *sig, const char *msg,
                   const ss_diff *diff, int ndim) {
    if (ss_check_list_add(&g->checks, path, target, schedule, st, secs, sig, msg, diff, ndim)) g->oom = 1;
    /* file names and engines' words (a torch worker's, a plugin's) are untrusted: shown inert */
    char shown_path[4096], shown_msg[2048];
    ss_text_inert(path, shown_path, sizeof shown_path);
    ss_text_inert(msg, shown_msg, sizeof shown_msg);
    path = shown_path;
    msg = shown_msg;
    if (st == SS_CHECK_FAILED) {
        if (!g->json) printf("FAIL %s %s: %s\n", path, target, msg);   /* a result: stdout */
        g->exit_code = ss_exit_worse(g->exit_code, SS_EXIT_FINDING);
    } else if (st == SS_CHECK_ERROR && strcmp(target, "(case)")) {
        /* the case is valid, but this target's expectation cannot be judged here */
        fprintf(stderr, "ERROR %s %s: %s\n", path, target, msg);
        g->exit_code = ss_exit_worse(g->exit_code, SS_EXIT_TARGET);
        g->n_errors++;
    } else if (st == SS_CHECK_ERROR) {
        fprintf(stderr, "%s: invalid: %s\n", path, msg);
        g->exit_code = ss_exit_worse(g->exit_code, SS_EXIT_USAGE);
        g->n_invalid++;
    } else if (st == SS_CHECK_SKIPPED && !g->quiet && !g->json) {
        printf("SKIP %s %s: %s\n", path, target, msg);
    }
}

static void invalid(regress *g, const char *path, const ss_error *err) {
    char msg[400];
    snprintf(msg, sizeof msg, "%s: %s", err->field, err->msg);
    record(g, path, "(case)", NULL, SS_CHECK_ERROR, 0, "invalid-case", msg, NULL, 0);
}

/* Targets to run on this case, and the expectation of each; skips are recorded. */
static size_t choose(regress *g, const char *path, const ss_expect *x, int program, const ss_target **run) {
    size_t n = 0;
    const size_t total = g->n_requested ? g->n_requested : ss_target_count();
    for (size_t i = 0; i < total && n < SS_MAX_TARGETS; i++) {
        const ss_target *t = g->n_requested ? g->requested[i] : ss_target_at(i);
        /* A program case runs on program targets only, a single write on the
         * others: the rest are not applicable (a skip where named, else silent). */
        if (ss_check_runs_programs(t) != program) {
            if (g->n_requested || ss_expect_names(x, t))
                record(g, path, t->name, NULL, SS_CHECK_SKIPPED, 0, "",
                       program ? SS_CHECK_NOT_APPLICABLE : "not applicable: a program target runs program cases only",
                       NULL, 0);
            continue;
        }
        /* external engines (torch) run when named, by --target or by the case */
        if (!g->n_requested && t->explicit_only && !ss_expect_names(x, t)) continue;
        const char *why = t->unavailable(t);
        const ss_expect_kind k = ss_expect_of(x, t, NULL);
        if (k == SS_EXPECT_SKIP) {
            if (g->n_requested)
                record(g, path, t->name, NULL, SS_CHECK_SKIPPED, 0, "", "mutant not named by the "
                       "case's expect block", NULL, 0);
            continue;
        }
        if (why) {
            /* e.g. cuda:* on a machine without a GPU: left out of the default
             * set, unless the case's expect block names it (then it is a skip) */
            if (!g->n_requested && !t->mutant && !ss_expect_names(x, t)) continue;
            char msg[300];
            snprintf(msg, sizeof msg, "unavailable: %s", why);
            record(g, path, t->name, NULL, SS_CHECK_SKIPPED, 0, "", msg, NULL, 0);
            if (g->n_requested) g->exit_code = ss_exit_worse(g->exit_code, SS_EXIT_TARGET);
            continue;
        }
        if (k == SS_EXPECT_UNJUDGED) {   /* not run: no verdict of it could be judged */
            char msg[600];
            ss_expect_unjudged_why(x, t, msg, sizeof msg);
            record(g, path, t->name, NULL, SS_CHECK_ERROR, 0, "unjudged-version", msg, NULL, 0);
            continue;
        }
        run[n++] = t;
    }
    return n;
}

static void check_case(regress *g, ss_replay_ctx *rc, const char *path) {
    g->n_cases++;
    ss_error err;
    ss_expect x;
    ss_case_free(&rc->c);
    ss_case_init(&rc->c);
    if (ss_case_load(path, &rc->c, &err) || ss_expect_parse(rc->c.expect, &x, &err)) {
        invalid(g, path, &err);
        return;
    }
    const size_t before = g->checks.n;
    rc->opts.n_targets = choose(g, path, &x, rc->c.program != NULL, rc->opts.targets);
    rc->default_targets = g->n_requested == 0;
    ss_replay_case_result r;
    ss_replay_loaded(rc, path, &r);
    if (!r.ran) {
        if (r.exit_code == SS_EXIT_TARGET && r.report) {   /* its plugin is not loaded */
            fputs(r.report, stderr);
            g->exit_code = ss_exit_worse(g->exit_code, SS_EXIT_TARGET);
        } else if (r.exit_code == SS_EXIT_USAGE) invalid(g, path, &r.err);
        else record(g, path, "(case)", NULL, SS_CHECK_ERROR, 0, "invalid-case", "out of memory", NULL, 0);
        ss_replay_case_result_free(&r);
        return;
    }
    if (x.reject && r.ref_status != SS_RUN_REJECTED)
        record(g, path, "reference", NULL, SS_CHECK_FAILED, 0, "reference-accepted",
               "expected the reference to reject the case (input view with internal overlap), it ran",
               NULL, 0);
    for (size_t i = 0, k = 0; i < rc->opts.n_targets; i++) {
        const ss_target *t = rc->opts.targets[i];
        size_t j = k;
        while (j < r.runs && r.run[j].target == t) j++;
        const char *sig = NULL;
        const ss_expect_kind kind = ss_expect_of(&x, t, &sig);
        ss_expect_outcome o;
        ss_expect_judge(kind, sig, &rc->plan, r.run + k, j - k, &o);
        char note[200];
        ss_expect_range_note(&x, t, note, sizeof note);
        if (note[0]) {
            const size_t len = strlen(o.message);
            snprintf(o.message + len, sizeof o.message - len, "%s", note);
        }
        const ss_replay_run *s = o.shown;
        const int has_diff = s && (s->res.verdict == SS_MISMATCH || s->res.verdict == SS_GUARD_WRITE);
        record(g, path, t->name, s ? s->schedule : NULL, o.held ? SS_CHECK_HELD : SS_CHECK_FAILED,
               o.seconds, o.signature, o.message, has_diff ? &s->res.diff : NULL, rc->plan.op.input.ndim);
        k = j;
    }
    size_t held = 0, skipped = 0, failed = 0, errors = 0;
    for (size_t i = before; i < g->checks.n; i++) {
        held += g->checks.r[i].status == SS_CHECK_HELD;
        failed += g->checks.r[i].status == SS_CHECK_FAILED;
        skipped += g->checks.r[i].status == SS_CHECK_SKIPPED;
        errors += g->checks.r[i].status == SS_CHECK_ERROR;
    }
    /* a held `reject` is not a record of its own, but the reference was checked */
    const size_t ref_held = x.reject && r.ref_status == SS_RUN_REJECTED;
    g->n_checked += held + failed + ref_held;
    if (!g->quiet && !g->json && !failed && !errors && !held && !ref_held)
        printf("SKIP %s: nothing checked (%zu skipped)\n", path, skipped);
    else if (!g->quiet && !g->json && !failed && !errors)
        printf("ok %s: %zu expectation%s hold%s%s", path, held, held == 1 ? "" : "s", held == 1 ? "s" : "",
               skipped ? "" : "\n");
    if (!g->quiet && !g->json && !failed && !errors && (held || ref_held) && skipped)
        printf(" (%zu skipped)\n", skipped);
    ss_replay_case_result_free(&r);
}

static int add_target(void *g, const char *name, ss_error *err) {
    regress *r = g;
    return ss_target_set_add(r->requested, &r->n_requested, name, "--target", err);
}

/* Returns -1 to go on (the cases are argv[1..*argc-1]), else the exit code. */
static int parse_args(regress *g, ss_replay_opts *o, const char **junit, const char **sarif,
                      int *argc, char **argv) {
    cli_opt opts[] = {
        CLI_OPT_CALL('t', "target", "T", g, add_target, "check only target T (repeatable; default: every "
                     "available non-mutant, plus the mutants each case's expect block names)"),
        CLI_OPT_STR(0, "junit", "FILE", junit, "write JUnit XML (one testcase per case and target)"),
        CLI_OPT_STR(0, "sarif", "FILE", sarif, "write SARIF 2.1.0 (one result per failed expectation); both "
                    "paths are checked writable before any case runs"),
        CLI_OPT_FLAG(0, "json", &g->json, "print the results as one JSON document on stdout (every check)"),
        CLI_OPT_UINT(0, "seed", "N", &o->seed, 0, UINT64_MAX, "seed of the random schedule (default 1)"),
        CLI_OPT_UINT(0, "max-bytes", "N", &o->max_bytes, 0, UINT64_MAX,
                     "byte budget of one case's storages (default 1 GiB)"),
        CLI_OPT_FLAG('q', "quiet", &g->quiet, "print only failures and the summary"),
        CLI_OPT_FLAG(0, "nan-payload-is-finding", &o->nan_payload_is_finding, "storages differing only in NaNs' "
                     "bits fail an `agree` (default: they agree; the expectation kind is nan-payload)"),
        CLI_OPT_END};
    const cli_cmd cmd = {"regress", "CASE|DIR... [options]",
        "Replays each case on its targets and checks its expectations (its expect block). Emulator\n"
        "targets run under every schedule. Prints SKIP CASE TARGET: why for each expectation not checked.",
        "exit: 0 every expectation checked holds, 1 one failed, 2 invalid case or usage,\n"
        "      3 a requested target unavailable, or a torch range that cannot be judged\n"
        "      (the running torch's version is not PEP 440), 4 nothing was checked\n"
        "      (every expectation skipped)\n", opts, "CASE|DIR...", 1, INT_MAX};
    const int pr = cli_parse(&cmd, argc, argv);
    if (pr >= 0) return pr;
    const char *outs[] = {*junit, *sarif}, *names[] = {"--junit", "--sarif"};
    for (int i = 0; i < 2; i++) {
        ss_error err;
        if (outs[i] && ss_check_writable_path(outs[i], &err)) {
            fprintf(stderr, "ssfuzz regress: %s %s: cannot write there: %s\n", names[i], outs[i], err.msg);
            return SS_EXIT_USAGE;
        }
    }
    return -1;
}

int ss_cmd_regress(int argc, char **argv) {
    regress g;
    memset(&g, 0, sizeof g);
    ss_replay_opts o;
    ss_replay_opts_init(&o);
    const char *junit = NULL, *sarif = NULL;
    const int pa = parse_args(&g, &o, &junit, &sarif, &argc, argv);
    if (pa >= 0) return pa;
    ss_pathlist files = {0};
    for (int i = 1; i < argc; i++) {
        ss_error err;
        size_t len = strlen(argv[i]);
        while (len > 1 && argv[i][len - 1] == '/') argv[i][--len] = 0;   /* "corpus/" names files "corpus/x" */
        if (ss_collect_cases(argv[i], &files, &err)) {
            fprintf(stderr, "ssfuzz regress: %s: %s\n", err.field, err.msg);
            ss_pathlist_free(&files);
            return SS_EXIT_USAGE;
        }
    }
    const double t0 = ss_now_s();
    ss_replay_ctx rc;
    ss_replay_ctx_init(&rc, &o);
    for (size_t i = 0; i < files.count; i++) check_case(&g, &rc, files.paths[i]);
    ss_replay_ctx_free(&rc);
    const double secs = ss_now_s() - t0;
    ss_error err;
    if (junit && ss_junit_write(junit, &g.checks, secs, &err)) {
        fprintf(stderr, "ssfuzz regress: --junit %s: %s\n", junit, err.msg);
        g.exit_code = ss_exit_worse(g.exit_code, SS_EXIT_USAGE);
    }
    if (sarif && ss_sarif_write(sarif, &g.checks, &err)) {
        fprintf(stderr, "ssfuzz regress: --sarif %s: %s\n", sarif, err.msg);
        g.exit_code = ss_exit_worse(g.exit_code, SS_EXIT_USAGE);
    }
    if (g.oom) {
        fprintf(stderr, "ssfuzz regress: out of memory recording results\n");
        g.exit_code = ss_exit_worse(g.exit_code, SS_EXIT_TARGET);
    }
    size_t c[4] = {0};
    for (size_t i = 0; i < g.checks.n; i++) c[g.checks.r[i].status]++;
    /* Silence is no verdict: when every expectation was skipped, say so and
     * exit 4 rather than 0 (a worse code already set says more). */
    const int nothing = g.n_cases > g.n_invalid && !g.n_checked;
    if (nothing && g.exit_code == SS_EXIT_OK) g.exit_code = SS_EXIT_NOTHING_CHECKED;
    if (g.json) {
        cJSON *doc = ss_regress_json(&g.checks, g.n_cases, g.n_invalid, secs);
        char *text = doc ? cJSON_Print(doc) : NULL;
        if (text) puts(text);
        else fprintf(stderr, "ssfuzz regress: out of memory printing --json\n");
        free(text);
        cJSON_Delete(doc);
    } else {
        char errs[48] = "";
        if (g.n_errors) snprintf(errs, sizeof errs, ", %zu unjudged", g.n_errors);
        printf("regress: %zu case%s, %zu check%s: %zu held, %zu failed, %zu skipped%s, %zu invalid case%s "
               "(%.2f s)%s\n", g.n_cases, g.n_cases == 1 ? "" : "s", c[0] + c[1], c[0] + c[1] == 1 ? "" : "s",
               c[0], c[1], c[2], errs, g.n_invalid, g.n_invalid == 1 ? "" : "s", secs,
               nothing ? "; nothing was checked" : "");
    }
    ss_check_list_free(&g.checks);
    ss_pathlist_free(&files);
    return g.exit_code;
}
