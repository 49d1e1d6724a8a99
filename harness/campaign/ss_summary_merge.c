/* ss_summary_merge.c - campaigns sharing an output directory merge into one summary.json under a lock. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "ss_exit.h"
#include "ss_files.h"
#include "ss_summary_merge.h"

#define SUMMARY_MAX_BYTES ((size_t)64 << 20)

/* Distinct values a joined list at the top level names, then "...": merging many
 * runs of different seeds stays linear, and each run keeps its own value. */
#define UNION_MAX 256

/* "a,b" + "b,c" -> "a,b,c": the union of comma-separated lists, in first-seen order. */
static char *union_list(const char *a, const char *b) {
    const size_t la = strlen(a);
    char *out = malloc(la + strlen(b) + 6);   /* room for ",..." too */
    if (!out) return NULL;
    memcpy(out, a, la + 1);
    size_t count = la > 0, lo = la;
    for (const char *q = out; *q; q++) count += *q == ',';
    int full = la >= 3 && !strcmp(out + la - 3, "...");
    for (const char *p = b; *p && !full;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int seen = n == 0;
        for (const char *q = out; !seen && *q;) {
            const char *qe = strchr(q, ',');
            const size_t qn = qe ? (size_t)(qe - q) : strlen(q);
            seen = qn == n && !memcmp(q, p, n);
            q += qn + (qe != NULL);
        }
        if (!seen) {
            const char *v = p;
            if (count >= UNION_MAX) { v = "..."; n = 3; full = 1; }
            if (lo) out[lo++] = ',';
            memcpy(out + lo, v, n);
            out[lo += n] = 0;
            count++;
        }
        p += n + (e != NULL);
    }
    return out;
}

static int same_finding(const cJSON *a, const cJSON *b) {
    static const char *const keys[] = {"signature", "target", "schedule"};
    for (size_t i = 0; i < 3; i++) {
        const char *x = cJSON_GetStringValue(cJSON_GetObjectItem(a, keys[i]));
        const char *y = cJSON_GetStringValue(cJSON_GetObjectItem(b, keys[i]));
        if ((x == NULL) != (y == NULL) || (x && strcmp(x, y))) return 0;
    }
    return 1;
}

static int merge_into(cJSON *acc, const cJSON *add);

/* findings: the same (signature, target, schedule) adds up; others are appended. */
static int merge_findings(cJSON *acc, const cJSON *add) {
    const cJSON *f;
    cJSON_ArrayForEach(f, add) {
        cJSON *g = NULL, *it;
        cJSON_ArrayForEach(it, acc) if (same_finding(it, f)) { g = it; break; }
        if (g) { if (merge_into(g, f)) return -1; }
        else if (!cJSON_AddItemToArray(acc, cJSON_Duplicate(f, 1))) return -1;
    }
    return 0;
}

/* Keys that describe one run (where and which cases) and mean nothing summed or joined. */
static int per_campaign(const char *key) {
    static const char *const keys[] = {"campaign_id", "host", "shard", "first_case", "next_case"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(key, keys[i])) return 1;
    return 0;
}

/* Folds `add` into `acc` key by key (see the header for the rules). */
static int merge_into(cJSON *acc, const cJSON *add) {
    const cJSON *v;
    cJSON_ArrayForEach(v, add) {
        if (!v->string || per_campaign(v->string)) continue;
        cJSON *a = cJSON_GetObjectItemCaseSensitive(acc, v->string);
        if (!a) {
            if (!cJSON_AddItemToObject(acc, v->string, cJSON_Duplicate(v, 1))) return -1;
        } else if (cJSON_IsNumber(a) && cJSON_IsNumber(v)) {
            const double x = a->valuedouble, y = v->valuedouble;
            cJSON_SetNumberValue(a, !strcmp(v->string, "seconds") ? (x > y ? x : y) : x + y);
        } else if (cJSON_IsString(a) && cJSON_IsString(v) && strcmp(v->string, "reproducer")) {
            char *u = union_list(a->valuestring, v->valuestring);
            if (!u) return -1;
            cJSON *s = cJSON_CreateString(u);
            free(u);
            if (!s || !cJSON_ReplaceItemInObjectCaseSensitive(acc, v->string, s)) { cJSON_Delete(s); return -1; }
        } else if (cJSON_IsObject(a) && cJSON_IsObject(v)) {
            if (merge_into(a, v)) return -1;
        } else if (cJSON_IsArray(a) && cJSON_IsArray(v) && !strcmp(v->string, "findings")) {
            if (merge_findings(a, v)) return -1;
        }   /* anything else: the first campaign's value stands */
    }
    return 0;
}

