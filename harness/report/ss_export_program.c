/* ss_export_program.c - the exported script's programs: the case's Python line in each spelling user code has. */
#include <inttypes.h>
#include <string.h>
#include "ss_export.h"
#include "ss_program_py.h"

const char *const ss_export_spellings[] = {"setitem", "setitem-clone", "copy", "scatter-copy",
                                           "scatter-return", "clone-scatter", "index-put", NULL};

int ss_export_spelling_valid(const char *name) {
    for (int i = 0; ss_export_spellings[i]; i++)
        if (!strcmp(name, ss_export_spellings[i])) return 1;
    return 0;
}

/* "dim, start, end, step" as Python literals, the case's own values. */
static void scatter_args(const ss_op *op, char *out, size_t n) {
    char s[32] = "None", e[32] = "None";
    if (op->has_start) snprintf(s, sizeof s, "%" PRId64, op->start);
    if (op->has_end) snprintf(e, sizeof e, "%" PRId64, op->end);
    snprintf(out, n, "%" PRId64 ", %s, %s, %" PRId64, op->dim, s, e, op->step);
}

/* index_put_ with its index tensors inline, so a repro runs without the script's helpers; a
 * target that is an expression (torch.as_strided(x, ...)) is named first, not spelled thrice. */
static void index_put(const ss_case *c, const ss_pyexpr *e, char *out, size_t n) {
    const char *t = e->target;
    char v[8] = "", head[SS_PYEXPR_LEN + 16] = "";
    if (t[strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789")]) {
        static const char *const names[] = {"v", "w", "t"};   /* a local that is neither argument */
        for (int i = 0; i < 3 && !v[0]; i++)
            if (strcmp(names[i], e->x) && strcmp(names[i], e->y)) snprintf(v, sizeof v, "%s", names[i]);
        snprintf(head, sizeof head, "%s = %s\n", v, t);
        t = v;
    }
    snprintf(out, n, "%s", head);
    const size_t k = strlen(out);
    ss_program_py_index_put(out + k, n - k, t, c->op.dim < 0 ? c->op.dim + c->op.input.ndim : c->op.dim,
                            c->op.has_start, c->op.start, c->op.has_end, c->op.end, c->op.step, e->rhs);
}

/* The statement(s) of one spelling; lines separated by "\n". */
static void statement(int i, const ss_case *c, const ss_pyexpr *e, const char *args, char *out, size_t n) {
    const char *t = e->target, *l = e->lhs, *r = e->rhs;
    switch (i) {
    case 0: snprintf(out, n, "%s = %s", l, r); break;
    case 1: snprintf(out, n, "%s = %s.clone()", l, r); break;
    case 2: snprintf(out, n, "%s.copy_(%s)", l, r); break;
    case 3: snprintf(out, n, "%s.copy_(torch.slice_scatter(%s, %s, %s))", t, t, r, args); break;
    case 4: snprintf(out, n, "out = torch.slice_scatter(%s, %s, %s)\n%s.zero_()\nreturn out", t, r, args, t); break;
    case 5: snprintf(out, n, "%s.copy_(torch.slice_scatter(%s.clone(), %s, %s))", t, t, r, args); break;
    default: index_put(c, e, out, n); break;
    }
}

void ss_export_statement(const char *spelling, const ss_case *c, const ss_pyexpr *e, char *out, size_t n) {
    char args[128];
    int i = 0;
    while (ss_export_spellings[i] && strcmp(ss_export_spellings[i], spelling)) i++;
    scatter_args(&c->op, args, sizeof args);
    statement(ss_export_spellings[i] ? i : 0, c, e, args, out, n);
}

static void py_string(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\n') fputs("; ", f);
        else if (*s == '\'' || *s == '\\') fprintf(f, "\\%c", *s);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

/* One function per spelling, `def NAME<suffix>(a, b):` and the statement's lines; texts (may be NULL)
 * keeps each statement. */
static void spelling_functions(FILE *f, const ss_case *c, const ss_pyexpr *e, const char *suffix,
                               char (*texts)[4 * SS_PYEXPR_LEN + 512]) {
    static char one[4 * SS_PYEXPR_LEN + 512];
    char args[128];
    scatter_args(&c->op, args, sizeof args);
    for (int i = 0; ss_export_spellings[i]; i++) {
        char fn[32], *text = texts ? texts[i] : one;
        snprintf(fn, sizeof fn, "%s", ss_export_spellings[i]);
        for (char *p = fn; *p; p++) if (*p == '-') *p = '_';
        statement(i, c, e, args, text, sizeof one);
        fprintf(f, "def %s%s(%s, %s):\n    ", fn, suffix, e->x, e->y);
        for (const char *p = text; *p; p++) {
            if (*p == '\n') fputs("\n    ", f);
            else fputc(*p, f);
        }
        fputs("\n\n\n", f);
    }
}

/* Form user-two-inputs: the line on x (the input view) and src as two arguments, the table of those
 * functions, and the call's two views as user code indexes the storages (the --issue repro's call). */
static void two_input_programs(FILE *f, const ss_case *c, const ss_pyexpr *e) {
    ss_pyexpr two;
    if (ss_pyexpr_two_inputs(c, &two)) return;   /* the script plans the case first: not reached */
    fputs("# The case as user code with x (the input view) and src as two arguments (form user-two-inputs).\n", f);
    spelling_functions(f, c, &two, "_two", NULL);
    fputs("TWO_INPUT_SPELLINGS = {\n", f);
    for (int i = 0; ss_export_spellings[i]; i++) {
        char fn[32];
        snprintf(fn, sizeof fn, "%s", ss_export_spellings[i]);
        for (char *p = fn; *p; p++) if (*p == '-') *p = '_';
        fprintf(f, "    '%s': %s_two,\n", ss_export_spellings[i], fn);
    }
    fprintf(f, "}\n\n\ndef user_views(%s, %s):\n    # the input view and src, indexed from the storages\n"
            "    return %s, %s\n", e->x, e->y, e->target, e->rhs);
}

void ss_export_programs(FILE *f, const ss_case *c, const ss_pyexpr *e) {
    static char text[7][4 * SS_PYEXPR_LEN + 512];
    fputs("\n\n# The case as user code, one function per spelling (--spelling picks one).\n", f);
    spelling_functions(f, c, e, "", text);
    fprintf(f, "def finish_scatter_return(%s, %s, out):\n    %s.copy_(out)\n\n\nPROGRAMS = {\n", e->x, e->y,
            e->target);
    for (int i = 0; ss_export_spellings[i]; i++) {
        fprintf(f, "    '%s': ", ss_export_spellings[i]);
        py_string(f, text[i]);
        fputs(",\n", f);
    }
    fputs("}\n\n\n", f);
    two_input_programs(f, c, e);
}
