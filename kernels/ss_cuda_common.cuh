// ss_cuda_common.cuh - CUDA-side helpers shared by the single and batched CUDA targets.
#ifndef SS_CUDA_COMMON_CUH
#define SS_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <stdio.h>
#include "ss_cuda.h"

// Check one CUDA call; on failure name the call and the error, set st, jump to `done`.
#define SS_CU_TRY(call)                                                                   \
    do {                                                                                  \
        const cudaError_t e_ = (call);                                                    \
        if (e_ != cudaSuccess) {                                                          \
            snprintf(why, why_len, "%s: %s", #call, cudaGetErrorString(e_));              \
            st = SS_RUN_FAILED;                                                           \
            goto done;                                                                    \
        }                                                                                 \
    } while (0)

// After a launch: the launch error, then the execution error.
#define SS_CU_CHECK_LAUNCH(what)                                                          \
    do {                                                                                  \
        SS_CU_TRY(cudaGetLastError());                                                    \
        const cudaError_t s_ = cudaDeviceSynchronize();                                   \
        if (s_ != cudaSuccess) {                                                          \
            snprintf(why, why_len, "cudaDeviceSynchronize() after %s: %s", (what),        \
                     cudaGetErrorString(s_));                                             \
            st = SS_RUN_FAILED;                                                           \
            goto done;                                                                    \
        }                                                                                 \
    } while (0)

enum { SS_CU_BLOCK = 256 };

// Where a host storage (guards included) lands in device memory: padded so that
// the data pointer is 16-byte aligned, as the kernel's wide accesses need.
static inline size_t ss_cu_pad(const ss_storage *s) { return (16 - s->guard % 16) % 16; }
static inline size_t ss_cu_total(const ss_storage *s) { return s->bytes + 2 * s->guard; }
static inline size_t ss_cu_room(const ss_storage *s) { return ss_cu_total(s) + 16; }

#endif