cJSON *ss_summary_totals(const cJSON *campaigns) {
    cJSON *t = cJSON_CreateObject();
    const cJSON *c;
    cJSON_ArrayForEach(c, campaigns) if (!t || merge_into(t, c)) { cJSON_Delete(t); return NULL; }
    return t;
}

/* The campaigns recorded so far in `old` (a summary of any version), detached. */
static cJSON *previous_campaigns(cJSON *old) {
    cJSON *arr = cJSON_DetachItemFromObjectCaseSensitive(old, "campaigns");
    if (cJSON_IsArray(arr)) return arr;
    cJSON_Delete(arr);
    arr = cJSON_CreateArray();
    if (!arr) return NULL;
    /* version 1: the whole file is one campaign */
    cJSON_DeleteItemFromObjectCaseSensitive(old, "format");
    cJSON_DeleteItemFromObjectCaseSensitive(old, "version");
    if (cJSON_GetObjectItem(old, "cases")) {
        cJSON *one = cJSON_Duplicate(old, 1);
        if (!one || !cJSON_AddItemToArray(arr, one)) { cJSON_Delete(one); cJSON_Delete(arr); return NULL; }
    }
    return arr;
}

static cJSON *read_campaigns(const char *path, ss_error *err) {
    char *text = NULL;
    size_t len;
    if (access(path, F_OK) != 0) return cJSON_CreateArray();
    if (ss_read_file(path, SUMMARY_MAX_BYTES, &text, &len, err)) return NULL;
    cJSON *old = cJSON_ParseWithLength(text, len);
    free(text);
    const char *fmt = cJSON_GetStringValue(cJSON_GetObjectItem(old, "format"));
    if (!cJSON_IsObject(old) || !fmt || strcmp(fmt, "ssfuzz-summary")) {
        cJSON_Delete(old);
        char aside[4200];
        snprintf(aside, sizeof aside, "%s.broken", path);
        if (rename(path, aside)) { ss_fail(err, path, "unreadable summary, cannot move it aside"); return NULL; }
        return cJSON_CreateArray();
    }
    cJSON *arr = previous_campaigns(old);
    cJSON_Delete(old);
    return arr;
}

static int write_locked(const char *path, cJSON *campaign, ss_error *err) {
    cJSON *arr = read_campaigns(path, err);
    if (!arr) { cJSON_Delete(campaign); return -1; }
    if (!cJSON_AddItemToArray(arr, campaign)) { cJSON_Delete(campaign); cJSON_Delete(arr); return ss_fail(err, path, "out of memory"); }
    cJSON *root = cJSON_CreateObject(), *totals = ss_summary_totals(arr);
    int ok = root && totals && cJSON_AddStringToObject(root, "format", "ssfuzz-summary") &&
             cJSON_AddNumberToObject(root, "version", 2) &&
             cJSON_AddStringToObject(root, "tool_version", SS_VERSION);
    cJSON *t;
    while (ok && totals && (t = totals->child)) {
        cJSON_DetachItemViaPointer(totals, t);
        if (cJSON_GetObjectItemCaseSensitive(root, t->string)) cJSON_Delete(t);
        else cJSON_AddItemToObject(root, t->string, t), t = NULL;
    }
    ok = ok && cJSON_AddItemToObject(root, "campaigns", arr);
    if (!ok) cJSON_Delete(arr);
    cJSON_Delete(totals);
    if (!ok) {
        cJSON_Delete(root);
        return ss_fail(err, path, "out of memory");
    }
    return ss_write_json_atomic(path, root, 1, err);
}

int ss_summary_merge_write(const char *dir, cJSON *campaign, ss_error *err) {
    return ss_summary_merge_write_as(dir, "summary.json", 1, campaign, err);
}

int ss_summary_merge_write_as(const char *dir, const char *name, int lock_it, cJSON *campaign, ss_error *err) {
    char path[4096], lock[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) {
        cJSON_Delete(campaign);
        return ss_fail(err, dir, "path too long");
    }
    if (!lock_it) return write_locked(path, campaign, err);
    snprintf(lock, sizeof lock, "%s/.summary.lock", dir);
    const int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || flock(fd, LOCK_EX)) {
        if (fd >= 0) close(fd);
        cJSON_Delete(campaign);
        return ss_fail(err, lock, "cannot lock the summary");
    }
    const int rc = write_locked(path, campaign, err);
    close(fd);   /* releases the lock */
    return rc;
}
