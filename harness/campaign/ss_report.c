/* ss_report.c - reproducer files (meta, dedup names, no-overwrite atomic writes) and summaries. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ss_exit.h"
#include "ss_files.h"
#include "ss_plan_build.h"
#include "ss_report.h"
#include "ss_gen.h"
#include "ss_shard.h"
#include "ss_summary_merge.h"
#include "ss_target.h"
#include "ss_text.h"
#include "ss_vec.h"

static const char *const dtype_short[SS_DTYPE_COUNT] = {
    [SS_BOOL] = "bool", [SS_UINT8] = "u8", [SS_INT8] = "i8", [SS_INT16] = "i16",
    [SS_INT32] = "i32", [SS_INT64] = "i64", [SS_FLOAT16] = "f16", [SS_BFLOAT16] = "bf16",
    [SS_FLOAT32] = "f32", [SS_FLOAT64] = "f64", [SS_COMPLEX64] = "c64", [SS_COMPLEX128] = "c128",
};

/* The plan's overlap name of a case (for the finding line), or "internal" for
 * an input view with internal overlap, or "invalid" when it does not even plan. */
static const char *overlap_name(const ss_case *c) {
    ss_plan p;
    if (ss_plan_build_limited(&c->op, (size_t)-1 / 4, &p, NULL)) return "invalid";
    return p.internal_overlap ? "internal" : ss_overlap_name(ss_plan_overlap(&p));
}

const char *ss_report_overlap_class(const ss_case *c) {
    ss_plan p;
    if (ss_plan_build_limited(&c->op, (size_t)-1 / 4, &p, NULL)) return "invalid";
    return ss_overlap_class(p.internal_overlap, ss_plan_overlap(&p));
}

const char *ss_overlap_class(int internal_overlap, ss_overlap o) {
    if (internal_overlap) return "internal";
    return o == SS_OVL_SAME_VIEW || o == SS_OVL_PARTIAL ? "overlap" : "no-overlap";
}

static uint32_t fnv1a(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* A failure only its batch shows (meta.batch): a bug of its own, never
 * merged with the same target's failures alone. */
static const char *batch_suffix(const ss_case *c, const char *sep) {
    static char out[16];
    const int batch = c->meta && cJSON_GetObjectItemCaseSensitive(c->meta, "batch");
    snprintf(out, sizeof out, "%s%s", batch ? sep : "", batch ? "batch-only" : "");
    return out;
}

enum { RAISE_WORDS = 5 };   /* the type and four words: "AssertionError: incorrect out shape after" */

/* Up to `words` words of s (to its ';') onto out[o..]: numbers as one '#',
 * '|' as '/', runs of spaces as one. Returns the new length. */
static size_t key_words(const char *s, int words, char *out, size_t o, size_t n) {
    int done = 0;
    for (; *s && *s != ';' && o + 1 < n; s++) {
        if (*s == ' ') {
            if (o && out[o - 1] != ' ' && ++done == words) break;
            if (o && out[o - 1] != ' ') out[o++] = ' ';
            continue;
        }
        const int digit = *s >= '0' && *s <= '9';
        if (digit && o && out[o - 1] == '#') continue;   /* a number is one '#', whatever its length */
        out[o++] = digit ? '#' : *s == '|' ? '/' : *s;
    }
    while (o && out[o - 1] == ' ') o--;
    out[o] = 0;
    return o;
}

/* Wrappers whose first words every failure inside them shares, and where
 * the worker puts their cause on the line: a backend's ("BackendCompilerFailed:
 * backend='inductor' raised: RuntimeError: ...") and dynamo's fake-tensor
 * failure ("TorchRuntimeError: RuntimeError when making fake tensor call (got
 * RuntimeError('...'))"). The key is the cause's, from the words after the
 * marker. */
static const struct { const char *prefix, *marker; } wrappers[] = {
    {"BackendCompilerFailed: ", " raised: "},
    {"TorchRuntimeError: ", " (got "},
};

static const char *past_wrapper(const char *raise) {
    for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++) {
        if (strncmp(raise, wrappers[i].prefix, strlen(wrappers[i].prefix))) continue;
        const char *cause = strstr(raise, wrappers[i].marker), *end = strchr(raise, ';');
        if (!cause || (end && cause > end)) return raise;
        cause += strlen(wrappers[i].marker);
        return *cause && *cause != ';' ? cause : raise;
    }
    return raise;
}

