// ss_cuda_call.cu - device storages with guard bands around a caller's own launch (plugin kernels).
#include <string.h>
#include "ss_cuda_common.cuh"

extern "C" ss_run_status ss_cuda_exec_call(ss_storage *input, ss_storage *src, ss_cuda_launch_fn launch,
                                           void *user, char *why, size_t why_len) {
    if (const char *r = ss_cuda_unavailable()) {
        snprintf(why, why_len, "%s", r);
        return SS_RUN_UNAVAILABLE;
    }
    ss_run_status st = SS_RUN_OK, ran;
    uint8_t *dev_in = NULL, *dev_src = NULL, *in_data, *src_data;
    SS_CU_TRY(cudaMalloc((void **)&dev_in, ss_cu_room(input)));
    SS_CU_TRY(cudaMemcpy(dev_in + ss_cu_pad(input), input->base, ss_cu_total(input), cudaMemcpyHostToDevice));
    in_data = src_data = dev_in + ss_cu_pad(input) + input->guard;
    if (src) {
        SS_CU_TRY(cudaMalloc((void **)&dev_src, ss_cu_room(src)));
        SS_CU_TRY(cudaMemcpy(dev_src + ss_cu_pad(src), src->base, ss_cu_total(src), cudaMemcpyHostToDevice));
        src_data = dev_src + ss_cu_pad(src) + src->guard;
    }
    ran = launch(user, in_data, src_data, why, why_len);
    // The kernel's errors surface here even when its run() returned without checking.
    SS_CU_CHECK_LAUNCH("the plugin kernel's run()");
    if (ran == SS_RUN_FAILED || ran == SS_RUN_UNAVAILABLE) {
        st = ran;
        goto done;
    }
    SS_CU_TRY(cudaMemcpy(input->base, dev_in + ss_cu_pad(input), ss_cu_total(input), cudaMemcpyDeviceToHost));
    if (src)
        SS_CU_TRY(cudaMemcpy(src->base, dev_src + ss_cu_pad(src), ss_cu_total(src), cudaMemcpyDeviceToHost));
    st = ran;
done:
    if (st == SS_RUN_FAILED && cudaDeviceSynchronize() != cudaSuccess) {
        // Still failing after the error was read: sticky, so every later run in this process fails too.
        const size_t n = strlen(why);
        snprintf(why + n, why_len - n, " (sticky: this process's CUDA context is lost)");
    }
    // Frees after a failure may fail too (a sticky error); the first error is the one reported.
    if (dev_src) (void)cudaFree(dev_src);
    if (dev_in) (void)cudaFree(dev_in);
    return st;
}
