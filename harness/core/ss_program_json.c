/* ss_program_json.c - a program's JSON form: a strict reader (structure, names, ranges) and a stable writer. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_case.h"
#include "ss_program.h"

typedef char path_t[sizeof(((ss_error *)0)->field)];

/* "program[2].dim" */
static void at(path_t out, int step, const char *key) {
    if (key) snprintf(out, sizeof(path_t), "program[%d].%s", step, key);
    else snprintf(out, sizeof(path_t), "program[%d]", step);
}

static int fail_at(ss_error *err, int step, const char *key, const char *msg) {
    path_t f;
    at(f, step, key);
    return ss_fail(err, f, "%s", msg);
}

static int only_keys(const cJSON *o, int step, const char *const *allowed, ss_error *err) {
    for (const cJSON *c = o->child; c; c = c->next) {
        const char *const *a = allowed;
        while (*a && strcmp(*a, c->string)) a++;
        if (!*a) {
            path_t f;
            char key[40];
            snprintf(key, sizeof key, "%.32s", c->string);
            at(f, step, key);
            return ss_fail(err, f, "unknown field for this op and kind");
        }
    }
    return 0;
}

/* An integer in [lo, hi]; absent is an error when required (*present 0 otherwise). */
static int get_int(const cJSON *o, int step, const char *key, int required, int64_t lo,
                   int64_t hi, int64_t *out, int *present, ss_error *err) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (present) *present = it != NULL;
    if (!it) return required ? fail_at(err, step, key, "is required") : 0;
    path_t f;
    at(f, step, key);
    const double d = it->valuedouble;
    if (!cJSON_IsNumber(it) || !isfinite(d) || d != floor(d) || d < (double)lo || d > (double)hi)
        return ss_fail(err, f, "must be an integer in [%" PRId64 ", %" PRId64 "]", lo, hi);
    *out = (int64_t)d;
    return 0;
}

/* A bound: absent, null, or an integer within +-2^53. */
static int get_bound(const cJSON *o, int step, const char *key, int *state, int64_t *v,
                     ss_error *err) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    *state = !it ? SS_BOUND_ABSENT : cJSON_IsNull(it) ? SS_BOUND_NULL : SS_BOUND_INT;
    if (*state != SS_BOUND_INT) return 0;
    return get_int(o, step, key, 1, -SS_MAX_JSON_INT, SS_MAX_JSON_INT, v, NULL, err);
}

/* An integer list of at most SS_MAX_NDIM entries, each in [lo, hi]. */
static int get_list(const cJSON *o, int step, const char *key, int64_t lo, int64_t hi,
                    int64_t *vals, int *n, ss_error *err) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, key);
    path_t f;
    at(f, step, key);
    if (!arr) return ss_fail(err, f, "is required");
    if (!cJSON_IsArray(arr)) return ss_fail(err, f, "must be an array of integers");
    int k = 0;
    for (const cJSON *e = arr->child; e; e = e->next, k++) {
        if (k >= SS_MAX_NDIM) return ss_fail(err, f, "has more than %d entries (SS_MAX_NDIM)", SS_MAX_NDIM);
        const double d = e->valuedouble;
        if (!cJSON_IsNumber(e) || !isfinite(d) || d != floor(d) || d < (double)lo || d > (double)hi) {
            char ef[sizeof(path_t) + 16];
            snprintf(ef, sizeof ef, "%s[%d]", f, k);
            return ss_fail(err, ef, "must be an integer in [%" PRId64 ", %" PRId64 "]", lo, hi);
        }
        vals[k] = (int64_t)d;
    }
    *n = k;
    return 0;
}

static int find_name(const ss_program *p, const char *s) {
    for (int i = 0; i < p->nnames; i++)
        if (!strcmp(p->names[i], s)) return i;
    return -1;
}

/* Python's keywords and the names the printed function uses itself. */
static int reserved(const char *s) {
    static const char *const words[] = {
        "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
        "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with",
        "yield", "torch", "program", "slice", "range", "print", "len", "tuple", "_", NULL};
    for (int i = 0; words[i]; i++)
        if (!strcmp(words[i], s)) return 1;
    return 0;
}

