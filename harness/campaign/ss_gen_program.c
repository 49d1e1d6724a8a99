/* ss_gen_program.c - the program generator: steps drawn around the case's write, each kept only when the reference accepts it.
 *
 * Generate and check: a step is drawn (biased to aliasing), appended, and the
 * reference checks the program's geometry (ss_prog_ref_names); an invalid
 * step is dropped and another drawn. A refusal is kept now and then (it is
 * PyTorch's behavior to check) and ends the program. At the end the reference
 * runs the program on the case's small fill: steps are dropped from the end
 * until it neither reads an open element nor computes an inexact value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_bits.h"
#include "ss_gen_program.h"
#include "ss_plan_build.h"
#include "ss_program_ref.h"
#include "ss_storage.h"

typedef struct rng { uint64_t s; } rng;
static uint64_t next(rng *r) { return ss_mix64(r->s += 0x9e3779b97f4a7c15ull); }
static int64_t below(rng *r, int64_t n) { return n > 0 ? (int64_t)(next(r) % (uint64_t)n) : 0; }
static int64_t range(rng *r, int64_t lo, int64_t hi) { return lo + below(r, hi - lo + 1); }
static int chance(rng *r, unsigned per_mille) { return (unsigned)below(r, 1000) < per_mille; }

static const char *const kind_names[SS_GP_KIND_COUNT] = {"view", "read", "write", "inplace", "index_put",
                                                         "scatter", "return"};
const char *ss_gp_kind_name(int k) { return k >= 0 && k < SS_GP_KIND_COUNT ? kind_names[k] : "?"; }

void ss_gen_program_kinds(const ss_gen_config *cfg, uint64_t seed, uint64_t index,
                          unsigned char on[SS_GP_KIND_COUNT]) {
    memset(on, 1, SS_GP_KIND_COUNT);
    if (!cfg->swarm) return;
    rng r = {ss_mix64(seed ^ 0x50524f47ull) ^ ss_mix64(index / SS_GEN_EPOCH)};
    unsigned char kept[SS_GP_KIND_COUNT];
    int any = 0;
    for (int k = 0; k < SS_GP_KIND_COUNT; k++) any |= (kept[k] = (unsigned char)chance(&r, 500));
    if (any) memcpy(on, kept, SS_GP_KIND_COUNT);
}

typedef struct gb {
    rng r;
    ss_case *c;
    ss_plan plan;
    ss_program *p;
    ss_prog_name_info names[SS_PROG_MAX_NAMES];
    unsigned char on[SS_GP_KIND_COUNT];
    int written, scatter, nview, nread;
} gb;

static ss_step blank(ss_step_op op) {
    ss_step s;
    memset(&s, 0, sizeof s);
    s.op = op;
    s.name = s.of = s.operand.name = -1;
    s.step = 1;
    return s;
}

/* ---- picking names ---- */

static int defined(const gb *g, int n) { return n < g->p->nnames && g->names[n].defined; }

/* 1 when a step defined name n and no step uses it yet: the next steps
 * prefer those (a read before the write is used after it). */
static int unused(const gb *g, int n) {
    if (n < 2) return 0;
    for (int k = 0; k < g->p->nsteps; k++)
        if (ss_step_uses(&g->p->steps[k], n)) return 0;
    return 1;
}

/* A random defined name; views only when want_view; -1 when none. Unused
 * names first, most of the time. */
static int pick(gb *g, int want_view, int want_read) {
    int cand[SS_PROG_MAX_NAMES], n = 0;
    const int fresh = chance(&g->r, 700);
    for (int pass = fresh ? 0 : 1; pass < 2 && n == 0; pass++)
        for (int i = 0; i < g->p->nnames; i++)
            if (defined(g, i) && (!want_view || g->names[i].is_view) && (!want_read || !g->names[i].is_view) &&
                (pass || unused(g, i)))
                cand[n++] = i;
    return n ? cand[below(&g->r, n)] : -1;
}

/* x or src most of the time: the storages the write touches. */
static int pick_base(gb *g) {
    const int k = (int)below(&g->r, 10);
    if (k < 4) return SS_NAME_X;
    if (k < 7) return SS_NAME_SRC;
    return pick(g, 1, 0);
}

