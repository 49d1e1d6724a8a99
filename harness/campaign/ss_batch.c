/* ss_batch.c - a batch-only failure's batch in meta.batch: written, and read back (hostile input). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_batch.h"
#include "ss_plan_build.h"

/* A case as a JSON object without its meta (the batch's cases are plain cases). */
static cJSON *case_object(const ss_case *c) {
    ss_case bare = *c;
    bare.meta = NULL;
    bare.expect = NULL;
    char *text = ss_case_to_json(&bare);
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    free(text);
    return o;
}

/* names[0..n) as the array b[key]; 0, or -1 out of memory. */
static int add_names(cJSON *b, const char *key, const char *const *names, size_t n) {
    cJSON *arr = cJSON_AddArrayToObject(b, key);
    int ok = arr != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        cJSON *name = cJSON_CreateString(names[i]);
        ok = name && cJSON_AddItemToArray(arr, name);
        if (!ok) cJSON_Delete(name);
    }
    return ok ? 0 : -1;
}

int ss_batch_record(ss_case *c, const ss_case *const *batch, size_t n, size_t pos, const char *const *schedules,
                    size_t ns, const char *const *case_schedules) {
    cJSON *b = cJSON_CreateObject(), *cases = cJSON_CreateArray();
    int ok = b && cases && cJSON_AddNumberToObject(b, "size", (double)n) &&
             cJSON_AddNumberToObject(b, "position", (double)pos) && !add_names(b, "schedules", schedules, ns) &&
             (!case_schedules || !add_names(b, "case_schedules", case_schedules, n));
    for (size_t i = 0; ok && i < n; i++) {
        if (i == pos) continue;
        cJSON *o = case_object(batch[i]);
        ok = o && cJSON_AddItemToArray(cases, o);
        if (!ok) cJSON_Delete(o);
    }
    if (ok) { ok = cJSON_AddItemToObject(b, "cases", cases) != 0; if (ok) cases = NULL; }
    if (ok && !c->meta) ok = (c->meta = cJSON_CreateObject()) != NULL;
    if (ok) {
        cJSON_DeleteItemFromObjectCaseSensitive(c->meta, "batch");
        ok = cJSON_AddItemToObject(c->meta, "batch", b) != 0;
    }
    cJSON_Delete(cases);
    if (!ok) { cJSON_Delete(b); return -1; }
    return 0;
}

/* A whole number in [lo, hi] at o[key]; 0 or -1 with err. */
static int whole(const cJSON *o, const char *key, double lo, double hi, size_t *out, ss_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char field[64];
    snprintf(field, sizeof field, "meta.batch.%s", key);
    if (!cJSON_IsNumber(v)) return ss_fail(err, field, "must be a number");
    if (v->valuedouble != (double)(long long)v->valuedouble || v->valuedouble < lo || v->valuedouble > hi)
        return ss_fail(err, field, "must be a whole number from %.0f to %.0f", lo, hi);
    *out = (size_t)v->valuedouble;
    return 0;
}

/* meta.batch.case_schedules, when present: an array of `size` schedule names. */
static int load_case_schedules(const cJSON *b, size_t size, ss_batch_spec *spec, ss_error *err) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(b, "case_schedules"), *v;
    size_t i = 0;
    spec->rotated = 0;
    if (!arr) return 0;
    if (!cJSON_IsArray(arr) || (size_t)cJSON_GetArraySize(arr) != size)
        return ss_fail(err, "meta.batch.case_schedules", "must be an array of size = %zu schedule names", size);
    cJSON_ArrayForEach(v, arr) {
        if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= sizeof spec->case_schedules[0])
            return ss_fail(err, "meta.batch.case_schedules", "entry %zu must be a schedule name (1 to 31 characters)", i);
        snprintf(spec->case_schedules[i++], sizeof spec->case_schedules[0], "%s", v->valuestring);
    }
    spec->rotated = 1;
    return 0;
}

/* meta.batch.schedules: an array of at most 8 schedule names. */
static int load_schedules(const cJSON *b, ss_batch_spec *spec, ss_error *err) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(b, "schedules"), *v;
    spec->n_schedules = 0;
    if (!cJSON_IsArray(arr)) return ss_fail(err, "meta.batch.schedules", "must be an array of schedule names");
    if (cJSON_GetArraySize(arr) > 8) return ss_fail(err, "meta.batch.schedules", "must hold at most 8 names");
    cJSON_ArrayForEach(v, arr) {
        if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) >= sizeof spec->schedules[0])
            return ss_fail(err, "meta.batch.schedules", "entry %zu must be a schedule name (1 to 31 characters)",
                           spec->n_schedules);
        snprintf(spec->schedules[spec->n_schedules++], sizeof spec->schedules[0], "%s", v->valuestring);
    }
    return 0;
}

