/* ss_case_json.c - the case file format (version 1): strict reader, stable writer, atomic save. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ss_case.h"
#include "ss_files.h"
#include "ss_json_scan.h"
#include "ss_program.h"

#define FORMAT_NAME "ssfuzz-case"
#define FORMAT_VERSION 1

/* ---- whole-text checks ---------------------------------------------------- */

/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past
 * U+10FFFF. cJSON passes bytes through unchecked, so this is the only gate
 * before invalid text could reach a meta string we later write back out.
 * Returns the offset of the first bad byte, or len when all is well. */
static size_t utf8_bad_at(const unsigned char *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        const unsigned char c = s[i];
        size_t n;
        unsigned lo = 0x80, hi = 0xBF;   /* allowed range of the 2nd byte */
        if (c < 0x80) { i++; continue; }
        else if (c >= 0xC2 && c <= 0xDF) n = 1;
        else if (c >= 0xE0 && c <= 0xEF) { n = 2; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
        else if (c >= 0xF0 && c <= 0xF4) { n = 3; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
        else return i;
        if (len - i <= n) return i;
        for (size_t k = 1; k <= n; k++) {
            const unsigned char b = s[i + k];
            if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return i;
        }
        i += n + 1;
    }
    return len;
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* cJSON keeps every duplicate and lookups return the first, so a file could
 * say two things at once; refuse them everywhere, meta included. Recursion
 * depth is bounded by cJSON's nesting limit. Large objects are sorted so a
 * hostile object with a million keys stays O(n log n). */
static int check_duplicates(const cJSON *node, ss_error *err) {
    if (cJSON_IsObject(node)) {
        size_t n = 0;
        for (const cJSON *c = node->child; c; c = c->next) n++;
        if (n > 1) {
            const char **names = malloc(n * sizeof *names);
            if (!names) return ss_fail(err, "(memory)", "out of memory checking duplicate keys");
            size_t i = 0;
            for (const cJSON *c = node->child; c; c = c->next) names[i++] = c->string;
            qsort(names, n, sizeof *names, cmp_names);
            for (i = 1; i < n && strcmp(names[i - 1], names[i]); i++) {}
            if (i < n) {
                ss_fail(err, names[i], "duplicate key");
                free(names);
                return -1;
            }
            free(names);
        }
    }
    for (const cJSON *c = node->child; c; c = c->next)
        SS_TRY(check_duplicates(c, err));
    return 0;
}

/* In meta and expect (free-form trees) a number beyond a double's range
 * parses as infinity and would be written back as null, changing the case on
 * a round trip. The typed fields check their own numbers with precise names. */
static int check_finite(const cJSON *node, const char *where, ss_error *err) {
    if (cJSON_IsNumber(node) && !isfinite(node->valuedouble))
        return ss_fail(err, where, "holds a number beyond a double's range (%s)",
                       node->string ? node->string : "array element");
    /* cJSON writes these back without an exponent ("%1.17g"), as integer
     * literals beyond 2^53, which the scanner refuses: the round trip must not
     * break, so they are refused on the way in. */
    if (cJSON_IsNumber(node) && fabs(node->valuedouble) > (double)SS_MAX_JSON_INT &&
        fabs(node->valuedouble) < 1e17)
        return ss_fail(err, where, "holds a number between 2^53 and 10^17 in magnitude (%s): "
                       "a double cannot hold its integer exactly; use a string",
                       node->string ? node->string : "array element");
    for (const cJSON *c = node ? node->child : NULL; c; c = c->next)
        SS_TRY(check_finite(c, where, err));
    return 0;
}

/* ---- field helpers -------------------------------------------------------- */

typedef char field_name[sizeof(((ss_error *)0)->field)];

static void join(field_name out, const char *path, const char *key) {
    snprintf(out, sizeof(field_name), "%s%s%s", path, *path ? "." : "", key);
}

static int only_keys(const cJSON *obj, const char *path, const char *const *allowed,
                     ss_error *err) {
    for (const cJSON *c = obj->child; c; c = c->next) {
        const char *const *a = allowed;
        while (*a && strcmp(*a, c->string)) a++;
        if (!*a) {
            field_name f;
            join(f, path, c->string);
            return ss_fail(err, f, "unknown field");
        }
    }
    return 0;
}

/* Fetch parent.key; *out is NULL when absent (an error when required). */
static int get(const cJSON *parent, const char *path, const char *key, int required,
               const cJSON **out, ss_error *err) {
    *out = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!*out && required) {
        field_name f;
        join(f, path, key);
        return ss_fail(err, f, "is required");
    }
    return 0;
}

static int get_object(const cJSON *parent, const char *path, const char *key, int required,
                      const cJSON **out, ss_error *err) {
    SS_TRY(get(parent, path, key, required, out, err));
    if (*out && !cJSON_IsObject(*out)) {
        field_name f;
        join(f, path, key);
        return ss_fail(err, f, "must be an object");
    }
    return 0;
}

static int as_int(const cJSON *item, const char *field, int64_t *out, ss_error *err) {
    const double lim = (double)SS_MAX_JSON_INT;
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) ||
        item->valuedouble != floor(item->valuedouble) || fabs(item->valuedouble) > lim)
        return ss_fail(err, field, "must be an integer in [-2^53, 2^53]");
    *out = (int64_t)item->valuedouble;
    return 0;
}