static int same_shape(const ss_prog_name_info *a, const ss_prog_name_info *b) {
    if (a->v.ndim != b->v.ndim || a->dtype != b->dtype) return 0;
    for (int d = 0; d < a->v.ndim; d++)
        if (a->v.sizes[d] != b->v.sizes[d]) return 0;
    return 1;
}

/* A name (other than `not`) of t's shape and dtype: unused ones first, then
 * views when prefer_view; -1 none. */
static int pick_like(gb *g, int t, int not, int prefer_view) {
    int cand[SS_PROG_MAX_NAMES], n = 0;
    for (int pass = 0; pass < 3 && n == 0; pass++)
        for (int i = 0; i < g->p->nnames; i++)
            if (i != not && defined(g, i) && same_shape(&g->names[i], &g->names[t]) &&
                (pass > 0 || unused(g, i)) && (pass > 1 || !prefer_view || g->names[i].is_view || pass == 0))
                cand[n++] = i;
    return n ? cand[below(&g->r, n)] : -1;
}

static void new_name(gb *g, ss_step *s, int view) {
    char buf[16];
    const int k = view ? g->nview : g->nread;
    /* a slice_scatter result is "out" (explain's python line calls a separate src storage y) */
    const int scatter = !view && s->kind == SS_RK_SLICE_SCATTER;
    const char *letters = view ? "abcdefgh" : "rstuvw";
    const int nl = (int)strlen(letters);
    if (scatter) snprintf(buf, sizeof buf, "out");
    else if (k < nl) snprintf(buf, sizeof buf, "%c", letters[k]);
    else snprintf(buf, sizeof buf, "%c%d", letters[0], k);
    int n = ss_program_add_name(g->p, buf);
    for (int extra = 0; n < 0 && extra < 100; extra++) {   /* taken: a numbered one */
        snprintf(buf, sizeof buf, "%s%d", scatter ? "out" : (char[2]){letters[0], 0}, 10 + extra);
        n = ss_program_add_name(g->p, buf);
    }
    s->name = n;
    if (view) g->nview++;
    else g->nread++;
}

/* ---- drawing steps ---- */

static void draw_bounds(gb *g, ss_step *s, int64_t size) {
    s->start_state = chance(&g->r, 300) ? SS_BOUND_NULL : SS_BOUND_INT;
    s->end_state = chance(&g->r, 300) ? SS_BOUND_NULL : SS_BOUND_INT;
    s->start = range(&g->r, -size, size);
    s->end = range(&g->r, -size, size + 1);
}