/* A name this step defines: well formed and new. */
static int new_name(ss_program *p, const cJSON *o, int step, int *out, ss_error *err) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "name");
    path_t f;
    at(f, step, "name");
    if (!it) return ss_fail(err, f, "is required");
    if (!cJSON_IsString(it)) return ss_fail(err, f, "must be a string");
    const char *s = it->valuestring;
    const size_t n = strlen(s);
    int ok = n >= 1 && n <= SS_PROG_NAME_LEN && !(s[0] >= '0' && s[0] <= '9');
    for (size_t i = 0; ok && i < n; i++)
        ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_';
    if (!ok) return ss_fail(err, f, "must be 1..%d characters of [a-z0-9_], not starting with a digit",
                            SS_PROG_NAME_LEN);
    if (reserved(s)) return ss_fail(err, f, "\"%s\" is reserved (a Python keyword or a name the printed program uses)", s);
    const int had = find_name(p, s);
    if (had >= 0) {
        if (p->defined_at[had] < 0) return ss_fail(err, f, "\"%s\" is predefined (the case's view)", s);
        return ss_fail(err, f, "\"%s\" is already defined at program[%d]", s, p->defined_at[had]);
    }
    if (p->nnames >= SS_PROG_MAX_NAMES)
        return ss_fail(err, f, "more than %d names (SS_PROG_MAX_NAMES, x and src included)", SS_PROG_MAX_NAMES);
    *out = ss_program_add_name(p, s);
    p->defined_at[*out] = step;
    return 0;
}

/* A use of a defined name; `want_view` 1: must name a view (x, src or a view step). */
static int use_name(const ss_program *p, const cJSON *it, int step, const char *key,
                    int want_view, int *out, ss_error *err) {
    path_t f;
    at(f, step, key);
    if (!it) return ss_fail(err, f, "is required");
    if (!cJSON_IsString(it)) return ss_fail(err, f, "must be a name (a string)");
    const int n = find_name(p, it->valuestring);
    if (n < 0) return ss_fail(err, f, "\"%.40s\" is not defined by an earlier step", it->valuestring);
    if (want_view && p->defined_at[n] >= 0 && p->steps[p->defined_at[n]].op != SS_STEP_VIEW)
        return ss_fail(err, f, "\"%s\" is a read (a fresh tensor): a view is required here", p->names[n]);
    *out = n;
    return 0;
}

static int get_name(const ss_program *p, const cJSON *o, int step, const char *key, int want_view,
                    int *out, ss_error *err) {
    return use_name(p, cJSON_GetObjectItemCaseSensitive(o, key), step, key, want_view, out, err);
}

/* An operand: a name, or an integer in [lo, hi] when constants are allowed (lo <= hi). */
static int get_operand(const ss_program *p, const cJSON *o, int step, const char *key, int64_t lo,
                       int64_t hi, ss_operand *out, ss_error *err) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (it && cJSON_IsNumber(it)) {
        if (lo > hi) return fail_at(err, step, key, "must be a name (no constant here)");
        out->name = -1;
        return get_int(o, step, key, 1, lo, hi, &out->value, NULL, err);
    }
    out->value = 0;
    return use_name(p, it, step, key, 0, &out->name, err);
}

static int get_kind(const cJSON *o, int step, const char *key, const char *(*name_of)(int),
                    int count, int *out, ss_error *err) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    path_t f;
    at(f, step, key);
    if (!it) return ss_fail(err, f, "is required");
    if (cJSON_IsString(it))
        for (int k = 0; k < count; k++)
            if (!strcmp(name_of(k), it->valuestring)) { *out = k; return 0; }
    char names[200] = "";
    for (int k = 0; k < count; k++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", name_of(k));
    return ss_fail(err, f, "must be one of: %s", names);
}

#define D SS_MAX_NDIM
#define BIG SS_MAX_JSON_INT

