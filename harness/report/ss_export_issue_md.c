/* ss_export_issue_md.c - the upstream report as Markdown: title, a repro of at most ten lines
 * written as user code, expected against actual values, releases and verdicts, the stage. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ss_exit.h"
#include "ss_export_issue.h"
#include "ss_files.h"
#include "ss_storage.h"
#include "ss_text.h"
#include "ss_torch_modes.h"
#include "ss_value_fmt.h"

#define REPRO_MAX_LINES 10
#define SHOW_ALL_MAX 32   /* storages up to this many elements are listed whole */

static const char *str(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int wrong(const char *verdict) { return verdict && (!strcmp(verdict, "differ") || !strcmp(verdict, "raised")); }

/* The run of `kind` and `form` (NULL: any but the user forms) in a script's --actual-out. */
static const cJSON *find_run(const ss_issue_run *r, const char *kind, const char *form, int must_be_wrong) {
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r->actual, "runs")) {
        const char *k = str(e, "kind"), *f = str(e, "form");
        if (!k || strcmp(k, kind)) continue;
        if (form ? !f || strcmp(f, form) : f && !strncmp(f, "user", 4)) continue;
        if (!must_be_wrong || wrong(str(e, "verdict"))) return e;
    }
    return NULL;
}

/* Hex from a script's JSON into bytes (at most cap); the number of bytes, or -1. */
static long unhex(const char *h, uint8_t *out, size_t cap) {
    if (!h) return -1;
    const size_t n = strlen(h);
    if (n % 2 || n / 2 > cap) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (uint8_t)v;
    }
    return (long)(n / 2);
}

typedef struct issue_pick {
    const cJSON *run;           /* the user-form run the repro shows */
    int two;                    /* 1: its form is user-two-inputs (x and src two arguments) */
    const ss_issue_run *from;   /* whose documents (values, expectation) */
    int arange;                 /* 1: the repro's values are 0, 1, 2, ... */
    int reproduced;             /* 0: no user-form run was wrong: the repro is unverified */
    const cJSON *found;         /* the as-found run that is wrong (first python) */
} issue_pick;

/* The call a title names for a run under a backend that stops before inductor
 * (torch's default dynamic, as a user writes it); NULL: another kind. */
static const char *backend_call(const char *kind) {
    const ss_torch_mode *m = ss_torch_mode_of_kind(kind, 0);
    if (!m || (m->backend != SS_TB_EAGER && m->backend != SS_TB_AOT_EAGER)) return NULL;
    const char *d = ss_issue_decorator(kind, 0);
    return d ? d + 1 : NULL;   /* without the '@' */
}

/* 1 when every release ran the script (no error) and none of its runs was wrong. */
static int nothing_wrong(const ss_issue *iss) {
    for (size_t i = 0; i < iss->n_runs; i++) {
        const ss_issue_run *r = &iss->runs[i];
        const cJSON *runs = cJSON_GetObjectItemCaseSensitive(r->actual, "runs"), *e;
        if (r->failure[0] || r->exit_code == 1 || r->exit_code == 2 || cJSON_GetArraySize(runs) < 1) return 0;
        cJSON_ArrayForEach(e, runs) if (wrong(str(e, "verdict"))) return 0;
    }
    return iss->n_runs > 0;
}

/* A wrong run of one user form: with the values 0, 1, 2, ... first, then the case's own. */
static void pick_form(const ss_issue *iss, issue_pick *p, const char *form) {
    const char *kind;
    for (size_t k = 0; (kind = ss_issue_kind_at(k)) && iss->has_arange && !p->run; k++)
        if ((p->run = find_run(&iss->arange, kind, form, 1))) p->from = &iss->arange, p->arange = 1;
    for (size_t k = 0; (kind = ss_issue_kind_at(k)) && iss->n_runs && !p->run; k++)
        if ((p->run = find_run(&iss->runs[0], kind, form, 1))) p->from = &iss->runs[0];
}

