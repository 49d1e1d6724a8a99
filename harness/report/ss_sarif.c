/* ss_sarif.c - regress findings as SARIF 2.1.0, for code-scanning dashboards. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_escape.h"
#include "ss_exit.h"
#include "ss_files.h"
#include "ss_regress_out.h"

/* Every signature a result can carry, with what it means. */
static const struct { const char *id, *text; } rules[] = {
    {"mismatch", "A target's final storages differ from the reference's (bitwise)."},
    {"guard-band write", "A target wrote outside its storages (a guard band changed)."},
    {"rejected-by-target-only", "A target rejected a case the reference accepts."},
    {"accepted-invalid", "A target ran a case whose input view has internal overlap."},
    {"crash", "A target failed internally (CUDA error, illegal address, allocation)."},
    {"timeout", "A target did not finish in time."},
    {"missed-expected-failure", "A target the case expects to fail (a mutant) agreed under every schedule."},
    {"reference-accepted", "The case expects the reference to reject it, but it ran."},
    {"invalid-case", "The case file cannot be read, or breaks slice_scatter's rules."},
};
#define N_RULES (sizeof rules / sizeof rules[0])

static int rule_index(const char *id) {
    for (size_t i = 0; i < N_RULES; i++)
        if (!strcmp(rules[i].id, id)) return (int)i;
    return -1;
}

static cJSON *add_text(cJSON *parent, const char *key, const char *text) {
    char clean[1200];
    ss_text_sanitize(text, clean, sizeof clean);
    cJSON *o = cJSON_AddObjectToObject(parent, key);
    if (o) cJSON_AddStringToObject(o, "text", clean);
    return o;
}

/* A path as a relative URI reference: RFC 3986 unreserved characters and '/'
 * pass, every other byte is percent-encoded. */
static void sarif_uri(const char *path, char *out, size_t n) {
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)path; *p && o + 4 < n; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p)) {
            out[o++] = (char)*p;
        } else {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        }
    }
    out[o] = 0;
}

void ss_sarif_add_location(cJSON *result, const char *path) {
    char uri[1200];
    sarif_uri(path, uri, sizeof uri);
    cJSON *phys = cJSON_CreateObject();
    cJSON_AddStringToObject(cJSON_AddObjectToObject(phys, "artifactLocation"), "uri", uri);
    cJSON_AddNumberToObject(cJSON_AddObjectToObject(phys, "region"), "startLine", 1);
    cJSON *loc = cJSON_CreateObject();
    cJSON_AddItemToObject(loc, "physicalLocation", phys);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(result, "locations"), loc);
}

static cJSON *driver(void) {
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "name", "ssfuzz");
    cJSON_AddStringToObject(d, "version", SS_VERSION);
    cJSON *rs = cJSON_AddArrayToObject(d, "rules");
    for (size_t i = 0; i < N_RULES; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "id", rules[i].id);
        add_text(r, "shortDescription", rules[i].text);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "defaultConfiguration"), "level", "error");
        cJSON_AddItemToArray(rs, r);
    }
    return d;
}

static cJSON *result(const ss_check_record *c) {
    char clean[1200];
    cJSON *r = cJSON_CreateObject();
    const char *id = c->status == SS_CHECK_ERROR ? "invalid-case" : c->signature;
    const int idx = rule_index(id);
    ss_text_sanitize(id, clean, sizeof clean);
    cJSON_AddStringToObject(r, "ruleId", clean);
    if (idx >= 0) cJSON_AddNumberToObject(r, "ruleIndex", idx);
    cJSON_AddStringToObject(r, "kind", "fail");
    cJSON_AddStringToObject(r, "level", "error");
    char msg[1400];
    snprintf(msg, sizeof msg, "%s: %s", c->target, c->message);
    add_text(r, "message", msg);
    ss_sarif_add_location(r, c->case_path);
    /* Stable across runs: the same case, target and signature is the same finding. */
    snprintf(msg, sizeof msg, "%s|%s|%s", c->case_path, c->target, id);
    ss_text_sanitize(msg, clean, sizeof clean);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(r, "partialFingerprints"), "ssfuzzCase/v1", clean);
    cJSON *p = cJSON_AddObjectToObject(r, "properties");
    ss_text_sanitize(c->target, clean, sizeof clean);
    cJSON_AddStringToObject(p, "target", clean);
    if (c->schedule) cJSON_AddStringToObject(p, "schedule", c->schedule);
    if (c->has_diff && c->diff.count) {
        char e[40], a[40], lg[16 * 22 + 32];
        ss_diff_hex(c->diff.expected, c->diff.elem_size, e, sizeof e);
        ss_diff_hex(c->diff.actual, c->diff.elem_size, a, sizeof a);
        ss_diff_logical(&c->diff, c->ndim, lg, sizeof lg);
        cJSON_AddStringToObject(p, "storage", c->diff.storage == SS_STORAGE_INPUT ? "input" : "src");
        cJSON_AddNumberToObject(p, "storageIndex", (double)c->diff.index);
        cJSON_AddStringToObject(p, "logicalIndex", lg);
        cJSON_AddStringToObject(p, "expected", e);
        cJSON_AddStringToObject(p, "actual", a);
        cJSON_AddNumberToObject(p, "differingElements", (double)c->diff.count);
    }
    return r;
}

cJSON *ss_sarif_document(const ss_check_list *l) {
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    cJSON_AddStringToObject(root, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    cJSON_AddStringToObject(root, "version", "2.1.0");
    cJSON *run = cJSON_CreateObject();
    cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "runs"), run);
    cJSON_AddItemToObject(cJSON_AddObjectToObject(run, "tool"), "driver", driver());
    cJSON *results = cJSON_AddArrayToObject(run, "results");
    for (size_t i = 0; l && i < l->n; i++)
        if (l->r[i].status == SS_CHECK_FAILED || l->r[i].status == SS_CHECK_ERROR)
            cJSON_AddItemToArray(results, result(&l->r[i]));
    return root;
}

int ss_sarif_write(const char *path, const ss_check_list *l, ss_error *err) {
    return ss_write_json_atomic(path, ss_sarif_document(l), 0, err);
}