static int read_slice_fields(const cJSON *o, int step, ss_step *s, int dim_required, ss_error *err) {
    SS_TRY(get_int(o, step, "dim", dim_required, -D, D - 1, &s->dim, &s->has_dim, err));
    SS_TRY(get_bound(o, step, "start", &s->start_state, &s->start, err));
    SS_TRY(get_bound(o, step, "end", &s->end_state, &s->end, err));
    s->step = 1;
    return get_int(o, step, "step", 0, 1, BIG, &s->step, &s->has_step, err);
}

static int read_view_step(ss_program *p, const cJSON *o, int step, ss_step *s, ss_error *err) {
    static const char *const keys[SS_VK_COUNT][8] = {
        [SS_VK_SLICE] = {"dim", "start", "end", "step"}, [SS_VK_SELECT] = {"dim", "index"},
        [SS_VK_PERMUTE] = {"dims"}, [SS_VK_TRANSPOSE] = {"dim0", "dim1"},
        [SS_VK_DIAGONAL] = {"offset", "dim1", "dim2"}, [SS_VK_UNFOLD] = {"dim", "size", "step"},
        [SS_VK_AS_STRIDED] = {"sizes", "strides", "offset"}, [SS_VK_DTYPE] = {"dtype"}};
    SS_TRY(get_kind(o, step, "kind", ss_view_kind_name, SS_VK_COUNT, &s->kind, err));
    const char *allowed[13] = {"op", "name", "of", "kind"};
    for (int i = 0; keys[s->kind][i]; i++) allowed[4 + i] = keys[s->kind][i];
    SS_TRY(only_keys(o, step, allowed, err));
    SS_TRY(get_name(p, o, step, "of", 1, &s->of, err));
    switch (s->kind) {
    case SS_VK_SLICE: SS_TRY(read_slice_fields(o, step, s, 1, err)); break;
    case SS_VK_SELECT:
        SS_TRY(get_int(o, step, "dim", 1, -D, D - 1, &s->dim, &s->has_dim, err));
        SS_TRY(get_int(o, step, "index", 1, -BIG, BIG, &s->index, NULL, err));
        break;
    case SS_VK_PERMUTE: SS_TRY(get_list(o, step, "dims", -D, D - 1, s->dims, &s->ndims, err)); break;
    case SS_VK_TRANSPOSE:
        SS_TRY(get_int(o, step, "dim0", 1, -D, D - 1, &s->d0, NULL, err));
        SS_TRY(get_int(o, step, "dim1", 1, -D, D - 1, &s->d1, NULL, err));
        break;
    case SS_VK_DIAGONAL:
        SS_TRY(get_int(o, step, "offset", 1, -BIG, BIG, &s->offset, NULL, err));
        SS_TRY(get_int(o, step, "dim1", 1, -D, D - 1, &s->d0, NULL, err));
        SS_TRY(get_int(o, step, "dim2", 1, -D, D - 1, &s->d1, NULL, err));
        break;
    case SS_VK_UNFOLD:
        SS_TRY(get_int(o, step, "dim", 1, -D, D - 1, &s->dim, &s->has_dim, err));
        SS_TRY(get_int(o, step, "size", 1, 0, BIG, &s->size, NULL, err));
        SS_TRY(get_int(o, step, "step", 1, 1, BIG, &s->step, &s->has_step, err));
        break;
    case SS_VK_AS_STRIDED: {
        int ns = 0;
        SS_TRY(get_list(o, step, "sizes", 0, SS_MAX_NUMEL, s->dims, &s->ndims, err));
        SS_TRY(get_list(o, step, "strides", 0, SS_MAX_NUMEL, s->strides, &ns, err));
        if (ns != s->ndims) {
            path_t f;
            at(f, step, "strides");
            return ss_fail(err, f, "must have as many entries as sizes (%d)", s->ndims);
        }
        SS_TRY(get_int(o, step, "offset", 1, 0, SS_MAX_NUMEL, &s->offset, NULL, err));
        break;
    }
    case SS_VK_DTYPE: {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "dtype");
        if (!it || !cJSON_IsString(it) || ss_dtype_from_name(it->valuestring, &s->dtype))
            return fail_at(err, step, "dtype", "must be a dtype name (bool, uint8, ..., complex128)");
        break;
    }
    default: break;
    }
    return 0;
}

