/* ss_emu_tile.h - the emulator's order-free transposed copy. */
#ifndef SS_EMU_TILE_H
#define SS_EMU_TILE_H

#include <stdint.h>
#include "ss_kernel_body.h"

/* Run COPY launch L tile by tile when two of its dims are transposed (dst
 * close along one, src along the other, each a line or more apart along the
 * other's) and large enough to pay. Only for launches whose every schedule
 * gives one result (L->indep): the tiles do not follow any schedule's order.
 * 1: done; 0: not this shape. */
int ss_emu_copy_transposed(const ss_klaunch *L, const uint8_t *src, uint8_t *dst);

/* Below this many bytes a copy is walked plainly (tiles do not pay). */
#define SS_EMU_TILE_MIN_BYTES 16384

/* Whether ss_emu_copy_transposed could take L at all: the emulator asks this
 * inline before the call, for the small launches that make most cases. */
static inline int ss_emu_tile_worth(const ss_klaunch *L) {
    return L->ndim >= 2 && L->n * L->elem >= SS_EMU_TILE_MIN_BYTES;
}

#endif
