/* ss_min_program.c - the minimizer's program edits: steps and views go before shapes shrink. */
#include <stdlib.h>
#include <string.h>
#include "ss_minimize.h"

/* Removes the steps marked in `gone` (highest first, so no removed name is
 * still used by a later step when its step goes). */
static int remove_marked(ss_program *p, const int *gone) {
    for (int i = p->nsteps - 1; i >= 0; i--)
        if (gone[i] && ss_program_remove_step(p, i)) return -1;
    return 0;
}

/* Step i and every later step that uses a name a removed step defined. */
static ss_program *without_step(const ss_program *p, int i) {
    ss_program *q = ss_program_copy(p);
    if (!q) return NULL;
    int gone[SS_PROG_MAX_STEPS] = {0}, dead[SS_PROG_MAX_NAMES] = {0};
    gone[i] = 1;
    if (q->steps[i].name >= 0) dead[q->steps[i].name] = 1;
    for (int k = i + 1; k < q->nsteps; k++) {
        for (int n = 0; n < q->nnames && !gone[k]; n++)
            if (dead[n] && ss_step_uses(&q->steps[k], n)) gone[k] = 1;
        if (gone[k] && q->steps[k].name >= 0) dead[q->steps[k].name] = 1;
    }
    int left = 0;
    for (int k = 0; k < q->nsteps; k++) left += !gone[k];
    if (!left || remove_marked(q, gone)) { ss_program_free(q); return NULL; }
    return q;
}

static int is_view_name(const ss_program *p, int n) {
    return p->defined_at[n] < 0 || p->steps[p->defined_at[n]].op == SS_STEP_VIEW;
}

/* Step i (a view or a read) removed, its name rebound to its source in the
 * steps after it: a[..] of x becomes x (the reference then says whether the
 * shapes still fit). */
static ss_program *rebound(const ss_program *p, int i) {
    const ss_step *s = &p->steps[i];
    if (s->name < 0 || s->of < 0) return NULL;
    ss_program *q = ss_program_copy(p);
    if (!q) return NULL;
    const int n = s->name, to = s->of;
    for (int k = i + 1; k < q->nsteps; k++) {
        ss_step *t = &q->steps[k];
        if (t->of == n) t->of = to;
        if (t->has_operand && t->operand.name == n) t->operand.name = to;
        for (int r = 0; r < t->nret; r++)
            if (t->ret[r] == n) t->ret[r] = to;
        /* where the format wants a view (a view's source, what is written into), a read cannot stand */
        if (t->op != SS_STEP_READ && t->op != SS_STEP_RETURN && t->of == to && !is_view_name(q, to)) {
            ss_program_free(q);
            return NULL;
        }
    }
    if (ss_program_remove_step(q, i)) { ss_program_free(q); return NULL; }
    return q;
}

/* One returned value dropped. */
static ss_program *without_return(const ss_program *p, int r) {
    ss_program *q = ss_program_copy(p);
    if (!q) return NULL;
    ss_step *s = &q->steps[q->nsteps - 1];
    memmove(s->ret + r, s->ret + r + 1, (size_t)(s->nret - r - 1) * sizeof s->ret[0]);
    s->nret--;
    return q;
}

int ss_min_program_edits(const ss_program *p, ss_program **out, int cap) {
    int n = 0;
#define ADD(expr) do { if (n < cap) { ss_program *q_ = (expr); if (q_) out[n++] = q_; } } while (0)
    for (int i = p->nsteps - 1; i >= 0; i--) ADD(without_step(p, i));
    for (int i = p->nsteps - 1; i >= 0; i--)
        if (p->steps[i].op == SS_STEP_VIEW || p->steps[i].op == SS_STEP_READ) ADD(rebound(p, i));
    const ss_step *last = p->nsteps ? &p->steps[p->nsteps - 1] : NULL;
    if (last && last->op == SS_STEP_RETURN && last->nret > 1)
        for (int r = 0; r < last->nret; r++) ADD(without_return(p, r));
    /* a write in its plainest spelling */
    for (int i = 0; i < p->nsteps; i++)
        if (p->steps[i].op == SS_STEP_WRITE && p->steps[i].kind != SS_SP_SETITEM) {
            ss_program *q = ss_program_copy(p);
            if (q) q->steps[i].kind = SS_SP_SETITEM;
            ADD(q);
        }
#undef ADD
    return n;
}

int64_t ss_min_program_size(const ss_program *p, int64_t *params) {
    int64_t sum = 0;
    for (int i = 0; p && i < p->nsteps; i++) {
        const ss_step *s = &p->steps[i];
        sum += s->kind + (s->operand.name < 0 ? llabs(s->operand.value) : 0) + s->nret + s->nidx * s->idx_len;
        sum += s->start_state == SS_BOUND_INT ? 1 + llabs(s->start) : 0;
        sum += s->end_state == SS_BOUND_INT ? 1 + llabs(s->end) : 0;
        sum += llabs(s->dim) + (s->step > 1 ? s->step - 1 : 0);
    }
    *params = sum;
    return p ? p->nsteps : 0;
}
