/* ss_program_py.c - the Python line of each program step (program-spec v1's printed forms). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ss_program_py.h"
#include "ss_program_ref.h"

typedef struct buf { char *s; size_t n, k; } buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...) {
    if (b->k >= b->n) return;
    va_list ap;
    va_start(ap, fmt);
    const int w = vsnprintf(b->s + b->k, b->n - b->k, fmt, ap);
    va_end(ap);
    if (w > 0) b->k += (size_t)w;
}

static const char *nm(const ss_program *p, int n) {
    return n >= 0 && n < p->nnames ? p->names[n] : "?";
}

static void operand(buf *b, const ss_program *p, const ss_operand *o) {
    if (o->name >= 0) put(b, "%s", nm(p, o->name));
    else put(b, "%" PRId64, o->value);
}

/* A slice item: "1:3", "1:", ":-1", "::2", ":" (None and a step of 1 left out). */
static void slice_item(buf *b, int has_s, int64_t s, int has_e, int64_t e, int64_t step) {
    if (has_s) put(b, "%" PRId64, s);
    put(b, ":");
    if (has_e) put(b, "%" PRId64, e);
    if (step != 1) put(b, ":%" PRId64, step);
}

/* V<sub>: d whole ":" items then the item; d < 0: "...", the item, (-d-1) ":" items. */
static void subscript(buf *b, const char *v, int64_t d, void (*item)(buf *, const void *), const void *arg) {
    put(b, "%s[", v);
    if (d >= 0) {
        for (int64_t i = 0; i < d; i++) put(b, ":, ");
        item(b, arg);
    } else {
        put(b, "..., ");
        item(b, arg);
        for (int64_t i = 0; i < -d - 1; i++) put(b, ", :");
    }
    put(b, "]");
}

typedef struct bounds { int has_s, has_e; int64_t s, e, step; } bounds;
static void bounds_item(buf *b, const void *arg) {
    const bounds *x = arg;
    slice_item(b, x->has_s, x->s, x->has_e, x->e, x->step);
}
static void index_item(buf *b, const void *arg) { put(b, "%" PRId64, *(const int64_t *)arg); }

static void py_bound(buf *b, int has, int64_t v) {
    if (has) put(b, "%" PRId64, v);
    else put(b, "None");
}

static void int_tuple(buf *b, const int64_t *v, int n) {
    put(b, "(");
    for (int i = 0; i < n; i++) put(b, "%s%" PRId64, i ? ", " : "", v[i]);
    put(b, n == 1 ? ",)" : ")");
}

/* The step's slice (a write's falls back on the case's op). */
static void step_bounds(const ss_step *s, const ss_op *op, int is_write, int64_t *dim, bounds *x) {
    *dim = s->has_dim || !is_write ? s->dim : op->dim;
    x->step = s->has_step || !is_write ? s->step : op->step;
    x->has_s = s->start_state == SS_BOUND_INT;
    x->has_e = s->end_state == SS_BOUND_INT;
    x->s = s->start;
    x->e = s->end;
    if (is_write && s->start_state == SS_BOUND_ABSENT) { x->has_s = op->has_start; x->s = op->start; }
    if (is_write && s->end_state == SS_BOUND_ABSENT) { x->has_e = op->has_end; x->e = op->end; }
}

