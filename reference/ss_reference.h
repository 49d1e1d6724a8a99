/* ss_reference.h - the CPU reference slice_scatter with snapshot semantics. */
#ifndef SS_REFERENCE_H
#define SS_REFERENCE_H

#include "ss_plan.h"

/* Apply out = slice_scatter(input, src) and write out back through input's
 * view, reading everything before writing anything. Rejects (SS_RUN_REJECTED)
 * a plan whose input view has internal overlap. `src` is ignored when aliased.
 * `why` receives the reason for a rejection or failure. */
ss_run_status ss_ref_run(const ss_plan *plan, ss_storage *input, ss_storage *src,
                         char *why, size_t why_len);

#endif
