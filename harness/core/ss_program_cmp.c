/* ss_program_cmp.c - a program's actual result against the reference's: storages, returned values, alias facts. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "ss_compare.h"
#include "ss_program.h"
#include "ss_storage.h"
#include "ss_value_fmt.h"

/* First open record of `storage` ending past `lo` (records sorted by (storage, byte)). */
static int first_open(const ss_prog_result *ref, int storage, int64_t lo) {
    int a = 0, b = ref->nopen;
    while (a < b) {
        const int m = (a + b) / 2;
        const ss_prog_open *o = &ref->open[m];
        if (o->storage < storage || (o->storage == storage && o->byte + o->size <= lo)) a = m + 1;
        else b = m;
    }
    return a;
}

/* How many values the element at [byte, byte+n) may hold (1: one). */
static int allowed_count(const ss_prog_result *ref, int storage, int64_t byte, size_t n) {
    const int i = first_open(ref, storage, byte);
    if (i < ref->nopen && ref->open[i].storage == storage && ref->open[i].byte < byte + (int64_t)n)
        return ref->open[i].nvals;
    return 1;
}

int ss_prog_bytes_allowed(const ss_prog_result *ref, int storage, int64_t byte, size_t n,
                          const uint8_t *expected, const uint8_t *actual) {
    if (!memcmp(expected, actual, n)) return 1;
    uint8_t covered[16] = {0};
    for (int i = first_open(ref, storage, byte); i < ref->nopen; i++) {
        const ss_prog_open *o = &ref->open[i];
        if (o->storage != storage || o->byte >= byte + (int64_t)n) break;
        const int64_t lo = byte > o->byte ? byte : o->byte;
        const int64_t hi = byte + (int64_t)n < o->byte + o->size ? byte + (int64_t)n : o->byte + o->size;
        int ok = 0;
        for (int k = 0; k < o->nvals && !ok; k++)
            ok = !memcmp(o->vals + (size_t)k * (size_t)o->size + (lo - o->byte), actual + (lo - byte),
                         (size_t)(hi - lo));
        if (!ok) return 0;
        memset(covered + (lo - byte), 1, (size_t)(hi - lo));
    }
    for (size_t b = 0; b < n && b < sizeof covered; b++)
        if (!covered[b] && expected[b] != actual[b]) return 0;
    return 1;
}

static void unravel(const ss_view *shape, int64_t q, ss_prog_diff *d) {
    d->ndim = shape->ndim;
    for (int k = shape->ndim - 1; k >= 0; k--) {
        const int64_t s = shape->sizes[k] ? shape->sizes[k] : 1;
        d->logical[k] = q % s;
        q /= s;
    }
}

static void diff_storage(const ss_case *c, const ss_prog_result *ref, int which, const ss_storage *e,
                         const ss_storage *a, ss_prog_diff *d) {
    const size_t es = ss_dtype_size(c->dtype);
    const uint8_t *pe = ss_storage_data(e), *pa = ss_storage_data(a);
    if (!memcmp(pe, pa, e->bytes)) return;
    const int64_t n = (int64_t)(e->bytes / es);
    for (int64_t i = 0; i < n; i++) {
        const int64_t byte = i * (int64_t)es;
        if (ss_prog_bytes_allowed(ref, which, byte, es, pe + byte, pa + byte)) continue;
        if (d->count++) continue;
        d->kind = SS_PD_STORAGE;
        d->storage = which;
        d->index = i;
        d->dtype = c->dtype;
        d->elem_size = es;
        memcpy(d->expected, pe + byte, es);
        memcpy(d->actual, pa + byte, es);
        d->nallowed = allowed_count(ref, which, byte, es);
        d->ndim = which == SS_STORAGE_INPUT && ss_view_index_of(&c->op.input, i, d->logical)
                  ? c->op.input.ndim : 0;
    }
}

/* The storages a returned value must share (bit 0 x's, bit 1 src's) and must not. */
static int must_share(const ss_case *c, const ss_prog_value *v) {
    if (!v->is_view) return 0;
    if (c->op.src_aliased) return 3;
    return v->storage == SS_STORAGE_INPUT ? 1 : 2;
}

static int first_ret(ss_prog_diff *d, ss_prog_diff_kind kind, int i, const ss_prog_value *ev) {
    if (d->count++ == 0 || d->kind == SS_PD_NONE) {
        d->kind = kind;
        d->ret = i;
        d->name = ev ? ev->name : -1;
        return 1;
    }
    return 0;
}

