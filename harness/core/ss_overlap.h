/* ss_overlap.h - overlap geometry of validated views (ss_overlap.c): a view that reaches
 * one storage element twice, and how a plan's src meets its slice. */
#ifndef SS_OVERLAP_H
#define SS_OVERLAP_H

#include "ss_plan.h"

/* Exact test: does the view map two distinct logical indices to one storage
 * element? (stride 0 on a dim of size > 1, or strides that interleave, e.g.
 * sizes [2,2] strides [1,1].) Requires a validated view. Exact at any size;
 * -1 when the bitmap it needs cannot be allocated. */
int ss_view_has_internal_overlap(const ss_view *v);

/* The same, for a view whose element count (ss_view_numel) the caller has. */
int ss_view_internal_overlap_n(const ss_view *v, int64_t numel);

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
