/* ss_cuda_iso.h - cuda runs in a child process that owns the CUDA context, replaced after a sticky error.
 *
 * A sticky CUDA error (an illegal address, say) leaves the context unusable
 * until the process exits, and CUDA cannot be used again in a fork of a process
 * that initialized it. So replay, regress, explain and minimize never touch
 * CUDA themselves: a child forked before any CUDA call owns the context, runs
 * each program on storages copied through shared memory, and exits after a
 * sticky error; the next run starts a fresh child. Fuzz workers turn this off
 * (ss_cuda_iso_set(0)): each worker is such a child already, and ends itself
 * when its context is poisoned so the campaign respawns it. */
#ifndef SS_CUDA_ISO_H
#define SS_CUDA_ISO_H

#include <stddef.h>
#include "ss_plan.h"
#include "ss_kernel_params.h"

/* On by default (SSFUZZ_CUDA_IN_PROCESS=1: off). Turn off before the first
 * cuda run; the process then runs CUDA itself. */
void ss_cuda_iso_set(int on);
int ss_cuda_iso_enabled(void);

/* ss_cuda_unavailable() as the child sees it (cached while available). */
const char *ss_cuda_iso_unavailable(void);

/* ss_cuda_exec in the child. A child that dies (a signal) gives SS_RUN_FAILED
 * with the signal; one that reports a poisoned context is replaced. */
ss_run_status ss_cuda_iso_exec(const ss_kprog *prog, ss_storage *input, ss_storage *src,
                               char *why, size_t why_len);

/* Children started so far (1 after the first run, +1 after each poisoning). */
long ss_cuda_iso_children(void);

/* End the child (it also ends when this process does). */
void ss_cuda_iso_stop(void);

#endif
