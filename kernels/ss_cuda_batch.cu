// ss_cuda_batch.cu - the CUDA target for many small cases at once: one upload, a block per case, one download.
#include <stdlib.h>
#include <string.h>
#include <vector>
#include "ss_cuda_common.cuh"
#include "ss_kernel_body.h"

// One case's launch of one step, with its buffers resolved to device pointers.
struct ss_cu_task {
    ss_klaunch L;             // L.n == 0 when the case has no launch at this step
    const uint8_t *src;
    uint8_t *dst;
    const int64_t *idx;
};

// A block per case (grid-stride over cases), its threads stride over the items.
// Element size and kind vary per case, so they are runtime values here.
__global__ void ss_k_batch(const ss_cu_task *tasks, size_t count) {
    for (size_t c = blockIdx.x; c < count; c += gridDim.x) {
        const ss_cu_task *t = &tasks[c];
        const int64_t n = t->L.n;
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            int64_t so, dof;
            ss_k_offsets(&t->L, i, &so, &dof);
            ss_k_store_step(t->L.kind, t->L.elem, t->dst, t->idx, i, dof,
                            ss_k_load_step(t->L.kind, t->L.elem, t->src, so));
        }
    }
}

static size_t align256(size_t x) { return (x + 255) & ~(size_t)255; }

// Where case i's buffers live in the arena (byte offsets).
struct ss_cu_place { size_t in, src, tmp, idx; };

extern "C" ss_run_status ss_cuda_exec_batch(const ss_cuda_batch_item *items, size_t count,
                                            char *why, size_t why_len) {
    SS_CU_ENTER(ss_cuda_fake_exec_batch(items, count, why, why_len));
    if (count == 0) return SS_RUN_OK;
    ss_run_status st = SS_RUN_OK;
    std::vector<ss_cu_place> place(count);
    size_t arena_bytes = 0;
    int steps = 0;
    for (size_t i = 0; i < count; i++) {
        const ss_cuda_batch_item *it = &items[i];
        place[i].in = arena_bytes;
        arena_bytes += align256(ss_cu_room(it->input));
        place[i].src = arena_bytes;
        if (it->src) arena_bytes += align256(ss_cu_room(it->src));
        place[i].tmp = arena_bytes;
        arena_bytes += align256((size_t)it->prog->tmp_bytes);
        place[i].idx = arena_bytes;
        arena_bytes += align256((size_t)it->prog->idx_bytes);
        if (it->prog->nlaunch > steps) steps = it->prog->nlaunch;
    }
    uint8_t *host = (uint8_t *)malloc(arena_bytes);
    std::vector<ss_cu_task> tasks(count * (size_t)(steps ? steps : 1));
    uint8_t *dev = NULL;
    ss_cu_task *dev_tasks = NULL;
    if (!host) {
        snprintf(why, why_len, "CUDA batch: out of host memory for %zu bytes", arena_bytes);
        return SS_RUN_FAILED;
    }
    SS_CU_TRY(cudaMalloc((void **)&dev, arena_bytes));
    for (size_t i = 0; i < count; i++) {
        const ss_cuda_batch_item *it = &items[i];
        memcpy(host + place[i].in + ss_cu_pad(it->input), it->input->base, ss_cu_total(it->input));
        if (it->src) memcpy(host + place[i].src + ss_cu_pad(it->src), it->src->base, ss_cu_total(it->src));
        uint8_t *bufs[SS_KB_COUNT];
        bufs[SS_KB_INPUT] = dev + place[i].in + ss_cu_pad(it->input) + it->input->guard;
        bufs[SS_KB_SRC] = it->src ? dev + place[i].src + ss_cu_pad(it->src) + it->src->guard : bufs[SS_KB_INPUT];
        bufs[SS_KB_TMP] = dev + place[i].tmp;
        bufs[SS_KB_IDX] = dev + place[i].idx;
        for (int s = 0; s < steps; s++) {
            ss_cu_task *t = &tasks[(size_t)s * count + i];
            memset(t, 0, sizeof *t);
            if (s >= it->prog->nlaunch) continue;
            t->L = it->prog->launch[s];
            t->src = bufs[t->L.src_buf];
            t->dst = bufs[t->L.dst_buf];
            t->idx = (const int64_t *)bufs[SS_KB_IDX];
        }
    }
    SS_CU_TRY(cudaMemcpy(dev, host, arena_bytes, cudaMemcpyHostToDevice));
    SS_CU_TRY(cudaMalloc((void **)&dev_tasks, tasks.size() * sizeof(ss_cu_task)));
    SS_CU_TRY(cudaMemcpy(dev_tasks, tasks.data(), tasks.size() * sizeof(ss_cu_task), cudaMemcpyHostToDevice));
    for (int s = 0; s < steps; s++) {
        const unsigned grid = (unsigned)(count < 65535 ? count : 65535);
        ss_k_batch<<<grid, SS_CU_BLOCK>>>(dev_tasks + (size_t)s * count, count);
        char what[48];
        snprintf(what, sizeof what, "batch step %d", s);
        SS_CU_CHECK_LAUNCH(what);
    }
    SS_CU_TRY(cudaMemcpy(host, dev, arena_bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < count; i++) {
        const ss_cuda_batch_item *it = &items[i];
        memcpy(it->input->base, host + place[i].in + ss_cu_pad(it->input), ss_cu_total(it->input));
        if (it->src) memcpy(it->src->base, host + place[i].src + ss_cu_pad(it->src), ss_cu_total(it->src));
    }
done:
    if (dev_tasks) (void)cudaFree(dev_tasks);
    if (dev) (void)cudaFree(dev);
    free(host);
    return st;
}
