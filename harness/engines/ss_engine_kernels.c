/* ss_engine_kernels.c - the engines of our own kernels: emu:KERNEL (the emulator
 * under a schedule) and cuda:KERNEL (the real kernel, in a child process that
 * owns the CUDA context unless this process is a fuzz worker). */
#include <stdio.h>
#include <string.h>
#include "ss_cuda.h"
#include "ss_cuda_iso.h"
#include "ss_emu.h"
#include "ss_engine_kernels.h"
#include "ss_kernels.h"
#include "ss_storage.h"

static const char *emu_unavailable(const ss_target *t) { (void)t; return NULL; }
static const char *cuda_unavailable(const ss_target *t) {
    (void)t;
    return ss_cuda_iso_enabled() ? ss_cuda_iso_unavailable() : ss_cuda_unavailable();
}
static ss_run_status emu_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                             ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len);
static ss_run_status cuda_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                              ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len);

/* The emulator's schedules expose order dependence at any size, and its large
 * cases cost most of a campaign (about 88% of the default one's time for 1
 * case in 300): none by default. A GPU's waves change with size: many. */
static int emu_large(const ss_target *t) { (void)t; return 0; }
static int cuda_large(const ss_target *t) { (void)t; return 250; }

static int emu_schedules_agree(const ss_target *t, const ss_plan *plan);
static const char *cuda_poisoned(void) { return ss_cuda_poisoned(); }
/* A fuzz worker is the CUDA process itself: it ends when poisoned. */
static void cuda_enter_worker(void) { ss_cuda_iso_set(0); }

const ss_engine ss_engine_emu = {
    .name = "emu", .kind = "kernel", .deterministic = 1, .default_rank = 1,
    .large_per_mille = emu_large, .schedules_agree = emu_schedules_agree,
};
const ss_engine ss_engine_cuda = {
    .name = "cuda", .kind = "kernel", .probe_in_child = 1, .shared_state = 1, .default_rank = 2,
    .large_per_mille = cuda_large, .poisoned = cuda_poisoned, .enter_worker = cuda_enter_worker,
};

#define EMU(k, mut) {"emu:" k, &ss_engine_emu, k, mut, SS_SCHED_COUNT, ss_emu_schedule_names, 0, \
                     emu_unavailable, emu_run}
#define CUDA(k, mut) {"cuda:" k, &ss_engine_cuda, k, mut, 0, NULL, 0, cuda_unavailable, cuda_run}
#define BOTH(k, mut) EMU(k, mut), CUDA(k, mut)

/* Kernel names as in kernels/ss_kernels.c, in ss_kernel_id order: entry i
 * runs kernel i / 2 (emu on even entries, cuda on odd ones). */
static const ss_target targets[] = {
    BOTH("reinplace", 0), BOTH("functional", 0), BOTH("index", 0),
    BOTH("mut-alias-unchecked", 1), BOTH("mut-alias-same-ptr", 1),
    BOTH("mut-overlap-off-by-one", 1), BOTH("mut-ignore-offset", 1),
    BOTH("mut-contiguous-src", 1), BOTH("mut-step-ignored", 1), BOTH("mut-end-unclamped", 1),
};
#define NTARGETS (sizeof targets / sizeof targets[0])
_Static_assert(NTARGETS == 2 * SS_KERNEL_COUNT, "one emu and one cuda target per kernel");

size_t ss_kernel_target_count(void) { return NTARGETS; }
const ss_target *ss_kernel_target_at(size_t i) { return i < NTARGETS ? &targets[i] : NULL; }

static ss_kernel_id kernel_of(const ss_target *t) { return (ss_kernel_id)((size_t)(t - targets) / 2); }

static ss_run_status emu_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                             ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len) {
    static const ss_run_opts forward = {SS_SCHED_FORWARD, 0, 0};
    return ss_emu_run(kernel_of(t), &plan->op, input, plan->op.src_aliased ? NULL : src,
                      opts ? opts : &forward, why, why_len);
}

/* The emulator's program for the case is refused before running, or
 * order-free in every launch (it then runs every schedule as the forward one). */
static int emu_schedules_agree(const ss_target *t, const ss_plan *plan) {
    return ss_emu_schedules_agree(kernel_of(t), &plan->op, SS_GUARD_DEFAULT);
}

static ss_run_status cuda_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                              ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len) {
    (void)opts;
    const char *r = cuda_unavailable(t);
    if (r) {
        snprintf(why, why_len, "%s", r);
        return SS_RUN_UNAVAILABLE;
    }
    ss_storage *s = plan->op.src_aliased ? NULL : src;
    ss_kprog prog;
    const ss_run_status st = ss_kprog_build(kernel_of(t), &plan->op, input->guard,
                                            s ? s->guard : input->guard, &prog, why, why_len);
    if (st != SS_RUN_OK) return st;
    /* The first run of a process (or of a new CUDA child) creates the context,
     * which takes seconds with many workers: not the case's time. */
    static long warmed = -1;
    const int iso = ss_cuda_iso_enabled();
    const long generation = iso ? ss_cuda_iso_children() : 0;
    const int cold = warmed != generation || (iso && generation == 0);
    if (cold) ss_target_clock(60);
    const ss_run_status ran = iso ? ss_cuda_iso_exec(&prog, input, s, why, why_len)
                                : ss_cuda_exec(&prog, input, s, why, why_len);
    if (cold) {
        ss_target_clock(0);
        warmed = iso ? ss_cuda_iso_children() : 0;
    }
    return ran;
}
