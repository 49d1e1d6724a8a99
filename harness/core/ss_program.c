/* ss_program.c - a program's lifetime, names and step edits; the names of its kinds; a
 * case's single write as a program. */
#include <stdlib.h>
#include <string.h>
#include "ss_program.h"

static const char *const op_names[SS_STEP_OP_COUNT] = {"view", "read", "write", "inplace",
                                                       "index_put", "return"};
static const char *const view_names[SS_VK_COUNT] = {"slice", "select", "permute", "transpose",
                                                    "diagonal", "unfold", "as_strided", "dtype",
                                                    "real", "imag"};
static const char *const read_names[SS_RK_COUNT] = {"clone", "add", "mul", "neg", "flip", "sum",
                                                    "slice_scatter"};
static const char *const inplace_names[SS_IK_COUNT] = {"add_", "sub_", "mul_", "zero_", "fill_",
                                                       "copy_"};
static const char *const spelling_names[SS_SP_COUNT] = {"setitem", "setitem-clone", "copy",
                                                        "scatter-copy", "clone-scatter",
                                                        "index-put"};

#define NAME_AT(table, k, n) ((unsigned)(k) < (n) ? (table)[k] : "?")
const char *ss_step_op_name(ss_step_op op) { return NAME_AT(op_names, op, SS_STEP_OP_COUNT); }
const char *ss_view_kind_name(int k) { return NAME_AT(view_names, k, SS_VK_COUNT); }
const char *ss_read_kind_name(int k) { return NAME_AT(read_names, k, SS_RK_COUNT); }
const char *ss_inplace_kind_name(int k) { return NAME_AT(inplace_names, k, SS_IK_COUNT); }
const char *ss_spelling_name(int k) { return NAME_AT(spelling_names, k, SS_SP_COUNT); }
#undef NAME_AT

ss_program *ss_program_new(void) {
    ss_program *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    strcpy(p->names[SS_NAME_X], "x");
    strcpy(p->names[SS_NAME_SRC], "src");
    p->defined_at[SS_NAME_X] = p->defined_at[SS_NAME_SRC] = -1;
    p->nnames = 2;
    return p;
}

void ss_program_free(ss_program *p) {
    if (!p) return;
    for (int i = 0; i < p->nsteps; i++) free(p->steps[i].idx);
    free(p);
}

ss_program *ss_program_copy(const ss_program *p) {
    if (!p) return NULL;
    ss_program *q = malloc(sizeof *q);
    if (!q) return NULL;
    memcpy(q, p, sizeof *q);
    for (int i = 0; i < q->nsteps; i++) q->steps[i].idx = NULL;
    for (int i = 0; i < q->nsteps; i++) {
        const ss_step *s = &p->steps[i];
        if (!s->idx) continue;
        const size_t n = (size_t)s->nidx * (size_t)s->idx_len;
        q->steps[i].idx = malloc(n ? n * sizeof *s->idx : 1);
        if (!q->steps[i].idx) { ss_program_free(q); return NULL; }
        memcpy(q->steps[i].idx, s->idx, n * sizeof *s->idx);
    }
    return q;
}

int ss_program_add_name(ss_program *p, const char *name) {
    const size_t n = strlen(name);
    if (p->nnames >= SS_PROG_MAX_NAMES || n == 0 || n > SS_PROG_NAME_LEN) return -1;
    for (int i = 0; i < p->nnames; i++)
        if (!strcmp(p->names[i], name)) return -1;
    memcpy(p->names[p->nnames], name, n + 1);
    p->defined_at[p->nnames] = -1;
    return p->nnames++;
}

int ss_step_uses(const ss_step *s, int n) {
    if (s->of == n) return 1;
    if (s->has_operand && s->operand.name == n) return 1;
    for (int i = 0; i < s->nret; i++)
        if (s->ret[i] == n) return 1;
    return 0;
}