static int read_read_step(ss_program *p, const cJSON *o, int step, ss_step *s, ss_error *err) {
    static const char *const keys[SS_RK_COUNT][6] = {
        [SS_RK_ADD] = {"value"}, [SS_RK_MUL] = {"value"}, [SS_RK_FLIP] = {"dims"},
        [SS_RK_SUM] = {"dim"}, [SS_RK_SLICE_SCATTER] = {"src", "dim", "start", "end", "step"}};
    SS_TRY(get_kind(o, step, "kind", ss_read_kind_name, SS_RK_COUNT, &s->kind, err));
    const char *allowed[11] = {"op", "name", "of", "kind"};
    for (int i = 0; keys[s->kind][i]; i++) allowed[4 + i] = keys[s->kind][i];
    SS_TRY(only_keys(o, step, allowed, err));
    SS_TRY(get_name(p, o, step, "of", 0, &s->of, err));
    switch (s->kind) {
    case SS_RK_ADD: case SS_RK_MUL:
        s->has_operand = 1;
        return get_operand(p, o, step, "value", -SS_PROG_MAX_CONST, SS_PROG_MAX_CONST, &s->operand, err) ||
               (s->operand.name >= 0 ? fail_at(err, step, "value", "must be an integer constant") : 0);
    case SS_RK_FLIP: return get_list(o, step, "dims", -D, D - 1, s->dims, &s->ndims, err);
    case SS_RK_SUM: return get_int(o, step, "dim", 1, -D, D - 1, &s->dim, &s->has_dim, err);
    case SS_RK_SLICE_SCATTER:
        s->has_operand = 1;
        SS_TRY(get_operand(p, o, step, "src", 1, 0, &s->operand, err));
        return read_slice_fields(o, step, s, 1, err);
    default: return 0;
    }
}

static int read_write_step(ss_program *p, const cJSON *o, int step, ss_step *s, ss_error *err) {
    static const char *const keys[] = {"op", "into", "spelling", "src", "dim", "start", "end", "step", NULL};
    SS_TRY(only_keys(o, step, keys, err));
    SS_TRY(get_name(p, o, step, "into", 1, &s->of, err));
    SS_TRY(get_kind(o, step, "spelling", ss_spelling_name, SS_SP_COUNT, &s->kind, err));
    s->has_operand = 1;
    SS_TRY(get_operand(p, o, step, "src", 1, 0, &s->operand, err));
    return read_slice_fields(o, step, s, 0, err);
}

static int read_inplace_step(ss_program *p, const cJSON *o, int step, ss_step *s, ss_error *err) {
    SS_TRY(get_kind(o, step, "kind", ss_inplace_kind_name, SS_IK_COUNT, &s->kind, err));
    static const char *const with[] = {"op", "into", "kind", "operand", NULL};
    static const char *const without[] = {"op", "into", "kind", NULL};
    SS_TRY(only_keys(o, step, s->kind == SS_IK_ZERO ? without : with, err));
    SS_TRY(get_name(p, o, step, "into", 1, &s->of, err));
    if (s->kind == SS_IK_ZERO) return 0;
    s->has_operand = 1;
    if (s->kind == SS_IK_FILL) {
        SS_TRY(get_operand(p, o, step, "operand", 0, SS_PROG_MAX_FILL, &s->operand, err));
        return s->operand.name >= 0 ? fail_at(err, step, "operand", "must be an integer in [0, 15] (fill_)") : 0;
    }
    if (s->kind == SS_IK_COPY) return get_operand(p, o, step, "operand", 1, 0, &s->operand, err);
    return get_operand(p, o, step, "operand", -SS_PROG_MAX_CONST, SS_PROG_MAX_CONST, &s->operand, err);
}

