/* ss_program_ref.c - the program reference: the run loop, storages through views, open elements, blame.
 *
 * Open elements: a non-accumulating index_put whose indices reach one element
 * twice with different values leaves it open (any of them is right). Records
 * are kept sorted by (storage, byte) and never overlap. A later write updates
 * the bytes it covers in every candidate (and closes the element when it
 * covers it all); a later read of an open element has no single value, so the
 * program is refused as invalid for the reference (docs/programs.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_compare.h"
#include "ss_storage.h"
#include "ss_program_int.h"


int ss_pr_oom(prun *r) {
    r->res->status = SS_PROG_FAILED;
    r->res->step = r->step;
    snprintf(r->res->why, sizeof r->res->why, "out of memory");
    return -1;
}

uint8_t *ss_pr_alloc(prun *r, ss_dtype t, int64_t n) {
    uint8_t *p = malloc(n > 0 ? (size_t)n * ss_dtype_size(t) : 1);
    if (!p) ss_pr_oom(r);
    return p;
}

/* First record whose end lies past byte `lo` of `storage`, among the sorted
 * ones (records a step adds are appended after them and sorted in when it
 * ends; they are elements of that step's own writes, never touched twice). */
static int open_first(const prun *r, int storage, int64_t lo) {
    const ss_prog_result *res = r->res;
    int a = 0, b = r->nsorted;
    while (a < b) {
        const int m = (a + b) / 2;
        const ss_prog_open *o = &res->open[m];
        if (o->storage < storage || (o->storage == storage && o->byte + o->size <= lo)) a = m + 1;
        else b = m;
    }
    return a;
}

/* The live record overlapping [lo, lo + n), or -1. */
static int open_at(const prun *r, int storage, int64_t lo, int64_t n) {
    const ss_prog_result *res = r->res;
    for (int i = open_first(r, storage, lo); i < r->nsorted; i++) {
        const ss_prog_open *o = &res->open[i];
        if (o->storage != storage || o->byte >= lo + n) break;
        if (o->nvals) return i;
    }
    return -1;
}

static void put(prun *r, int storage, int64_t byte, const uint8_t *val, int64_t n) {
    ss_prog_result *res = r->res;
    memcpy(r->st[storage] + byte, val, (size_t)n);
    if (r->watch_storage == storage && byte < r->watch_hi && r->watch_lo < byte + n)
        res->watch_last_step = r->step;
    if (!res->nopen) return;
    for (int i = open_first(r, storage, byte); i < r->nsorted; i++) {
        ss_prog_open *o = &res->open[i];
        if (o->storage != storage || o->byte >= byte + n) break;
        if (!o->nvals) continue;
        if (byte <= o->byte && o->byte + o->size <= byte + n) {   /* closed: one value again */
            free(o->vals);
            o->vals = NULL;
            o->nvals = 0;
            continue;
        }
        const int64_t lo = byte > o->byte ? byte : o->byte;
        const int64_t hi = byte + n < o->byte + o->size ? byte + n : o->byte + o->size;
        for (int k = 0; k < o->nvals; k++)
            memcpy(o->vals + (size_t)k * (size_t)o->size + (size_t)(lo - o->byte), val + (lo - byte),
                   (size_t)(hi - lo));
    }
}

int ss_pr_gather(prun *r, const pval *v, uint8_t *out) {
    const int64_t es = (int64_t)ss_dtype_size(v->dtype);
    if (!v->is_view) {
        memcpy(out, v->bytes, (size_t)(v->numel * es));
        return 0;
    }
    const uint8_t *base = r->st[v->storage];
    ss_pg_iter it;
    ss_pg_iter_start(&it, &v->v);
    for (int64_t i = 0; i < v->numel; i++, ss_pg_iter_next(&it)) {
        if (r->res->nopen) {
            const int o = open_at(r, v->storage, it.off * es, es);
            if (o >= 0)
                return ss_pg_invalid(r, NULL, "reads an element that the duplicate index_put at program[%d] "
                                     "left open: it has no single value to compute with", r->res->open[o].step);
        }
        memcpy(out + i * es, base + it.off * es, (size_t)es);
    }
    return 0;
}

