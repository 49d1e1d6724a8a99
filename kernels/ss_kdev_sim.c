/* ss_kdev_sim.c - the CUDA kernel's execution simulated on the CPU: ss_k_offsets per work item, grid-stride waves, alignment checked. */
#include <stdio.h>
#include <stdlib.h>
#include "ss_kdev_sim.h"

/* The byte address a work item's load (store) touches and its access width. */
static const uint8_t *load_at(const ss_klaunch *L, const uint8_t *src, int64_t so) {
    return L->kind == SS_KL_INDEX_BUILD ? NULL : src + so * L->elem;
}

static const uint8_t *store_at(const ss_klaunch *L, const uint8_t *dst, const int64_t *idx, int64_t i,
                               int64_t dof, int *width) {
    *width = L->kind == SS_KL_INDEX_BUILD ? 8 : L->elem;
    if (L->kind == SS_KL_INDEX_BUILD) return dst + i * 8;
    return dst + (L->kind == SS_KL_INDEX_SCATTER ? idx[i] : dof) * L->elem;
}

static int misaligned(const uint8_t *p, int width, const char *what, int64_t i, char *why, size_t why_len) {
    if (!p || (uintptr_t)p % (uintptr_t)width == 0) return 0;
    snprintf(why, why_len, "work item %lld: %s of %d bytes at an address %d bytes past alignment",
             (long long)i, what, width, (int)((uintptr_t)p % (uintptr_t)width));
    return 1;
}

/* One item's load, alignment checked. */
static int item_load(const ss_klaunch *L, const uint8_t *src, int64_t i, ss_kval *v, int64_t *dof,
                     char *why, size_t why_len) {
    int64_t so;
    ss_k_offsets(L, i, &so, dof);
    if (misaligned(load_at(L, src, so), L->elem, "load", i, why, why_len)) return -1;
    *v = ss_k_load_step(L->kind, L->elem, src, so);
    return 0;
}

static int item_store(const ss_klaunch *L, uint8_t *dst, const int64_t *idx, int64_t i, int64_t dof,
                      ss_kval v, char *why, size_t why_len) {
    int width = 0;
    const uint8_t *at = store_at(L, dst, idx, i, dof, &width);
    if (misaligned(at, width, "store", i, why, why_len)) return -1;
    ss_k_store_step(L->kind, L->elem, dst, idx, i, dof, v);
    return 0;
}

static int run_launch(const ss_klaunch *L, uint8_t *const bufs[SS_KB_COUNT], ss_kdev_order order,
                      char *why, size_t why_len) {
    const uint8_t *src = bufs[L->src_buf];
    uint8_t *dst = bufs[L->dst_buf];
    const int64_t *idx = (const int64_t *)bufs[SS_KB_IDX];
    if (order == SS_KDEV_SEQUENTIAL) {
        for (int64_t i = 0; i < L->n; i++) {
            ss_kval v;
            int64_t dof;
            if (item_load(L, src, i, &v, &dof, why, why_len) ||
                item_store(L, dst, idx, i, dof, v, why, why_len)) return -1;
        }
        return 0;
    }
    const int64_t threads = ss_k_grid_blocks(L->n) * SS_K_BLOCK;
    const int64_t wave = threads < L->n ? threads : L->n;
    ss_kval *vals = malloc((size_t)wave * sizeof *vals);
    int64_t *dofs = malloc((size_t)wave * sizeof *dofs);
    int rc = 0;
    if (!vals || !dofs) {
        snprintf(why, why_len, "device simulation: out of memory for a wave of %lld items", (long long)wave);
        rc = -1;
    }
    for (int64_t base = 0; !rc && base < L->n; base += threads) {
        const int64_t m = L->n - base < wave ? L->n - base : wave;
        for (int64_t t = 0; !rc && t < m; t++) rc = item_load(L, src, base + t, &vals[t], &dofs[t], why, why_len);
        for (int64_t t = 0; !rc && t < m; t++) rc = item_store(L, dst, idx, base + t, dofs[t], vals[t], why, why_len);
    }
    free(vals);
    free(dofs);
    return rc;
}

int ss_kdev_sim_exec(const ss_kprog *prog, uint8_t *const bufs[SS_KB_COUNT], ss_kdev_order order,
                     char *why, size_t why_len) {
    for (int k = 0; k < prog->nlaunch; k++)
        if (prog->launch[k].n && run_launch(&prog->launch[k], bufs, order, why, why_len)) return -1;
    return 0;
}