static int read_index_put_step(ss_program *p, const cJSON *o, int step, ss_step *s, ss_error *err) {
    static const char *const keys[] = {"op", "into", "indices", "values", "accumulate", NULL};
    SS_TRY(only_keys(o, step, keys, err));
    SS_TRY(get_name(p, o, step, "into", 1, &s->of, err));
    const cJSON *acc = cJSON_GetObjectItemCaseSensitive(o, "accumulate");
    if (!acc || !cJSON_IsBool(acc)) return fail_at(err, step, "accumulate", "must be true or false");
    s->accumulate = cJSON_IsTrue(acc);
    s->has_operand = 1;
    SS_TRY(get_operand(p, o, step, "values", 0, SS_PROG_MAX_FILL, &s->operand, err));
    const cJSON *lists = cJSON_GetObjectItemCaseSensitive(o, "indices");
    path_t f;
    at(f, step, "indices");
    if (!lists || !cJSON_IsArray(lists) || !lists->child)
        return ss_fail(err, f, "must be a non-empty array of index lists");
    int k = 0, len = -1;
    for (const cJSON *l = lists->child; l; l = l->next, k++) {
        if (k >= SS_MAX_NDIM) return ss_fail(err, f, "has more than %d index lists", SS_MAX_NDIM);
        int n = 0;
        for (const cJSON *e = cJSON_IsArray(l) ? l->child : NULL; e && n <= SS_PROG_MAX_INDEX; e = e->next) n++;
        if (!cJSON_IsArray(l) || n < 1 || n > SS_PROG_MAX_INDEX)
            return ss_fail(err, f, "list %d must be an array of 1..%d integers", k, SS_PROG_MAX_INDEX);
        if (len >= 0 && n != len)
            return ss_fail(err, f, "list %d has %d entries, list 0 has %d: every list has one length", k, n, len);
        len = n;
    }
    s->nidx = k;
    s->idx_len = len;
    s->idx = malloc((size_t)k * (size_t)len * sizeof *s->idx);
    if (!s->idx) return ss_fail(err, "(memory)", "out of memory for %s", f);
    k = 0;
    for (const cJSON *l = lists->child; l; l = l->next, k++) {
        int i = 0;
        for (const cJSON *e = l->child; e; e = e->next, i++) {
            const double d = e->valuedouble;
            if (!cJSON_IsNumber(e) || !isfinite(d) || d != floor(d) || fabs(d) > (double)BIG) {
                char ef[sizeof(path_t) + 24];
                snprintf(ef, sizeof ef, "%s[%d][%d]", f, k, i);
                return ss_fail(err, ef, "must be an integer in [-2^53, 2^53]");
            }
            s->idx[(size_t)k * (size_t)len + (size_t)i] = (int64_t)d;
        }
    }
    return 0;
}

static int read_return_step(ss_program *p, const cJSON *o, int step, ss_step *s, ss_error *err) {
    static const char *const keys[] = {"op", "values", NULL};
    SS_TRY(only_keys(o, step, keys, err));
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(o, "values");
    path_t f;
    at(f, step, "values");
    if (!vals || !cJSON_IsArray(vals)) return ss_fail(err, f, "must be an array of 1..%d names", SS_PROG_MAX_RETURNS);
    for (const cJSON *e = vals->child; e; e = e->next) {
        if (s->nret >= SS_PROG_MAX_RETURNS) return ss_fail(err, f, "more than %d values", SS_PROG_MAX_RETURNS);
        char key[24];
        snprintf(key, sizeof key, "values[%d]", s->nret);
        SS_TRY(use_name(p, e, step, key, 0, &s->ret[s->nret], err));
        s->nret++;
    }
    if (s->nret == 0) return ss_fail(err, f, "must name 1..%d values", SS_PROG_MAX_RETURNS);
    return 0;
}

static const char *op_name(int k) { return ss_step_op_name((ss_step_op)k); }