static ss_step draw_view(gb *g) {
    ss_step s = blank(SS_STEP_VIEW);
    s.of = pick_base(g);
    if (s.of < 0) s.of = SS_NAME_X;
    const ss_prog_name_info *b = &g->names[s.of];
    const int nd = b->v.ndim;
    const ss_op *op = &g->c->op;
    s.kind = (int)below(&g->r, SS_VK_COUNT + 2);
    if (s.kind >= SS_VK_COUNT) s.kind = SS_VK_SLICE;   /* slices twice as often */
    switch (s.kind) {
    case SS_VK_SLICE:
        s.has_dim = 1;
        if (s.of == SS_NAME_X && chance(&g->r, 500)) {
            /* the written slice itself, or it shifted by one: overlapping the write */
            s.dim = op->dim;
            s.start_state = op->has_start ? SS_BOUND_INT : SS_BOUND_NULL;
            s.end_state = op->has_end ? SS_BOUND_INT : SS_BOUND_NULL;
            s.start = op->start + (chance(&g->r, 500) ? range(&g->r, -1, 1) : 0);
            s.end = op->end + (chance(&g->r, 500) ? range(&g->r, -1, 1) : 0);
            s.step = op->step;
            s.has_step = 1;
        } else {
            s.dim = nd ? below(&g->r, nd) : 0;
            draw_bounds(g, &s, nd ? b->v.sizes[s.dim] : 1);
            s.step = chance(&g->r, 200) ? 2 : 1;
            s.has_step = s.step != 1 || chance(&g->r, 300);
        }
        break;
    case SS_VK_SELECT:
        s.has_dim = 1;
        s.dim = nd ? below(&g->r, nd) : 0;
        s.index = nd ? range(&g->r, -b->v.sizes[s.dim], b->v.sizes[s.dim] - 1) : 0;
        break;
    case SS_VK_PERMUTE:
        s.ndims = nd;
        for (int i = 0; i < nd; i++) s.dims[i] = i;
        for (int i = nd - 1; i > 0; i--) {
            const int j = (int)below(&g->r, i + 1);
            const int64_t t = s.dims[i];
            s.dims[i] = s.dims[j];
            s.dims[j] = t;
        }
        break;
    case SS_VK_TRANSPOSE: case SS_VK_DIAGONAL:
        s.d0 = nd ? below(&g->r, nd) : 0;
        s.d1 = nd ? below(&g->r, nd) : 0;
        s.offset = s.kind == SS_VK_DIAGONAL ? range(&g->r, -1, 1) : 0;
        break;
    case SS_VK_UNFOLD:
        s.has_dim = s.has_step = 1;
        s.dim = nd ? below(&g->r, nd) : 0;
        s.size = range(&g->r, 1, 3);
        s.step = range(&g->r, 1, 3);
        break;
    case SS_VK_AS_STRIDED: {
        /* over the view's storage, overlapping now and then (stride 0 rarely) */
        s.ndims = (int)range(&g->r, 1, 2);
        for (int i = 0; i < s.ndims; i++) {
            s.dims[i] = range(&g->r, 1, 3);
            const int64_t k = below(&g->r, 10);
            s.strides[i] = k == 0 ? 0 : k < 6 ? range(&g->r, 1, 2) : range(&g->r, 2, 4);
        }
        s.offset = range(&g->r, 0, 4);
        break;
    }
    case SS_VK_DTYPE: {
        static const ss_dtype pool[] = {SS_UINT8, SS_INT8, SS_INT16, SS_INT32, SS_INT64, SS_FLOAT16,
                                        SS_BFLOAT16, SS_FLOAT32, SS_FLOAT64, SS_COMPLEX64};
        s.dtype = pool[below(&g->r, sizeof pool / sizeof pool[0])];
        break;
    }
    default: break;
    }
    new_name(g, &s, 1);
    return s;
}

/* A constant in [lo, hi] (never negative for uint8), avoiding `avoid` (0 for
 * add/sub, 1 for mul: no-ops) most of the time. */
static int64_t draw_const(gb *g, ss_dtype t, int64_t lo, int64_t hi, int64_t avoid) {
    if (t == SS_UINT8 || t == SS_BOOL) lo = lo < 0 ? 0 : lo;
    int64_t v = range(&g->r, lo, hi);
    if (v == avoid && chance(&g->r, 800)) v = range(&g->r, lo, hi);
    return v;
}

static ss_step draw_read(gb *g) {
    ss_step s = blank(SS_STEP_READ);
    s.of = chance(&g->r, 800) ? pick(g, 1, 0) : pick(g, 0, 0);
    if (s.of < 0) s.of = SS_NAME_SRC;
    const ss_prog_name_info *b = &g->names[s.of];
    const int nd = b->v.ndim;
    static const int kinds[] = {SS_RK_CLONE, SS_RK_CLONE, SS_RK_CLONE, SS_RK_ADD, SS_RK_MUL, SS_RK_NEG,
                                SS_RK_FLIP, SS_RK_SUM};
    s.kind = kinds[below(&g->r, sizeof kinds / sizeof kinds[0])];
    switch (s.kind) {
    case SS_RK_ADD: case SS_RK_MUL:
        s.has_operand = 1;
        s.operand.value = draw_const(g, b->dtype, -3, 3, s.kind == SS_RK_MUL);
        break;
    case SS_RK_FLIP:
        for (int d = 0; d < nd; d++)
            if (chance(&g->r, 500)) s.dims[s.ndims++] = d;
        break;
    case SS_RK_SUM:
        s.has_dim = 1;
        s.dim = nd ? below(&g->r, nd) : 0;
        break;
    default: break;
    }
    new_name(g, &s, 0);
    return s;
}

/* The case's write, its src the case's src (or another name of its shape). */
static ss_step draw_write(gb *g) {
    ss_step s = blank(SS_STEP_WRITE);
    s.kind = (int)below(&g->r, SS_SP_COUNT);
    s.of = SS_NAME_X;
    s.has_operand = 1;
    s.operand.name = SS_NAME_SRC;
    if (chance(&g->r, 300)) {
        const int o = pick_like(g, SS_NAME_SRC, SS_NAME_SRC, 0);
        if (o >= 0) s.operand.name = o;
    }
    return s;
}

