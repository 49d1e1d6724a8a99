/* ss_ledger.c - the findings ledger: read, look up, add, write (JSON, atomic, stable order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ss_files.h"
#include "ss_ledger.h"
#include "ss_vec.h"

#define LEDGER_MAX_BYTES ((size_t)16 << 20)

void ss_ledger_signature(const char *kind, const char *target, const char *schedule,
                         char *out, size_t n) {
    snprintf(out, n, "%s|%s|%s", kind, target, schedule ? schedule : "");
}

const char *ss_ledger_status_name(ss_ledger_status s) { return s == SS_LEDGER_FIXED ? "fixed" : "open"; }

/* The string fields of an entry, by JSON key. */
#define FIELDS(X) X(kind) X(target) X(schedule) X(reproducer) X(first_seen) X(first_commit) \
    X(last_seen) X(last_commit) X(fixed_on) X(fixed_commit) X(upstream) X(note)

ss_ledger_entry *ss_ledger_add(ss_ledger *l) {
    if (SS_GROW(l->e, l->cap, l->n + 1)) return NULL;
    ss_ledger_entry *e = &l->e[l->n++];
    memset(e, 0, sizeof *e);
    return e;
}

ss_ledger_entry *ss_ledger_find(ss_ledger *l, const char *signature) {
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->e[i].signature, signature)) return &l->e[i];
    return NULL;
}

void ss_ledger_free(ss_ledger *l) {
    for (size_t i = 0; i < l->n; i++) cJSON_Delete(l->e[i].extra);
    free(l->e);
    l->e = NULL;
    l->n = l->cap = 0;
}

static int copy_field(const cJSON *o, const char *key, char *dst, size_t n, const char *where, ss_error *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v)) { dst[0] = 0; return 0; }
    if (!cJSON_IsString(v)) return ss_fail(err, where, "%s must be a string", key);
    if (strlen(v->valuestring) >= n) return ss_fail(err, where, "%s longer than %zu bytes", key, n - 1);
    memcpy(dst, v->valuestring, strlen(v->valuestring) + 1);
    return 0;
}

static int read_entry(const cJSON *o, size_t i, ss_ledger *l, ss_error *err) {
    char where[64];
    snprintf(where, sizeof where, "findings[%zu]", i);
    if (!cJSON_IsObject(o)) return ss_fail(err, where, "must be an object");
    ss_ledger_entry *e = ss_ledger_add(l);
    if (!e) return ss_fail(err, where, "out of memory");
#define READ(f) SS_TRY(copy_field(o, #f, e->f, sizeof e->f, where, err));
    FIELDS(READ)
#undef READ
    if (!e->kind[0] || !e->target[0]) return ss_fail(err, where, "needs kind and target");
    if (strchr(e->reproducer, '/') || !strcmp(e->reproducer, "..") || !strcmp(e->reproducer, "."))
        return ss_fail(err, where, "reproducer must be a file name inside the ledger's directory");
    char status[16];
    SS_TRY(copy_field(o, "status", status, sizeof status, where, err));
    if (!strcmp(status, "fixed")) e->status = SS_LEDGER_FIXED;
    else if (!strcmp(status, "open") || !status[0]) e->status = SS_LEDGER_OPEN;
    else return ss_fail(err, where, "status must be \"open\" or \"fixed\"");
    ss_ledger_signature(e->kind, e->target, e->schedule, e->signature, sizeof e->signature);
    for (size_t k = 0; k + 1 < l->n; k++)
        if (!strcmp(l->e[k].signature, e->signature)) return ss_fail(err, where, "signature %s appears twice", e->signature);
    e->extra = cJSON_Duplicate(o, 1);
    return e->extra ? 0 : ss_fail(err, where, "out of memory");
}