static void pick(const ss_issue *iss, issue_pick *p) {
    memset(p, 0, sizeof *p);
    const char *kind;
    for (size_t k = 0; (kind = ss_issue_kind_at(k)) && iss->n_runs && !p->found; k++)
        p->found = find_run(&iss->runs[0], kind, NULL, 1);
    /* the one-input form is the shorter report; a two-inputs finding falls back to its own shape */
    pick_form(iss, p, "user");
    if (!p->run && iss->two_inputs) pick_form(iss, p, "user-two-inputs"), p->two = p->run != NULL;
    p->reproduced = p->run != NULL;
    if (!p->run && p->found) {   /* show the user form of the wrong kind anyway, marked unverified */
        const char *k = str(p->found, "kind");
        p->two = iss->two_inputs;
        p->from = iss->has_arange && iss->arange.actual ? &iss->arange : &iss->runs[0];
        p->arange = p->from == &iss->arange;
        p->run = find_run(p->from, k, p->two ? "user-two-inputs" : "user", 0);
    }
}

void ss_issue_values_list(FILE *f, ss_dtype t, const uint8_t *b, long nbytes) {
    const size_t es = ss_dtype_size(t);
    fputc('[', f);
    for (long i = 0; i < nbytes / (long)es; i++) {
        char v[64];
        ss_value_number(t, b + i * es, v, sizeof v);
        fprintf(f, "%s%s", i ? ", " : "", v);
    }
    fputc(']', f);
}

static void values_list(FILE *f, const ss_case *c, const uint8_t *b, long nbytes) {
    ss_issue_values_list(f, c->dtype, b, nbytes);
}

/* 1 when a tensor must be built on `device` (the script's device name), not on the cpu. */
static int device_arg(const char *device) {
    if (!device || !strcmp(device, "cpu") || strlen(device) > 16) return 0;
    for (const char *p = device; *p; p++)
        if (!(*p >= 'a' && *p <= 'z')) return 0;
    return 1;
}

/* "torch.arange(4, dtype=torch.uint8)", ".view(2, 2)" when the name's shape has more dims. */
static void arange_expr(char *out, size_t n, int64_t first, int64_t count, const char *dtype, const int64_t *shape,
                        int ndim, const char *device) {
    char view[160] = "", dev[32] = "";
    if (ndim > 1) {
        size_t k = (size_t)snprintf(view, sizeof view, ".view(");
        for (int d = 0; d < ndim && k < sizeof view; d++)
            k += (size_t)snprintf(view + k, sizeof view - k, "%s%" PRId64, d ? ", " : "", shape[d]);
        if (k < sizeof view) snprintf(view + k, sizeof view - k, ")");
    }
    if (device_arg(device)) snprintf(dev, sizeof dev, ", device='%s'", device);
    if (first) snprintf(out, n, "torch.arange(%" PRId64 ", %" PRId64 ", dtype=torch.%s%s)%s", first, first + count,
                        dtype, dev, view);
    else snprintf(out, n, "torch.arange(%" PRId64 ", dtype=torch.%s%s)%s", count, dtype, dev, view);
}

/* A tensor of the case's own values: torch.tensor([...]) for small storages. */
static int literal_expr(char *out, size_t n, const ss_case *c, const uint8_t *b, int64_t count, const int64_t *shape,
                        int ndim, const char *device) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return -1;
    fputs("torch.tensor(", f);
    values_list(f, c, b, (long)(count * (int64_t)c->op.elem_size));
    fprintf(f, ", dtype=torch.%s%s%s%s)", ss_dtype_name(c->dtype), device_arg(device) ? ", device='" : "",
            device_arg(device) ? device : "", device_arg(device) ? "'" : "");
    if (ndim > 1) {
        fputs(".view(", f);
        for (int d = 0; d < ndim; d++) fprintf(f, "%s%" PRId64, d ? ", " : "", shape[d]);
        fputc(')', f);
    }
    const int ok = !fclose(f) && len < n && !strstr(text, "nan") && !strstr(text, "inf");
    if (ok) snprintf(out, n, "%s", text);
    free(text);
    return ok ? 0 : -1;
}