/* y = torch.slice_scatter(x, src, <the case's slice>): a fresh result. */
static ss_step draw_scatter(gb *g) {
    ss_step s = blank(SS_STEP_READ);
    const ss_op *op = &g->c->op;
    s.kind = SS_RK_SLICE_SCATTER;
    s.of = SS_NAME_X;
    s.has_operand = 1;
    s.operand.name = SS_NAME_SRC;
    if (chance(&g->r, 300)) {
        const int o = pick_like(g, SS_NAME_SRC, SS_NAME_SRC, 0);
        if (o >= 0) s.operand.name = o;
    }
    s.has_dim = s.has_step = 1;
    s.dim = op->dim;
    s.start_state = op->has_start ? SS_BOUND_INT : SS_BOUND_NULL;
    s.end_state = op->has_end ? SS_BOUND_INT : SS_BOUND_NULL;
    s.start = op->start;
    s.end = op->end;
    s.step = op->step;
    new_name(g, &s, 0);
    return s;
}

static ss_step draw_inplace(gb *g) {
    ss_step s = blank(SS_STEP_INPLACE);
    /* after the write: mostly a mutation of x or src */
    s.of = g->written && chance(&g->r, 600) ? (chance(&g->r, 500) ? SS_NAME_X : SS_NAME_SRC) : pick(g, 1, 0);
    if (s.of < 0) s.of = SS_NAME_X;
    s.kind = (int)below(&g->r, SS_IK_COUNT);
    const ss_dtype t = g->names[s.of].dtype;
    if (s.kind == SS_IK_ZERO) return s;
    s.has_operand = 1;
    if (s.kind == SS_IK_FILL) {
        s.operand.value = t == SS_BOOL ? below(&g->r, 2) : range(&g->r, 0, 15);
        return s;
    }
    /* another view of the same storage, a read, or a constant */
    const int o = s.kind == SS_IK_COPY || chance(&g->r, 600) ? pick_like(g, s.of, s.kind == SS_IK_COPY ? -1 : s.of, 1) : -1;
    if (o >= 0 && !(o == s.of && chance(&g->r, 700))) s.operand.name = o;
    else if (s.kind == SS_IK_COPY) { s.kind = SS_IK_FILL; s.operand.value = t == SS_BOOL ? 1 : range(&g->r, 0, 15); }
    else s.operand.value = draw_const(g, t, -3, 3, s.kind == SS_IK_MUL);
    return s;
}

static ss_step draw_index_put(gb *g) {
    ss_step s = blank(SS_STEP_INDEX_PUT);
    s.of = chance(&g->r, 700) ? SS_NAME_X : pick(g, 1, 0);
    if (s.of < 0) s.of = SS_NAME_X;
    const ss_prog_name_info *v = &g->names[s.of];
    s.nidx = v->v.ndim > 1 && chance(&g->r, 300) ? 2 : 1;
    s.idx_len = (int)range(&g->r, 1, 4);
    s.idx = malloc((size_t)s.nidx * (size_t)s.idx_len * sizeof *s.idx);
    if (!s.idx) { s.nidx = 0; return s; }
    for (int j = 0; j < s.nidx; j++) {
        const int64_t size = j < v->v.ndim && v->v.sizes[j] > 0 ? v->v.sizes[j] : 1;
        for (int i = 0; i < s.idx_len; i++)   /* a small range: duplicates are likely */
            s.idx[j * s.idx_len + i] = range(&g->r, -size, size < 3 ? size - 1 : 2);
    }
    s.accumulate = chance(&g->r, 400);
    s.has_operand = 1;
    s.operand.value = v->dtype == SS_BOOL ? below(&g->r, 2) : range(&g->r, 0, 15);
    if (chance(&g->r, 300)) {
        const int o = pick(g, 0, 1);
        if (o >= 0) s.operand.name = o;
    }
    return s;
}

