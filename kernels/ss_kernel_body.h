/* ss_kernel_body.h - the per-element kernel body, compiled as CUDA device code and as C11. */
#ifndef SS_KERNEL_BODY_H
#define SS_KERNEL_BODY_H

#include <stdint.h>
#include <string.h>
#include "ss_plan.h"

#ifdef __CUDACC__
#define SS_HD static __host__ __device__ __forceinline__
#else
#define SS_HD static inline
#endif

/* What one launch does per work item i (row-major over sizes[]):
 *   COPY           dst[dst_view(i)] = src[src_view(i)]
 *   INDEX_BUILD    dst[i] = src_view(i)        (the offset itself; dst is the index list)
 *   INDEX_SCATTER  dst[idx[i]] = src[src_view(i)]                                      */
enum { SS_KL_COPY = 0, SS_KL_INDEX_BUILD, SS_KL_INDEX_SCATTER };

/* Buffers a launch may name. SS_KB_SRC is the input storage when src is aliased. */
enum { SS_KB_INPUT = 0, SS_KB_SRC, SS_KB_TMP, SS_KB_IDX, SS_KB_COUNT };

/* One launch's parameters: plain old data, passed by value to the CUDA kernel.
 * Offsets and strides count work items of `elem` bytes from the buffer's data
 * pointer; the host has coalesced dims (ndim >= 1) and checked every access
 * against the buffer before the launch. */
typedef struct ss_klaunch {
    int kind;
    int src_buf, dst_buf;
    int elem;                /* bytes per work item: 1, 2, 4, 8 or 16 */
    int vec;                 /* 1: fast path, 16-byte chunks of contiguous runs */
    int indep;               /* 1: no store can reach a load or another store of this
                                launch, so every schedule gives the same result */
    int ndim;
    int64_t n;               /* work items */
    int64_t src_off, dst_off;
    int64_t sizes[SS_MAX_NDIM];
    int64_t src_strides[SS_MAX_NDIM], dst_strides[SS_MAX_NDIM];
} ss_klaunch;

/* A 16-byte element is two uint64 (or one aligned 16-byte vector on the GPU). */
typedef struct ss_kval { uint64_t lo, hi; } ss_kval;

/* The device's launch shape, shared by kernels/ss_cuda.cu and the CPU
 * simulation of it (ss_kdev_sim.c): SS_K_BLOCK threads a block, at most
 * SS_K_MAX_GRID blocks; a launch of more items loops (grid-stride). */
enum { SS_K_BLOCK = 256, SS_K_MAX_GRID = 8192 };
SS_HD int64_t ss_k_grid_blocks(int64_t n) {
    const int64_t blocks = (n + SS_K_BLOCK - 1) / SS_K_BLOCK;
    return blocks < (int64_t)SS_K_MAX_GRID ? blocks : (int64_t)SS_K_MAX_GRID;
}

/* Storage offsets of work item i: div/mod from the innermost dim. */
SS_HD void ss_k_offsets(const ss_klaunch *L, int64_t i, int64_t *so, int64_t *dof) {
    int64_t s = L->src_off, d = L->dst_off;
    for (int k = L->ndim - 1; k > 0; k--) {
        const int64_t q = i / L->sizes[k], r = i - q * L->sizes[k];
        s += r * L->src_strides[k];
        d += r * L->dst_strides[k];
        i = q;
    }
    *so = s + i * L->src_strides[0];
    *dof = d + i * L->dst_strides[0];
}

/* An incrementing multi-index: the CPU's way to walk a launch without div/mod. */
typedef struct ss_kiter {
    int64_t so, dof;
    int64_t idx[SS_MAX_NDIM];
} ss_kiter;

SS_HD void ss_kiter_seek(const ss_klaunch *L, ss_kiter *it, int64_t i) {
    it->so = L->src_off;
    it->dof = L->dst_off;
    for (int k = L->ndim - 1; k >= 0; k--) {
        const int64_t q = k ? i / L->sizes[k] : 0, r = k ? i - q * L->sizes[k] : i;
        it->idx[k] = r;
        it->so += r * L->src_strides[k];
        it->dof += r * L->dst_strides[k];
        i = q;
    }
}

