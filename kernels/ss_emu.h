/* ss_emu.h - the CPU emulator: runs the kernel body launch by launch under a schedule. */
#ifndef SS_EMU_H
#define SS_EMU_H

#include <stddef.h>
#include "ss_plan.h"
#include "ss_kernel_params.h"

/* Plan kernel k on op and run it on the host storages (src is ignored, and may
 * be NULL, when op->src_aliased). Temporaries live in a per-thread scratch
 * buffer reused across calls. */
ss_run_status ss_emu_run(ss_kernel_id k, const ss_op *op, ss_storage *input, ss_storage *src,
                         const ss_run_opts *opts, char *why, size_t why_len);

/* Run a planned program; bufs[SS_KB_*] are data pointers (TMP and IDX sized
 * as the program says). Launch i of the random schedule is seeded from
 * opts->seed and i. 0 ok, -1 out of memory for schedule scratch. */
int ss_emu_exec(const ss_kprog *prog, uint8_t *const bufs[SS_KB_COUNT], const ss_run_opts *opts);

/* 1 when kernel k gives one result on op under every schedule: its program
 * is refused before running (same answer in any order), or every launch is
 * order-free (ss_klaunch.indep, which the emulator then runs forward whatever
 * the schedule). Storages with `guard`-byte bands, as ss_emu_run plans them. */
int ss_emu_schedules_agree(ss_kernel_id k, const ss_op *op, size_t guard);

/* Free this thread's scratch buffers (optional; for leak checkers). */
void ss_emu_release(void);

#endif
