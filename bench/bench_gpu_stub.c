/* bench_gpu_stub.c - bench_gpu's device side for builds without nvcc: always unavailable. */
#include <stdio.h>
#include "bench_gpu.h"

int ssb_gpu_time_prog(const ss_kprog *prog, size_t in_bytes, size_t src_bytes, size_t guard, size_t moved,
                      int reps, int iters, ssb_gpu_times *out, char *why, size_t why_len) {
    (void)guard; (void)prog; (void)in_bytes; (void)src_bytes; (void)moved; (void)reps; (void)iters; (void)out;
    snprintf(why, why_len, "built without nvcc (install the CUDA toolkit and rebuild)");
    return -1;
}
