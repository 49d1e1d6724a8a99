/* ss_compare.c - bitwise comparison of final storages and the first-difference report. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "ss_bits.h"
#include "ss_case.h"
#include "ss_compare.h"
#include "ss_storage.h"
#include "ss_value_fmt.h"

/* Only runs on a mismatch (or for the few lines explain prints), so a plain
 * walk of the view is fine. */
int ss_view_index_of(const ss_view *v, int64_t index, int64_t *logical) {
    const int64_t numel = ss_view_numel(v);
    int64_t idx[SS_MAX_NDIM] = {0};
    int64_t off = v->offset;
    for (int64_t k = 0; k < numel; k++) {
        if (off == index) {
            memcpy(logical, idx, sizeof idx);
            return 1;
        }
        for (int d = v->ndim - 1; d >= 0; d--) {
            if (++idx[d] < v->sizes[d]) { off += v->strides[d]; break; }
            off -= (v->sizes[d] - 1) * v->strides[d];
            idx[d] = 0;
        }
    }
    return 0;
}

/* Counts differing elements of one storage; records the first if none yet. */
static void diff_storage(const ss_plan *plan, int which, const ss_storage *e, const ss_storage *a,
                         ss_diff *diff) {
    const size_t es = plan->op.elem_size;
    const uint8_t *pe = ss_storage_data(e), *pa = ss_storage_data(a);
    if (!memcmp(pe, pa, e->bytes)) return;
    const int64_t n = (int64_t)(e->bytes / es);
    for (int64_t i = 0; i < n; i++) {
        if (!memcmp(pe + i * (int64_t)es, pa + i * (int64_t)es, es)) continue;
        if (diff->count++ == 0) {
            diff->storage = which;
            diff->index = i;
            memcpy(diff->expected, pe + i * (int64_t)es, es);
            memcpy(diff->actual, pa + i * (int64_t)es, es);
            diff->in_input_view = which == SS_STORAGE_INPUT &&
                                  ss_view_index_of(&plan->op.input, i, diff->logical);
        }
    }
}

/* Whether the w-byte float at p is a NaN (w: 2 float16/bfloat16 by `bf16`, 4, 8). */
static int is_nan(const uint8_t *p, size_t w, int bf16) {
    const uint64_t v = ss_load_le(p, w);
    switch (w) {
    case 2: return bf16 ? (v & 0x7f80) == 0x7f80 && (v & 0x7f) : (v & 0x7c00) == 0x7c00 && (v & 0x3ff);
    case 4: return (v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu);
    default: return (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (v & 0xfffffffffffffull);
    }
}

/* 1 when elements e and a (es bytes of `parts` floats each) differ only in
 * components that are NaN on both sides. */
static int nan_pair(const uint8_t *e, const uint8_t *a, size_t es, int parts, int bf16) {
    const size_t w = es / (size_t)parts;
    for (int k = 0; k < parts; k++) {
        const uint8_t *ek = e + k * w, *ak = a + k * w;
        if (memcmp(ek, ak, w) && !(is_nan(ek, w, bf16) && is_nan(ak, w, bf16))) return 0;
    }
    return 1;
}

static void nan_storage(const ss_plan *plan, int which, const ss_storage *e, const ss_storage *a, int parts,
                        int bf16, ss_diff *diff, int *moved) {
    const size_t es = plan->op.elem_size;
    const uint8_t *pe = ss_storage_data(e), *pa = ss_storage_data(a);
    if (!memcmp(pe, pa, e->bytes)) return;
    const int64_t n = (int64_t)(e->bytes / es);
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *x = pe + i * (int64_t)es, *y = pa + i * (int64_t)es;
        if (!memcmp(x, y, es)) continue;
        if (nan_pair(x, y, es, parts, bf16)) { diff->nan_pairs++; continue; }
        if (*moved) continue;
        *moved = 1;   /* the first difference shown is a wrong value, not a NaN's bits */
        diff->storage = which;
        diff->index = i;
        memcpy(diff->expected, x, es);
        memcpy(diff->actual, y, es);
        diff->in_input_view = which == SS_STORAGE_INPUT && ss_view_index_of(&plan->op.input, i, diff->logical);
    }
}

void ss_compare_nan_pairs(const ss_plan *plan, int dtype, const ss_storage *exp_in, const ss_storage *exp_src,
                          const ss_storage *act_in, const ss_storage *act_src, ss_diff *diff) {
    diff->nan_pairs = 0;
    const int floating = dtype >= SS_FLOAT16 && dtype <= SS_COMPLEX128;
    if (!floating || !diff->count) return;
    const int parts = dtype >= SS_COMPLEX64 ? 2 : 1, bf16 = dtype == SS_BFLOAT16;
    int moved = 0;
    nan_storage(plan, SS_STORAGE_INPUT, exp_in, act_in, parts, bf16, diff, &moved);
    if (!plan->op.src_aliased) nan_storage(plan, SS_STORAGE_SRC, exp_src, act_src, parts, bf16, diff, &moved);
}

int ss_compare(const ss_plan *plan, const ss_storage *exp_in, const ss_storage *exp_src,
               const ss_storage *act_in, const ss_storage *act_src, ss_diff *diff) {
    /* Zeroed through the library memset: for this constant size the compiler
     * inlines `rep stosq`, whose start-up cost dominates (once per check). */
    size_t n = sizeof *diff;
    __asm__("" : "+r"(n));
    memset(diff, 0, n);
    diff->elem_size = plan->op.elem_size;
    diff->guard_corrupt = !ss_storage_guards_intact(act_in) ||
                          (!plan->op.src_aliased && !ss_storage_guards_intact(act_src));
    diff_storage(plan, SS_STORAGE_INPUT, exp_in, act_in, diff);
    if (!plan->op.src_aliased) diff_storage(plan, SS_STORAGE_SRC, exp_src, act_src, diff);
    return diff->count > 0 || diff->guard_corrupt;
}

void ss_diff_format(const ss_plan *plan, const ss_diff *diff, char *out, size_t n) {
    (void)plan;
    if (diff->count == 0) {
        snprintf(out, n, "%s", diff->guard_corrupt ? "a guard band was overwritten (write out of bounds)"
                                                   : "storages identical");
        return;
    }
    char exp[160], act[160], logical[16 * 22 + 4] = "";
    ss_value_format(diff->value_type, diff->expected, diff->elem_size, exp, sizeof exp);
    ss_value_format(diff->value_type, diff->actual, diff->elem_size, act, sizeof act);
    if (diff->in_input_view) {
        size_t k = (size_t)snprintf(logical, sizeof logical, " (input index [");
        for (int d = 0; d < plan->op.input.ndim; d++)
            k += (size_t)snprintf(logical + k, sizeof logical - k, "%s%" PRId64, d ? ", " : "",
                                  diff->logical[d]);
        snprintf(logical + k, sizeof logical - k, "])");
    }
    char nans[64] = "";
    if (diff->nan_pairs)
        snprintf(nans, sizeof nans, " (%" PRId64 " of them NaN on both sides)", diff->nan_pairs);
    snprintf(out, n, "%s[%" PRId64 "]%s: expected %s, got %s; %" PRId64 " element%s differ%s%s%s",
             diff->storage == SS_STORAGE_INPUT ? "input storage" : "src storage", diff->index,
             logical, exp, act, diff->count, diff->count == 1 ? "" : "s",
             diff->count == 1 ? "s" : "", nans, diff->guard_corrupt ? "; a guard band was overwritten" : "");
}
