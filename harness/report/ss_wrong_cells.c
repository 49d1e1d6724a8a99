/* ss_wrong_cells.c - the wrong elements of a final storage, one line each, values next to bits. */
#include <inttypes.h>
#include <string.h>
#include "ss_compare.h"
#include "ss_value_fmt.h"
#include "ss_wrong_cells.h"

int64_t ss_wrong_cells_print(FILE *f, const ss_plan *plan, int value_type, int which,
                             const ss_storage *want, const ss_storage *got, int64_t max) {
    const size_t es = plan->op.elem_size;
    if (!want->base || !got->base || want->bytes != got->bytes) return 0;
    const uint8_t *pw = ss_storage_data(want), *pg = ss_storage_data(got);
    const int64_t n = (int64_t)(want->bytes / es);
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!memcmp(pw + i * (int64_t)es, pg + i * (int64_t)es, es)) continue;
        if (wrong++ >= max) continue;
        char e[160], a[160];
        ss_value_format(value_type, pw + i * (int64_t)es, es, e, sizeof e);
        ss_value_format(value_type, pg + i * (int64_t)es, es, a, sizeof a);
        fprintf(f, "    %s storage[%" PRId64 "]", which == SS_STORAGE_INPUT ? "input" : "src", i);
        int64_t idx[SS_MAX_NDIM];
        if (which == SS_STORAGE_INPUT && ss_view_index_of(&plan->op.input, i, idx)) {
            fprintf(f, " (input index [");
            for (int d = 0; d < plan->op.input.ndim; d++) fprintf(f, "%s%" PRId64, d ? ", " : "", idx[d]);
            fprintf(f, "])");
        }
        fprintf(f, ": expected %s, got %s\n", e, a);
    }
    if (wrong > max) fprintf(f, "    ... %" PRId64 " more\n", wrong - max);
    return wrong;
}