void ss_raise_key(const char *why, char *out, size_t n) {
    if (!n) return;
    out[0] = 0;
    if (!why) return;
    const char *at = strstr(why, "raises ");
    const char *raise = past_wrapper(at ? at + 7 : why);
    /* what eager did beside it ("eager runs it", "eager raises T: ..."): a
     * compiled assertion where eager refuses the case is another bug than
     * where eager runs it. Made first, so that long words before it cannot
     * crowd it out of the key. */
    char tail[40] = "";
    const char *eager = strstr(raise, "; eager ");
    if (eager) {
        eager += 8;
        memcpy(tail, " / eager ", 10);
        key_words(strncmp(eager, "raises ", 7) ? eager : eager + 7, 1, tail, 9, sizeof tail);
    }
    const size_t t = strlen(tail);
    const size_t o = key_words(raise, RAISE_WORDS, out, 0, n > t + 1 ? n - t : 1);
    if (o + t < n) memcpy(out + o, tail, t + 1);
}

void ss_raise_suffix(const char *kind, const char *why, char out[SS_RAISE_KEY_LEN + 1]) {
    out[0] = 0;
    if (!kind || strcmp(kind, "raised") || !why) return;
    ss_raise_key(why, out + 1, SS_RAISE_KEY_LEN);
    if (out[1]) out[0] = '|';
}

void ss_report_key(const ss_case *c, const ss_finding *f, char *key, size_t key_len) {
    char raise[SS_RAISE_KEY_LEN + 1];
    ss_raise_suffix(f->kind, f->detail, raise);
    snprintf(key, key_len, "%s|%s|%s|%s%s%s", f->kind, f->target->name, ss_schedule_class(f->schedule),
             ss_report_overlap_class(c), batch_suffix(c, "|"), raise);
}

/* The bug's key plus the shape (rank, dtype): one file per shape with --keep-variants. */
static void variant_key(const ss_case *c, const ss_finding *f, char *key, size_t key_len) {
    const char *dt = (unsigned)c->dtype < SS_DTYPE_COUNT ? dtype_short[c->dtype] : "x";
    char raise[SS_RAISE_KEY_LEN + 1];
    ss_raise_suffix(f->kind, f->detail, raise);
    snprintf(key, key_len, "%s|%s|%s|%dd|%s|%s%s%s", f->kind, f->target->name, ss_schedule_class(f->schedule),
             c->op.input.ndim, dt, ss_report_overlap_class(c), batch_suffix(c, "|"), raise);
}

/* Copies s keeping [A-Za-z0-9.-], mapping anything else to '_' (or '-' for a space). */
static void safe(char *out, size_t n, const char *s) {
    size_t i = 0;
    for (; *s && i + 1 < n; s++, i++) {
        const char ch = *s;
        const int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                       (ch >= '0' && ch <= '9') || ch == '.' || ch == '-';
        out[i] = ok ? ch : ch == ' ' ? '-' : '_';
    }
    out[i] = 0;
}

void ss_report_name(const ss_case *c, const ss_finding *f, int variants, char *name, size_t name_len) {
    char key[512], kind[64], target[96], sched[40] = "";
    if (variants) variant_key(c, f, key, sizeof key);
    else ss_report_key(c, f, key, sizeof key);
    safe(kind, sizeof kind, f->kind);
    safe(target, sizeof target, f->target->name);
    if (f->schedule) {
        sched[0] = '-';
        safe(sched + 1, sizeof sched - 1, ss_schedule_class(f->schedule));
    }
    const char *dt = (unsigned)c->dtype < SS_DTYPE_COUNT ? dtype_short[c->dtype] : "x";
    char shape[48] = "";
    if (variants) snprintf(shape, sizeof shape, "-%dd-%s", c->op.input.ndim, dt);
    snprintf(name, name_len, "%s-%s%s%s-%s%s-%08x.json", kind, target, sched, shape,
             ss_report_overlap_class(c), batch_suffix(c, "-"), fnv1a(key));
}

