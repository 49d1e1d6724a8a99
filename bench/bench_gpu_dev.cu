// bench_gpu_dev.cu - bench_gpu's device side: a program's launches on device-resident buffers, timed with cudaEvents beside cudaMemcpy.
//
// The launches go through kernels/ss_cuda.cu's own launch code (launch_one:
// same kernel template, block size and grid cap as the cuda:* targets), so the
// figure is the target's kernel, not a copy of it. That file is compiled into
// this one inside a namespace (its kernels get their own mangled names) with
// its C entry points renamed (the library's keep theirs). Every header it
// includes is included first, so the namespace holds only its own code.
#include <mutex>
#include <stdio.h>
#include "ss_cuda_common.cuh"
#include "ss_kernel_body.h"
#include "bench_gpu.h"

#define ss_cuda_unavailable ssb_copy_of_cuda_unavailable
#define ss_cuda_exec ssb_copy_of_cuda_exec
#define ss_cuda_engine ssb_copy_of_cuda_engine
namespace ssb {
#include "ss_cuda.cu"
}
#undef ss_cuda_unavailable
#undef ss_cuda_exec
#undef ss_cuda_engine

// One run of the program: its launches in order on the default stream (each
// starts after the previous one ends). Checks each launch, does not synchronize.
static cudaError_t run_prog(const ss_kprog *prog, uint8_t *const bufs[SS_KB_COUNT], int *failed_at) {
    for (int i = 0; i < prog->nlaunch; i++) {
        const ss_klaunch &L = prog->launch[i];
        if (L.n == 0) continue;
        ssb::launch_one(L, bufs[L.src_buf], bufs[L.dst_buf], (const int64_t *)bufs[SS_KB_IDX]);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) {
            *failed_at = i;
            return e;
        }
    }
    return cudaSuccess;
}

// Like SS_CU_TRY for run_prog: names the launch that failed.
#define SSB_RUN_PROG()                                                                    \
    do {                                                                                  \
        int at_ = -1;                                                                     \
        const cudaError_t e_ = run_prog(prog, bufs, &at_);                                \
        if (e_ != cudaSuccess) {                                                          \
            snprintf(why, why_len, "launch %d of the program: %s", at_, cudaGetErrorString(e_)); \
            st = SS_RUN_FAILED;                                                           \
            goto done;                                                                    \
        }                                                                                 \
    } while (0)

// Milliseconds between two recorded events, after waiting for the second.
#define SSB_ELAPSED(ms, e0, e1)                                                           \
    do {                                                                                  \
        SS_CU_TRY(cudaEventSynchronize(e1));                                              \
        SS_CU_TRY(cudaEventElapsedTime(&(ms), (e0), (e1)));                               \
    } while (0)

extern "C" int ssb_gpu_time_prog(const ss_kprog *prog, size_t in_bytes, size_t src_bytes, size_t guard, size_t moved,
                                 int reps, int iters, ssb_gpu_times *out, char *why, size_t why_len) {
    ss_run_status st = SS_RUN_OK;
    uint8_t *dev_in = NULL, *dev_src = NULL, *dev_tmp = NULL, *dev_idx = NULL, *dev_from = NULL;
    uint8_t *bufs[SS_KB_COUNT] = {NULL, NULL, NULL, NULL};
    cudaEvent_t e0 = NULL, e1 = NULL;
    double best_prog = 1e30, best_copy = 1e30;
    if (reps < 1 || iters < 1 || moved > in_bytes) {
        snprintf(why, why_len, "ssb_gpu_time_prog: bad arguments (reps %d, iters %d, moved %zu > %zu)",
                 reps, iters, moved, in_bytes);
        return -1;
    }
    // Guard bands as planned, rounded up so the data stays 16-byte aligned (cudaMalloc gives 256).
    const size_t pad = (guard + 15) & ~(size_t)15;
    SS_CU_TRY(cudaMalloc((void **)&dev_in, in_bytes + 2 * pad));
    SS_CU_TRY(cudaMemset(dev_in, 1, in_bytes + 2 * pad));
    bufs[SS_KB_INPUT] = bufs[SS_KB_SRC] = dev_in + pad;
    if (src_bytes) {
        SS_CU_TRY(cudaMalloc((void **)&dev_src, src_bytes + 2 * pad));
        SS_CU_TRY(cudaMemset(dev_src, 2, src_bytes + 2 * pad));
        bufs[SS_KB_SRC] = dev_src + pad;
    }
    if (prog->tmp_bytes) SS_CU_TRY(cudaMalloc((void **)&dev_tmp, (size_t)prog->tmp_bytes));
    if (prog->idx_bytes) SS_CU_TRY(cudaMalloc((void **)&dev_idx, (size_t)prog->idx_bytes));
    bufs[SS_KB_TMP] = dev_tmp;
    bufs[SS_KB_IDX] = dev_idx;
    // cudaMemcpy's source is its own buffer: device-to-device copies must not overlap.
    SS_CU_TRY(cudaMalloc((void **)&dev_from, moved ? moved : 1));
    SS_CU_TRY(cudaMemset(dev_from, 3, moved ? moved : 1));
    SS_CU_TRY(cudaEventCreate(&e0));
    SS_CU_TRY(cudaEventCreate(&e1));

    // Warm-up: loads the kernels (lazy module loading) and touches every page.
    SSB_RUN_PROG();
    SS_CU_CHECK_LAUNCH("the warm-up run");
    SS_CU_TRY(cudaMemcpy(dev_in + pad, dev_from, moved, cudaMemcpyDeviceToDevice));
    SS_CU_TRY(cudaDeviceSynchronize());

    for (int r = 0; r < reps; r++) {
        float ms = 0;
        SS_CU_TRY(cudaEventRecord(e0, 0));
        for (int k = 0; k < iters; k++) SSB_RUN_PROG();
        SS_CU_TRY(cudaEventRecord(e1, 0));
        SSB_ELAPSED(ms, e0, e1);
        if (ms * 1e-3 / iters < best_prog) best_prog = ms * 1e-3 / iters;

        SS_CU_TRY(cudaEventRecord(e0, 0));
        for (int k = 0; k < iters; k++)
            SS_CU_TRY(cudaMemcpy(dev_in + pad, dev_from, moved, cudaMemcpyDeviceToDevice));
        SS_CU_TRY(cudaEventRecord(e1, 0));
        SSB_ELAPSED(ms, e0, e1);
        if (ms * 1e-3 / iters < best_copy) best_copy = ms * 1e-3 / iters;
    }
    // An execution error surfaces at the latest here.
    SS_CU_CHECK_LAUNCH("the timed runs");
    out->launches_s = best_prog;
    out->memcpy_s = best_copy;
done:
    if (e1) (void)cudaEventDestroy(e1);
    if (e0) (void)cudaEventDestroy(e0);
    if (dev_from) (void)cudaFree(dev_from);
    if (dev_idx) (void)cudaFree(dev_idx);
    if (dev_tmp) (void)cudaFree(dev_tmp);
    if (dev_src) (void)cudaFree(dev_src);
    if (dev_in) (void)cudaFree(dev_in);
    return st == SS_RUN_OK ? 0 : -1;
}