/* parent.key as an integer; *present says whether it was given (null counts
 * as absent when allow_null). */
static int get_int(const cJSON *parent, const char *path, const char *key, int required,
                   int allow_null, int64_t *out, int *present, ss_error *err) {
    const cJSON *item;
    SS_TRY(get(parent, path, key, required, &item, err));
    if (present) *present = 0;
    if (!item || (allow_null && cJSON_IsNull(item))) return 0;
    field_name f;
    join(f, path, key);
    SS_TRY(as_int(item, f, out, err));
    if (present) *present = 1;
    return 0;
}

/* An integer array of at most SS_MAX_NDIM entries; returns its length. */
static int get_dims(const cJSON *parent, const char *path, const char *key, int64_t *vals,
                    int *len, ss_error *err) {
    const cJSON *arr;
    field_name f;
    char ef[sizeof(field_name) + 16];   /* room for the index; ss_fail truncates */
    SS_TRY(get(parent, path, key, 1, &arr, err));
    join(f, path, key);
    if (!cJSON_IsArray(arr)) return ss_fail(err, f, "must be an array of integers");
    int n = 0;
    for (const cJSON *e = arr->child; e; e = e->next, n++) {
        if (n >= SS_MAX_NDIM)
            return ss_fail(err, f, "has more than %d dims (SS_MAX_NDIM)", SS_MAX_NDIM);
        snprintf(ef, sizeof ef, "%s[%d]", f, n);
        SS_TRY(as_int(e, ef, &vals[n], err));
    }
    *len = n;
    return 0;
}

static int read_view(const cJSON *obj, const char *path, ss_view *v, ss_error *err) {
    int nstrides = 0;
    int64_t strides[SS_MAX_NDIM] = {0};
    SS_TRY(get_int(obj, path, "offset", 1, 0, &v->offset, NULL, err));
    SS_TRY(get_dims(obj, path, "sizes", v->sizes, &v->ndim, err));
    SS_TRY(get_dims(obj, path, "strides", strides, &nstrides, err));
    if (nstrides != v->ndim) {
        field_name f;
        join(f, path, "strides");
        return ss_fail(err, f, "must have as many entries as sizes (%d)", v->ndim);
    }
    memcpy(v->strides, strides, sizeof strides);
    return 0;
}

static int read_numel(const cJSON *root, const char *key, int64_t *numel, ss_error *err) {
    static const char *const keys[] = {"numel", NULL};
    const cJSON *obj;
    SS_TRY(get_object(root, "", key, 1, &obj, err));
    SS_TRY(only_keys(obj, key, keys, err));
    SS_TRY(get_int(obj, key, "numel", 1, 0, numel, NULL, err));
    if (*numel < 0 || *numel > SS_MAX_NUMEL) {
        field_name f;
        join(f, key, "numel");
        return ss_fail(err, f, "must be in [0, 2^40] (SS_MAX_NUMEL)");
    }
    return 0;
}

/* values.<key>: its elements never became cJSON nodes; the scanner counted
 * them (checked against numel before anything is allocated) and they are
 * decoded from the text straight into the storage bytes. */
