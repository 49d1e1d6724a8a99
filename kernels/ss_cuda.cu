// ss_cuda.cu - the CUDA target: device storages with guard bands, one grid-stride kernel per launch.
#include <mutex>
#include "ss_cuda_common.cuh"
#include "ss_kernel_body.h"

// The kernel: the shared body in a grid-stride loop; element size and launch
// kind are compile-time constants so each access is one typed load or store.
template <int E, int KIND>
__global__ void ss_k_grid(const __grid_constant__ ss_klaunch L, const uint8_t *src, uint8_t *dst,
                          const int64_t *idx) {
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < L.n; i += stride) {
        int64_t so, dof;
        ss_k_offsets(&L, i, &so, &dof);
        ss_k_store_step(KIND, E, dst, idx, i, dof, ss_k_load_step(KIND, E, src, so));
    }
}

template <int E>
static void launch_kind(const ss_klaunch &L, unsigned grid, const uint8_t *src, uint8_t *dst,
                        const int64_t *idx) {
    switch (L.kind) {
    case SS_KL_COPY: ss_k_grid<E, SS_KL_COPY><<<grid, SS_CU_BLOCK>>>(L, src, dst, idx); break;
    case SS_KL_INDEX_BUILD: ss_k_grid<E, SS_KL_INDEX_BUILD><<<grid, SS_CU_BLOCK>>>(L, src, dst, idx); break;
    default: ss_k_grid<E, SS_KL_INDEX_SCATTER><<<grid, SS_CU_BLOCK>>>(L, src, dst, idx); break;
    }
}

static void launch_one(const ss_klaunch &L, const uint8_t *src, uint8_t *dst, const int64_t *idx) {
    const unsigned grid = (unsigned)ss_k_grid_blocks(L.n);
    switch (L.elem) {
    case 1: launch_kind<1>(L, grid, src, dst, idx); break;
    case 2: launch_kind<2>(L, grid, src, dst, idx); break;
    case 4: launch_kind<4>(L, grid, src, dst, idx); break;
    case 8: launch_kind<8>(L, grid, src, dst, idx); break;
    default: launch_kind<16>(L, grid, src, dst, idx); break;
    }
}

static const char *probe_device(void) {
    static char reason[256];
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(reason, sizeof reason, "no CUDA device: cudaGetDeviceCount: %s", cudaGetErrorString(e));
        (void)cudaGetLastError();
        return reason;
    }
    if (n == 0) {
        snprintf(reason, sizeof reason, "no CUDA device: cudaGetDeviceCount found 0 devices");
        return reason;
    }
    return NULL;
}

extern "C" const char *ss_cuda_engine(void) { return ss_cuda_fake_active() ? "fake" : "cuda"; }

extern "C" const char *ss_cuda_unavailable(void) {
    if (const char *p = ss_cuda_poisoned()) return p;
    if (ss_cuda_fake_active()) return NULL;
    static std::once_flag once;
    static const char *reason;
    std::call_once(once, [] { reason = probe_device(); });
    return reason;
}

static const char *kind_name(int kind) {
    return kind == SS_KL_COPY ? "copy" : kind == SS_KL_INDEX_BUILD ? "index-build" : "index-scatter";
}

extern "C" ss_run_status ss_cuda_exec(const ss_kprog *prog, ss_storage *input, ss_storage *src,
                                      char *why, size_t why_len) {
    SS_CU_ENTER(ss_cuda_fake_exec(prog, input, src, why, why_len));
    ss_run_status st = SS_RUN_OK;
    uint8_t *dev_in = NULL, *dev_src = NULL, *dev_tmp = NULL, *dev_idx = NULL;
    uint8_t *bufs[SS_KB_COUNT] = {NULL, NULL, NULL, NULL};
    char what[64];
    SS_CU_TRY(cudaMalloc((void **)&dev_in, ss_cu_room(input)));
    SS_CU_TRY(cudaMemcpy(dev_in + ss_cu_pad(input), input->base, ss_cu_total(input), cudaMemcpyHostToDevice));
    bufs[SS_KB_INPUT] = bufs[SS_KB_SRC] = dev_in + ss_cu_pad(input) + input->guard;
    if (src) {
        SS_CU_TRY(cudaMalloc((void **)&dev_src, ss_cu_room(src)));
        SS_CU_TRY(cudaMemcpy(dev_src + ss_cu_pad(src), src->base, ss_cu_total(src), cudaMemcpyHostToDevice));
        bufs[SS_KB_SRC] = dev_src + ss_cu_pad(src) + src->guard;
    }
    if (prog->tmp_bytes) SS_CU_TRY(cudaMalloc((void **)&dev_tmp, (size_t)prog->tmp_bytes));
    if (prog->idx_bytes) SS_CU_TRY(cudaMalloc((void **)&dev_idx, (size_t)prog->idx_bytes));
    bufs[SS_KB_TMP] = dev_tmp;
    bufs[SS_KB_IDX] = dev_idx;
    for (int i = 0; i < prog->nlaunch; i++) {
        const ss_klaunch &L = prog->launch[i];
        if (L.n == 0) continue;
        launch_one(L, bufs[L.src_buf], bufs[L.dst_buf], (const int64_t *)bufs[SS_KB_IDX]);
        snprintf(what, sizeof what, "launch %d (%s)", i, kind_name(L.kind));
        SS_CU_CHECK_LAUNCH(what);
    }
    SS_CU_TRY(cudaMemcpy(input->base, dev_in + ss_cu_pad(input), ss_cu_total(input), cudaMemcpyDeviceToHost));
    if (src)
        SS_CU_TRY(cudaMemcpy(src->base, dev_src + ss_cu_pad(src), ss_cu_total(src), cudaMemcpyDeviceToHost));
done:
    // Frees after a failure may fail too (a sticky error); the first error is the one reported.
    if (dev_idx) (void)cudaFree(dev_idx);
    if (dev_tmp) (void)cudaFree(dev_tmp);
    if (dev_src) (void)cudaFree(dev_src);
    if (dev_in) (void)cudaFree(dev_in);
    return st;
}
