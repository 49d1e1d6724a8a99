/* ss_kdev_sim.h - the CUDA kernel's execution simulated on the CPU: ss_k_offsets per work item, grid-stride waves, alignment checked.
 *
 * The emulator walks launches with an incrementing iterator and bulk memcpy
 * runs; the device computes each work item's offsets with ss_k_offsets and
 * spreads items over a grid-stride loop. This simulation runs the device's
 * code path (the same grid size as kernels/ss_cuda.cu, ss_k_offsets, the
 * typed load and store of ss_k_load_step/ss_k_store_step) on host buffers, so
 * a test can tie the two together without a GPU. */
#ifndef SS_KDEV_SIM_H
#define SS_KDEV_SIM_H

#include <stddef.h>
#include <stdint.h>
#include "ss_kernel_params.h"

typedef enum ss_kdev_order {
    SS_KDEV_SEQUENTIAL = 0,   /* work item 0, 1, 2, ... each loaded then stored */
    SS_KDEV_WAVES             /* one grid-stride iteration (grid x block threads) at a
                                 time: every load of the wave, then every store */
} ss_kdev_order;

/* Run prog on bufs (data pointers, 16-byte aligned as on the device).
 * 0 ok; -1 with `why` when an access is not naturally aligned (the device's
 * typed loads and stores would fault) or out of memory for a wave's values. */
int ss_kdev_sim_exec(const ss_kprog *prog, uint8_t *const bufs[SS_KB_COUNT], ss_kdev_order order,
                     char *why, size_t why_len);

#endif