static ss_step draw_return(gb *g) {
    ss_step s = blank(SS_STEP_RETURN);
    int seen[SS_PROG_MAX_NAMES] = {0};
    const int want = (int)range(&g->r, 1, 3);
    if (g->scatter >= 0) { s.ret[s.nret++] = g->scatter; seen[g->scatter] = 1; }
    for (int n = 2; n < g->p->nnames && s.nret < SS_PROG_MAX_RETURNS - 1; n++)   /* what nothing used yet */
        if (!seen[n] && defined(g, n) && unused(g, n)) { seen[n] = 1; s.ret[s.nret++] = n; }
    for (int tries = 0; tries < 8 && s.nret < want; tries++) {
        const int n = chance(&g->r, 300) ? SS_NAME_X : pick(g, 0, 0);
        if (n >= 0 && !seen[n]) { seen[n] = 1; s.ret[s.nret++] = n; }
    }
    if (!s.nret) s.ret[s.nret++] = SS_NAME_X;
    return s;
}

static int choose_kind(gb *g, int last) {
    int open_names = 0;
    for (int n = 2; n < g->p->nnames; n++) open_names += defined(g, n) && unused(g, n);
    if (last && g->on[SS_GP_RETURN] && g->p->nsteps > 0 && chance(&g->r, open_names ? 850 : 500))
        return SS_GP_RETURN;
    unsigned w[SS_GP_KIND_COUNT] = {0};
    /* a view or read in the last step would be used by nothing */
    w[SS_GP_VIEW] = last ? 0 : g->written ? 1 : 3;
    w[SS_GP_READ] = last ? 0 : g->written ? 1 : 3;
    w[SS_GP_WRITE] = g->written ? 1 : 5;
    w[SS_GP_INPLACE] = g->written || g->scatter >= 0 ? 5 : 1;
    w[SS_GP_INDEX_PUT] = 1;
    w[SS_GP_SCATTER] = g->scatter >= 0 ? 0 : 2;
    unsigned total = 0;
    for (int k = 0; k < SS_GP_RETURN; k++) total += w[k] *= g->on[k];
    if (!total) return SS_GP_WRITE;
    unsigned x = (unsigned)below(&g->r, total);
    for (int k = 0; k < SS_GP_RETURN; k++) {
        if (x < w[k]) return k;
        x -= w[k];
    }
    return SS_GP_WRITE;
}

/* Appends s and checks the program: its status, or SS_PROG_INVALID (dropped). */
static ss_prog_status try_step(gb *g, const ss_step *s) {
    ss_program *p = g->p;
    p->steps[p->nsteps] = *s;
    if (s->name >= 0) p->defined_at[s->name] = p->nsteps;
    p->nsteps++;
    ss_prog_result res;
    ss_prog_ref_names(g->c, &g->plan, g->names, &res);
    const ss_prog_status st = res.status;
    ss_prog_result_free(&res);
    if (st != SS_PROG_OK && st != SS_PROG_REFUSED) {
        ss_program_remove_step(p, p->nsteps - 1);
        ss_prog_ref_names(g->c, &g->plan, g->names, &res);   /* the names as before */
        ss_prog_result_free(&res);
        return SS_PROG_INVALID;
    }
    return st;
}

static void drop_last(gb *g) {
    ss_program_remove_step(g->p, g->p->nsteps - 1);
}

static void draw_program(gb *g, int nsteps) {
    ss_prog_result res;
    ss_prog_ref_names(g->c, &g->plan, g->names, &res);
    ss_prog_result_free(&res);
    for (int pos = 0; pos < nsteps; pos++) {
        const int last = pos == nsteps - 1;
        int accepted = 0;
        for (int tries = 0; tries < 12 && !accepted; tries++) {
            const int kind = choose_kind(g, last);
            ss_step s;
            switch (kind) {
            case SS_GP_VIEW: s = draw_view(g); break;
            case SS_GP_READ: s = draw_read(g); break;
            case SS_GP_WRITE: s = draw_write(g); break;
            case SS_GP_INPLACE: s = draw_inplace(g); break;
            case SS_GP_INDEX_PUT: s = draw_index_put(g); break;
            case SS_GP_SCATTER: s = draw_scatter(g); break;
            default: s = draw_return(g); break;
            }
            if (s.op == SS_STEP_INDEX_PUT && !s.idx) continue;
            const ss_prog_status st = try_step(g, &s);
            if (st == SS_PROG_INVALID) continue;
            if (st == SS_PROG_REFUSED && chance(&g->r, 700)) { drop_last(g); continue; }
            accepted = 1;
            if (kind == SS_GP_WRITE) g->written = 1;
            if (kind == SS_GP_SCATTER) g->scatter = s.name;
            if (st == SS_PROG_REFUSED || kind == SS_GP_RETURN) return;   /* nothing runs after either */
        }
        if (!accepted) return;
    }
}

