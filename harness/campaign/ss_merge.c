/* ss_merge.c - shard directories into one: runs once each, one reproducer per bug, one summary.json. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ss_case.h"
#include "ss_exit.h"
#include "ss_files.h"
#include "ss_merge.h"
#include "ss_minimize.h"
#include "ss_report.h"
#include "ss_shard.h"
#include "ss_summary_merge.h"
#include "ss_target.h"
#include "ss_vec.h"

#define SUMMARY_MAX_BYTES ((size_t)64 << 20)

typedef struct bug {
    char *key, *path;          /* the one-file-per-bug key; the file kept */
    char kind[32], target[64], sched_class[32];
    int in_out, minimized;
    int64_t numel;
} bug;

/* Strings by value, in O(1): a scan per lookup would make a summary of a million
 * runs (or as many reproducers) quadratic. slot[i] is an index into a string
 * table plus one; 0 is empty. */
typedef struct str_index {
    size_t *slot;
    size_t cap, n;
} str_index;

typedef struct merge {
    const ss_merge_opts *o;
    ss_merge_result *r;
    char out_real[4096];
    cJSON *runs;               /* the runs kept, in the order found */
    char **ids;                /* each run's identity (campaign_id, or its whole text) */
    size_t n_ids, cap_ids;
    str_index run_ix;
    bug *bugs;
    char **keys;               /* bugs[i].key, for the index */
    size_t n_bugs, cap_bugs, cap_keys;
    str_index bug_ix;
    unsigned char *present;    /* shard indices seen (shard_count bytes) */
} merge;

static uint64_t fnv64(const char *s) {
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

/* Where key is (*slot: its index + 1) or would go (*slot == 0). */
static size_t *index_slot(const str_index *x, const char *key, char *const *table) {
    for (size_t i = fnv64(key) & (x->cap - 1);; i = (i + 1) & (x->cap - 1))
        if (!x->slot[i] || !strcmp(table[x->slot[i] - 1], key)) return &x->slot[i];
}

/* Room for one more entry (at most half full). 0, or -1 out of memory. */
static int index_room(str_index *x, char *const *table) {
    if (x->cap && (x->n + 1) * 2 <= x->cap) return 0;
    str_index y = {NULL, x->cap ? x->cap * 2 : 64, x->n};
    if (y.cap < x->cap || !(y.slot = calloc(y.cap, sizeof *y.slot))) return -1;
    for (size_t i = 0; i < x->cap; i++)
        if (x->slot[i]) *index_slot(&y, table[x->slot[i] - 1], table) = x->slot[i];
    free(x->slot);
    *x = y;
    return 0;
}

static int push_path(ss_pathlist *l, const char *p) {
    if (SS_GROW(l->paths, l->cap, l->count + 1) || !(l->paths[l->count] = strdup(p))) return -1;
    l->count++;
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every *.json under dir (sorted per directory; dot-files and symlinks skipped, depth bounded). */
static int walk(const char *dir, int depth, ss_pathlist *out) {
    DIR *d = depth <= 32 ? opendir(dir) : NULL;
    if (!d) return -1;
    const size_t first = out->count;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        char p[4096];
        struct stat st;
        if (e->d_name[0] == '.' || (size_t)snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= sizeof p || lstat(p, &st))
            continue;
        const size_t len = strlen(e->d_name);
        if (S_ISDIR(st.st_mode)) walk(p, depth + 1, out);   /* an unreadable subdirectory is skipped */
        else if (S_ISREG(st.st_mode) && len > 5 && !strcmp(e->d_name + len - 5, ".json")) rc = push_path(out, p);
    }
    closedir(d);
    qsort(out->paths + first, out->count - first, sizeof *out->paths, by_name);
    return rc;
}

static const char *base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int is_summary(const char *path) {
    const char *b = base_name(path);
    return !strcmp(b, "summary.json") || !strncmp(b, "summary-shard-", 14);
}

static void note_problem(merge *m, const char *path, const char *what) {
    if (!m->r->problem[0]) snprintf(m->r->problem, sizeof m->r->problem, "%.300s: %.200s", path, what);
}

/* ---- runs ------------------------------------------------------------------ */

static void note_shard(merge *m, const cJSON *run) {
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "shard"));
    ss_shard s;
    ss_error ignored;
    if (!text || ss_shard_parse(text, &s, &ignored)) return;
    if (!m->r->shard_count) {
        m->present = calloc((size_t)s.count, 1);
        if (!m->present) return;
        m->r->shard_count = s.count;
    }
    if (s.count != m->r->shard_count) { m->r->mixed_counts = 1; return; }
    m->present[s.index] = 1;
}

