/* cuda_stub.c - the CUDA target API for builds without nvcc: always unavailable. */
#include <stdio.h>
#include "ss_cuda.h"

static const char reason[] = "built without nvcc (install the CUDA toolkit and rebuild)";

const char *ss_cuda_unavailable(void) { return reason; }

ss_run_status ss_cuda_exec(const ss_kprog *prog, ss_storage *input, ss_storage *src,
                           char *why, size_t why_len) {
    (void)prog; (void)input; (void)src;
    snprintf(why, why_len, "%s", reason);
    return SS_RUN_UNAVAILABLE;
}

ss_run_status ss_cuda_exec_batch(const ss_cuda_batch_item *items, size_t count,
                                 char *why, size_t why_len) {
    (void)items; (void)count;
    snprintf(why, why_len, "%s", reason);
    return SS_RUN_UNAVAILABLE;
}

ss_run_status ss_cuda_exec_call(ss_storage *input, ss_storage *src, ss_cuda_launch_fn launch,
                                void *user, char *why, size_t why_len) {
    (void)input; (void)src; (void)launch; (void)user;
    snprintf(why, why_len, "%s", reason);
    return SS_RUN_UNAVAILABLE;
}