/* Views and reads nothing uses (nor returns) change nothing: they go. */
static void drop_dead(gb *g) {
    ss_program *p = g->p;
    for (int i = p->nsteps - 1; i >= 0 && p->nsteps > 1; i--) {
        const ss_step *s = &p->steps[i];
        if ((s->op != SS_STEP_VIEW && s->op != SS_STEP_READ) || s->name < 0) continue;
        int used = 0;
        for (int k = i + 1; k < p->nsteps && !used; k++) used = ss_step_uses(&p->steps[k], s->name);
        if (!used) ss_program_remove_step(p, i);
    }
}

/* Runs the program on the small fill; drops steps from the end until it is
 * valid and exact. 0, or -1 when out of memory. */
static int settle(gb *g) {
    const size_t es = g->c->op.elem_size;
    ss_storage in = {0}, src = {0};
    const size_t nin = (size_t)g->c->op.input_storage_numel * es;
    const size_t nsrc = g->c->op.src_aliased ? 0 : (size_t)g->c->op.src_storage_numel * es;
    if (ss_storage_reserve(&in, nin, 0) || ss_storage_reserve(&src, nsrc, 0)) {
        ss_storage_free(&in);
        return -1;
    }
    int rc = 0;
    while (g->p->nsteps > 0) {
        ss_fill_case(g->c, &in, &src);
        ss_prog_result res;
        const ss_prog_status st = ss_prog_ref_run(g->c, &g->plan, &in, &src, &res);
        const int inexact = res.inexact_step;
        ss_prog_result_free(&res);
        if (st == SS_PROG_FAILED) { rc = -1; break; }
        if (st != SS_PROG_INVALID && inexact < 0) break;
        drop_last(g);
    }
    ss_storage_free(&in);
    ss_storage_free(&src);
    return rc;
}

int ss_gen_program(const ss_gen_config *cfg, uint64_t seed, uint64_t index, ss_case *c) {
    gb g;
    memset(&g, 0, sizeof g);
    g.r.s = ss_mix64(seed ^ 0x70726f67ull) ^ ss_mix64(index * 0x9e3779b97f4a7c15ull + 1);
    g.c = c;
    g.scatter = -1;
    ss_gen_program_kinds(cfg, seed, index, g.on);
    if (ss_plan_build_limited(&c->op, cfg->max_bytes, &g.plan, NULL)) return 0;   /* not a case the campaign runs */
    const int max = cfg->program_steps < 1 ? 1 : cfg->program_steps > SS_PROG_MAX_STEPS
                  ? SS_PROG_MAX_STEPS : cfg->program_steps;
    g.p = ss_program_new();
    if (!g.p) return -1;
    ss_program_free(c->program);
    c->program = g.p;
    c->op.src_is_operand = 1;
    const int was_small = c->fill_small;
    c->fill_small = 1;
    /* the longest programs half the time: they have room for a read, the write and a use */
    draw_program(&g, chance(&g.r, 500) ? max : (int)range(&g.r, 1, max));
    if (settle(&g)) {
        ss_program_free(g.p);
        c->program = NULL;
        c->op.src_is_operand = 0;
        c->fill_small = was_small;
        return -1;
    }
    drop_dead(&g);   /* after settle: what a dropped step used may be dead now */
    if (g.p->nsteps == 0) {   /* nothing survived: the case's write alone */
        ss_step s = blank(SS_STEP_WRITE);
        s.kind = SS_SP_SETITEM_CLONE;
        s.of = SS_NAME_X;
        s.has_operand = 1;
        s.operand.name = SS_NAME_SRC;
        g.p->steps[g.p->nsteps++] = s;
    }
    /* names nothing uses any more (their steps dropped) stay out of the file */
    return 0;
}
