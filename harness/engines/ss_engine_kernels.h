/* ss_engine_kernels.h - the engines of our own kernels (emu, cuda) and their targets. */
#ifndef SS_ENGINE_KERNELS_H
#define SS_ENGINE_KERNELS_H

#include <stddef.h>
#include "ss_target.h"

extern const ss_engine ss_engine_emu, ss_engine_cuda;

/* emu:K and cuda:K for every kernel K, kernel by kernel (emu first). */
size_t ss_kernel_target_count(void);
const ss_target *ss_kernel_target_at(size_t i);

#endif