/* A 64-bit seed as a decimal string: a JSON number would round it past 2^53. */
static cJSON *add_u64(cJSON *m, const char *key, uint64_t v) {
    char num[32];
    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    return cJSON_AddStringToObject(m, key, num);
}

int ss_report_set_meta(ss_case *c, const ss_finding *f) {
    cJSON *m = cJSON_CreateObject(), *before = NULL;
    if (!m) return -1;
    char key[512];
    ss_report_key(c, f, key, sizeof key);
    int ok = cJSON_AddStringToObject(m, "target", f->target->name) &&
             (!f->schedule || cJSON_AddStringToObject(m, "schedule", f->schedule)) &&
             (!f->schedule || strcmp(f->schedule, "random") || add_u64(m, "schedule_seed", f->schedule_seed)) &&
             cJSON_AddStringToObject(m, "signature", f->kind) &&
             cJSON_AddStringToObject(m, "dedup_key", key) &&
             cJSON_AddBoolToObject(m, "minimized", f->minimized) &&
             cJSON_AddStringToObject(m, "version", SS_VERSION) &&
             cJSON_AddStringToObject(m, "found_by", f->found_by ? f->found_by : "ssfuzz");
    if (ok && f->has_origin) {
        /* seeds and indices may exceed 2^53: decimal strings keep them exact */
        char num[32];
        snprintf(num, sizeof num, "%llu", (unsigned long long)f->campaign_seed);
        ok = cJSON_AddStringToObject(m, "campaign_seed", num) != NULL;
        snprintf(num, sizeof num, "%llu", (unsigned long long)f->case_index);
        ok = ok && cJSON_AddStringToObject(m, "case_index", num);
    }
    if (ok) ok = ss_target_meta_write(m, f->target, f->schedule) == 0;   /* meta.torch, meta.plugin */
    if (ok && (before = cJSON_AddObjectToObject(m, "before_minimization")))
        ok = cJSON_AddNumberToObject(before, "numel", (double)f->numel_before) &&
             cJSON_AddNumberToObject(before, "ndim", f->ndim_before);
    if (ok && f->detail) ok = cJSON_AddStringToObject(m, "detail", f->detail) != NULL;
    if (!ok || !before) { cJSON_Delete(m); return -1; }
    /* A batch-only failure's batch (ss_batch.h) stays: it is how it replays. */
    cJSON *batch = c->meta ? cJSON_DetachItemFromObjectCaseSensitive(c->meta, "batch") : NULL;
    if (batch) cJSON_AddItemToObject(m, "batch", batch);
    cJSON_Delete(c->meta);
    c->meta = m;
    return 0;
}

int ss_report_write(const char *dir, ss_case *c, const ss_finding *f, int variants, char *path,
                    size_t path_len, ss_error *err) {
    char name[512], final[4096], pending[4200];
    ss_report_name(c, f, variants, name, sizeof name);
    if ((size_t)snprintf(final, sizeof final, "%s/%s", dir, name) >= sizeof final)
        return ss_fail(err, dir, "path too long");
    if (path) snprintf(path, path_len, "%s", final);
    if (access(final, F_OK) == 0) return 0;
    if (ss_report_set_meta(c, f)) return ss_fail(err, final, "out of memory");
    /* A dot-file (invisible to case discovery) made atomically, then linked:
     * link() never replaces, so two jobs racing on one signature keep one file.
     * Its name holds the host as well as the pid: shards on many hosts share one
     * --out over NFS, where pids repeat. */
    char host[64] = "", host_safe[64];
    gethostname(host, sizeof host - 1);
    safe(host_safe, sizeof host_safe, host);
    snprintf(pending, sizeof pending, "%s/.pending-%s-%ld-%s", dir, host_safe, (long)getpid(), name);
    SS_TRY(ss_case_save_atomic(pending, c, err));
    int rc = 1;
    struct stat st;
    if (link(pending, final) != 0) {
        /* Over NFS a retried link can say EEXIST when it was ours: then the
         * pending file has a second name (open(2)'s advice for lock files). */
        if (errno == EEXIST) rc = stat(pending, &st) == 0 && st.st_nlink == 2;
        else if (errno == EPERM || errno == ENOTSUP || errno == EXDEV || errno == EMLINK) {
            rc = access(final, F_OK) == 0 ? 0 : rename(pending, final) == 0 ? 1 : -1;   /* no hard links */
        } else {
            rc = -1;
        }
        if (rc < 0) ss_fail(err, final, "cannot write: %s", strerror(errno));
    }
    unlink(pending);
    return rc;
}