int ss_batch_load(const ss_case *c, ss_case *others, size_t cap, ss_batch_spec *spec, ss_error *err) {
    memset(spec, 0, sizeof *spec);
    const cJSON *b = c->meta ? cJSON_GetObjectItemCaseSensitive(c->meta, "batch") : NULL;
    if (!b) return 0;
    if (!cJSON_IsObject(b)) return ss_fail(err, "meta.batch", "must be an object");
    size_t size;
    if (whole(b, "size", 2, (double)cap + 1, &size, err) || whole(b, "position", 0, (double)size - 1, &spec->pos, err) ||
        load_schedules(b, spec, err) || load_case_schedules(b, size, spec, err))
        return -1;
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(b, "cases");
    if (!cJSON_IsArray(cases)) return ss_fail(err, "meta.batch.cases", "must be an array");
    if ((size_t)cJSON_GetArraySize(cases) != size - 1)
        return ss_fail(err, "meta.batch.cases", "must hold size - 1 = %zu cases (the others of the batch)", size - 1);
    const cJSON *o;
    size_t i = 0;
    cJSON_ArrayForEach(o, cases) {
        char *text = cJSON_IsObject(o) ? cJSON_PrintUnformatted(o) : NULL;
        ss_error e;
        const int rc = text ? ss_case_from_json(text, strlen(text), &others[i], &e) : -1;
        free(text);
        if (rc) {
            for (size_t k = 0; k < i; k++) ss_case_free(&others[k]);
            char field[96];
            if (!cJSON_IsObject(o)) return ss_fail(err, "meta.batch.cases", "entry %zu must be a case object", i);
            snprintf(field, sizeof field, "meta.batch.cases[%zu].%.50s", i, e.field);
            return ss_fail(err, field, "%s", e.msg);
        }
        i++;
    }
    spec->n_others = i;
    return 1;
}

/* The recorded batch's cases, each prepared in a context of its own. */
typedef struct batch_mates {
    ss_case cases[SS_CHECK_MAX_BATCH];
    ss_plan plans[SS_CHECK_MAX_BATCH];
    ss_check_ctx ctx[SS_CHECK_MAX_BATCH];
    ss_run_status refs[SS_CHECK_MAX_BATCH];
    size_t n;
} batch_mates;

static void mates_free(batch_mates *b) {
    for (size_t i = 0; i < b->n; i++) {
        ss_case_free(&b->cases[i]);
        ss_check_ctx_free(&b->ctx[i]);
    }
    free(b);
}

int ss_batch_check(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref, const ss_case *c, const ss_target *t,
                   const ss_run_opts *ro, ss_check_result *res, size_t *batch_size, ss_error *err) {
    batch_mates *b = calloc(1, sizeof *b);
    ss_batch_spec spec;
    memset(err, 0, sizeof *err);
    if (!b) return ss_fail(err, "meta.batch", "out of memory");
    const int rc = ss_batch_load(c, b->cases, SS_CHECK_MAX_BATCH - 1, &spec, err);
    if (rc <= 0) { free(b); return rc < 0 ? -1 : ss_fail(err, "meta.batch", "the case records no batch"); }
    b->n = spec.n_others;
    for (size_t i = 0; i < b->n; i++) {
        char why[256];
        ss_check_ctx_init(&b->ctx[i]);
        b->ctx[i].max_bytes = ctx->max_bytes;
        b->ctx[i].nan_payload_is_finding = ctx->nan_payload_is_finding;
        if (ss_plan_build_limited(&b->cases[i].op, ctx->max_bytes, &b->plans[i], err) ||
            ss_check_prepare(&b->ctx[i], &b->cases[i], &b->plans[i], &b->refs[i], why, sizeof why)) {
            if (!err->msg[0]) ss_fail(err, "meta.batch.cases", "case %zu: %s", i, why);
            mates_free(b);
            return -1;
        }
    }
    /* The runs, case-major as the campaign made them, the case itself at its position. */
    ss_check_ctx *ctxs[SS_CHECK_MAX_BATCH];
    const ss_plan *plans[SS_CHECK_MAX_BATCH];
    ss_run_status refs[SS_CHECK_MAX_BATCH];
    ss_run_opts opts[SS_CHECK_MAX_BATCH];
    static ss_check_result results[SS_CHECK_MAX_BATCH];
    size_t n = 0, mine = SIZE_MAX;
    const size_t ns = spec.rotated ? 1 : spec.n_schedules ? spec.n_schedules : 1;
    for (size_t k = 0; k <= b->n; k++) {
        const int self = k == spec.pos;
        const size_t other = k < spec.pos ? k : k - 1;
        for (size_t s = 0; s < ns && n < SS_CHECK_MAX_BATCH; s++) {
            const char *name = spec.rotated ? spec.case_schedules[k] : spec.n_schedules ? spec.schedules[s] : NULL;
            int idx = name ? ss_target_schedule_index(t, name) : 0;
            if (idx < 0) idx = 0;
            if (self && idx == ro->schedule) mine = n;
            ctxs[n] = self ? ctx : &b->ctx[other];
            plans[n] = self ? plan : &b->plans[other];
            refs[n] = self ? ref : b->refs[other];
            opts[n] = *ro;
            opts[n].schedule = idx;
            n++;
        }
    }
    if (mine == SIZE_MAX && n < SS_CHECK_MAX_BATCH) {   /* asked under a schedule the batch did not run: add it */
        ctxs[n] = ctx;
        plans[n] = plan;
        refs[n] = ref;
        opts[n] = *ro;
        mine = n++;
    }
    if (mine == SIZE_MAX) {
        mates_free(b);
        return ss_fail(err, "meta.batch", "the batch has no room for the case's own run");
    }
    ss_check_batch(ctxs, plans, refs, opts, n, t, results);
    *res = results[mine];
    *batch_size = b->n + 1;
    mates_free(b);
    return 0;
}