static int shape_of(const cJSON *a, int64_t *shape, int *ndim, int64_t *numel) {
    *ndim = 0;
    *numel = 1;
    const cJSON *d;
    cJSON_ArrayForEach(d, a) {
        if (!cJSON_IsNumber(d) || *ndim >= SS_MAX_NDIM || d->valuedouble < 0 || d->valuedouble > 1e9) return -1;
        const int64_t v = (int64_t)d->valuedouble;
        if (v && *numel > (INT64_C(1) << 40) / v) return -1;   /* checked before it could overflow */
        shape[(*ndim)++] = v;
        *numel *= v;
    }
    return *ndim ? 0 : -1;
}

/* The first call of the automatic switch, on the shapes the script used (its values:
 * start, start + 1, ... wrapping at 100, as the script's `dense` makes them). */
static void first_call_arg(char *out, size_t n, const cJSON *shape, int64_t start, const ss_case *c, const char *dev) {
    int64_t s[SS_MAX_NDIM], numel;
    int nd;
    if (shape_of(shape, s, &nd, &numel)) { snprintf(out, n, "None"); return; }
    const char *dt = ss_dtype_name(c->dtype);
    if (c->dtype != SS_BOOL && start + numel <= 100) {
        arange_expr(out, n, start, numel, dt, s, nd, dev);
        return;
    }
    char view[160] = "";
    if (nd > 1) {
        size_t k = (size_t)snprintf(view, sizeof view, ".view(");
        for (int d = 0; d < nd && k < sizeof view; d++)
            k += (size_t)snprintf(view + k, sizeof view - k, "%s%" PRId64, d ? ", " : "", s[d]);
        if (k < sizeof view) snprintf(view + k, sizeof view - k, ")");
    }
    snprintf(out, n, "(torch.arange(%" PRId64 ", %" PRId64 ") %% %d).to(torch.%s)%s", start, start + numel,
             c->dtype == SS_BOOL ? 2 : 100, dt, view);
}

typedef struct md_job { const ss_issue *iss; } md_job;

/* The automatic switch's first call, on the shapes the script's first call used. */
static int first_call(FILE *f, const ss_issue *iss, const issue_pick *p, int two_args, const char *dev) {
    const cJSON *first = cJSON_GetObjectItemCaseSensitive(p->run, "first_call_shapes");
    if (!str(p->run, "kind") || strcmp(str(p->run, "kind"), "automatic") || !cJSON_IsArray(first)) return 0;
    char a[512], b[512] = "";
    first_call_arg(a, sizeof a, cJSON_GetArrayItem(first, 0), 0, iss->c, dev);
    if (two_args) first_call_arg(b, sizeof b, cJSON_GetArrayItem(first, 1), 7, iss->c, dev);
    fprintf(f, "f(%s%s%s)  # another size first: the next call recompiles with dynamic shapes\n", a, two_args ? ", " : "", b);
    return 1;
}

/* The repro: at most ten lines, user code. The one-input form takes the storage(s) as x (and y);
 * the two-input form (p->two) takes x and src, two views of the storage `base`. sel: a subscript
 * of the printed storage ("" for all of it). Returns its line count, or -1 when it cannot be written. */
