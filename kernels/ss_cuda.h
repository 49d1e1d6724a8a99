/* ss_cuda.h - the CUDA target's narrow C API (no CUDA types): availability and one run.
 *
 * Implemented by ss_cuda.cu when nvcc is present, else by cuda_stub.c, whose
 * functions report "built without nvcc". Either defers to the fake engine
 * (ss_cuda_fake.c) when SSFUZZ_FAKE_CUDA is set: the emulator behind this API,
 * with an injectable sticky fault, so the harness' handling of the device's
 * failures is tested on machines without one.
 *
 * Sticky errors (an illegal address, a failed launch, a kernel trap) leave the
 * process's CUDA context unusable until the process exits. An engine that sees
 * one marks the process poisoned (ss_cuda_poison); from then on
 * ss_cuda_unavailable() returns that reason and every run is SS_RUN_UNAVAILABLE.
 * The harness runs cuda targets in a child process (harness/engines/ss_cuda_iso.c) or
 * ends the fuzz worker, so a fresh process takes over. */
#ifndef SS_CUDA_H
#define SS_CUDA_H

#include <stddef.h>
#include "ss_plan.h"
#include "ss_kernel_params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NULL when a CUDA device can run kernels here, else why not (static string;
 * the device query runs once and is cached; a poisoned process says so). */
const char *ss_cuda_unavailable(void);

/* "cuda" (ss_cuda.cu), "stub" (built without nvcc) or "fake" (SSFUZZ_FAKE_CUDA). */
const char *ss_cuda_engine(void);

/* NULL, or why this process's CUDA context is unusable (a static string). */
const char *ss_cuda_poisoned(void);

/* Record a sticky error (the first reason is kept). */
void ss_cuda_poison(const char *why);

/* The fake engine: spec NULL, "" or "0" off; "1" on; "fault:N" on, and the
 * Nth run of this process (single or batch) fails as an illegal address and
 * poisons it. Clears the poisoned state. 0, or -1 on a malformed spec (then
 * off). Read from SSFUZZ_FAKE_CUDA on first use unless configured before. */
int ss_cuda_fake_configure(const char *spec);
int ss_cuda_fake_active(void);
int ss_cuda_fake_count_run(void);   /* 1 when this run is the one to fail */
ss_run_status ss_cuda_fake_exec(const ss_kprog *prog, ss_storage *input, ss_storage *src,
                                char *why, size_t why_len);

/* Run a planned program on the device: copy each storage (guard bands
 * included) up, launch each step (grid-stride loop; error check and
 * synchronize after each), copy the storages back, free everything. `src` is
 * NULL when aliased. SS_RUN_OK, or SS_RUN_UNAVAILABLE (no device, no context,
 * out of device memory, poisoned) / SS_RUN_FAILED (the run failed) with `why`. */
ss_run_status ss_cuda_exec(const ss_kprog *prog, ss_storage *input, ss_storage *src,
                           char *why, size_t why_len);

/* One small case of a batch: its program and storages. */
typedef struct ss_cuda_batch_item {
    const ss_kprog *prog;
    ss_storage *input;
    ss_storage *src;          /* NULL when aliased */
} ss_cuda_batch_item;

/* Run many small cases with one upload, one launch per step across all
 * cases (a block per case) and one download. Same results as running each
 * with ss_cuda_exec. */
ss_run_status ss_cuda_exec_batch(const ss_cuda_batch_item *items, size_t count,
                                 char *why, size_t why_len);
ss_run_status ss_cuda_fake_exec_batch(const ss_cuda_batch_item *items, size_t count,
                                      char *why, size_t why_len);

/* Run a caller's own launch (a user kernel) on device copies of the storages:
 * copy each storage (guard bands included) up, call `launch` with the device
 * data pointers (src_data == input_data when `src` is NULL: aliased), check
 * the launch error and synchronize, copy the storages back, free everything.
 * `launch` returns SS_RUN_OK or its own status (with `why`); storages are
 * copied back unless it or the device failed. */
typedef ss_run_status (*ss_cuda_launch_fn)(void *user, void *input_data, void *src_data,
                                           char *why, size_t why_len);
ss_run_status ss_cuda_exec_call(ss_storage *input, ss_storage *src, ss_cuda_launch_fn launch,
                                void *user, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