int ss_ledger_load(const char *path, ss_ledger *l, ss_error *err) {
    memset(l, 0, sizeof *l);
    if (strlen(path) >= sizeof l->path) return ss_fail(err, path, "path too long");
    snprintf(l->path, sizeof l->path, "%s", path);
    snprintf(l->dir, sizeof l->dir, "%s", path);
    char *slash = strrchr(l->dir, '/');
    if (slash) *slash = 0;
    else snprintf(l->dir, sizeof l->dir, ".");
    if (access(path, F_OK) != 0) return 0;
    char *text;
    size_t len;
    SS_TRY(ss_read_file(path, LEDGER_MAX_BYTES, &text, &len, err));
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    const char *fmt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "format"));
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "findings"), *o;
    int rc = 0;
    if (!root) rc = ss_fail(err, path, "not valid JSON");
    else if (!fmt || strcmp(fmt, "ssfuzz-ledger")) rc = ss_fail(err, path, "format must be \"ssfuzz-ledger\"");
    else if (!cJSON_IsArray(arr)) rc = ss_fail(err, path, "findings must be an array");
    size_t i = 0;
    if (!rc) cJSON_ArrayForEach(o, arr) if ((rc = read_entry(o, i++, l, err))) break;
    cJSON_Delete(root);
    if (rc) ss_ledger_free(l);
    return rc;
}

static int by_signature(const void *a, const void *b) {
    return strcmp((*(const ss_ledger_entry *const *)a)->signature, (*(const ss_ledger_entry *const *)b)->signature);
}

/* The entry as JSON: the known fields in a fixed order (empty optional ones left
 * out), then every field of the entry as read that the ledger does not know. */
static cJSON *entry_json(const ss_ledger_entry *e) {
    static const char *const key[] = {"signature", "kind", "target", "schedule", "status", "reproducer",
        "first_seen", "first_commit", "last_seen", "last_commit", "fixed_on", "fixed_commit", "upstream", "note"};
    const char *val[] = {e->signature, e->kind, e->target, e->schedule, ss_ledger_status_name(e->status),
        e->reproducer, e->first_seen, e->first_commit, e->last_seen, e->last_commit, e->fixed_on,
        e->fixed_commit, e->upstream, e->note};
    const size_t nk = sizeof key / sizeof key[0];
    cJSON *o = cJSON_CreateObject();
    int ok = o != NULL;
    for (size_t i = 0; ok && i < nk; i++) {
        const int always = i < 7 || i == 12;   /* identity, status, reproducer, first seen, upstream */
        if (val[i][0] || always) ok = cJSON_AddStringToObject(o, key[i], val[i]) != NULL;
    }
    const cJSON *v;
    if (ok && e->extra) cJSON_ArrayForEach(v, e->extra) {
        size_t i = 0;
        while (i < nk && strcmp(key[i], v->string)) i++;
        if (i == nk && !(ok = cJSON_AddItemToObject(o, v->string, cJSON_Duplicate(v, 1)))) break;
    }
    if (!ok) { cJSON_Delete(o); return NULL; }
    return o;
}

int ss_ledger_save(const ss_ledger *l, ss_error *err) {
    const ss_ledger_entry **sorted = malloc((l->n ? l->n : 1) * sizeof *sorted);
    cJSON *root = cJSON_CreateObject(), *arr = NULL;
    int ok = sorted && root && cJSON_AddStringToObject(root, "format", "ssfuzz-ledger") &&
             cJSON_AddNumberToObject(root, "version", 1) && (arr = cJSON_AddArrayToObject(root, "findings"));
    for (size_t i = 0; ok && i < l->n; i++) sorted[i] = &l->e[i];
    if (ok) qsort(sorted, l->n, sizeof *sorted, by_signature);
    for (size_t i = 0; ok && i < l->n; i++) {
        cJSON *o = entry_json(sorted[i]);
        ok = o && cJSON_AddItemToArray(arr, o);
        if (!ok) cJSON_Delete(o);
    }
    free(sorted);
    if (!ok) {
        cJSON_Delete(root);
        return ss_fail(err, l->path, "out of memory");
    }
    return ss_write_json_atomic(l->path, root, 1, err);
}