static int repro(FILE *f, const ss_issue *iss, const issue_pick *p, const uint8_t *in, const uint8_t *src,
                 const char *sel, const char *expected_comment) {
    const ss_case *c = iss->c;
    const ss_pyexpr *e = p->two ? &iss->based : &iss->expr;
    const char *kind = str(p->run, "kind") ? str(p->run, "kind") : "eager", *dev = str(p->run, "device");
    const char *dt = ss_dtype_name(c->dtype);
    char stmt[4 * SS_PYEXPR_LEN + 512], xs[4096], ys[4096] = "", args[2 * SS_PYEXPR_LEN + 8];
    ss_export_statement(iss->how.spelling, c, p->two ? &iss->two : e, stmt, sizeof stmt);
    const int64_t n = c->op.input_storage_numel, m = c->op.src_aliased ? 0 : c->op.src_storage_numel;
    if (p->arange) {
        arange_expr(xs, sizeof xs, 0, n, dt, e->x_shape, e->x_ndim, dev);
        if (m) arange_expr(ys, sizeof ys, n, m, dt, e->y_shape, e->y_ndim, dev);
    } else if (n + m > SHOW_ALL_MAX || literal_expr(xs, sizeof xs, c, in, n, e->x_shape, e->x_ndim, dev) ||
               (m && literal_expr(ys, sizeof ys, c, src, m, e->y_shape, e->y_ndim, dev))) {
        return -1;
    }
    if (p->two) snprintf(args, sizeof args, "%s, %s", e->target, e->rhs);   /* two views of base */
    else snprintf(args, sizeof args, "%s%s%s", e->x, m ? ", " : "", m ? e->y : "");
    int lines = 0;
    fputs("```python\nimport torch\n", f);
    lines++;
    if (ss_issue_decorator(kind, 1)) fprintf(f, "%s\n", ss_issue_decorator(kind, 1)), lines++;
    fprintf(f, "def f(%s):\n    ", p->two ? "x, src" : args);
    lines += 2;
    for (const char *s = stmt; *s; s++) {
        if (*s == '\n') fputs("\n    ", f), lines++;
        else fputc(*s, f);
    }
    fputc('\n', f);
    lines += first_call(f, iss, p, m || p->two, dev);
    if (m) fprintf(f, "%s, %s = %s, %s\n", e->x, e->y, xs, ys);
    else fprintf(f, "%s = %s\n", e->x, xs);
    if (!strcmp(iss->how.spelling, "scatter-return")) fprintf(f, "%s.copy_(f(%s))\n", e->target, args);
    else fprintf(f, "f(%s)\n", args);
    fprintf(f, "print(%s%s%s.tolist())%s%s\n```\n", e->x, e->x_ndim > 1 ? ".flatten()" : "", sel,
            expected_comment[0] ? "  # expected " : "", expected_comment);
    return lines + 3;
}

const char *ss_issue_kind_at(size_t i) {
    const ss_torch_mode *m = ss_torch_mode_in_stage_order(i, 0);
    if (m) return m->kind;
    return i > 0 && ss_torch_mode_in_stage_order(i - 1, 0) ? "automatic" : NULL;   /* just past the modes */
}

/* The decorators of each kind (ss_torch_modes.h), built once: "@torch.compile(" and the
 * backend unless inductor, then dynamic=True, or dynamic=False spelled out or left to
 * torch's default. The automatic switch is torch's default decorator. */
const char *ss_issue_decorator(const char *kind, int static_spelled) {
    static char made[SS_TB_COUNT * 2][2][72];
    if (kind && !strcmp(kind, "automatic")) return "@torch.compile";
    const ss_torch_mode *m = kind ? ss_torch_mode_of_kind(kind, 0) : NULL;
    if (!m || m->backend == SS_TB_NONE) return NULL;
    char *d = made[ss_torch_stage_rank(m)][static_spelled != 0];
    if (!d[0]) {
        char backend[40] = "";
        if (m->backend != SS_TB_INDUCTOR) snprintf(backend, sizeof backend, "backend=\"%s\"", ss_torch_backend_name(m->backend));
        const char *dyn = m->dynamic ? "dynamic=True" : static_spelled ? "dynamic=False" : "";
        if (!backend[0] && !dyn[0]) snprintf(d, sizeof made[0][0], "@torch.compile");
        else snprintf(d, sizeof made[0][0], "@torch.compile(%s%s%s)", backend, backend[0] && dyn[0] ? ", " : "", dyn);
    }
    return d;
}

