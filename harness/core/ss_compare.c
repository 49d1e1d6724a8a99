/* ss_compare.c - bitwise comparison of final storages and the first-difference report. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
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
    snprintf(out, n, "%s[%" PRId64 "]%s: expected %s, got %s; %" PRId64 " element%s differ%s%s",
             diff->storage == SS_STORAGE_INPUT ? "input storage" : "src storage", diff->index,
             logical, exp, act, diff->count, diff->count == 1 ? "" : "s",
             diff->count == 1 ? "s" : "", diff->guard_corrupt ? "; a guard band was overwritten" : "");
}
