/* fuzz_json.c - the JSON case reader never crashes on any bytes, and every case it accepts survives write -> read unchanged and plans the same. */
#include <string.h>
#include <cjson/cJSON.h>
#include "fuzz_helpers.h"
#include "ss_case.h"
#include "ss_plan_build.h"

static int views_equal(const ss_view *a, const ss_view *b) {
    if (a->offset != b->offset || a->ndim != b->ndim) return 0;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d] || a->strides[d] != b->strides[d]) return 0;
    return 1;
}

/* Field by field: unused dims and padding in ss_op are not part of the case. */
static const char *case_difference(const ss_case *a, const ss_case *b) {
    const ss_op *x = &a->op, *y = &b->op;
    if (a->dtype != b->dtype || x->elem_size != y->elem_size) return "dtype";
    if (x->input_storage_numel != y->input_storage_numel) return "storage.numel";
    if (x->src_aliased != y->src_aliased) return "src.storage";
    if (!x->src_aliased && x->src_storage_numel != y->src_storage_numel) return "src_storage";
    if (!views_equal(&x->input, &y->input)) return "input view";
    if (!views_equal(&x->src, &y->src)) return "src view";
    if (x->dim != y->dim || x->step != y->step) return "dim/step";
    if (x->has_start != y->has_start || (x->has_start && x->start != y->start)) return "start";
    if (x->has_end != y->has_end || (x->has_end && x->end != y->end)) return "end";
    if (a->explicit_values != b->explicit_values) return "values vs fill";
    if (a->explicit_values) {
        if (memcmp(a->values_input, b->values_input,
                   (size_t)x->input_storage_numel * x->elem_size)) return "values.input";
        if (!x->src_aliased && memcmp(a->values_src, b->values_src,
                                      (size_t)x->src_storage_numel * x->elem_size)) return "values.src";
    } else if (a->fill_seed != b->fill_seed) {
        return "fill.seed";
    }
    if ((a->meta == NULL) != (b->meta == NULL) || (a->meta && !cJSON_Compare(a->meta, b->meta, 1)))
        return "meta";
    if ((a->expect == NULL) != (b->expect == NULL) ||
        (a->expect && !cJSON_Compare(a->expect, b->expect, 1)))
        return "expect";
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ss_case first, second;
    ss_error err;
    if (ss_case_from_json((const char *)data, size, &first, &err) != 0) {
        ss_case_free(&first);
        return 0;
    }
    /* The planner must judge any accepted case without crashing; its verdict
     * must not depend on the round trip. */
    ss_plan plan1, plan2;
    ss_error perr1, perr2;
    const int valid1 = ss_plan_build(&first.op, &plan1, &perr1);

    char *text = ss_case_to_json(&first);
    if (!text) { ss_case_free(&first); return 0; }   /* out of memory: not a finding */
    const int rc = ss_case_from_json(text, strlen(text), &second, &err);
    FUZZ_ASSERT_MSG(rc == 0, "written case does not reparse: %s: %s\n%s", err.field, err.msg, text);
    const char *diff = case_difference(&first, &second);
    FUZZ_ASSERT_MSG(diff == NULL, "round trip changed %s\n%s", diff ? diff : "", text);

    const int valid2 = ss_plan_build(&second.op, &plan2, &perr2);
    FUZZ_ASSERT_MSG(valid1 == valid2, "plan validity changed over the round trip (%d vs %d)",
                    valid1, valid2);
    if (valid1 == 0) {
        FUZZ_ASSERT(plan1.dim == plan2.dim && plan1.start == plan2.start &&
                    plan1.end == plan2.end && plan1.slice_len == plan2.slice_len);
        FUZZ_ASSERT(plan1.internal_overlap == plan2.internal_overlap &&
                    ss_plan_overlap(&plan1) == ss_plan_overlap(&plan2));
        FUZZ_ASSERT(views_equal(&plan1.slice, &plan2.slice));
    }

    /* Writing is deterministic: the second case prints byte for byte the same. */
    char *again = ss_case_to_json(&second);
    if (again) FUZZ_ASSERT_MSG(strcmp(text, again) == 0, "writer not stable:\n%s\n---\n%s", text, again);
    free(again);
    free(text);
    ss_case_free(&first);
    ss_case_free(&second);
    return 0;
}