static void diff_value(const ss_case *c, const ss_prog_result *ref, int i, const ss_prog_actual_value *av,
                       ss_prog_diff *d) {
    const ss_prog_value *ev = &ref->ret[i];
    const size_t es = ss_dtype_size(ev->dtype);
    int same_shape = av->ndim == ev->view.ndim;
    for (int k = 0; same_shape && k < av->ndim; k++) same_shape = av->sizes[k] == ev->view.sizes[k];
    if (av->dtype != ev->dtype) {
        if (first_ret(d, SS_PD_RET_DTYPE, i, ev)) d->dtype = ev->dtype;
        return;
    }
    if (!same_shape || av->nbytes != (size_t)ev->numel * es) {
        first_ret(d, SS_PD_RET_SHAPE, i, ev);
        return;
    }
    const int want = must_share(c, ev);
    const int ok = want ? (av->shares & want) == want || (c->op.src_aliased && av->shares) : av->shares == 0;
    if (!ok && first_ret(d, SS_PD_RET_ALIAS, i, ev)) {
        d->expect_shares = want;
        d->actual_shares = av->shares;
    }
    int64_t idx[SS_MAX_NDIM] = {0};
    int64_t off = ev->view.offset;
    for (int64_t q = 0; q < ev->numel; q++) {
        const uint8_t *e = ev->bytes + q * (int64_t)es, *a = av->bytes + q * (int64_t)es;
        const int good = ev->is_view ? ss_prog_bytes_allowed(ref, ev->storage, off * (int64_t)es, es, e, a)
                                     : !memcmp(e, a, es);
        if (!good && first_ret(d, SS_PD_RET_VALUE, i, ev)) {
            d->index = q;
            d->dtype = ev->dtype;
            d->elem_size = es;
            memcpy(d->expected, e, es);
            memcpy(d->actual, a, es);
            d->nallowed = ev->is_view ? allowed_count(ref, ev->storage, off * (int64_t)es, es) : 1;
            unravel(&ev->view, q, d);
        }
        for (int k = ev->view.ndim - 1; k >= 0; k--) {   /* next element of the view */
            if (++idx[k] < ev->view.sizes[k]) { off += ev->view.strides[k]; break; }
            off -= (ev->view.sizes[k] - 1) * ev->view.strides[k];
            idx[k] = 0;
        }
    }
}

int ss_prog_compare(const ss_case *c, const ss_prog_result *ref, const ss_storage *ref_in,
                    const ss_storage *ref_src, const ss_prog_actual *act, ss_prog_diff *d) {
    memset(d, 0, sizeof *d);
    d->step = -1;
    d->name = -1;
    const int sep = !c->op.src_aliased;
    d->guard_corrupt = !ss_storage_guards_intact(act->in) || (sep && !ss_storage_guards_intact(act->src));
    diff_storage(c, ref, SS_STORAGE_INPUT, ref_in, act->in, d);
    if (sep) diff_storage(c, ref, SS_STORAGE_SRC, ref_src, act->src, d);
    if (act->nret != ref->nret) {
        first_ret(d, SS_PD_RET_COUNT, -1, NULL);
        d->expect_shares = ref->nret;
        d->actual_shares = act->nret;
    } else {
        for (int i = 0; i < ref->nret; i++) diff_value(c, ref, i, &act->ret[i], d);
    }
    if (d->guard_corrupt && d->kind == SS_PD_NONE) d->kind = SS_PD_GUARD;
    return d->count > 0 || d->guard_corrupt;
}

static const char *share_words(int s) {
    switch (s) {
    case 0: return "no input storage (a fresh tensor)";
    case 1: return "x's storage";
    case 2: return "src's storage";
    default: return "x's and src's storage";
    }
}

void ss_prog_diff_format(const ss_program *p, const ss_prog_diff *d, char *out, size_t n) {
    char what[512] = "", idx[16 * 22 + 8] = "", exp[160], act[160], tail[160] = "";
    const char *name = p && d->name >= 0 && d->name < p->nnames ? p->names[d->name] : "?";
    size_t k = 0;
    for (int i = 0; i < d->ndim; i++)
        k += (size_t)snprintf(idx + k, sizeof idx - k, "%s%" PRId64, i ? ", " : "[", d->logical[i]);
    if (d->ndim) snprintf(idx + k, sizeof idx - k, "]");
    if (d->step >= 0) snprintf(tail, sizeof tail, "; first wrong step: program[%d]", d->step);
    if (d->guard_corrupt && d->kind != SS_PD_GUARD)
        snprintf(tail + strlen(tail), sizeof tail - strlen(tail), "; a guard band was overwritten");
    switch (d->kind) {
    case SS_PD_NONE: snprintf(out, n, "results agree"); return;
    case SS_PD_GUARD: snprintf(out, n, "a guard band was overwritten (write out of bounds)"); return;
    case SS_PD_RET_COUNT:
        snprintf(out, n, "returned %d values, expected %d%s", d->actual_shares, d->expect_shares, tail);
        return;
    case SS_PD_RET_DTYPE:
        snprintf(out, n, "returned value %d (%s) has another dtype than %s%s", d->ret, name,
                 ss_dtype_name(d->dtype), tail);
        return;
    case SS_PD_RET_SHAPE:
        snprintf(out, n, "returned value %d (%s) has another shape or size than expected%s", d->ret, name, tail);
        return;
    case SS_PD_RET_ALIAS:
        snprintf(out, n, "returned value %d (%s) shares %s but must share %s%s", d->ret, name,
                 share_words(d->actual_shares), share_words(d->expect_shares), tail);
        return;
    case SS_PD_STORAGE:
        snprintf(what, sizeof what, "%s storage[%" PRId64 "]%s%s%s", d->storage == SS_STORAGE_INPUT ? "input" : "src",
                 d->index, d->ndim ? " (x" : "", d->ndim ? idx : "", d->ndim ? ")" : "");
        break;
    default: snprintf(what, sizeof what, "returned value %d (%s)%s", d->ret, name, idx); break;
    }
    ss_value_format(1 + (int)d->dtype, d->expected, d->elem_size, exp, sizeof exp);
    ss_value_format(1 + (int)d->dtype, d->actual, d->elem_size, act, sizeof act);
    char allowed[48] = "";
    if (d->nallowed > 1) snprintf(allowed, sizeof allowed, " (or one of %d allowed values)", d->nallowed);
    snprintf(out, n, "%s: expected %s%s, got %s; %" PRId64 " element%s differ%s%s", what, exp, allowed, act,
             d->count, d->count == 1 ? "" : "s", d->count == 1 ? "s" : "", tail);
}