/* Keeps a run unless one with its identity is kept already. 0, or -1 out of memory. */
static int add_run(merge *m, const cJSON *run) {
    const char *cid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "campaign_id"));
    char *id = cid ? strdup(cid) : cJSON_PrintUnformatted(run);
    if (!id || index_room(&m->run_ix, m->ids)) { free(id); return -1; }
    size_t *slot = index_slot(&m->run_ix, id, m->ids);
    if (*slot) { free(id); m->r->duplicate_runs++; return 0; }
    cJSON *copy = cJSON_Duplicate(run, 1);
    if (!copy || SS_GROW(m->ids, m->cap_ids, m->n_ids + 1) || !cJSON_AddItemToArray(m->runs, copy)) {
        cJSON_Delete(copy);
        free(id);
        return -1;
    }
    m->ids[m->n_ids++] = id;
    *slot = m->n_ids;
    m->run_ix.n++;
    m->r->runs++;
    note_shard(m, run);
    return 0;
}

/* A summary file's runs: its `campaigns` (version 2), or the whole file (version 1). */
static int read_summary(merge *m, const char *path) {
    char *text;
    size_t len;
    ss_error err;
    if (ss_read_file(path, SUMMARY_MAX_BYTES, &text, &len, &err)) {
        m->r->unreadable++;
        note_problem(m, path, err.msg);
        return 0;
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    const char *fmt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "format"));
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "campaigns"), *run;
    int rc = 0;
    if (!cJSON_IsObject(root) || !fmt || strcmp(fmt, "ssfuzz-summary")) {
        m->r->unreadable++;
        note_problem(m, path, "not an ssfuzz summary (format \"ssfuzz-summary\")");
    } else if (cJSON_IsArray(runs)) {
        m->r->summaries++;
        cJSON_ArrayForEach(run, runs) if (cJSON_IsObject(run) && (rc = add_run(m, run))) break;
    } else {
        m->r->summaries++;
        cJSON_DeleteItemFromObjectCaseSensitive(root, "format");
        cJSON_DeleteItemFromObjectCaseSensitive(root, "version");
        if (cJSON_GetObjectItemCaseSensitive(root, "cases")) rc = add_run(m, root);
    }
    cJSON_Delete(root);
    return rc;
}

/* ---- reproducers ----------------------------------------------------------- */

static const char *meta_str(const ss_case *c, const char *key) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c->meta, key));
    return s ? s : "";
}

/* Whether path's directory is OUT itself. */
static int in_out(const merge *m, const char *path) {
    char dir[4096], real[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    return realpath(dir, real) && !strcmp(real, m->out_real);
}

/* 1 when candidate n should replace the kept b (see the header's order). */
static int better(const bug *n, const bug *b) {
    if (n->in_out != b->in_out) return n->in_out;
    if (n->minimized != b->minimized) return n->minimized;
    return n->numel < b->numel;
}

static int add_case(merge *m, const char *path) {
    ss_case c;
    ss_error ignored;
    ss_case_init(&c);
    m->r->cases_read++;
    if (ss_case_load(path, &c, &ignored) || !meta_str(&c, "signature")[0] || !meta_str(&c, "target")[0]) {
        ss_case_free(&c);
        m->r->not_findings++;
        return 0;
    }
    bug n = {0};
    const char *sched = cJSON_GetObjectItemCaseSensitive(c.meta, "schedule") ? meta_str(&c, "schedule") : NULL;
    snprintf(n.kind, sizeof n.kind, "%s", meta_str(&c, "signature"));
    snprintf(n.target, sizeof n.target, "%s", meta_str(&c, "target"));
    snprintf(n.sched_class, sizeof n.sched_class, "%s", ss_schedule_class(sched));
    char key[512];
    /* ss_report_key's words, from the file (its target need not be loaded here) */
    if (m->o->keep_variants) snprintf(key, sizeof key, "%s", base_name(path));
    else {
        char raise[SS_RAISE_KEY_LEN + 1];
        ss_raise_suffix(n.kind, meta_str(&c, "detail"), raise);
        snprintf(key, sizeof key, "%s|%s|%s|%s%s", n.kind, n.target, n.sched_class, ss_report_overlap_class(&c), raise);
    }
    n.in_out = in_out(m, path);
    n.minimized = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c.meta, "minimized"));
    n.numel = ss_min_numel(&c);
    ss_case_free(&c);
    if (index_room(&m->bug_ix, m->keys)) return -1;
    size_t *slot = index_slot(&m->bug_ix, key, m->keys);
    if (*slot) {
        bug *b = &m->bugs[*slot - 1];
        if (!better(&n, b)) return 0;
        char *p = strdup(path);
        if (!p) return -1;
        free(b->path);
        b->path = p;
        b->in_out = n.in_out, b->minimized = n.minimized, b->numel = n.numel;
        return 0;
    }
    if (SS_GROW(m->bugs, m->cap_bugs, m->n_bugs + 1) || SS_GROW(m->keys, m->cap_keys, m->n_bugs + 1)) return -1;
    n.key = strdup(key);
    n.path = strdup(path);
    if (!n.key || !n.path) { free(n.key); free(n.path); return -1; }
    m->keys[m->n_bugs] = n.key;
    m->bugs[m->n_bugs++] = n;
    *slot = m->n_bugs;
    m->bug_ix.n++;
    return 0;
}

