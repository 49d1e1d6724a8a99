/* bench_gpu.h - device-resident timing for bench_gpu (no CUDA types): a planned
 * kernel program's launches, without host<->device transfers, beside cudaMemcpy
 * device-to-device of the same bytes.
 *
 * Implemented by bench_gpu_dev.cu (which launches through kernels/ss_cuda.cu's
 * own launch code) when nvcc is present, else by bench_gpu_stub.c, which says
 * "built without nvcc". The device buffers are allocated, used and freed inside
 * the one call; the caller owns nothing new. */
#ifndef BENCH_GPU_H
#define BENCH_GPU_H

#include <stddef.h>
#include "ss_kernel_params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ssb_gpu_times {
    double launches_s;   /* best of reps, per run of the program's launches */
    double memcpy_s;     /* best of reps, per cudaMemcpy of `moved` bytes */
} ssb_gpu_times;

/* Allocate the input storage (in_bytes), the src storage (src_bytes; 0 when
 * src is aliased), the program's temporaries and a separate `moved`-byte
 * source for cudaMemcpy on the device, fill them, run each side once to warm
 * up, then time `reps` rounds, interleaved, of `iters` back-to-back runs each
 * with cudaEvents (a run: every launch of `prog`; or one cudaMemcpy of `moved`
 * bytes into the input storage). Every launch is error-checked and each round
 * synchronizes on its stop event before reading it.
 * Storages get the `guard` bytes on each side that prog was planned with
 * (its accesses may reach into them), their data 16-byte aligned.
 * 0, or -1 with `why` (the failing call and the CUDA error). */
int ssb_gpu_time_prog(const ss_kprog *prog, size_t in_bytes, size_t src_bytes, size_t guard, size_t moved,
                      int reps, int iters, ssb_gpu_times *out, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