SS_HD void ss_kiter_next(const ss_klaunch *L, ss_kiter *it) {
    for (int k = L->ndim - 1; k >= 0; k--) {
        it->so += L->src_strides[k];
        it->dof += L->dst_strides[k];
        if (++it->idx[k] < L->sizes[k] || k == 0) return;
        it->so -= L->sizes[k] * L->src_strides[k];
        it->dof -= L->sizes[k] * L->dst_strides[k];
        it->idx[k] = 0;
    }
}

SS_HD void ss_kiter_prev(const ss_klaunch *L, ss_kiter *it) {
    for (int k = L->ndim - 1; k >= 0; k--) {
        it->so -= L->src_strides[k];
        it->dof -= L->dst_strides[k];
        if (--it->idx[k] >= 0 || k == 0) return;
        it->idx[k] = L->sizes[k] - 1;
        it->so += L->sizes[k] * L->src_strides[k];
        it->dof += L->sizes[k] * L->dst_strides[k];
    }
}

/* Fixed-size byte blocks: with a constant `elem` both compilers emit one access
 * (the GPU path relies on natural alignment, which the host guarantees). */
SS_HD ss_kval ss_k_load(const uint8_t *p, int elem) {
    ss_kval v = {0, 0};
#ifdef __CUDA_ARCH__
    switch (elem) {
    case 1: v.lo = *p; break;
    case 2: v.lo = *(const uint16_t *)p; break;
    case 4: v.lo = *(const uint32_t *)p; break;
    case 8: v.lo = *(const unsigned long long *)p; break;
    default: { const ulonglong2 w = *(const ulonglong2 *)p; v.lo = w.x; v.hi = w.y; }
    }
#else
    switch (elem) {
    case 1: memcpy(&v.lo, p, 1); break;
    case 2: memcpy(&v.lo, p, 2); break;
    case 4: memcpy(&v.lo, p, 4); break;
    case 8: memcpy(&v.lo, p, 8); break;
    default: memcpy(&v.lo, p, 8); memcpy(&v.hi, p + 8, 8);
    }
#endif
    return v;
}

SS_HD void ss_k_store(uint8_t *p, int elem, ss_kval v) {
#ifdef __CUDA_ARCH__
    switch (elem) {
    case 1: *p = (uint8_t)v.lo; break;
    case 2: *(uint16_t *)p = (uint16_t)v.lo; break;
    case 4: *(uint32_t *)p = (uint32_t)v.lo; break;
    case 8: *(unsigned long long *)p = v.lo; break;
    default: { ulonglong2 w; w.x = v.lo; w.y = v.hi; *(ulonglong2 *)p = w; }
    }
#else
    switch (elem) {
    case 1: memcpy(p, &v.lo, 1); break;
    case 2: memcpy(p, &v.lo, 2); break;
    case 4: memcpy(p, &v.lo, 4); break;
    case 8: memcpy(p, &v.lo, 8); break;
    default: memcpy(p, &v.lo, 8); memcpy(p + 8, &v.hi, 8);
    }
#endif
}
/* (Little-endian hosts only: a 1/2/4-byte value sits in the low bytes of lo.) */

/* The load step of work item i, whose src offset is so. */
SS_HD ss_kval ss_k_load_step(int kind, int elem, const uint8_t *src, int64_t so) {
    if (kind == SS_KL_INDEX_BUILD) {
        ss_kval v = {(uint64_t)so, 0};
        return v;
    }
    return ss_k_load(src + so * elem, elem);
}

/* The store step of work item i, whose dst offset is dof. INDEX_BUILD stores
 * 8-byte offsets into the index list; INDEX_SCATTER takes dof from it. */
SS_HD void ss_k_store_step(int kind, int elem, uint8_t *dst, const int64_t *idx, int64_t i,
                           int64_t dof, ss_kval v) {
    if (kind == SS_KL_INDEX_BUILD) {
        ss_k_store(dst + i * 8, 8, v);
        return;
    }
    if (kind == SS_KL_INDEX_SCATTER) dof = idx[i];
    ss_k_store(dst + dof * elem, elem, v);
}

#endif