static int read_values(const cJSON *vals, const char *key, ss_dtype t, int64_t numel,
                       const char *text, const ss_json_span *sp, uint8_t **out, ss_error *err) {
    const cJSON *arr;
    field_name f;
    SS_TRY(get(vals, "values", key, 1, &arr, err));
    join(f, "values", key);
    if (!cJSON_IsArray(arr) || !sp->present) return ss_fail(err, f, "must be an array");
    if (sp->count != numel)
        return ss_fail(err, f, "must have exactly %" PRId64 " elements (the storage numel)", numel);
    const size_t bytes = numel ? (size_t)numel * ss_dtype_size(t) : 1;
    *out = malloc(bytes);
    if (!*out) return ss_fail(err, "(memory)", "out of memory for %s (%zu bytes)", f, bytes);
    return ss_values_from_text(t, text + sp->start, sp->len, *out, numel, f, err);
}

/* ---- reader --------------------------------------------------------------- */

static int read_case(const cJSON *root, const char *text, const ss_json_scan *scan, ss_case *c,
                     ss_error *err) {
    static const char *const root_keys[] = {
        "format", "version", "dtype", "storage", "src_storage", "input", "src", "dim",
        "start", "end", "step", "fill", "values", "program", "meta", "expect", "$schema", NULL};
    static const char *const view_keys[] = {"offset", "sizes", "strides", NULL};
    static const char *const src_keys[] = {"storage", "offset", "sizes", "strides", NULL};
    static const char *const fill_keys[] = {"seed", "small", NULL};
    static const char *const values_keys[] = {"input", "src", NULL};
    const cJSON *it, *obj;
    int64_t v;

    SS_TRY(only_keys(root, "", root_keys, err));
    SS_TRY(get(root, "", "format", 1, &it, err));
    if (!cJSON_IsString(it) || strcmp(it->valuestring, FORMAT_NAME))
        return ss_fail(err, "format", "must be \"" FORMAT_NAME "\"");
    SS_TRY(get_int(root, "", "version", 1, 0, &v, NULL, err));
    if (v != FORMAT_VERSION)
        return ss_fail(err, "version", "unsupported version %" PRId64 " (this reader knows %d)",
                       v, FORMAT_VERSION);

    /* "$schema" names the JSON Schema for editors; the reader needs nothing from it */
    SS_TRY(get(root, "", "$schema", 0, &it, err));
    if (it && !cJSON_IsString(it)) return ss_fail(err, "$schema", "must be a string (the schema's URI or path)");

    SS_TRY(get(root, "", "dtype", 1, &it, err));
    if (!cJSON_IsString(it)) return ss_fail(err, "dtype", "must be a string");
    if (ss_dtype_from_name(it->valuestring, &c->dtype)) {
        char names[256] = "";
        for (int d = 0; d < SS_DTYPE_COUNT; d++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", d ? ", " : "",
                     ss_dtype_name((ss_dtype)d));
        return ss_fail(err, "dtype", "unknown dtype \"%.40s\" (one of: %s)", it->valuestring, names);
    }
    ss_op *op = &c->op;
    op->elem_size = ss_dtype_size(c->dtype);

    SS_TRY(read_numel(root, "storage", &op->input_storage_numel, err));
    SS_TRY(get_object(root, "", "input", 1, &obj, err));
    SS_TRY(only_keys(obj, "input", view_keys, err));
    SS_TRY(read_view(obj, "input", &op->input, err));

    SS_TRY(get_object(root, "", "src", 1, &obj, err));
    SS_TRY(only_keys(obj, "src", src_keys, err));
    SS_TRY(get(obj, "src", "storage", 1, &it, err));
    if (cJSON_IsString(it) && !strcmp(it->valuestring, "input")) op->src_aliased = 1;
    else if (!cJSON_IsString(it) || strcmp(it->valuestring, "separate"))
        return ss_fail(err, "src.storage", "must be \"input\" or \"separate\"");
    SS_TRY(read_view(obj, "src", &op->src, err));
    const int has_src_storage = cJSON_GetObjectItemCaseSensitive(root, "src_storage") != NULL;
    if (op->src_aliased) {
        if (has_src_storage)
            return ss_fail(err, "src_storage", "only allowed when src.storage is \"separate\"");
        op->src_storage_numel = op->input_storage_numel;
    } else {
        SS_TRY(read_numel(root, "src_storage", &op->src_storage_numel, err));
    }

    SS_TRY(get_int(root, "", "dim", 1, 0, &op->dim, NULL, err));
    SS_TRY(get_int(root, "", "start", 0, 1, &op->start, &op->has_start, err));
    SS_TRY(get_int(root, "", "end", 0, 1, &op->end, &op->has_end, err));
    op->step = 1;
    SS_TRY(get_int(root, "", "step", 0, 0, &op->step, NULL, err));

    const cJSON *fill, *vals;
    SS_TRY(get_object(root, "", "fill", 0, &fill, err));
    SS_TRY(get_object(root, "", "values", 0, &vals, err));
    if (fill && vals) return ss_fail(err, "fill", "give either fill or values, not both");
    if (!fill && !vals) return ss_fail(err, "fill", "fill or values is required");
    if (fill) {
        SS_TRY(only_keys(fill, "fill", fill_keys, err));
        SS_TRY(get_int(fill, "fill", "seed", 1, 0, &v, NULL, err));
        if (v < 0) return ss_fail(err, "fill.seed", "must be in [0, 2^53]");
        c->fill_seed = (uint64_t)v;
        /* "small": true gives values 0..15 in every dtype (program cases: exact arithmetic) */
        SS_TRY(get(fill, "fill", "small", 0, &it, err));
        if (it && !cJSON_IsBool(it)) return ss_fail(err, "fill.small", "must be true or false");
        c->fill_small = it && cJSON_IsTrue(it);
    } else {
        SS_TRY(only_keys(vals, "values", values_keys, err));
        const int has_src = cJSON_GetObjectItemCaseSensitive(vals, "src") != NULL;
        if (op->src_aliased && has_src)
            return ss_fail(err, "values.src", "only allowed when src.storage is \"separate\"");
        c->explicit_values = 1;
        SS_TRY(read_values(vals, "input", c->dtype, op->input_storage_numel, text,
                           &scan->values_input, &c->values_input, err));
        if (!op->src_aliased)
            SS_TRY(read_values(vals, "src", c->dtype, op->src_storage_numel, text,
                               &scan->values_src, &c->values_src, err));
    }
    SS_TRY(get(root, "", "program", 0, &it, err));
    if (it) SS_TRY(ss_program_from_json(it, &c->program, err));
    op->src_is_operand = c->program != NULL;
    SS_TRY(get_object(root, "", "meta", 0, &it, err));
    SS_TRY(check_finite(it, "meta", err));
    SS_TRY(get_object(root, "", "expect", 0, &it, err));
    SS_TRY(check_finite(it, "expect", err));
    return 0;
}