const char *ss_issue_stage_words(const char *stage) {
    if (!stage) return NULL;
    if (!strcmp(stage, "inductor"))
        return "**inductor**: the program agrees under `backend=\"eager\"` (dynamo's graph alone) and under "
               "`backend=\"aot_eager\"` (AOT autograd with functionalization), and is wrong only when inductor "
               "compiles it";
    if (!strcmp(stage, "aot"))
        return "**AOT autograd / functionalization**: the program agrees under `backend=\"eager\"` (dynamo's "
               "graph alone) and is already wrong under `backend=\"aot_eager\"`";
    if (!strcmp(stage, "eager"))
        return "**eager**: the program is already wrong without `torch.compile` (eager's own result on this "
               "overlap); the compiled program reproduces it";
    if (!strcmp(stage, "dynamo")) return "**dynamo**: the program is already wrong under `backend=\"eager\"` (dynamo's graph alone)";
    return NULL;
}

/* "1 of 4 elements differ" between two storages; *first the first index. */
static long count_diff(const uint8_t *a, const uint8_t *b, long nbytes, size_t es, long *first) {
    long k = 0;
    *first = -1;
    for (long i = 0; i < nbytes / (long)es; i++)
        if (memcmp(a + i * es, b + i * es, es)) { if (*first < 0) *first = i; k++; }
    return k;
}

/* A Markdown table cell: inert, pipes escaped. */
void ss_issue_cell(FILE *f, const char *s) {
    char safe[1200];
    ss_text_inert(s ? s : "", safe, sizeof safe);
    for (const char *p = safe; *p; p++) {
        if (*p == '|') fputc('\\', f);
        fputc(*p, f);
    }
}

void ss_issue_releases(FILE *f, const ss_issue *iss, const char *how) {
    fprintf(f, "## Releases tried\n\nThe exported script (`ssfuzz export --torch`), run in a fresh interpreter of each "
            "release, %s:\n\n| torch | python | exit | verdicts |\n|---|---|---|---|\n", how);
    for (size_t i = 0; i < iss->n_runs; i++) {
        const ss_issue_run *r = &iss->runs[i];
        fputs("| ", f);
        ss_issue_cell(f, str(r->actual, "torch") ? str(r->actual, "torch") : "?");
        fputs(" | `", f);
        ss_issue_cell(f, r->python);
        fputs("` | ", f);
        if (r->failure[0]) { fprintf(f, "%d | ", r->exit_code); ss_issue_cell(f, r->failure); fputs(" |\n", f); continue; }
        fprintf(f, "%d | ", r->exit_code);
        const cJSON *e;
        int k = 0;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r->actual, "notes"))
            if (cJSON_IsString(e)) { fputs(k++ ? "; " : "", f); ss_issue_cell(f, e->valuestring); }
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r->actual, "runs")) {
            char one[600];
            snprintf(one, sizeof one, "%s%s: %s%s%s", k++ ? "; " : "", str(e, "mode") ? str(e, "mode") : "?",
                     str(e, "verdict") ? str(e, "verdict") : "?", str(e, "stage") ? ", stage " : "",
                     str(e, "stage") ? str(e, "stage") : "");
            ss_issue_cell(f, one);
        }
        fputs(" |\n", f);
    }
}