void ss_report_line(const ss_case *c, const ss_finding *f, const char *path, int is_new,
                    char *out, size_t n) {
    char sched[40] = "", next[1200] = "";
    if (f->schedule) snprintf(sched, sizeof sched, " (%s)", f->schedule);
    char was[64] = "";
    if (f->minimized)
        snprintf(was, sizeof was, " (was %d-D, %lld)", f->ndim_before, (long long)f->numel_before);
    /* --out may hold spaces or escape sequences: the command quotes the path (and
     * is left out rather than cut), the line shows it inert */
    char word[1024], shown[1024];
    ss_text_inert(path, shown, sizeof shown);
    if (path && ss_shell_word(path, word, sizeof word) >= 0) {
        if (snprintf(next, sizeof next, "; next: ssfuzz explain %s -t %s%s%s", word, f->target->name,
                     f->schedule ? " --schedule " : "", f->schedule ? f->schedule : "") >= (int)sizeof next)
            next[0] = '\0';
    }
    int64_t numel = c->op.input_storage_numel + (c->op.src_aliased ? 0 : c->op.src_storage_numel);
    const int k = snprintf(n ? out : NULL, n, "%s on %s%s: %d-D %s %s, %lld element%s%s -> %s%s", f->kind,
                           f->target->name, sched, c->op.input.ndim, ss_dtype_name(c->dtype), overlap_name(c),
                           (long long)numel, numel == 1 ? "" : "s", was, path ? shown : "(not written)",
                           is_new ? "" : " (duplicate)");
    if (k >= 0 && (size_t)k + strlen(next) < n) memcpy(out + k, next, strlen(next) + 1);
}

int ss_report_set_stage(const char *path, const ss_target *t, const char *stage, const char *checks,
                        ss_error *err) {
    ss_case c;
    ss_case_init(&c);
    if (ss_case_load(path, &c, err)) { ss_case_free(&c); return -1; }
    const char *key = t->engine->meta_key ? t->engine->meta_key : t->engine->name;
    if (!c.meta) c.meta = cJSON_CreateObject();
    cJSON *block = c.meta ? cJSON_GetObjectItemCaseSensitive(c.meta, key) : NULL;
    if (c.meta && !cJSON_IsObject(block)) {
        cJSON_DeleteItemFromObjectCaseSensitive(c.meta, key);
        block = cJSON_AddObjectToObject(c.meta, key);
    }
    int rc = -1;
    if (block) {
        cJSON_DeleteItemFromObjectCaseSensitive(block, "stage");
        cJSON_DeleteItemFromObjectCaseSensitive(block, "stage_checks");
    }
    if (!block || !cJSON_AddStringToObject(block, "stage", stage ? stage : "unknown") ||
        !cJSON_AddStringToObject(block, "stage_checks", checks))
        ss_fail(err, path, "out of memory");
    else
        rc = ss_case_save_atomic(path, &c, err);
    ss_case_free(&c);
    return rc;
}

/* ---- summary ----------------------------------------------------------- */

static int add_bug(ss_summary *s, const char *bug) {
    for (size_t i = 0; i < s->n_bugs; i++)
        if (!strcmp(s->bugs[i], bug)) return 0;
    if (SS_GROW(s->bugs, s->cap_bugs, s->n_bugs + 1)) return -1;
    snprintf(s->bugs[s->n_bugs++], sizeof s->bugs[0], "%s", bug);
    return 0;
}