int ss_case_from_json(const char *text, size_t len, ss_case *out, ss_error *err) {
    ss_case_init(out);
    if (len > SS_MAX_CASE_FILE_BYTES)
        return ss_fail(err, "(file)", "larger than %zu bytes (SS_MAX_CASE_FILE_BYTES)",
                       (size_t)SS_MAX_CASE_FILE_BYTES);
    const size_t bad = utf8_bad_at((const unsigned char *)text, len);
    char where[80];
    if (bad != len) {
        ss_json_where(text, len, bad, where, sizeof where);
        return ss_fail(err, "(file)", "invalid UTF-8 at %s", where);
    }

    /* cJSON skips every byte <= 0x20 as whitespace, NUL included; JSON allows
     * only these four, and no raw control character inside strings either. */
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)text[i] < 0x20 && text[i] != '\t' && text[i] != '\n' && text[i] != '\r') {
            ss_json_where(text, len, i, where, sizeof where);
            return ss_fail(err, "(json)", "syntax error at %s (control character)", where);
        }

    /* The scanner enforces JSON's grammar and the rules cJSON lacks, and finds
     * the values arrays; cJSON then parses a NUL-terminated copy without
     * them (the "skeleton"), which it can only fail on for want of memory. */
    ss_json_scan scan;
    SS_TRY(ss_json_scan_text(text, len, &scan, err));
    size_t slen;
    char *skel = ss_json_skeleton(text, len, &scan, &slen);
    if (!skel) return ss_fail(err, "(memory)", "out of memory copying the document");
    cJSON *root = cJSON_ParseWithLengthOpts(skel, slen + 1, NULL, 0);
    free(skel);
    if (!root) return ss_fail(err, "(memory)", "out of memory parsing the document");
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return ss_fail(err, "(json)", "top level must be an object");
    }
    ss_case c;
    ss_case_init(&c);
    if (check_duplicates(root, err) || read_case(root, text, &scan, &c, err)) {
        cJSON_Delete(root);
        ss_case_free(&c);
        return -1;
    }
    c.meta = cJSON_DetachItemFromObjectCaseSensitive(root, "meta");
    c.expect = cJSON_DetachItemFromObjectCaseSensitive(root, "expect");
    cJSON_Delete(root);
    *out = c;
    return 0;
}