typedef struct { int64_t off, seq; } wr;

static int cmp_wr(const void *a, const void *b) {
    const wr *x = a, *y = b;
    if (x->off != y->off) return x->off < y->off ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int add_open(prun *r, int storage, int64_t byte, int size, const uint8_t *vals, int nvals) {
    ss_prog_result *res = r->res;
    const int other = open_at(r, storage, byte, size);
    if (other >= 0)
        return ss_pg_invalid(r, NULL, "leaves open an element that overlaps one the index_put at program[%d] "
                             "left open (another element size): not a program the reference can check",
                             res->open[other].step);
    if (res->nopen == r->open_cap) {
        const int cap = r->open_cap ? r->open_cap * 2 : 16;
        ss_prog_open *n = realloc(res->open, (size_t)cap * sizeof *n);
        if (!n) return ss_pr_oom(r);
        res->open = n;
        r->open_cap = cap;
    }
    uint8_t *copy = malloc((size_t)nvals * (size_t)size);
    if (!copy) return ss_pr_oom(r);
    memcpy(copy, vals, (size_t)nvals * (size_t)size);
    /* appended past the sorted part: lookups stop before it until the step ends */
    res->open[res->nopen++] = (ss_prog_open){storage, byte, size, r->step, nvals, copy};
    return 0;
}

static int cmp_open(const void *a, const void *b) {
    const ss_prog_open *x = a, *y = b;
    if (x->storage != y->storage) return x->storage - y->storage;
    return x->byte < y->byte ? -1 : x->byte > y->byte;
}

/* After a step: closed records out, new ones sorted in. */
static void settle_open(prun *r) {
    ss_prog_result *res = r->res;
    int k = 0;
    for (int i = 0; i < res->nopen; i++)
        if (res->open[i].nvals) res->open[k++] = res->open[i];
    res->nopen = k;
    qsort(res->open, (size_t)res->nopen, sizeof *res->open, cmp_open);
    r->nsorted = res->nopen;
}

/* Writes n values at element offsets offs (elements of t in `storage`), in
 * order; where offsets repeat: accumulate (acc) or keep the last and leave
 * the element open when the values differ. */
static int scatter_offsets(prun *r, int storage, ss_dtype t, const int64_t *offs, const uint8_t *vals,
                           int64_t n, int acc) {
    const int64_t es = (int64_t)ss_dtype_size(t);
    wr *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    uint8_t *cand = malloc((size_t)(n > 0 ? n : 1) * (size_t)es);
    if (!w || !cand) { free(w); free(cand); return ss_pr_oom(r); }
    for (int64_t i = 0; i < n; i++) w[i] = (wr){offs[i], i};
    qsort(w, (size_t)n, sizeof *w, cmp_wr);
    int rc = 0;
    for (int64_t g = 0; g < n && !rc;) {
        int64_t e = g;
        while (e < n && w[e].off == w[g].off) e++;
        const int64_t byte = w[g].off * es;
        if (acc) {
            uint8_t sum[16];
            if (r->res->nopen && open_at(r, storage, byte, es) >= 0) {
                rc = ss_pg_invalid(r, NULL, "accumulates into an element a duplicate index_put left open");
                break;
            }
            memcpy(sum, r->st[storage] + byte, (size_t)es);
            for (int64_t k = g; k < e; k++) ss_el_binary(r, t, SS_EL_ADD, sum, vals + w[k].seq * es, 0, sum);
            put(r, storage, byte, sum, es);
        } else {
            int nc = 0;
            for (int64_t k = g; k < e; k++) {
                const uint8_t *v = vals + w[k].seq * es;
                int dup = 0;
                for (int j = 0; j < nc && !dup; j++) dup = !memcmp(cand + (size_t)j * (size_t)es, v, (size_t)es);
                if (!dup) memcpy(cand + (size_t)nc++ * (size_t)es, v, (size_t)es);
            }
            put(r, storage, byte, vals + w[e - 1].seq * es, es);
            if (nc > 1) rc = add_open(r, storage, byte, (int)es, cand, nc);
        }
        g = e;
    }
    free(w);
    free(cand);
    return rc;
}

int ss_pr_scatter(prun *r, const pval *v, const uint8_t *vals, int may_dup) {
    const int64_t es = (int64_t)ss_dtype_size(v->dtype);
    ss_pg_iter it;
    ss_pg_iter_start(&it, &v->v);
    if (!may_dup) {
        for (int64_t i = 0; i < v->numel; i++, ss_pg_iter_next(&it))
            put(r, v->storage, it.off * es, vals + i * es, es);
        return 0;
    }
    int64_t *offs = malloc((size_t)(v->numel > 0 ? v->numel : 1) * sizeof *offs);
    if (!offs) return ss_pr_oom(r);
    for (int64_t i = 0; i < v->numel; i++, ss_pg_iter_next(&it)) offs[i] = it.off;
    const int rc = scatter_offsets(r, v->storage, v->dtype, offs, vals, v->numel, 0);
    free(offs);
    return rc;
}

int ss_pr_scatter_offsets(prun *r, int storage, ss_dtype t, const int64_t *offs, const uint8_t *vals,
                          int64_t n, int acc) {
    return scatter_offsets(r, storage, t, offs, vals, n, acc);
}

/* ---- the run ------------------------------------------------------------- */

static void set_case_views(prun *r) {
    const ss_op *op = &r->plan->op;
    const ss_dtype t = r->c->dtype;
    pval *x = &r->val[SS_NAME_X], *s = &r->val[SS_NAME_SRC];
    *x = (pval){1, SS_STORAGE_INPUT, t, op->input, ss_view_numel(&op->input), NULL};
    *s = (pval){1, op->src_aliased ? SS_STORAGE_INPUT : SS_STORAGE_SRC, t, op->src,
                ss_view_numel(&op->src), NULL};
    r->st_bytes[0] = op->input_storage_numel * (int64_t)op->elem_size;
    r->st_bytes[1] = op->src_aliased ? 0 : op->src_storage_numel * (int64_t)op->elem_size;
}

static ss_prog_status run(prun *r, ss_prog_name_info *names) {
    ss_prog_result *res = r->res;
    const ss_program *p = r->p;
    set_case_views(r);
    r->defined[SS_NAME_X] = r->defined[SS_NAME_SRC] = 1;
    /* checking only (no storages), the run goes on past a refusal: every
     * name still gets its view, for printers */
    for (int i = 0; i < p->nsteps && (res->status == SS_PROG_OK ||
                                      (!r->exec && res->status == SS_PROG_REFUSED)); i++) {
        r->step = i;
        const ss_step *s = &p->steps[i];
        const int rc = s->op == SS_STEP_READ ? ss_pr_read(r, s) : ss_pr_steps_run(r, s);
        if (res->nopen) settle_open(r);
        if (rc && res->status == SS_PROG_OK) ss_pr_oom(r);
        if (!rc && s->name >= 0) r->defined[s->name] = 1;
    }
    for (int n = 0; n < SS_PROG_MAX_NAMES; n++) {
        if (names) {
            const pval *v = &r->val[n];
            names[n] = (ss_prog_name_info){r->defined[n], v->is_view, v->storage, v->dtype, v->v};
        }
        free(r->val[n].bytes);
    }
    return res->status;
}

static ss_prog_status start(const ss_case *c, const ss_plan *plan, ss_storage *in, ss_storage *src,
                            int storage, int64_t lo, int64_t hi, ss_prog_result *res,
                            ss_prog_name_info *names) {
    ss_prog_result_init(res);
    prun r;
    memset(&r, 0, sizeof r);
    r.c = c;
    r.plan = plan;
    r.p = c->program;
    r.res = res;
    r.exec = in != NULL;
    r.watch_storage = storage;
    r.watch_lo = lo;
    r.watch_hi = hi;
    if (!c->program) {
        res->status = SS_PROG_INVALID;
        snprintf(res->err.field, sizeof res->err.field, "program");
        snprintf(res->err.msg, sizeof res->err.msg, "the case has no program");
        return res->status;
    }
    if (in) {
        r.st[0] = ss_storage_data(in);
        r.st[1] = plan->op.src_aliased || !src ? r.st[0] : ss_storage_data(src);
    }
    return run(&r, names);
}

ss_prog_status ss_prog_ref_run(const ss_case *c, const ss_plan *plan, ss_storage *in, ss_storage *src,
                               ss_prog_result *res) {
    return start(c, plan, in, src, -1, 0, 0, res, NULL);
}

ss_prog_status ss_prog_ref_run_watch(const ss_case *c, const ss_plan *plan, ss_storage *in,
                                     ss_storage *src, int storage, int64_t lo, int64_t hi,
                                     ss_prog_result *res) {
    return start(c, plan, in, src, storage, lo, hi, res, NULL);
}

ss_prog_status ss_prog_ref_check(const ss_case *c, const ss_plan *plan, ss_prog_result *res) {
    return start(c, plan, NULL, NULL, -1, 0, 0, res, NULL);
}

int ss_prog_ref_names(const ss_case *c, const ss_plan *plan, ss_prog_name_info *names,
                      ss_prog_result *res) {
    memset(names, 0, SS_PROG_MAX_NAMES * sizeof *names);
    const ss_prog_status st = start(c, plan, NULL, NULL, -1, 0, 0, res, names);
    return st == SS_PROG_OK || st == SS_PROG_REFUSED ? 0 : -1;
}

/* ---- which step is wrong ---------------------------------------------------- */

static int copy_of(ss_storage *dst, const ss_storage *src) {
    if (ss_storage_reserve(dst, src->bytes, src->guard)) return -1;
    ss_storage_copy(dst, src);
    return 0;
}

/* The last step writing bytes [lo, hi) of `storage`, rerunning from the initial storages. */
static int last_writer(const ss_case *c, const ss_plan *plan, const ss_storage *init_in,
                       const ss_storage *init_src, int storage, int64_t lo, int64_t hi) {
    ss_storage in = {0}, src = {0};
    int step = -1;
    const int sep = !plan->op.src_aliased;
    if (!copy_of(&in, init_in) && (!sep || !copy_of(&src, init_src))) {
        ss_prog_result res;
        ss_prog_ref_run_watch(c, plan, &in, sep ? &src : NULL, storage, lo, hi, &res);
        step = res.watch_last_step;
        ss_prog_result_free(&res);
    }
    ss_storage_free(&in);
    ss_storage_free(&src);
    return step;
}

int ss_prog_ref_blame(const ss_case *c, const ss_plan *plan, const ss_storage *init_in,
                      const ss_storage *init_src, ss_prog_diff *d) {
    const ss_program *p = c->program;
    d->step = -1;
    if (!p) return -1;
    const int ret_step = p->nsteps > 0 && p->steps[p->nsteps - 1].op == SS_STEP_RETURN ? p->nsteps - 1 : -1;
    if (d->kind == SS_PD_STORAGE) {
        const int64_t es = (int64_t)ss_dtype_size(c->dtype);
        d->step = last_writer(c, plan, init_in, init_src, d->storage, d->index * es, (d->index + 1) * es);
        return d->step;
    }
    if (d->kind == SS_PD_RET_COUNT || d->name < 0 || d->name >= p->nnames) return d->step = ret_step;
    const int def = p->defined_at[d->name];
    if (d->kind != SS_PD_RET_VALUE) return d->step = def >= 0 ? def : ret_step;
    ss_prog_name_info names[SS_PROG_MAX_NAMES];
    ss_prog_result res;
    const int ok = ss_prog_ref_names(c, plan, names, &res) == 0 && names[d->name].defined;
    ss_prog_result_free(&res);
    if (!ok || !names[d->name].is_view) return d->step = def;
    /* a returned view: the element's bytes in its storage */
    const ss_prog_name_info *v = &names[d->name];
    int64_t off = v->v.offset;
    for (int k = 0; k < v->v.ndim && k < d->ndim; k++) off += d->logical[k] * v->v.strides[k];
    const int64_t es = (int64_t)ss_dtype_size(v->dtype);
    d->step = last_writer(c, plan, init_in, init_src, v->storage, off * es, (off + 1) * es);
    return d->step;
}