/* Drops name n (renumbering every later name and every use of them). */
static void drop_name(ss_program *p, int n) {
    for (int i = n; i + 1 < p->nnames; i++) {
        memcpy(p->names[i], p->names[i + 1], sizeof p->names[i]);
        p->defined_at[i] = p->defined_at[i + 1];
    }
    p->nnames--;
#define FIX(v) do { if ((v) > n) (v)--; } while (0)
    for (int i = 0; i < p->nsteps; i++) {
        ss_step *s = &p->steps[i];
        FIX(s->name);
        FIX(s->of);
        if (s->has_operand) FIX(s->operand.name);
        for (int k = 0; k < s->nret; k++) FIX(s->ret[k]);
    }
#undef FIX
}

int ss_program_remove_step(ss_program *p, int i) {
    if (i < 0 || i >= p->nsteps) return -1;
    const int name = p->steps[i].name;
    if (name >= 0)
        for (int k = i + 1; k < p->nsteps; k++)
            if (ss_step_uses(&p->steps[k], name)) return -1;
    free(p->steps[i].idx);
    memmove(&p->steps[i], &p->steps[i + 1], (size_t)(p->nsteps - i - 1) * sizeof p->steps[0]);
    p->nsteps--;
    for (int n = 0; n < p->nnames; n++)
        if (p->defined_at[n] > i) p->defined_at[n]--;
    if (name >= 0) drop_name(p, name);
    return 0;
}

static ss_step step_of(ss_step_op op, int kind, int of, int operand) {
    ss_step s;
    memset(&s, 0, sizeof s);
    s.op = op;
    s.kind = kind;
    s.name = -1;
    s.of = of;
    s.step = 1;
    s.operand.name = operand;
    s.has_operand = operand >= 0;
    return s;
}

ss_program *ss_program_of_write(const ss_op *op, const char *spelling) {
    int sp = -1;
    for (int k = 0; k < SS_SP_COUNT; k++)
        if (!strcmp(spelling, spelling_names[k])) sp = k;
    if (sp < 0 && strcmp(spelling, "scatter-return")) return NULL;
    ss_program *p = ss_program_new();
    if (!p) return NULL;
    if (sp >= 0) {   /* a write step leaves dim/start/end/step to the case */
        p->steps[p->nsteps++] = step_of(SS_STEP_WRITE, sp, SS_NAME_X, SS_NAME_SRC);
        return p;
    }
    /* scatter-return: the read names the case's slice itself (a read has no case defaults) */
    const int y = ss_program_add_name(p, "y");
    ss_step r = step_of(SS_STEP_READ, SS_RK_SLICE_SCATTER, SS_NAME_X, SS_NAME_SRC);
    r.name = y;
    r.has_dim = r.has_step = 1;
    r.dim = op->dim;
    r.step = op->step;
    r.start_state = op->has_start ? SS_BOUND_INT : SS_BOUND_NULL;
    r.end_state = op->has_end ? SS_BOUND_INT : SS_BOUND_NULL;
    r.start = op->start;
    r.end = op->end;
    p->defined_at[y] = 0;
    p->steps[0] = r;
    p->steps[1] = step_of(SS_STEP_INPLACE, SS_IK_ZERO, SS_NAME_X, -1);
    p->steps[2] = step_of(SS_STEP_INPLACE, SS_IK_COPY, SS_NAME_X, y);
    p->nsteps = 3;
    return p;
}

void ss_prog_result_init(ss_prog_result *r) {
    memset(r, 0, sizeof *r);
    r->step = -1;
    r->inexact_step = -1;
    r->watch_last_step = -1;
}

void ss_prog_result_free(ss_prog_result *r) {
    if (!r) return;
    for (int i = 0; i < r->nret; i++) free(r->ret[i].bytes);
    for (int i = 0; i < r->nopen; i++) free(r->open[i].vals);
    free(r->open);
    ss_prog_result_init(r);
}
