/* ss_plan_build.h - validation and normalization of a case into a plan. */
#ifndef SS_PLAN_BUILD_H
#define SS_PLAN_BUILD_H

#include "ss_plan.h"
#include "ss_error.h"

/* Validate op with PyTorch's slice_scatter rules and fill plan. Returns 0 when
 * the case is well formed (plan->internal_overlap may still mark it as one
 * every target must reject), -1 with err naming the field and rule otherwise.
 * All arithmetic is overflow-checked; views must lie inside their storage and
 * stay within SS_MAX_NUMEL. */
int ss_plan_build(const ss_op *op, ss_plan *plan, ss_error *err);
/* Same, with the storages' data bytes (input + separate src) capped at
 * max_bytes instead of SS_DEFAULT_MAX_BYTES; 0 means the default. */
int ss_plan_build_limited(const ss_op *op, size_t max_bytes, ss_plan *plan, ss_error *err);

/* Exact test: does the view map two distinct logical indices to one storage
 * element? (stride 0 on a dim of size > 1, or strides that interleave, e.g.
 * sizes [2,2] strides [1,1].) Requires a validated view. Exact at any size;
 * -1 when the bitmap it needs cannot be allocated. */
int ss_view_has_internal_overlap(const ss_view *v);

/* Storage element index of the logical index idx[] in view v. */
int64_t ss_view_offset_of(const ss_view *v, const int64_t *idx);

/* Normalize dim/start/end/step as PyTorch does. Exposed for tests. */
int ss_normalize_slice(int64_t ndim, int64_t dim, int has_start, int64_t start,
                       int has_end, int64_t end, int64_t step, const int64_t *sizes,
                       int *dim_out, int64_t *start_out, int64_t *end_out,
                       int64_t *len_out, ss_error *err);

const char *ss_overlap_name(ss_overlap o);
/* The overlap class of a built plan's src and slice (SS_OVL_SEPARATE for a
 * separate src): an exact search for a shared element as a bounded
 * equation, falling back on the views' runs or a bitmap where it gives up.
 * Worked out on each call (a few hundred instructions a small case): the
 * reports and a finding's key read it, no check needs it. */
ss_overlap ss_plan_overlap(const ss_plan *plan);
/* Tests only: ss_plan_overlap the way it goes when its exact search gives
 * up: by the views' runs, or a bitmap. Equal to ss_plan_overlap. */
ss_overlap ss_plan_overlap_unsolved(const ss_plan *plan);

#endif
