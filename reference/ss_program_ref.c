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
        if (res->nopen) ss_pr_settle_open(r);
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