int ss_case_load(const char *path, ss_case *out, ss_error *err) {
    ss_case_init(out);
    FILE *f = fopen(path, "rb");
    if (!f) return ss_fail(err, "(file)", "%s: cannot open: %s", path, strerror(errno));
    struct stat st = {0};
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return ss_fail(err, "(file)", "%s: is a directory", path);
    }
    enum { READ_OK, READ_NOMEM, READ_ERROR, READ_TOO_BIG } status = READ_OK;
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > SS_MAX_CASE_FILE_BYTES)
        status = READ_TOO_BIG;
    /* Read at most one byte past the cap, so an endless pipe or device is
     * refused without reading it all. */
    size_t cap = 0, len = 0;
    char *buf = NULL;
    while (status == READ_OK) {
        if (len == cap) {
            if (len > SS_MAX_CASE_FILE_BYTES) { status = READ_TOO_BIG; break; }
            /* a regular file's size is known: one allocation of exactly that
             * (+1 to see it end), instead of doubling past it */
            size_t ncap = cap ? cap * 2
                        : S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : (size_t)1 << 16;
            if (ncap > SS_MAX_CASE_FILE_BYTES + 1) ncap = SS_MAX_CASE_FILE_BYTES + 1;
            char *nb = realloc(buf, ncap);
            if (!nb) { status = READ_NOMEM; break; }
            buf = nb;
            cap = ncap;
        }
        const size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) { if (ferror(f)) status = READ_ERROR; break; }
    }
    const int read_errno = errno;
    fclose(f);
    int rc;
    switch (status) {
    case READ_NOMEM: rc = ss_fail(err, "(memory)", "%s: out of memory reading the file", path); break;
    case READ_ERROR:
        rc = ss_fail(err, "(file)", "%s: read error: %s", path, strerror(read_errno));
        break;
    case READ_TOO_BIG:
        rc = ss_fail(err, "(file)", "%s: larger than %zu bytes (SS_MAX_CASE_FILE_BYTES)", path,
                     (size_t)SS_MAX_CASE_FILE_BYTES);
        break;
    default: rc = ss_case_from_json(buf ? buf : "", len, out, err); break;
    }
    free(buf);
    return rc;
}

/* ---- writer --------------------------------------------------------------- */

/* Integers go out as raw text: cJSON's own %1.15g would round 2^53 and other
 * 16-digit values. Raw items only ever live inside the tree we print here. */
static int add_view(cJSON *root, const char *key, const char *storage, const ss_view *v) {
    cJSON *o = cJSON_AddObjectToObject(root, key);
    if (!o || (storage && !cJSON_AddStringToObject(o, "storage", storage)) ||
        !ss_json_add_int64(o, "offset", v->offset))
        return -1;
    const int n = v->ndim < 0 ? 0 : v->ndim > SS_MAX_NDIM ? SS_MAX_NDIM : v->ndim;
    cJSON *sizes = ss_json_int64_array(v->sizes, n), *strides = ss_json_int64_array(v->strides, n);
    if (!sizes || !strides) { cJSON_Delete(sizes); cJSON_Delete(strides); return -1; }
    cJSON_AddItemToObject(o, "sizes", sizes);
    cJSON_AddItemToObject(o, "strides", strides);
    return 0;
}

static int add_numel(cJSON *root, const char *key, int64_t numel) {
    cJSON *o = cJSON_AddObjectToObject(root, key);
    return o && ss_json_add_int64(o, "numel", numel) ? 0 : -1;
}

static int add_bound(cJSON *root, const char *key, int has, int64_t v) {
    return (has ? ss_json_add_int64(root, key, v) : cJSON_AddNullToObject(root, key)) ? 0 : -1;
}

static int add_copy(cJSON *root, const char *key, const cJSON *item) {
    if (!item) return 0;
    cJSON *dup = cJSON_Duplicate(item, 1);
    if (!dup) return -1;
    cJSON_AddItemToObject(root, key, dup);
    return 0;
}

