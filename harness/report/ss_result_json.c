/* ss_result_json.c - replay and regress results as JSON documents. */
#include <string.h>
#include "ss_escape.h"
#include "ss_plan_build.h"
#include "ss_result_json.h"

/* A string made safe for JSON (invalid UTF-8 and control characters replaced). */
static int add_text(cJSON *o, const char *key, const char *s) {
    char buf[1024];
    ss_text_sanitize(s ? s : "", buf, sizeof buf);
    return cJSON_AddStringToObject(o, key, buf) != NULL;
}

static const char *result_name(int exit_code) {
    switch (exit_code) {
    case 0: return "agree";
    case 1: return "finding";
    case 2: return "invalid";
    default: return "unavailable";
    }
}

static cJSON *run_json(const ss_replay_ctx *rc, const ss_replay_run *run) {
    cJSON *o = cJSON_CreateObject();
    char detail[512] = "";
    ss_check_describe(&rc->plan, &run->res, detail, sizeof detail);
    const int ok = o && add_text(o, "target", run->target->name) &&
                   (!run->schedule || add_text(o, "schedule", run->schedule)) &&
                   add_text(o, "verdict", ss_verdict_name(run->res.verdict)) &&
                   cJSON_AddBoolToObject(o, "finding", ss_verdict_is_finding(run->res.verdict)) &&
                   cJSON_AddNumberToObject(o, "seconds", run->seconds) &&
                   (run->res.verdict == SS_AGREE || add_text(o, "detail", detail));
    if (!ok) { cJSON_Delete(o); return NULL; }
    return o;
}

cJSON *ss_replay_case_json(const ss_replay_ctx *rc, const char *path, const ss_replay_case_result *r) {
    cJSON *o = cJSON_CreateObject(), *runs = NULL;
    char err[400];
    snprintf(err, sizeof err, "%s: %s", r->err.field, r->err.msg);
    int ok = o && add_text(o, "case", path) && add_text(o, "result", result_name(r->exit_code)) &&
             cJSON_AddNumberToObject(o, "exit", r->exit_code) &&
             (r->exit_code != 2 || add_text(o, "error", err)) &&
             (!r->note[0] || add_text(o, "note", r->note));
    if (ok && r->ran)
        ok = add_text(o, "dtype", ss_dtype_name(rc->c.dtype)) &&
             add_text(o, "overlap", rc->plan.internal_overlap ? "internal" : ss_overlap_name(ss_plan_overlap(&rc->plan))) &&
             add_text(o, "reference", r->ref_status == SS_RUN_REJECTED ? "rejected" : "ran");
    ok = ok && (runs = cJSON_AddArrayToObject(o, "runs"));
    for (size_t i = 0; ok && i < r->runs; i++) {
        cJSON *x = run_json(rc, &r->run[i]);
        ok = x && cJSON_AddItemToArray(runs, x);
    }
    if (!ok) { cJSON_Delete(o); return NULL; }
    return o;
}

static const char *const status_names[] = {"held", "failed", "skipped", "error"};

cJSON *ss_regress_json(const ss_check_list *l, size_t n_cases, size_t n_invalid, double seconds) {
    cJSON *root = cJSON_CreateObject(), *checks = NULL, *sum = NULL;
    size_t c[4] = {0};
    int ok = root && cJSON_AddStringToObject(root, "format", "ssfuzz-regress") &&
             cJSON_AddNumberToObject(root, "version", 1) &&
             (checks = cJSON_AddArrayToObject(root, "checks"));
    for (size_t i = 0; ok && i < l->n; i++) {
        const ss_check_record *r = &l->r[i];
        cJSON *o = cJSON_CreateObject();
        c[r->status]++;
        ok = o && cJSON_AddItemToArray(checks, o) && add_text(o, "case", r->case_path) &&
             add_text(o, "target", r->target) && (!r->schedule || add_text(o, "schedule", r->schedule)) &&
             add_text(o, "status", status_names[r->status]) && add_text(o, "signature", r->signature) &&
             add_text(o, "message", r->message) && cJSON_AddNumberToObject(o, "seconds", r->seconds);
    }
    ok = ok && (sum = cJSON_AddObjectToObject(root, "summary")) &&
         cJSON_AddNumberToObject(sum, "cases", (double)n_cases) &&
         cJSON_AddNumberToObject(sum, "held", (double)c[SS_CHECK_HELD]) &&
         cJSON_AddNumberToObject(sum, "failed", (double)c[SS_CHECK_FAILED]) &&
         cJSON_AddNumberToObject(sum, "skipped", (double)c[SS_CHECK_SKIPPED]) &&
         cJSON_AddNumberToObject(sum, "invalid", (double)n_invalid) &&
         cJSON_AddNumberToObject(sum, "seconds", seconds);
    if (!ok) { cJSON_Delete(root); return NULL; }
    return root;
}