int ss_summary_add(ss_summary *s, const char *kind, const char *target, const char *schedule,
                   const char *bug, const char *file, int is_new) {
    if (!schedule) schedule = "";
    if (bug && *bug && add_bug(s, bug)) return -1;
    ss_summary_sig *g = NULL;
    for (size_t i = 0; i < s->n && !g; i++)
        if (!strcmp(s->sigs[i].kind, kind) && !strcmp(s->sigs[i].target, target) &&
            !strcmp(s->sigs[i].schedule, schedule))
            g = &s->sigs[i];
    if (!g) {
        if (SS_GROW(s->sigs, s->cap, s->n + 1)) return -1;
        g = &s->sigs[s->n++];
        memset(g, 0, sizeof *g);
        snprintf(g->kind, sizeof g->kind, "%s", kind);
        snprintf(g->target, sizeof g->target, "%s", target);
        snprintf(g->schedule, sizeof g->schedule, "%s", schedule);
    }
    g->hits++;
    g->reproducers += is_new != 0;
    if (file && *file && !g->first_file[0]) snprintf(g->first_file, sizeof g->first_file, "%s", file);
    return 0;
}

long ss_summary_unique(const ss_summary *s) { return (long)s->n_bugs; }

long ss_summary_hits(const ss_summary *s) {
    long h = 0;
    for (size_t i = 0; i < s->n; i++) h += s->sigs[i].hits;
    return h;
}

void ss_summary_free(ss_summary *s) {
    free(s->sigs);
    free(s->bugs);
    s->sigs = NULL;
    s->bugs = NULL;
    s->n = s->cap = s->n_bugs = s->cap_bugs = 0;
}

/* {"separate": n, ...}: the aliasing kinds the campaign generated (sampled). */
static int add_aliasing(cJSON *root, const ss_summary *s) {
    if (!s->alias_sampled) return 1;
    cJSON *a = cJSON_AddObjectToObject(root, "aliasing"), *k;
    if (!a || !cJSON_AddNumberToObject(a, "sampled_cases", (double)s->alias_sampled) ||
        !(k = cJSON_AddObjectToObject(a, "kinds")))
        return 0;
    for (int i = 0; i < SS_ALIAS_KIND_COUNT && i < 16; i++)
        if (!cJSON_AddNumberToObject(k, ss_alias_kind_name((ss_alias_kind)i), (double)s->alias_kinds[i])) return 0;
    return 1;
}

/* {"up_to_4Ki": {"cases": n, "worker_seconds": s}, ...}: where the campaign's
 * cases and time went, by size. Counts and seconds (not shares), so that
 * concurrent campaigns merging into one summary add up. */
static int add_sizes(cJSON *root, const ss_summary *s) {
    cJSON *o = cJSON_AddObjectToObject(root, "size_classes"), *k;
    if (!o) return 0;
    for (int i = 0; i < SS_SIZE_CLASS_COUNT; i++)
        if (!(k = cJSON_AddObjectToObject(o, ss_size_class_name(i))) ||
            !cJSON_AddNumberToObject(k, "cases", (double)s->size_cases[i]) ||
            !cJSON_AddNumberToObject(k, "worker_seconds", s->size_seconds[i]))
            return 0;
    return 1;
}

/* "examples": the first error and NaN-only difference, which counts alone
 * would not name (an array: merged summaries keep the first campaign's). */
/* "batch": the most cases run together on a batching target (1: none), the
 * batches run, and the runs (a case under one schedule) per batch on average. */
static int add_batch(cJSON *root, const ss_summary *s) {
    cJSON *b = cJSON_AddObjectToObject(root, "batch");
    return b && cJSON_AddNumberToObject(b, "max", s->batch > 1 ? s->batch : 1) &&
           cJSON_AddNumberToObject(b, "batches", (double)s->batches) &&
           cJSON_AddNumberToObject(b, "mean", s->batches ? (double)s->batched_cases / (double)s->batches : 0);
}

static int add_examples(cJSON *root, const ss_summary *s) {
    cJSON *arr = cJSON_AddArrayToObject(root, "examples");
    const char *kinds[] = {"error", "nan-payload"}, *texts[] = {s->error_example, s->nan_example};
    for (int i = 0; arr && i < 2; i++) {
        if (!texts[i][0]) continue;
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(arr, o) || !cJSON_AddStringToObject(o, "verdict", kinds[i]) ||
            !cJSON_AddStringToObject(o, "example", texts[i]))
            return 0;
    }
    return arr != NULL;
}