static int read_step(ss_program *p, const cJSON *o, int step, ss_error *err) {
    ss_step *s = &p->steps[step];
    memset(s, 0, sizeof *s);
    s->name = s->of = -1;
    s->operand.name = -1;
    if (!cJSON_IsObject(o)) return fail_at(err, step, NULL, "must be an object");
    int op;
    SS_TRY(get_kind(o, step, "op", op_name, SS_STEP_OP_COUNT, &op, err));
    s->op = (ss_step_op)op;
    switch (s->op) {
    case SS_STEP_VIEW:
        SS_TRY(read_view_step(p, o, step, s, err));
        return new_name(p, o, step, &s->name, err);
    case SS_STEP_READ:
        SS_TRY(read_read_step(p, o, step, s, err));
        return new_name(p, o, step, &s->name, err);
    case SS_STEP_WRITE: return read_write_step(p, o, step, s, err);
    case SS_STEP_INPLACE: return read_inplace_step(p, o, step, s, err);
    case SS_STEP_INDEX_PUT: return read_index_put_step(p, o, step, s, err);
    default: return read_return_step(p, o, step, s, err);
    }
}

int ss_program_from_json(const cJSON *arr, ss_program **out, ss_error *err) {
    *out = NULL;
    if (!cJSON_IsArray(arr)) return ss_fail(err, "program", "must be an array of steps");
    int n = 0;
    for (const cJSON *e = arr->child; e && n <= SS_PROG_MAX_STEPS; e = e->next) n++;
    if (n < 1 || n > SS_PROG_MAX_STEPS)
        return ss_fail(err, "program", "must have 1..%d steps", SS_PROG_MAX_STEPS);
    ss_program *p = ss_program_new();
    if (!p) return ss_fail(err, "(memory)", "out of memory for the program");
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        p->nsteps = i + 1;   /* so a failed step's index list is freed */
        if (read_step(p, e, i, err)) { ss_program_free(p); return -1; }
        if (p->steps[i].op == SS_STEP_RETURN && e->next) {
            ss_program_free(p);
            return fail_at(err, i, "op", "return must be the last step");
        }
    }
    *out = p;
    return 0;
}

/* ---- writer --------------------------------------------------------------- */

static int add_int(cJSON *o, const char *key, int64_t v) { return ss_json_add_int64(o, key, v) ? 0 : -1; }

static int add_list(cJSON *o, const char *key, const int64_t *v, int n) {
    cJSON *l = ss_json_int64_array(v, n);
    if (!l) return -1;
    cJSON_AddItemToObject(o, key, l);
    return 0;
}

static int add_name(cJSON *o, const char *key, const ss_program *p, int n) {
    return cJSON_AddStringToObject(o, key, p->names[n]) ? 0 : -1;
}

static int add_operand(cJSON *o, const char *key, const ss_program *p, const ss_operand *op) {
    return op->name >= 0 ? add_name(o, key, p, op->name) : add_int(o, key, op->value);
}

static int add_bound(cJSON *o, const char *key, int state, int64_t v) {
    if (state == SS_BOUND_ABSENT) return 0;
    if (state == SS_BOUND_NULL) return cJSON_AddNullToObject(o, key) ? 0 : -1;
    return add_int(o, key, v);
}

static int add_slice(cJSON *o, const ss_step *s) {
    return (s->has_dim && add_int(o, "dim", s->dim)) || add_bound(o, "start", s->start_state, s->start) ||
           add_bound(o, "end", s->end_state, s->end) || (s->has_step && add_int(o, "step", s->step));
}

