/* ss_export_issue_prog_md.c - a program case's upstream report as Markdown: a title from the first
 * wrong step and the symptom, a repro of at most ten lines (the program under @torch.compile on
 * small tensors, the wrong value or aliasing fact printed next to what is expected), releases,
 * the stage, the environment. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ss_compare.h"
#include "ss_export_issue_prog.h"
#include "ss_files.h"
#include "ss_program_py.h"
#include "ss_text.h"
#include "ss_value_fmt.h"

#define REPRO_MAX_LINES 10
#define LITERAL_MAX 32    /* storages up to this many elements may be written out as torch.tensor([...]) */
#define EXPECT_MAX 64     /* values listed in `# expected [...]` and in the expected/actual lines */
#define RELEASES_HOW \
    "in the modes the finding was made in (every mode for a hand-written case), with the case's own values"

static const char *str(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *who(const char *kind) {
    if (!kind || !strcmp(kind, "eager")) return "eager PyTorch";
    if (!strcmp(kind, "automatic")) return "torch.compile after a recompile with dynamic shapes";
    const char *d = ss_issue_decorator(kind, 0);
    return d ? d + 1 : "torch.compile";   /* "torch.compile(backend=...)" without the '@' */
}

static int device_arg(const char *device) {
    if (!device || !strcmp(device, "cpu") || strlen(device) > 16) return 0;
    for (const char *p = device; *p; p++)
        if (!(*p >= 'a' && *p <= 'z')) return 0;
    return 1;
}

static void view_suffix(FILE *f, const int64_t *shape, int ndim) {
    if (ndim <= 1) return;
    fputs(".view(", f);
    for (int d = 0; d < ndim; d++) fprintf(f, "%s%" PRId64, d ? ", " : "", shape[d]);
    fputc(')', f);
}

/* A storage as the repro builds it: torch.arange(first, first + count).to(dtype), or its own
 * values as torch.tensor([...]); shaped as the case's Python line names it. -1: no short form. */
static int storage_expr(FILE *f, const ss_issue_prog *ip, const uint8_t *b, int64_t first, int64_t count,
                        const int64_t *shape, int ndim, const char *dev) {
    const ss_case *c = ip->iss.c;
    const char *dt = ss_dtype_name(c->dtype);
    if (ip->arange) {
        fprintf(f, "torch.arange(");
        if (first) fprintf(f, "%" PRId64 ", ", first);
        fprintf(f, "%" PRId64 "%s%s%s).to(torch.%s)", first + count, device_arg(dev) ? ", device='" : "",
                device_arg(dev) ? dev : "", device_arg(dev) ? "'" : "", dt);
    } else {
        char *t = NULL;
        size_t len = 0;
        FILE *g = open_memstream(&t, &len);
        if (!g) return -1;
        ss_issue_values_list(g, c->dtype, b, (long)(count * (int64_t)c->op.elem_size));
        const int bad = fclose(g) || strstr(t, "nan") || strstr(t, "inf");
        if (!bad) fprintf(f, "torch.tensor(%s, dtype=torch.%s%s%s%s)", t, dt, device_arg(dev) ? ", device='" : "",
                          device_arg(dev) ? dev : "", device_arg(dev) ? "'" : "");
        free(t);
        if (bad) return -1;
    }
    view_suffix(f, shape, ndim);
    return 0;
}

/* What the repro prints: the wrong returned value, an aliasing fact, a storage, the
 * returned values' dtypes and shapes, or (a compiled raise) the storage eager leaves. */
typedef enum { SHOW_VALUE, SHOW_ALIAS, SHOW_STORAGE, SHOW_SHAPES } show_kind;

typedef struct shown_fact {
    show_kind kind;
    int ret;                   /* SHOW_VALUE, SHOW_ALIAS: the returned value */
    int storage;               /* SHOW_STORAGE: SS_STORAGE_*; SHOW_ALIAS: the storage compared with */
    int expect_shared;         /* SHOW_ALIAS: what identity must say */
} shown_fact;

static shown_fact fact_of(const ss_issue_prog *ip) {
    shown_fact s = {SHOW_STORAGE, 0, SS_STORAGE_INPUT, 0};
    if (!ip->has_diff) return s;
    const ss_prog_diff *d = &ip->diff;
    switch (d->kind) {
    case SS_PD_STORAGE: s.storage = d->storage; return s;
    case SS_PD_RET_VALUE: s.kind = SHOW_VALUE; s.ret = d->ret; return s;
    case SS_PD_RET_ALIAS: {
        const ss_prog_value *e = &ip->ref.ret[d->ret];
        const ss_prog_actual_value *a = &ip->act.ret[d->ret];
        const size_t n = (size_t)e->numel * ss_dtype_size(e->dtype);
        s.ret = d->ret;
        if (a->nbytes == n && memcmp(a->bytes, e->bytes, n)) { s.kind = SHOW_VALUE; return s; }   /* values show it too */
        s.kind = SHOW_ALIAS;
        s.expect_shared = d->expect_shares != 0;
        const int bits = s.expect_shared ? d->expect_shares : d->actual_shares;
        s.storage = bits & 1 ? SS_STORAGE_INPUT : SS_STORAGE_SRC;
        return s;
    }
    case SS_PD_RET_COUNT: case SS_PD_RET_DTYPE: case SS_PD_RET_SHAPE: s.kind = SHOW_SHAPES; return s;
    default: return s;
    }
}

/* The Python name of a storage in the repro (the separate src storage is `y`). */
static const char *storage_name(const ss_issue_prog *ip, int storage) {
    return storage == SS_STORAGE_SRC && !ip->iss.c->op.src_aliased ? ip->iss.expr.y : ip->iss.expr.x;
}

/* `# expected ...` text for the fact; "" when too long to list. */
static void expected_text(const ss_issue_prog *ip, const shown_fact *s, char *out, size_t n) {
    out[0] = 0;
    char *t = NULL;
    size_t len = 0;
    FILE *g = open_memstream(&t, &len);
    if (!g) return;
    const ss_prog_result *r = &ip->ref;
    if (s->kind == SHOW_VALUE && r->ret[s->ret].numel <= EXPECT_MAX) {
        const ss_prog_value *v = &r->ret[s->ret];
        if (v->view.ndim == 0) {
            char one[64];
            ss_value_number(v->dtype, v->bytes, one, sizeof one);
            fputs(one, g);
        } else {
            ss_issue_values_list(g, v->dtype, v->bytes, (long)((size_t)v->numel * ss_dtype_size(v->dtype)));
        }
    } else if (s->kind == SHOW_ALIAS) {
        fputs(s->expect_shared ? "True" : "False", g);
    } else if (s->kind == SHOW_SHAPES) {
        fputc('[', g);
        for (int i = 0; i < r->nret; i++) {
            fprintf(g, "%s(torch.%s, (", i ? ", " : "", ss_dtype_name(r->ret[i].dtype));
            for (int d = 0; d < r->ret[i].view.ndim; d++)
                fprintf(g, "%s%" PRId64, d ? ", " : "", r->ret[i].view.sizes[d]);
            fputs(r->ret[i].view.ndim == 1 ? ",))" : "))", g);
        }
        fputc(']', g);
    } else if (s->kind == SHOW_STORAGE) {
        const ss_storage *st = s->storage == SS_STORAGE_SRC ? &ip->ref_src : &ip->ref_in;
        if (st->bytes / ip->iss.c->op.elem_size <= EXPECT_MAX)
            ss_issue_values_list(g, ip->iss.c->dtype, ss_storage_data(st), (long)st->bytes);
    }
    if (!fclose(g) && len < n) snprintf(out, n, "%s", t);
    free(t);
}

/* The program's step lines (and its return) in at most `room` lines: steps joined by "; "
 * when there are more. Returns the lines written. */
static int program_lines(FILE *f, const ss_issue_prog *ip, int room) {
    char *t = NULL;
    size_t len = 0;
    FILE *g = open_memstream(&t, &len);
    if (!g) return 0;
    ss_program_py_lines(g, ip->iss.c, &ip->iss.plan, "");
    if (fclose(g)) { free(t); return 0; }
    int n = 0;
    for (const char *p = t; *p; p++) n += *p == '\n';
    const int per = room > 0 ? (n + room - 1) / room : n;
    int k = 0, lines = 0;
    for (char *p = t; *p;) {
        char *e = strchr(p, '\n');
        if (!e) break;
        *e = 0;
        fprintf(f, "%s%s", k % per ? "; " : "    ", p);
        if (++k % per == 0 || k == n) fputc('\n', f), lines++;
        p = e + 1;
    }
    free(t);
    return lines;
}

/* The repro: at most ten lines. Returns its line count, or -1 when it cannot be written. */
static int repro(FILE *f, const ss_issue_prog *ip, const shown_fact *s) {
    const ss_case *c = ip->iss.c;
    const ss_pyexpr *e = &ip->iss.expr;
    const cJSON *run = ip->shown;
    const char *kind = str(run, "kind"), *dev = str(run, "device"), *dec = ss_issue_decorator(kind, 0);
    const int raised = str(run, "verdict") && !strcmp(str(run, "verdict"), "raised");
    const int64_t n = c->op.input_storage_numel, m = c->op.src_aliased ? 0 : c->op.src_storage_numel;
    const cJSON *first = cJSON_GetObjectItemCaseSensitive(run, "first_call_shapes");
    const int first_call = kind && !strcmp(kind, "automatic") && cJSON_GetArraySize(first) == 2;
    if (!ip->expr_ok || (!ip->arange && n + m > LITERAL_MAX)) return -1;
    char *vals = NULL;
    size_t vlen = 0;
    FILE *v = open_memstream(&vals, &vlen);
    if (!v) return -1;
    fprintf(v, "%s%s%s = ", e->x, m ? ", " : "", m ? e->y : "");
    int bad = storage_expr(v, ip, ss_storage_data(&ip->init_in), 0, n, e->x_shape, e->x_ndim, dev);
    if (m) {
        fputs(", ", v);
        bad |= storage_expr(v, ip, ss_storage_data(&ip->init_src), n, m, e->y_shape, e->y_ndim, dev);
    }
    if (fclose(v) || bad) { free(vals); return -1; }
    char call[2 * SS_PYEXPR_LEN + 32], expect[1200];
    snprintf(call, sizeof call, "program(%s, %s)", e->target, e->rhs);
    expected_text(ip, s, expect, sizeof expect);
    const int print_lines = s->kind == SHOW_VALUE || s->kind == SHOW_SHAPES ? 1 : 2;
    const int fixed = 1 + (dec != NULL) + 1 + first_call + 1 + print_lines;
    fputs("```python\nimport torch\n", f);
    if (dec) fprintf(f, "%s\n", dec);
    fputs("def program(x, src):\n", f);
    const int body = program_lines(f, ip, REPRO_MAX_LINES - fixed);
    if (first_call) {   /* the automatic switch: another size first, as the script did */
        fputs("program(", f);
        for (int i = 0; i < 2; i++) {
            const cJSON *sh = cJSON_GetArrayItem(first, i), *d;
            int64_t shape[SS_MAX_NDIM], cnt = 1;
            int nd = 0;
            cJSON_ArrayForEach(d, sh) {
                if (!cJSON_IsNumber(d) || nd >= SS_MAX_NDIM || d->valuedouble < 0 || d->valuedouble > 1e6) break;
                shape[nd++] = (int64_t)d->valuedouble;
                cnt *= shape[nd - 1];
            }
            fprintf(f, "%storch.arange(%" PRId64 ").to(torch.%s)", i ? ", " : "", cnt, ss_dtype_name(c->dtype));
            view_suffix(f, shape, nd);
        }
        fputs(")  # another size first: the next call recompiles with dynamic shapes\n", f);
    }
    fprintf(f, "%s\n", vals);
    free(vals);
    const char *tail = expect[0] ? "  # expected " : "";
    if (raised) {
        fprintf(f, "%s  # raises; eager runs it\nprint(%s%s.tolist())%s%s\n", call, e->x, e->x_ndim > 1 ? ".flatten()" : "",
                tail, expect);
    } else if (s->kind == SHOW_VALUE) {
        fprintf(f, "print(%s[%d]%s.tolist())%s%s\n", call, s->ret, ip->ref.ret[s->ret].view.ndim > 1 ? ".flatten()" : "",
                tail, expect);
    } else if (s->kind == SHOW_ALIAS) {
        fprintf(f, "r = %s[%d]\nprint(r.untyped_storage().data_ptr() == %s.untyped_storage().data_ptr())  # expected %s\n",
                call, s->ret, storage_name(ip, s->storage), expect);
    } else if (s->kind == SHOW_SHAPES) {
        fprintf(f, "print([(t.dtype, tuple(t.shape)) for t in %s])%s%s\n", call, tail, expect);
    } else {
        const int src_st = s->storage == SS_STORAGE_SRC && m;
        fprintf(f, "%s\nprint(%s%s.tolist())%s%s\n", call, storage_name(ip, s->storage),
                (src_st ? e->y_ndim : e->x_ndim) > 1 ? ".flatten()" : "", tail, expect);
    }
    fputs("```\n", f);
    return fixed + body;
}

/* The symptom in words, for the title. */
static void symptom(const ss_issue_prog *ip, char *out, size_t n) {
    const ss_prog_diff *d = &ip->diff;
    const char *st = d->storage == SS_STORAGE_SRC ? "src's" : "x's";
    if (str(ip->shown, "verdict") && !strcmp(str(ip->shown, "verdict"), "raised")) {
        snprintf(out, n, "raises where eager runs the program");
        return;
    }
    switch (ip->has_diff ? d->kind : SS_PD_NONE) {
    case SS_PD_STORAGE: snprintf(out, n, "writes a wrong value into %s storage", st); return;
    case SS_PD_RET_VALUE: snprintf(out, n, "returns a wrong value"); return;
    case SS_PD_RET_ALIAS:
        if (!d->expect_shares)
            snprintf(out, n, "returns a tensor that shares %s storage where a fresh tensor is expected",
                     d->actual_shares & 1 ? "x's" : "src's");
        else snprintf(out, n, "returns a copy where a view of %s storage is expected", d->expect_shares & 1 ? "x's" : "src's");
        return;
    case SS_PD_RET_COUNT: snprintf(out, n, "returns %d values where %d are expected", d->actual_shares, d->expect_shares); return;
    case SS_PD_RET_DTYPE: snprintf(out, n, "returns a value of another dtype"); return;
    case SS_PD_RET_SHAPE: snprintf(out, n, "returns a value of another shape"); return;
    default: snprintf(out, n, "gives a wrong result"); return;
    }
}

static void program_block(FILE *f, const ss_issue_prog *ip) {
    fputs("```python\n", f);
    ss_program_py_function(f, ip->iss.c, &ip->iss.plan);
    fputs("```\n", f);
}

static void expected_actual(FILE *f, const ss_issue_prog *ip, const shown_fact *s) {
    fputs("\n## Expected and actual\n\n", f);
    if (str(ip->shown, "verdict") && !strcmp(str(ip->shown, "verdict"), "raised")) {
        fputs("The compiled program raised: `", f);
        ss_issue_cell(f, str(ip->shown, "error") ? str(ip->shown, "error") : "(no message)");
        fputs("`; eager runs it.\n", f);
        return;
    }
    if (!ip->has_diff) {
        fputs("The script's run was wrong but its result could not be read back (see the releases below).\n", f);
        return;
    }
    char line[768];
    ss_prog_diff_format(ip->iss.c->program, &ip->diff, line, sizeof line);
    fputs("The first difference, as ssfuzz reports it: `", f);
    ss_issue_cell(f, line);
    fputs("`.\n", f);
    const uint8_t *want = NULL, *got = NULL;
    size_t nb = 0;
    ss_dtype t = ip->iss.c->dtype;
    char what[160] = "";
    if (s->kind == SHOW_VALUE && ip->act.ret[s->ret].nbytes == (size_t)ip->ref.ret[s->ret].numel * ss_dtype_size(ip->ref.ret[s->ret].dtype)) {
        want = ip->ref.ret[s->ret].bytes, got = ip->act.ret[s->ret].bytes, nb = ip->act.ret[s->ret].nbytes;
        t = ip->ref.ret[s->ret].dtype;
        snprintf(what, sizeof what, "returned value %d", s->ret);
    } else if (s->kind == SHOW_STORAGE) {
        const int src = s->storage == SS_STORAGE_SRC && !ip->iss.c->op.src_aliased;
        want = ss_storage_data(src ? &ip->ref_src : &ip->ref_in), got = ss_storage_data(src ? &ip->act_src : &ip->act_in);
        nb = src ? ip->ref_src.bytes : ip->ref_in.bytes;
        snprintf(what, sizeof what, "`%s` after the call", storage_name(ip, s->storage));
    }
    if (want && nb / ss_dtype_size(t) <= EXPECT_MAX) {
        fprintf(f, "\n%s (flattened), torch %s on %s:\n\n```\nexpected: ", what, str(ip->iss.runs[0].actual, "torch") ?
                str(ip->iss.runs[0].actual, "torch") : "?", str(ip->shown, "device") ? str(ip->shown, "device") : "cpu");
        ss_issue_values_list(f, t, want, (long)nb);
        fputs("\nactual:   ", f);
        ss_issue_values_list(f, t, got, (long)nb);
        fputs("\n```\n", f);
    }
}

typedef struct md_job { const ss_issue_prog *ip; } md_job;

static int emit(FILE *f, const void *user) {
    const ss_issue_prog *ip = ((const md_job *)user)->ip;
    const ss_case *c = ip->iss.c;
    if (!ip->found || !ip->shown) {
        fprintf(f, "# ssfuzz: no run of the program was wrong\n\nThe exported script agreed (or failed) in every mode it "
                "ran: %s.\n\n", ip->iss.n_runs && ip->iss.runs[0].failure[0] ? ip->iss.runs[0].failure : "nothing to report");
        program_block(f, ip);
        fputc('\n', f);
        ss_issue_releases(f, &ip->iss, RELEASES_HOW);
        ss_issue_environment(f, &ip->iss);
        return 0;
    }
    const char *kind = str(ip->shown, "kind");
    const shown_fact s = fact_of(ip);
    char sym[200], step[SS_PROGRAM_PY_LINE] = "";
    symptom(ip, sym, sizeof sym);
    if (ip->has_diff && ip->diff.step >= 0) ss_program_py_step(c, &ip->iss.plan, ip->diff.step, step, sizeof step);
    fprintf(f, "# %c%s %s", who(kind)[0] == 'e' ? 'E' : who(kind)[0], who(kind) + 1, sym);
    if (step[0]) fprintf(f, ": `%.200s`", step);
    fprintf(f, " (%s, %s)\n\n", ss_dtype_name(c->dtype), str(ip->shown, "device") ? str(ip->shown, "device") : "cpu");
    const int raised = str(ip->shown, "verdict") && !strcmp(str(ip->shown, "verdict"), "raised");
    fprintf(f, "A short program of in-place updates and views %s under %s%s", kind && !strcmp(kind, "eager") ? "is wrong" :
            raised ? "runs in eager mode and raises" : "is right in eager mode and wrong", who(kind), step[0] ? "" : ".\n");
    if (step[0]) fprintf(f, "; the first wrong step is program[%d], `%.200s`.\n", ip->diff.step, step);
    fputs("The expected result follows PyTorch's documented meaning, as eager computes it: every step reads all its "
          "operands before it writes (as if they were cloned), a view returned shares its base's storage, a computed "
          "tensor shares none.\n\n## Reproduce\n\n", f);
    const int lines = repro(f, ip, &s);
    if (lines < 0) {
        fputs("(the values do not fit a short repro: the program is below, the exported script reproduces it)\n\n", f);
        program_block(f, ip);
    }
    if (!ip->arange) fputs("\nThe repro uses the case's own values: with 0, 1, 2, ... the run was not wrong the same way.\n", f);
    expected_actual(f, ip, &s);
    fputc('\n', f);
    ss_issue_releases(f, &ip->iss, RELEASES_HOW);
    fputs("\n## Compile stage\n\n", f);
    const char *words = ss_issue_stage_words(str(ip->found, "stage"));
    if (words) fprintf(f, "Rerun under each backend (`torch.compile(backend=...)`, same mode): first wrong stage %s.\n", words);
    else if (kind && !strcmp(kind, "eager")) fputs("Eager mode: no compiler stage is involved.\n", f);
    else fputs("Not determined (the stage reruns did not run).\n", f);
    ss_issue_environment(f, &ip->iss);
    return 0;
}

int ss_issue_prog_write(const char *path, const ss_issue_prog *ip, ss_error *err) {
    const md_job j = {ip};
    return ss_write_atomic_with(path, emit, &j, err);
}