static void view_line(buf *b, const ss_program *p, const ss_step *s) {
    const char *v = nm(p, s->of);
    put(b, "%s = ", nm(p, s->name));
    switch (s->kind) {
    case SS_VK_SLICE: {
        int64_t d;
        bounds x;
        step_bounds(s, NULL, 0, &d, &x);
        subscript(b, v, d, bounds_item, &x);
        return;
    }
    case SS_VK_SELECT: subscript(b, v, s->dim, index_item, &s->index); return;
    case SS_VK_PERMUTE:
        put(b, "%s.permute(", v);
        for (int i = 0; i < s->ndims; i++) put(b, "%s%" PRId64, i ? ", " : "", s->dims[i]);
        put(b, ")");
        return;
    case SS_VK_TRANSPOSE: put(b, "%s.transpose(%" PRId64 ", %" PRId64 ")", v, s->d0, s->d1); return;
    case SS_VK_DIAGONAL:
        put(b, "%s.diagonal(%" PRId64 ", %" PRId64 ", %" PRId64 ")", v, s->offset, s->d0, s->d1);
        return;
    case SS_VK_UNFOLD: put(b, "%s.unfold(%" PRId64 ", %" PRId64 ", %" PRId64 ")", v, s->dim, s->size, s->step); return;
    case SS_VK_AS_STRIDED:
        put(b, "%s.as_strided(", v);
        int_tuple(b, s->dims, s->ndims);
        put(b, ", ");
        int_tuple(b, s->strides, s->ndims);
        put(b, ", %" PRId64 ")", s->offset);
        return;
    case SS_VK_DTYPE: put(b, "%s.view(torch.%s)", v, ss_dtype_name(s->dtype)); return;
    case SS_VK_REAL: put(b, "%s.real", v); return;
    default: put(b, "%s.imag", v); return;
    }
}

static void read_line(buf *b, const ss_program *p, const ss_step *s) {
    const char *v = nm(p, s->of);
    put(b, "%s = ", nm(p, s->name));
    switch (s->kind) {
    case SS_RK_CLONE: put(b, "%s.clone()", v); return;
    case SS_RK_ADD:
        if (s->operand.value < 0) put(b, "%s - %" PRId64, v, -s->operand.value);
        else put(b, "%s + %" PRId64, v, s->operand.value);
        return;
    case SS_RK_MUL: put(b, "%s * %" PRId64, v, s->operand.value); return;
    case SS_RK_NEG: put(b, "-%s", v); return;
    case SS_RK_FLIP: put(b, "%s.flip(", v); int_tuple(b, s->dims, s->ndims); put(b, ")"); return;
    case SS_RK_SUM: put(b, "torch.sum(%s, %" PRId64 ", dtype=%s.dtype)", v, s->dim, v); return;
    default: {
        int64_t d;
        bounds x;
        step_bounds(s, NULL, 0, &d, &x);
        put(b, "torch.slice_scatter(%s, ", v);
        operand(b, p, &s->operand);
        put(b, ", %" PRId64 ", ", d);
        py_bound(b, x.has_s, x.s);
        put(b, ", ");
        py_bound(b, x.has_e, x.e);
        put(b, ", %" PRId64 ")", x.step);
        return;
    }
    }
}

/* V.index_put_((torch.arange(V.shape[0]).view(-1, 1), torch.arange(V.shape[1])[1:3]), R) */
static void index_put_spelling(buf *b, const char *v, int64_t d, const bounds *x, const char *r) {
    put(b, "%s.index_put_((", v);
    for (int64_t i = 0; i < d; i++) {
        put(b, "torch.arange(%s.shape[%" PRId64 "]).view(-1", v, i);
        for (int64_t k = 0; k < d - i; k++) put(b, ", 1");
        put(b, "), ");
    }
    put(b, "torch.arange(%s.shape[%" PRId64 "])[", v, d);
    slice_item(b, x->has_s, x->s, x->has_e, x->e, x->step);
    put(b, "]%s), %s)", d == 0 ? "," : "", r);
}

