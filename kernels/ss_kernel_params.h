/* ss_kernel_params.h - host-side launch planning shared by the CUDA target and the emulator.
 *
 * The kernel's own view of the operation: it derives the written slice from the
 * raw op (dim/start/end/step) with code independent of the reference, rejects
 * inputs with internal overlap, decides whether src must be staged, and turns
 * the kernel variant into at most three launches of the one kernel body.
 * Mutants differ from `reinplace` only here, in the parameters. */
#ifndef SS_KERNEL_PARAMS_H
#define SS_KERNEL_PARAMS_H

#include <stddef.h>
#include "ss_plan.h"
#include "ss_kernel_body.h"
#include "ss_kernels.h"

#define SS_KPROG_MAX_LAUNCHES 3

/* What the kernel will do: launches run in order, each completing before the
 * next starts. Temporaries are contiguous and owned by the executor. */
typedef struct ss_kprog {
    int nlaunch;
    ss_klaunch launch[SS_KPROG_MAX_LAUNCHES];
    int64_t tmp_bytes;       /* SS_KB_TMP size (0: unused) */
    int64_t idx_bytes;       /* SS_KB_IDX size (0: unused) */
    int staged;              /* 1: src goes through SS_KB_TMP first */
} ss_kprog;

/* The slice of `base` that op writes, as kernel `k` computes it (mutants
 * deviate). 0 ok; -1 with `why` when the op is malformed (bad dim or step). */
int ss_kslice(const ss_view *base, const ss_op *op, ss_kernel_id k, ss_view *out,
              char *why, size_t why_len);

/* Exact at any size: does v map two logical indices to one storage element?
 * 1 yes, 0 no, -1 out of memory (a view that is not injective in the
 * nested sense is walked with a bitmap of one bit per element it spans). */
int ss_kview_overlaps_self(const ss_view *v);

/* Plan kernel k on op, for storages with the given guard bands (accesses
 * inside a guard band are allowed so that they show up as guard writes;
 * beyond them the launch is refused as an illegal address).
 * SS_RUN_OK, SS_RUN_REJECTED (internal overlap) or SS_RUN_FAILED, with `why`. */
ss_run_status ss_kprog_build(ss_kernel_id k, const ss_op *op, size_t guard_in, size_t guard_src,
                             ss_kprog *prog, char *why, size_t why_len);

#endif
