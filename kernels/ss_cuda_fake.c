/* ss_cuda_fake.c - the fake CUDA engine (SSFUZZ_FAKE_CUDA): the emulator behind the CUDA API, with an injectable sticky fault. */
#include <stdio.h>
#include <stdlib.h>
#include "ss_cuda.h"
#include "ss_emu.h"

static const char fault_msg[] =
    "cudaDeviceSynchronize() after launch 0 (copy): an illegal memory access was encountered "
    "(injected by SSFUZZ_FAKE_CUDA)";

/* A run begins: SS_RUN_OK, or the poisoned state, or the injected fault (which poisons). */
static ss_run_status begin_run(char *why, size_t why_len) {
    if (ss_cuda_poisoned()) {
        snprintf(why, why_len, "%s", ss_cuda_poisoned());
        return SS_RUN_UNAVAILABLE;
    }
    if (ss_cuda_fake_count_run()) {
        snprintf(why, why_len, "%s", fault_msg);
        ss_cuda_poison(fault_msg);
        return SS_RUN_FAILED;
    }
    return SS_RUN_OK;
}

static ss_run_status run_prog(const ss_kprog *prog, ss_storage *input, ss_storage *src,
                              char *why, size_t why_len) {
    uint8_t *tmp = aligned_alloc(16, ((size_t)prog->tmp_bytes + 16) & ~(size_t)15);
    uint8_t *idx = aligned_alloc(16, ((size_t)prog->idx_bytes + 16) & ~(size_t)15);
    ss_run_status st = SS_RUN_OK;
    uint8_t *bufs[SS_KB_COUNT];
    bufs[SS_KB_INPUT] = ss_storage_data(input);
    bufs[SS_KB_SRC] = src ? ss_storage_data(src) : bufs[SS_KB_INPUT];
    bufs[SS_KB_TMP] = tmp;
    bufs[SS_KB_IDX] = idx;
    const ss_run_opts fwd = {SS_SCHED_FORWARD, 0, 0};
    if (!tmp || !idx || ss_emu_exec(prog, bufs, &fwd)) {
        snprintf(why, why_len, "fake CUDA engine: out of memory");
        st = SS_RUN_FAILED;
    }
    free(tmp);
    free(idx);
    return st;
}

ss_run_status ss_cuda_fake_exec(const ss_kprog *prog, ss_storage *input, ss_storage *src,
                                char *why, size_t why_len) {
    const ss_run_status st = begin_run(why, why_len);
    return st == SS_RUN_OK ? run_prog(prog, input, src, why, why_len) : st;
}

/* One run, like the device's batch: one fault count for the whole batch. */
ss_run_status ss_cuda_fake_exec_batch(const ss_cuda_batch_item *items, size_t count,
                                      char *why, size_t why_len) {
    ss_run_status st = begin_run(why, why_len);
    for (size_t i = 0; i < count && st == SS_RUN_OK; i++)
        st = run_prog(items[i].prog, items[i].input, items[i].src, why, why_len);
    return st;
}