/* The kept copy into OUT under its own name; a file of that name already there
 * stays (its name holds the key's hash: the same bug). */
static int copy_in(merge *m, bug *b, ss_error *err) {
    char final[4400], pending[4500], host[64] = "", *data;
    size_t len;
    if ((size_t)snprintf(final, sizeof final, "%s/%s", m->o->out, base_name(b->path)) >= sizeof final)
        return ss_fail(err, m->o->out, "path too long");
    if (access(final, F_OK) != 0) {
        gethostname(host, sizeof host - 1);
        for (char *p = host; *p; p++) if (*p == '/' || *p == '.') *p = '_';
        snprintf(pending, sizeof pending, "%s/.merge-pending-%s-%ld-%s", m->o->out, host, (long)getpid(),
                 base_name(b->path));
        ss_error rd;
        if (ss_read_file(b->path, SS_MAX_CASE_FILE_BYTES, &data, &len, &rd)) return ss_fail(err, b->path, "%s", rd.msg);
        const int w = ss_write_atomic(pending, data, len, err);
        free(data);
        SS_TRY(w);
        /* a link never replaces; without hard links, a rename into a free name */
        if (link(pending, final) && errno != EEXIST && access(final, F_OK) && rename(pending, final)) {
            const int e = errno;
            unlink(pending);
            return ss_fail(err, final, "cannot write: %s", strerror(e));
        }
        unlink(pending);
        m->r->copied++;
    }
    char *p = strdup(final);
    if (!p) return ss_fail(err, final, "out of memory");
    free(b->path);
    b->path = p;
    return 0;
}

/* ---- the summary ----------------------------------------------------------- */

static const char *str_of(const cJSON *o, const char *key) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
    return s ? s : "";
}

/* Each finding's reproducer: the kept file of its kind, target and schedule class. */
static void point_findings(merge *m, cJSON *findings) {
    cJSON *f;
    cJSON_ArrayForEach(f, findings) {
        const char *sched = cJSON_GetObjectItemCaseSensitive(f, "schedule") ? str_of(f, "schedule") : NULL;
        const char *path = "";
        for (size_t i = 0; i < m->n_bugs && !path[0]; i++) {
            const bug *b = &m->bugs[i];
            if (!strcmp(b->kind, str_of(f, "signature")) && !strcmp(b->target, str_of(f, "target")) &&
                !strcmp(b->sched_class, ss_schedule_class(sched)))
                path = b->path;
        }
        cJSON *s = cJSON_CreateString(path);
        if (!s) continue;
        if (cJSON_GetObjectItemCaseSensitive(f, "reproducer")) cJSON_ReplaceItemInObjectCaseSensitive(f, "reproducer", s);
        else cJSON_AddItemToObject(f, "reproducer", s);
    }
}

static void list_missing(merge *m) {
    ss_merge_result *r = m->r;
    size_t used = 0;
    if (r->mixed_counts) return;   /* which count's shards would be missing? */
    for (uint64_t i = 0; m->present && i < r->shard_count; i++) {
        if (m->present[i]) { r->shards_present++; continue; }
        r->shards_missing++;
        if (used + 24 >= sizeof r->missing) {
            if (!strstr(r->missing, "...")) snprintf(r->missing + used, sizeof r->missing - used, ", ...");
            used = strlen(r->missing);
            continue;
        }
        used += (size_t)snprintf(r->missing + used, sizeof r->missing - used, "%s%llu", used ? ", " : "",
                                 (unsigned long long)i);
    }
}