/* Where the run was and which local cases it covered (decimal strings: exact past 2^53). */
static int add_origin(cJSON *root, const ss_summary *s) {
    char num[48];
    if (s->campaign_id[0] && !cJSON_AddStringToObject(root, "campaign_id", s->campaign_id)) return 0;
    if (s->host[0] && !cJSON_AddStringToObject(root, "host", s->host)) return 0;
    if (s->shard_count) {
        snprintf(num, sizeof num, "%llu/%llu", (unsigned long long)s->shard_index, (unsigned long long)s->shard_count);
        if (!cJSON_AddStringToObject(root, "shard", num)) return 0;
    }
    snprintf(num, sizeof num, "%llu", (unsigned long long)s->first_case);
    if (!cJSON_AddStringToObject(root, "first_case", num)) return 0;
    snprintf(num, sizeof num, "%llu", (unsigned long long)s->next_case);
    return cJSON_AddStringToObject(root, "next_case", num) != NULL;
}

int ss_summary_write(const char *dir, const ss_summary *s, ss_error *err) {
    cJSON *root = cJSON_CreateObject(), *arr;
    char num[32];
    snprintf(num, sizeof num, "%llu", (unsigned long long)s->seed);
    int ok = root && cJSON_AddStringToObject(root, "seed", num) && add_origin(root, s) &&
             cJSON_AddStringToObject(root, "targets", s->targets) &&
             cJSON_AddStringToObject(root, "schedule", s->schedule ? s->schedule : "all") &&
             cJSON_AddNumberToObject(root, "cases", (double)s->cases) &&
             cJSON_AddNumberToObject(root, "seconds", s->seconds) &&
             cJSON_AddNumberToObject(root, "cases_per_second",
                                     s->seconds > 0 ? (double)s->cases / s->seconds : 0) &&
             cJSON_AddNumberToObject(root, "skipped", (double)s->skipped) &&
             cJSON_AddNumberToObject(root, "refused", (double)s->refused) &&
             cJSON_AddNumberToObject(root, "errors", (double)s->errors) &&
             cJSON_AddNumberToObject(root, "nan_payload", (double)s->nan_payload) &&
             add_batch(root, s) &&
             add_examples(root, s) &&
             cJSON_AddNumberToObject(root, "unwritten", (double)s->unwritten) &&
             cJSON_AddNumberToObject(root, "confirmed", (double)s->confirmed) &&
             cJSON_AddNumberToObject(root, "unconfirmed", (double)s->unconfirmed) &&
             cJSON_AddNumberToObject(root, "unique_findings", (double)s->n_bugs) &&
             cJSON_AddNumberToObject(root, "hits", (double)ss_summary_hits(s)) &&
             cJSON_AddStringToObject(root, "stopped_by", s->stopped_by ? s->stopped_by : "time") &&
             add_aliasing(root, s) && add_sizes(root, s) &&
             (arr = cJSON_AddArrayToObject(root, "findings"));
    for (size_t i = 0; ok && i < s->n; i++) {
        const ss_summary_sig *g = &s->sigs[i];
        cJSON *o = cJSON_CreateObject();
        ok = o && cJSON_AddItemToArray(arr, o) && cJSON_AddStringToObject(o, "signature", g->kind) &&
             cJSON_AddStringToObject(o, "target", g->target) &&
             (!g->schedule[0] || cJSON_AddStringToObject(o, "schedule", g->schedule)) &&
             cJSON_AddNumberToObject(o, "hits", (double)g->hits) &&
             cJSON_AddNumberToObject(o, "new_reproducers", (double)g->reproducers) &&
             cJSON_AddStringToObject(o, "reproducer", g->first_file);
    }
    if (!ok) {
        cJSON_Delete(root);
        return ss_fail(err, dir, "out of memory writing the summary");
    }
    if (!s->shard_count) return ss_summary_merge_write(dir, root, err);
    char name[64];
    ss_shard_summary_name(s->shard_index, name, sizeof name);
    return ss_summary_merge_write_as(dir, name, 0, root, err);
}