void ss_issue_environment(FILE *f, const ss_issue *iss) {
    const ss_case *c = iss->c;
    fputs("\n## Environment\n\n", f);
    const ss_issue_run *r0 = iss->n_runs ? &iss->runs[0] : &iss->arange;
    fprintf(f, "- torch %s, python %s, %s\n", str(r0->actual, "torch") ? str(r0->actual, "torch") : "?",
            str(r0->actual, "python") ? str(r0->actual, "python") : "?",
            str(r0->actual, "platform") ? str(r0->actual, "platform") : "?");
    const char *found_by = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c->meta, "found_by"));
    char safe[600], quoted[700];
    ss_text_inert(found_by ? found_by : "", safe, sizeof safe);
    fprintf(f, "- %s ssfuzz %s%s%s%s: mode %s, form `%s`, spelling `%s`\n", found_by ? "found by" : "a hand-written case, reported by",
            SS_VERSION, found_by ? " (`" : "", safe, found_by ? "`)" : "", iss->how.mode, iss->how.form, iss->how.spelling);
    if (ss_shell_quote(iss->case_path, quoted, sizeof quoted) < 0) snprintf(quoted, sizeof quoted, "CASE");
    ss_text_inert(quoted, safe, sizeof safe);
    fprintf(f, "- the case exactly as found: `ssfuzz export --torch %s > repro.py && python repro.py` (exit 1: the "
            "wrong result reproduced; `--stage` names the first wrong stage)\n", safe);
}

/* The values of a storage as a Python list, into out ("" when they do not fit). */
static void expected_values(const ss_case *c, const uint8_t *b, long nbytes, char *out, size_t n) {
    char *t = NULL;
    size_t tl = 0;
    FILE *g = open_memstream(&t, &tl);
    if (!g) return;
    values_list(g, c, b, nbytes);
    if (!fclose(g) && tl < n) snprintf(out, n, "%s", t);
    free(t);
}

/* A storage too long to print whole: the repro prints its first wrong elements, "[[50, 55, 60]]",
 * and the comment their expected values. */
static void diff_selection(const ss_case *c, const uint8_t *want, const uint8_t *got, int64_t n, char *sel,
                           size_t nsel, char *comment, size_t ncomment) {
    const size_t es = c->op.elem_size;
    uint8_t picked[8 * 16];
    size_t k = (size_t)snprintf(sel, nsel, "[["), shown = 0;
    for (int64_t i = 0; i < n && shown < 8 && k < nsel; i++) {
        if (!memcmp(want + i * (int64_t)es, got + i * (int64_t)es, es)) continue;
        memcpy(picked + shown * es, want + i * (int64_t)es, es);
        k += (size_t)snprintf(sel + k, nsel - k, "%s%" PRId64, shown++ ? ", " : "", i);
    }
    if (k + 2 >= nsel || !shown) { sel[0] = 0; return; }
    snprintf(sel + k, nsel - k, "]]");
    expected_values(c, picked, (long)(shown * es), comment, ncomment);
    if (!comment[0]) sel[0] = 0;   /* without the expectation the whole storage is printed */
}

/* Which user form the repro is, for a two-inputs finding: the one-input form when it is wrong too,
 * else x and src as two inputs, with what the one-input form said. */
static void which_form(FILE *f, const issue_pick *p) {
    if (!p->two) {
        fputs("\nThe repro is the one-input user form (`src` indexed from the storage inside the compiled "
              "function); the finding was made with `x` and `src` as two inputs viewing one storage (form "
              "`two-inputs`), and the one-input form is wrong too.\n", f);
        return;
    }
    const cJSON *one = find_run(p->from, str(p->run, "kind") ? str(p->run, "kind") : "eager", "user", 0);
    const char *v = str(one, "verdict");
    fprintf(f, "\nThe repro is the two-input user form (`user-two-inputs`): `x` and `src` reach the compiled function "
            "as two inputs that view one storage, as in the finding (form `two-inputs`). The one-input form (`src` "
            "indexed from the storage inside the compiled function) %s%s%s here.\n",
            !v ? "did not run" : !strcmp(v, "agree") ? "agrees" : "gives `", v && strcmp(v, "agree") ? v : "",
            v && strcmp(v, "agree") ? "`" : "");
}

