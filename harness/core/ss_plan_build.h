/* ss_plan_build.h - validation and normalization of a case into a plan. */
#ifndef SS_PLAN_BUILD_H
#define SS_PLAN_BUILD_H

#include "ss_plan.h"
#include "ss_error.h"
#include "ss_overlap.h"

/* Validate op with PyTorch's slice_scatter rules and fill plan. Returns 0 when
 * the case is well formed (plan->internal_overlap may still mark it as one
 * every target must reject), -1 with err naming the field and rule otherwise.
 * All arithmetic is overflow-checked; views must lie inside their storage and
 * stay within SS_MAX_NUMEL. */
int ss_plan_build(const ss_op *op, ss_plan *plan, ss_error *err);
/* Same, with the storages' data bytes (input + separate src) capped at
 * max_bytes instead of SS_DEFAULT_MAX_BYTES; 0 means the default. */
int ss_plan_build_limited(const ss_op *op, size_t max_bytes, ss_plan *plan, ss_error *err);

/* Storage element index of the logical index idx[] in view v. */
int64_t ss_view_offset_of(const ss_view *v, const int64_t *idx);

/* Normalize dim/start/end/step as PyTorch does. Exposed for tests. */
int ss_normalize_slice(int64_t ndim, int64_t dim, int has_start, int64_t start,
                       int has_end, int64_t end, int64_t step, const int64_t *sizes,
                       int *dim_out, int64_t *start_out, int64_t *end_out,
                       int64_t *len_out, ss_error *err);

#endif
