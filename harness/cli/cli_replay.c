/* cli_replay.c - `ssfuzz replay`: run cases on the reference and targets, report disagreements. */
#include <limits.h>
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_opts.h"
#include "ss_check.h"
#include "ss_cli.h"
#include "ss_confirm.h"
#include "ss_files.h"
#include "ss_plan_build.h"
#include "ss_replay.h"
#include "ss_result_json.h"

/* A case's dump stem: its file name without ".json" (inner dots kept, so
 * x.v1.json and x.v2.json differ). When several cases given share a stem
 * (a/case.json, b/case.json), each gets "-" and 8 hex digits of its path's
 * FNV-1a hash, so no dump overwrites another's. */
static void dump_stem(const ss_pathlist *files, size_t i, char *out, size_t n) {
    const char *path = files->paths[i], *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 5 && !strcmp(base + len - 5, ".json")) len -= 5;
    int shared = 0;
    for (size_t k = 0; k < files->count && !shared; k++) {
        const char *o = files->paths[k], *ob = strrchr(o, '/');
        ob = ob ? ob + 1 : o;
        const size_t ol = strlen(ob);
        shared = k != i && ol >= len && !strncmp(ob, base, len) &&
                 (ol == len || !strcmp(ob + len, ".json"));
    }
    uint32_t h = 2166136261u;
    for (const char *p = path; *p; p++) h = (h ^ (uint8_t)*p) * 16777619u;
    if (shared) snprintf(out, n, "%.*s-%08" PRIx32, (int)len, base, h);
    else snprintf(out, n, "%.*s", (int)len, base);
}

/* Writes one run's final storages: {"target", "schedule", "status", "storages"}. */
static int dump_run(const char *dir, const char *stem, const char *target, const char *schedule,
                    const ss_case *c, const ss_storage *in, const ss_storage *src, ss_run_status st) {
    char name[4096];
    int n = snprintf(name, sizeof name, "%s/%s.%s%s%s.json", dir, stem, target,
                     schedule ? "." : "", schedule ? schedule : "");
    if (n < 0 || (size_t)n >= sizeof name) return -1;
    for (char *p = name + strlen(dir) + 1; *p; p++)
        if (*p == ':') *p = '_';
    cJSON *root = cJSON_CreateObject(), *stor = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "target", target);
    if (schedule) cJSON_AddStringToObject(root, "schedule", schedule);
    cJSON_AddStringToObject(root, "status", st == SS_RUN_OK ? "ok" : "rejected");
    cJSON_AddStringToObject(root, "dtype", ss_dtype_name(c->dtype));
    cJSON_AddItemToObject(root, "storages", stor);
    const size_t es = c->op.elem_size;
    cJSON_AddItemToObject(stor, "input", ss_values_to_json(c->dtype, ss_storage_data(in),
                                                           (int64_t)(in->bytes / es)));
    if (!c->op.src_aliased)
        cJSON_AddItemToObject(stor, "src", ss_values_to_json(c->dtype, ss_storage_data(src),
                                                             (int64_t)(src->bytes / es)));
    ss_error err;
    const int rc = ss_write_json_atomic(name, root, 0, &err);
    if (rc) fprintf(stderr, "ssfuzz replay: --dump: %s\n", err.msg);
    return rc;
}