static void write_line(buf *b, const ss_case *c, const ss_plan *plan, const ss_step *s) {
    const ss_program *p = c->program;
    const char *v = nm(p, s->of);
    char r[64];
    snprintf(r, sizeof r, "%s", nm(p, s->operand.name));
    int64_t d;
    bounds x;
    step_bounds(s, &plan->op, 1, &d, &x);
    switch (s->kind) {
    case SS_SP_SETITEM: subscript(b, v, d, bounds_item, &x); put(b, " = %s", r); return;
    case SS_SP_SETITEM_CLONE: subscript(b, v, d, bounds_item, &x); put(b, " = %s.clone()", r); return;
    case SS_SP_COPY: subscript(b, v, d, bounds_item, &x); put(b, ".copy_(%s)", r); return;
    case SS_SP_SCATTER_COPY: case SS_SP_CLONE_SCATTER:
        put(b, "%s.copy_(torch.slice_scatter(%s%s, %s, %" PRId64 ", ", v, v,
            s->kind == SS_SP_CLONE_SCATTER ? ".clone()" : "", r, d);
        py_bound(b, x.has_s, x.s);
        put(b, ", ");
        py_bound(b, x.has_e, x.e);
        put(b, ", %" PRId64 "))", x.step);
        return;
    default:
        if (d < 0) {   /* the index tensors need the dim counted from the front */
            ss_prog_name_info names[SS_PROG_MAX_NAMES];
            ss_prog_result res;
            ss_prog_ref_names(c, plan, names, &res);   /* names before a step it finds invalid are still filled */
            if (names[s->of].defined) d += names[s->of].v.ndim;
            ss_prog_result_free(&res);
        }
        index_put_spelling(b, v, d < 0 ? 0 : d, &x, r);
        return;
    }
}

static void const_tensor(buf *b, const char *v, int64_t k) {
    put(b, "torch.tensor(%" PRId64 ", dtype=%s.dtype, device=%s.device)", k, v, v);
}

void ss_program_py_step(const ss_case *c, const ss_plan *plan, int i, char *out, size_t n) {
    buf b = {out, n, 0};
    if (n) out[0] = 0;
    const ss_program *p = c->program;
    if (!p || i < 0 || i >= p->nsteps) return;
    const ss_step *s = &p->steps[i];
    const char *v = nm(p, s->of);
    switch (s->op) {
    case SS_STEP_VIEW: view_line(&b, p, s); return;
    case SS_STEP_READ: read_line(&b, p, s); return;
    case SS_STEP_WRITE: write_line(&b, c, plan, s); return;
    case SS_STEP_INPLACE:
        put(&b, "%s.%s(", v, ss_inplace_kind_name(s->kind));
        if (s->has_operand) operand(&b, p, &s->operand);
        put(&b, ")");
        return;
    case SS_STEP_INDEX_PUT:
        put(&b, "%s.index_put_((", v);
        for (int k = 0; k < s->nidx; k++) {
            put(&b, "%storch.tensor([", k ? ", " : "");
            for (int e = 0; e < s->idx_len; e++)
                put(&b, "%s%" PRId64, e ? ", " : "", s->idx[(size_t)k * (size_t)s->idx_len + (size_t)e]);
            put(&b, "])");
        }
        put(&b, "%s), ", s->nidx == 1 ? "," : "");
        if (s->operand.name >= 0) put(&b, "%s", nm(p, s->operand.name));
        else const_tensor(&b, v, s->operand.value);
        put(&b, ", accumulate=%s)", s->accumulate ? "True" : "False");
        return;
    default:
        put(&b, "return (");
        for (int k = 0; k < s->nret; k++) put(&b, "%s%s", k ? ", " : "", nm(p, s->ret[k]));
        put(&b, s->nret == 1 ? ",)" : ")");
        return;
    }
}

void ss_program_py_lines(FILE *f, const ss_case *c, const ss_plan *plan, const char *indent) {
    const ss_program *p = c->program;
    char line[SS_PROGRAM_PY_LINE];
    int returned = 0;
    for (int i = 0; p && i < p->nsteps; i++) {
        ss_program_py_step(c, plan, i, line, sizeof line);
        fprintf(f, "%s%s\n", indent, line);
        returned |= p->steps[i].op == SS_STEP_RETURN;
    }
    if (!returned) fprintf(f, "%sreturn ()\n", indent);
}

void ss_program_py_function(FILE *f, const ss_case *c, const ss_plan *plan) {
    fputs("def program(x, src):\n", f);
    ss_program_py_lines(f, c, plan, "    ");
}

void ss_program_py_index_put(char *out, size_t n, const char *v, int64_t d, int has_start, int64_t start, int has_end,
                             int64_t end, int64_t step, const char *r) {
    buf b = {out, n, 0};
    if (n) out[0] = 0;
    const bounds x = {has_start, has_end, start, end, step};
    index_put_spelling(&b, v, d, &x, r);
}
