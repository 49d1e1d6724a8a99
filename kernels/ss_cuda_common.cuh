// ss_cuda_common.cuh - CUDA-side helpers shared by the single and batched CUDA targets.
#ifndef SS_CUDA_COMMON_CUH
#define SS_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <stdio.h>
#include "ss_cuda.h"
#include "ss_kernel_body.h"

// Errors after which the context is unusable until the process exits.
static inline bool ss_cu_sticky(cudaError_t e) {
    switch (e) {
    case cudaErrorIllegalAddress: case cudaErrorLaunchFailure: case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction: case cudaErrorInvalidAddressSpace: case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError: case cudaErrorAssert: case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable: case cudaErrorContextIsDestroyed: case cudaErrorUnknown:
        return true;
    default:
        return false;
    }
}

// The device cannot be used here at all (no context), or has no room: not the run's fault.
static inline bool ss_cu_unusable(cudaError_t e) {
    switch (e) {
    case cudaErrorMemoryAllocation: case cudaErrorInitializationError: case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: case cudaErrorDevicesUnavailable: case cudaErrorInvalidDevice:
    case cudaErrorSystemNotReady: case cudaErrorSystemDriverMismatch: case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorNoKernelImageForDevice: case cudaErrorUnsupportedPtxVersion:
        return true;
    default:
        return false;
    }
}

// A failed call: name it and the error in `why`; a sticky error poisons the process;
// no device or no memory is SS_RUN_UNAVAILABLE, anything else SS_RUN_FAILED.
static inline ss_run_status ss_cu_fail(cudaError_t e, const char *what, char *why, size_t why_len) {
    snprintf(why, why_len, "%s: %s%s", what, cudaGetErrorString(e),
             e == cudaErrorMemoryAllocation ? " (out of device memory)" : "");
    if (ss_cu_sticky(e)) {
        ss_cuda_poison(why);
        return SS_RUN_FAILED;
    }
    (void)cudaGetLastError();   // clear a non-sticky error so the next call does not see it
    return ss_cu_unusable(e) ? SS_RUN_UNAVAILABLE : SS_RUN_FAILED;
}

// Check one CUDA call; on failure name the call and the error, set st, jump to `done`.
#define SS_CU_TRY(call)                                                                   \
    do {                                                                                  \
        const cudaError_t e_ = (call);                                                    \
        if (e_ != cudaSuccess) {                                                          \
            st = ss_cu_fail(e_, #call, why, why_len);                                     \
            goto done;                                                                    \
        }                                                                                 \
    } while (0)

// After a launch: the launch error, then the execution error.
#define SS_CU_CHECK_LAUNCH(what)                                                          \
    do {                                                                                  \
        SS_CU_TRY(cudaGetLastError());                                                    \
        const cudaError_t s_ = cudaDeviceSynchronize();                                   \
        if (s_ != cudaSuccess) {                                                          \
            char w_[96];                                                                  \
            snprintf(w_, sizeof w_, "cudaDeviceSynchronize() after %s", (what));          \
            st = ss_cu_fail(s_, w_, why, why_len);                                        \
            goto done;                                                                    \
        }                                                                                 \
    } while (0)

// Entry of every run: the fake engine when on; a poisoned process runs nothing.
#define SS_CU_ENTER(fake_call)                                                            \
    do {                                                                                  \
        if (ss_cuda_fake_active()) return (fake_call);                                    \
        if (const char *r_ = ss_cuda_unavailable()) {                                     \
            snprintf(why, why_len, "%s", r_);                                             \
            return SS_RUN_UNAVAILABLE;                                                    \
        }                                                                                 \
    } while (0)

enum { SS_CU_BLOCK = SS_K_BLOCK };

// Where a host storage (guards included) lands in device memory: padded so that
// the data pointer is 16-byte aligned, as the kernel's wide accesses need.
static inline size_t ss_cu_pad(const ss_storage *s) { return (16 - s->guard % 16) % 16; }
static inline size_t ss_cu_total(const ss_storage *s) { return s->bytes + 2 * s->guard; }
static inline size_t ss_cu_room(const ss_storage *s) { return ss_cu_total(s) + 16; }

#endif
