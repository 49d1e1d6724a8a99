/* cuda_stub.c - the CUDA target API for builds without nvcc: unavailable, unless the fake engine is on. */
#include <stdio.h>
#include "ss_cuda.h"

static const char reason[] = "built without nvcc (install the CUDA toolkit and rebuild)";

const char *ss_cuda_engine(void) { return ss_cuda_fake_active() ? "fake" : "stub"; }

const char *ss_cuda_unavailable(void) {
    if (ss_cuda_poisoned()) return ss_cuda_poisoned();
    return ss_cuda_fake_active() ? NULL : reason;
}

ss_run_status ss_cuda_exec(const ss_kprog *prog, ss_storage *input, ss_storage *src,
                           char *why, size_t why_len) {
    if (ss_cuda_fake_active()) return ss_cuda_fake_exec(prog, input, src, why, why_len);
    snprintf(why, why_len, "%s", reason);
    return SS_RUN_UNAVAILABLE;
}

ss_run_status ss_cuda_exec_batch(const ss_cuda_batch_item *items, size_t count,
                                 char *why, size_t why_len) {
    if (ss_cuda_fake_active()) return ss_cuda_fake_exec_batch(items, count, why, why_len);
    snprintf(why, why_len, "%s", reason);
    return SS_RUN_UNAVAILABLE;
}

ss_run_status ss_cuda_exec_call(ss_storage *input, ss_storage *src, ss_cuda_launch_fn launch,
                                void *user, char *why, size_t why_len) {
    (void)input; (void)src; (void)launch; (void)user;
    snprintf(why, why_len, "%s", reason);
    return SS_RUN_UNAVAILABLE;
}