static int build_tree(cJSON *root, const ss_case *c) {
    const ss_op *op = &c->op;
    if (!cJSON_AddStringToObject(root, "format", FORMAT_NAME) ||
        !ss_json_add_int64(root, "version", FORMAT_VERSION) ||
        !cJSON_AddStringToObject(root, "dtype", ss_dtype_name(c->dtype)) ||
        add_numel(root, "storage", op->input_storage_numel) ||
        (!op->src_aliased && add_numel(root, "src_storage", op->src_storage_numel)) ||
        add_view(root, "input", NULL, &op->input) ||
        add_view(root, "src", op->src_aliased ? "input" : "separate", &op->src) ||
        !ss_json_add_int64(root, "dim", op->dim) ||
        add_bound(root, "start", op->has_start, op->start) ||
        add_bound(root, "end", op->has_end, op->end) ||
        !ss_json_add_int64(root, "step", op->step))
        return -1;
    if (c->explicit_values) {
        cJSON *vals = cJSON_AddObjectToObject(root, "values");
        if (!vals) return -1;
        cJSON *in = ss_values_to_json(c->dtype, c->values_input, op->input_storage_numel);
        if (!in) return -1;
        cJSON_AddItemToObject(vals, "input", in);
        if (!op->src_aliased) {
            cJSON *src = ss_values_to_json(c->dtype, c->values_src, op->src_storage_numel);
            if (!src) return -1;
            cJSON_AddItemToObject(vals, "src", src);
        }
    } else {
        cJSON *fill = cJSON_AddObjectToObject(root, "fill");
        char buf[32];
        snprintf(buf, sizeof buf, "%" PRIu64, c->fill_seed);
        if (!fill || !cJSON_AddRawToObject(fill, "seed", buf)) return -1;
        if (c->fill_small && !cJSON_AddTrueToObject(fill, "small")) return -1;
    }
    if (c->program) {
        cJSON *prog = ss_program_to_json(c->program);
        if (!prog) return -1;
        cJSON_AddItemToObject(root, "program", prog);
    }
    return add_copy(root, "meta", c->meta) || add_copy(root, "expect", c->expect) ? -1 : 0;
}

char *ss_case_to_json(const ss_case *c) {
    cJSON *root = cJSON_CreateObject();
    char *text = NULL;
    if (root && build_tree(root, c) == 0) text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return NULL;
    /* End with a newline so the file is a proper text file. cJSON_malloc is
     * plain malloc unless hooks are installed; we never install any. */
    const size_t n = strlen(text);
    char *nt = realloc(text, n + 2);
    if (!nt) { free(text); return NULL; }
    nt[n] = '\n';
    nt[n + 1] = '\0';
    return nt;
}

int ss_case_save_atomic(const char *path, const ss_case *c, ss_error *err) {
    char *text = ss_case_to_json(c);
    if (!text) return ss_fail(err, "(file)", "%s: out of memory serializing the case", path);
    /* The temp file lives next to the target so rename() stays within one
     * file system and is atomic; readers see the old file or the whole new one. */
    const char *slash = strrchr(path, '/');
    const int dirlen = slash ? (int)(slash - path) : 0;
    const char *base = slash ? slash + 1 : path;
    const size_t tlen = strlen(path) + 16;
    char *tmp = malloc(tlen);
    if (!tmp) { free(text); return ss_fail(err, "(file)", "%s: out of memory", path); }
    if (slash) snprintf(tmp, tlen, "%.*s/.%s.XXXXXX", dirlen, path, base);
    else snprintf(tmp, tlen, ".%s.XXXXXX", base);

    int rc = -1;
    const char *what = "create temp file";
    const int fd = mkstemp(tmp);
    if (fd >= 0) {
        if (ss_write_full(fd, text, strlen(text)) != 0) what = "write";
        else if (fchmod(fd, ss_file_mode()) != 0) what = "chmod";   /* mkstemp made it 0600 */
        else if (fsync(fd) != 0) what = "fsync";
        else rc = 0;
        const int saved = errno;
        if (close(fd) != 0 && rc == 0) { what = "close"; rc = -1; }
        else errno = saved;
        if (rc == 0 && rename(tmp, path) != 0) { what = "rename"; rc = -1; }
        if (rc != 0) {
            const int e = errno;
            unlink(tmp);
            errno = e;
        }
    }
    if (rc == 0) {
        /* Make the rename itself durable; failure here loses nothing already written. */
        char *dir = strndup(slash ? path : ".", slash ? (size_t)(dirlen ? dirlen : 1) : 1);
        const int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY) : -1;
        if (dfd >= 0) { fsync(dfd); close(dfd); }
        free(dir);
    }
    if (rc != 0) ss_fail(err, "(file)", "%s: cannot %s: %s", path, what, strerror(errno));
    free(tmp);
    free(text);
    return rc;
}