static int add_view_fields(cJSON *o, const ss_step *s) {
    switch (s->kind) {
    case SS_VK_SLICE: return add_slice(o, s);
    case SS_VK_SELECT: return add_int(o, "dim", s->dim) || add_int(o, "index", s->index);
    case SS_VK_PERMUTE: return add_list(o, "dims", s->dims, s->ndims);
    case SS_VK_TRANSPOSE: return add_int(o, "dim0", s->d0) || add_int(o, "dim1", s->d1);
    case SS_VK_DIAGONAL:
        return add_int(o, "offset", s->offset) || add_int(o, "dim1", s->d0) || add_int(o, "dim2", s->d1);
    case SS_VK_UNFOLD:
        return add_int(o, "dim", s->dim) || add_int(o, "size", s->size) || add_int(o, "step", s->step);
    case SS_VK_AS_STRIDED:
        return add_list(o, "sizes", s->dims, s->ndims) || add_list(o, "strides", s->strides, s->ndims) ||
               add_int(o, "offset", s->offset);
    case SS_VK_DTYPE: return cJSON_AddStringToObject(o, "dtype", ss_dtype_name(s->dtype)) ? 0 : -1;
    default: return 0;
    }
}

static int add_read_fields(cJSON *o, const ss_program *p, const ss_step *s) {
    switch (s->kind) {
    case SS_RK_ADD: case SS_RK_MUL: return add_operand(o, "value", p, &s->operand);
    case SS_RK_FLIP: return add_list(o, "dims", s->dims, s->ndims);
    case SS_RK_SUM: return add_int(o, "dim", s->dim);
    case SS_RK_SLICE_SCATTER: return add_operand(o, "src", p, &s->operand) || add_slice(o, s);
    default: return 0;
    }
}

static int add_index_put(cJSON *o, const ss_program *p, const ss_step *s) {
    cJSON *lists = cJSON_AddArrayToObject(o, "indices");
    if (!lists) return -1;
    for (int k = 0; k < s->nidx; k++) {
        cJSON *l = ss_json_int64_array(s->idx + (size_t)k * (size_t)s->idx_len, s->idx_len);
        if (!l) return -1;
        cJSON_AddItemToArray(lists, l);
    }
    return add_operand(o, "values", p, &s->operand) ||
           !cJSON_AddBoolToObject(o, "accumulate", s->accumulate);
}

static int add_step(cJSON *arr, const ss_program *p, const ss_step *s) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return -1;
    cJSON_AddItemToArray(arr, o);
    if (!cJSON_AddStringToObject(o, "op", ss_step_op_name(s->op))) return -1;
    switch (s->op) {
    case SS_STEP_VIEW:
        return add_name(o, "name", p, s->name) || add_name(o, "of", p, s->of) ||
               !cJSON_AddStringToObject(o, "kind", ss_view_kind_name(s->kind)) || add_view_fields(o, s);
    case SS_STEP_READ:
        return add_name(o, "name", p, s->name) || add_name(o, "of", p, s->of) ||
               !cJSON_AddStringToObject(o, "kind", ss_read_kind_name(s->kind)) || add_read_fields(o, p, s);
    case SS_STEP_WRITE:
        return add_name(o, "into", p, s->of) ||
               !cJSON_AddStringToObject(o, "spelling", ss_spelling_name(s->kind)) ||
               add_operand(o, "src", p, &s->operand) || add_slice(o, s);
    case SS_STEP_INPLACE:
        return add_name(o, "into", p, s->of) ||
               !cJSON_AddStringToObject(o, "kind", ss_inplace_kind_name(s->kind)) ||
               (s->has_operand && add_operand(o, "operand", p, &s->operand));
    case SS_STEP_INDEX_PUT: return add_name(o, "into", p, s->of) || add_index_put(o, p, s);
    default: {
        cJSON *vals = cJSON_AddArrayToObject(o, "values");
        for (int i = 0; vals && i < s->nret; i++) {
            cJSON *e = cJSON_CreateString(p->names[s->ret[i]]);
            if (!e) return -1;
            cJSON_AddItemToArray(vals, e);
        }
        return vals ? 0 : -1;
    }
    }
}

cJSON *ss_program_to_json(const ss_program *p) {
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < p->nsteps; i++)
        if (add_step(arr, p, &p->steps[i])) { cJSON_Delete(arr); return NULL; }
    return arr;
}
