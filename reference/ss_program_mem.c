/* ss_program_mem.c - the program reference's values in and out of storages:
 * gathering a view's values, scattering written values (and the open elements
 * a non-accumulating index_put leaves), the scratch allocator. Used by the
 * reads, the steps and the run loop alike (ss_program_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
void ss_pr_settle_open(prun *r) {
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