int ss_cmd_replay(int argc, char **argv) {
    ss_replay_opts o;
    ss_replay_opts_init(&o);
    o.use_meta = 1;
    o.find_stage = 1;   /* a compiled mismatch names its stage */
    const char *dump_dir = NULL;
    int quiet = 0, json = 0, confirm = 0;
    cli_opt opts[] = {
        CLI_REPLAY_OPTS(&o),
        CLI_OPT_STR(0, "dump", "DIR", &dump_dir, "write each run's final storages as JSON into DIR"),
        CLI_OPT_SECS(0, "case-timeout", "S", &o.case_timeout, 0, 86400,
                     "time limit of a crash/timeout reproducer's target, which runs in a child process (default 10)"),
        CLI_OPT_FLAG('q', "quiet", &quiet, "print only failures and the summary"),
        CLI_OPT_FLAG(0, "confirm", &confirm, "a torch finding's exported script is run in a fresh interpreter; "
                     "the result goes into the case file's meta.confirmed"),
        CLI_OPT_FLAG(0, "json", &json, "print the results as one JSON document on stdout (every run of every "
                     "case: target, schedule, verdict, detail)"),
        CLI_OPT_FLAG(0, "nan-payload-is-finding", &o.nan_payload_is_finding,
                     "storages differing only in NaNs' bits are a mismatch (default: reported as nan-payload, "
                     "not a finding)"),
        CLI_OPT_END};
    const cli_cmd cmd = {"replay", "CASE|DIR... [options]", "Replays cases (files, or directories of them) on "
                         "the reference and the targets and reports where they disagree.",
                         "exit: 0 all agree, 1 a finding (mismatch, crash, timeout, ...), 2 invalid case or usage,\n"
                         "      3 a requested target cannot run here\n", opts, "CASE|DIR...", 1, INT_MAX};
    const int pr = cli_parse(&cmd, &argc, argv);
    if (pr >= 0) return pr;
    if (dump_dir) {
        ss_error err;
        o.keep_finals = 1;   /* every run's final storages are written */
        if (ss_ensure_writable_dir(dump_dir, &err)) {
            fprintf(stderr, "ssfuzz replay: --dump %s: %s\n", dump_dir, err.msg);
            return SS_EXIT_USAGE;
        }
    }
    ss_pathlist files = {0};
    for (int i = 1; i < argc; i++) {
        ss_error err;
        if (ss_collect_cases(argv[i], &files, &err)) {
            fprintf(stderr, "ssfuzz replay: %s: %s\n", err.field, err.msg);
            ss_pathlist_free(&files);
            return SS_EXIT_USAGE;
        }
    }
    ss_replay_ctx rc;
    ss_replay_ctx_init(&rc, &o);
    int exit_code = SS_EXIT_OK;
    cJSON *doc = json ? cJSON_CreateObject() : NULL, *cases = NULL;
    if (json && (!doc || !cJSON_AddStringToObject(doc, "format", "ssfuzz-replay") ||
                 !cJSON_AddNumberToObject(doc, "version", 1) || !(cases = cJSON_AddArrayToObject(doc, "cases")))) {
        fprintf(stderr, "ssfuzz replay: out of memory\n");
        json = 0;
    }
    for (size_t i = 0; i < files.count; i++) {
        ss_replay_case_result r;
        ss_replay_file(&rc, files.paths[i], &r);
        if (r.diag) fputs(r.diag, stderr);
        if (json) {
            cJSON *one = ss_replay_case_json(&rc, files.paths[i], &r);
            if (!one || !cJSON_AddItemToArray(cases, one)) fprintf(stderr, "ssfuzz replay: out of memory\n");
        } else if (r.report && (!quiet || r.exit_code != SS_EXIT_OK)) {
            fputs(r.report, stdout);
        }
        for (size_t k = 0; confirm && k < r.runs; k++)   /* the first torch finding: its script, standalone */
            if (ss_verdict_is_finding(r.run[k].res.verdict) &&
                ss_confirm_replayed(files.paths[i], r.run[k].target, r.run[k].schedule,
                                    ss_verdict_name(r.run[k].res.verdict), json ? stderr : stdout) != SS_CONFIRM_NOT_TRIED)
                break;
        if (dump_dir && r.ran) {
            char stem[1024];
            dump_stem(&files, i, stem, sizeof stem);
            dump_run(dump_dir, stem, "reference", NULL, &rc.c, &rc.check.ref_in,
                     &rc.check.ref_src, r.ref_status);
            for (size_t k = 0; k < r.runs; k++)
                dump_run(dump_dir, stem, r.run[k].target->name, r.run[k].schedule, &rc.c,
                         &r.run[k].final_in, &r.run[k].final_src, r.run[k].status);
        }
        exit_code = ss_exit_worse(exit_code, r.exit_code);
        ss_replay_case_result_free(&r);
    }
    if (json) {
        cJSON *sum = cJSON_AddObjectToObject(doc, "summary");
        char *text = NULL;
        if (sum && cJSON_AddNumberToObject(sum, "cases", (double)files.count) &&
            cJSON_AddNumberToObject(sum, "agree", (double)rc.n_agree) &&
            cJSON_AddNumberToObject(sum, "findings", (double)rc.n_mismatch) &&
            cJSON_AddNumberToObject(sum, "invalid", (double)rc.n_invalid) &&
            cJSON_AddNumberToObject(sum, "unavailable", (double)rc.n_target_error) &&
            cJSON_AddNumberToObject(sum, "not_run", (double)rc.n_not_run) &&
            cJSON_AddNumberToObject(sum, "exit", exit_code))
            text = cJSON_Print(doc);
        if (text) puts(text);
        else fprintf(stderr, "ssfuzz replay: out of memory printing --json\n");
        free(text);
    } else {
        printf("replayed %zu case%s: %zu agree, %zu with findings, %zu invalid, %zu unavailable",
               files.count, files.count == 1 ? "" : "s", rc.n_agree, rc.n_mismatch, rc.n_invalid,
               rc.n_target_error);
        if (rc.n_not_run) printf(", %zu program case%s not run (no program target named)", rc.n_not_run,
                                 rc.n_not_run == 1 ? "" : "s");
        putchar('\n');
    }
    cJSON_Delete(doc);
    ss_replay_ctx_free(&rc);
    ss_pathlist_free(&files);
    return exit_code;
}
