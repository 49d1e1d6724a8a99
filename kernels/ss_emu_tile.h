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

#endif