static int emit(FILE *f, const void *user) {
    const md_job *j = user;
    const ss_issue *iss = j->iss;
    const ss_case *c = iss->c;
    issue_pick p;
    pick(iss, &p);
    if (!p.found && nothing_wrong(iss)) {
        /* it ran, and no run was wrong (or it was refused): there is nothing to report */
        fprintf(f, "# ssfuzz: no wrong result here: nothing to report\n\nThe exported script ran the case (mode %s, "
                "form `%s`, spelling `%s`) and no run wrote wrong values or raised where eager runs.\n\n",
                iss->how.mode, iss->how.form, iss->how.spelling);
        ss_issue_releases(f, iss, "in the mode and form the case names and as user code");
        ss_issue_environment(f, iss);
        return 0;
    }
    if (!p.run || !p.from || !p.from->expected) {
        fprintf(f, "# ssfuzz: the case did not run as user code\n\nNo script run produced a result (%s).\n",
                iss->n_runs && iss->runs[0].failure[0] ? iss->runs[0].failure : "see the exported script");
        return 0;
    }
    const size_t es = c->op.elem_size, cap = (size_t)c->op.input_storage_numel * es;
    uint8_t *want = malloc(cap + 1), *got = malloc(cap + 1), *src = NULL;
    uint8_t *in = malloc(cap + 1);
    long nw = -1, ng = -1;
    if (want && got && in) {
        nw = unhex(str(p.from->expected, "input"), want, cap);
        ng = unhex(str(p.run, "input"), got, cap);
    }
    /* the case's own values for a literal repro: the script's expectation knows them only
       after the write, so they are regenerated here */
    if (in) {
        ss_storage si = {0}, ss = {0};
        if (!ss_storage_reserve(&si, cap, 0) &&
            !ss_storage_reserve(&ss, c->op.src_aliased ? 0 : (size_t)c->op.src_storage_numel * es, 0)) {
            ss_fill_case(c, &si, &ss);
            memcpy(in, ss_storage_data(&si), cap);
            if (!c->op.src_aliased && (src = malloc(ss.bytes + 1))) memcpy(src, ss_storage_data(&ss), ss.bytes);
        }
        ss_storage_free(&si);
        ss_storage_free(&ss);
    }
    long first = -1, ndiff = nw == (long)cap && ng == nw ? count_diff(want, got, nw, es, &first) : -1;
    const int64_t n = c->op.input_storage_numel;
    const char *kind = str(p.run, "kind") ? str(p.run, "kind") : "eager";
    const char *verdict = str(p.run, "verdict"), *dev = str(p.run, "device");
    const char *torch_v = str(p.from->actual, "torch");
    char stmt[4 * SS_PYEXPR_LEN + 512], comment[600] = "", sel[200] = "";
    ss_export_statement(iss->how.spelling, c, p.two ? &iss->two : &iss->expr, stmt, sizeof stmt);
    for (char *s = stmt; *s; s++) if (*s == '\n') *s = ';';
    if (nw > 0 && n <= 16) expected_values(c, want, nw, comment, sizeof comment);
    else if (p.two && ndiff > 0) diff_selection(c, want, got, n, sel, sizeof sel, comment, sizeof comment);
    /* title: the symptom in one line */
    char backend_how[96] = "", backend_what[128] = "";
    if (backend_call(kind)) {
        snprintf(backend_how, sizeof backend_how, "%s writes wrong values", backend_call(kind));
        /* no word on eager: backend "eager" runs dynamo's graph as eager code, which may be wrong too */
        snprintf(backend_what, sizeof backend_what, "is wrong under `%s`", backend_call(kind));
    }
    const char *how = !strcmp(kind, "automatic") ? "torch.compile writes wrong values once it recompiles with dynamic shapes"
                    : !strcmp(kind, "compile-dynamic") ? "torch.compile(dynamic=True) writes wrong values"
                    : !strcmp(kind, "compile") ? "torch.compile writes wrong values"
                    : backend_how[0] ? backend_how : "eager PyTorch writes wrong values";
    if (verdict && !strcmp(verdict, "raised")) how = "torch.compile raises where eager runs";
    fprintf(f, "# %s for `%.160s`%s (%s, %s", how, stmt,
            p.two ? " with `x` and `src` two inputs viewing one storage" : "", ss_dtype_name(c->dtype), dev ? dev : "cpu");
    if (ndiff > 0) fprintf(f, ": %ld of %" PRId64 " elements", ndiff, n);
    fputs(")\n\n", f);
    fprintf(f, "An in-place slice write whose source reads the same storage, `%.300s`, %s.\n", stmt,
            !strcmp(kind, "automatic") ? "is right on the first size a compiled function sees and wrong from the "
                                         "second size on, when dynamo recompiles it with dynamic shapes"
            : !strcmp(kind, "compile-dynamic") ? "is wrong under `torch.compile(dynamic=True)`; eager is right"
            : !strcmp(kind, "compile") ? "is wrong under `torch.compile`; eager is right"
            : backend_what[0] ? backend_what : "is wrong in eager mode");
    fputs("The expected values follow PyTorch's documented meaning: the right-hand side is read completely before "
          "any element is written (as if it were cloned).\n\n## Reproduce\n\n", f);
    int lines = repro(f, iss, &p, in, src, sel, comment);
    if (lines < 0) fputs("(the values do not fit a short repro: see the attached script)\n", f);
    if (iss->two_inputs) which_form(f, &p);
    if (!p.reproduced)
        fputs("\nNote: this user-code form did **not** reproduce here; the exported script in the form the "
              "finding was made in does (see the releases below).\n", f);
    fputs("\n## Expected and actual\n\n", f);
    if (ndiff >= 0) {
        const ss_pyexpr *e = p.two ? &iss->based : &iss->expr;
        fprintf(f, "`%s` after the call%s, torch %s on %s:\n\n", e->x, e->x_ndim > 1 ? " (flattened)" : "",
                torch_v ? torch_v : "?", dev ? dev : "cpu");
        if (n <= SHOW_ALL_MAX) {
            fputs("```\nexpected: ", f);
            values_list(f, c, want, nw);
            fputs("\nactual:   ", f);
            values_list(f, c, got, ng);
            fputs("\n```\n\n", f);
        }
        fprintf(f, "%ld of %" PRId64 " elements differ", ndiff, n);
        for (long i = 0, shown = 0; ndiff > 0 && i < (long)n && shown < 8; i++) {
            if (!memcmp(want + i * es, got + i * es, es)) continue;
            char a[64], b[64];
            ss_value_number(c->dtype, want + i * es, a, sizeof a);
            ss_value_number(c->dtype, got + i * es, b, sizeof b);
            fprintf(f, "%s index %ld: expected %s, got %s", shown++ ? ";" : ":", i, a, b);
        }
        fputs(ndiff > 8 ? "; ...\n" : ".\n", f);
    } else {
        const char *why = str(p.run, "error");
        fputs("The compiled run raised: `", f);
        ss_issue_cell(f, why ? why : "(no message)");
        fputs("`\n", f);
    }
    fputc('\n', f);
    ss_issue_releases(f, iss, "in the mode and form the finding was made in and as user code");
    fputs("\n## Compile stage\n\n", f);
    const cJSON *st = p.found && str(p.found, "stage") ? p.found : p.run;
    const char *words = ss_issue_stage_words(str(st, "stage"));
    if (words && backend_call(kind))
        fprintf(f, "`%s` stops before inductor; rerun under the backends before it (same mode and form): first wrong "
                "stage %s.\n", backend_call(kind), words);
    else if (words) fprintf(f, "Rerun under each backend (`torch.compile(backend=...)`, same mode and form): first wrong stage %s.\n", words);
    else if (!strcmp(kind, "eager")) fputs("Eager mode: no compiler stage is involved.\n", f);
    else fputs("Not determined (the stage reruns did not run).\n", f);
    ss_issue_environment(f, iss);
    free(want);
    free(got);
    free(in);
    free(src);
    return lines > REPRO_MAX_LINES ? -1 : 0;
}

int ss_issue_write(const char *path, const ss_issue *iss, ss_error *err) {
    const md_job j = {iss};
    return ss_write_atomic_with(path, emit, &j, err);
}