static cJSON *shards_json(const merge *m) {
    cJSON *s = cJSON_CreateObject(), *miss = NULL;
    int ok = s && cJSON_AddNumberToObject(s, "count", (double)m->r->shard_count) &&
             cJSON_AddNumberToObject(s, "present", (double)m->r->shards_present) &&
             (miss = cJSON_AddArrayToObject(s, "missing")) &&
             cJSON_AddBoolToObject(s, "mixed_counts", m->r->mixed_counts);
    for (uint64_t i = 0; ok && m->present && !m->r->mixed_counts && i < m->r->shard_count; i++)
        if (!m->present[i]) ok = cJSON_AddItemToArray(miss, cJSON_CreateNumber((double)i));
    if (!ok) { cJSON_Delete(s); return NULL; }
    return s;
}

static int write_summary(merge *m, ss_error *err) {
    cJSON *totals = ss_summary_totals(m->runs), *root = cJSON_CreateObject(), *t;
    int ok = totals && root && cJSON_AddStringToObject(root, "format", "ssfuzz-summary") &&
             cJSON_AddNumberToObject(root, "version", 2) && cJSON_AddStringToObject(root, "tool_version", SS_VERSION);
    while (ok && (t = totals->child)) {
        cJSON_DetachItemViaPointer(totals, t);
        if (cJSON_GetObjectItemCaseSensitive(root, t->string)) cJSON_Delete(t);
        else cJSON_AddItemToObject(root, t->string, t);
    }
    cJSON_Delete(totals);
    cJSON *u = ok ? cJSON_CreateNumber((double)m->n_bugs) : NULL;
    ok = ok && u && (cJSON_GetObjectItemCaseSensitive(root, "unique_findings")
                     ? cJSON_ReplaceItemInObjectCaseSensitive(root, "unique_findings", u)
                     : cJSON_AddItemToObject(root, "unique_findings", u));
    if (ok) point_findings(m, cJSON_GetObjectItemCaseSensitive(root, "findings"));
    cJSON *shards = ok && m->r->shard_count ? shards_json(m) : NULL;
    ok = ok && (!m->r->shard_count || (shards && cJSON_AddItemToObject(root, "shards", shards)));
    ok = ok && cJSON_AddItemToObject(root, "campaigns", m->runs);
    if (ok) m->runs = NULL;
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(root, "cases"), *h = cJSON_GetObjectItemCaseSensitive(root, "hits");
    m->r->cases = cJSON_IsNumber(n) && n->valuedouble > 0 ? (uint64_t)n->valuedouble : 0;
    m->r->hits = cJSON_IsNumber(h) && h->valuedouble > 0 ? (long)h->valuedouble : 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", m->o->out);
    if (!ok) { cJSON_Delete(root); return ss_fail(err, path, "out of memory"); }
    return ss_write_json_atomic(path, root, 1, err);
}

/* ---- the whole ------------------------------------------------------------- */

static void merge_free(merge *m) {
    cJSON_Delete(m->runs);
    for (size_t i = 0; i < m->n_ids; i++) free(m->ids[i]);
    for (size_t i = 0; i < m->n_bugs; i++) { free(m->bugs[i].key); free(m->bugs[i].path); }
    free(m->ids);
    free(m->run_ix.slot);
    free(m->bugs);
    free(m->keys);
    free(m->bug_ix.slot);
    free(m->present);
}

int ss_merge_run(const ss_merge_opts *o, ss_merge_result *r, ss_error *err) {
    memset(r, 0, sizeof *r);
    SS_TRY(ss_ensure_writable_dir(o->out, err));
    merge m = {.o = o, .r = r};
    if (!realpath(o->out, m.out_real)) return ss_fail(err, o->out, "cannot resolve: %s", strerror(errno));
    if (!(m.runs = cJSON_CreateArray())) return ss_fail(err, o->out, "out of memory");
    ss_pathlist files = {0};
    int rc = 0;
    for (size_t d = 0; d < o->n_dirs && !rc; d++) {
        struct stat st;
        if (stat(o->dirs[d], &st) || !S_ISDIR(st.st_mode)) rc = ss_fail(err, o->dirs[d], "not a directory");
        else if (walk(o->dirs[d], 0, &files)) rc = ss_fail(err, o->dirs[d], "cannot read: %s", strerror(errno));
    }
    for (size_t i = 0; i < files.count && !rc; i++)
        if ((is_summary(files.paths[i]) ? read_summary(&m, files.paths[i]) : add_case(&m, files.paths[i])))
            rc = ss_fail(err, files.paths[i], "out of memory");
    ss_pathlist_free(&files);
    for (size_t i = 0; i < m.n_bugs && !rc; i++)
        if (!m.bugs[i].in_out) rc = copy_in(&m, &m.bugs[i], err);
    r->bugs = m.n_bugs;
    if (!rc) list_missing(&m);
    if (!rc) rc = write_summary(&m, err);
    merge_free(&m);
    return rc;
}
