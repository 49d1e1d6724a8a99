/* ss_targets.c - the target registry: emu:KERNEL and cuda:KERNEL for every kernel,
 * the torch engine's targets, loaded plugins' targets, and schedule names. */
#include <stdio.h>
#include <string.h>
#include "ss_target.h"
#include "ss_kernels.h"
#include "ss_emu.h"
#include "ss_cuda.h"
#include "ss_cuda_iso.h"
#include "ss_plugin.h"
#include "ss_storage.h"
#include "ss_torch.h"

static const char *emu_unavailable(const ss_target *t) { (void)t; return NULL; }
static const char *cuda_unavailable(const ss_target *t) {
    (void)t;
    return ss_cuda_iso_enabled() ? ss_cuda_iso_unavailable() : ss_cuda_unavailable();
}
static ss_run_status emu_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                             ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len);
static ss_run_status cuda_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                              ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len);

static const char *const schedule_names[SS_SCHED_COUNT] = {
    [SS_SCHED_FORWARD] = "forward", [SS_SCHED_REVERSE] = "reverse",
    [SS_SCHED_LOCKSTEP] = "lockstep", [SS_SCHED_WARP] = "warp", [SS_SCHED_RANDOM] = "random",
};

#define EMU(k, mut) {"emu:" k, "emu", k, mut, SS_SCHED_COUNT, schedule_names, 0, emu_unavailable, emu_run}
#define CUDA(k, mut) {"cuda:" k, "cuda", k, mut, 0, NULL, 0, cuda_unavailable, cuda_run}
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

static ss_kernel_id kernel_of(const ss_target *t) { return (ss_kernel_id)((size_t)(t - targets) / 2); }

static ss_run_status emu_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                             ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len) {
    static const ss_run_opts forward = {SS_SCHED_FORWARD, 0, 0};
    return ss_emu_run(kernel_of(t), &plan->op, input, plan->op.src_aliased ? NULL : src,
                      opts ? opts : &forward, why, why_len);
}

int ss_target_schedules_agree(const ss_target *t, const ss_plan *plan) {
    if (t->run != emu_run) return 0;   /* only the registry's emu targets run this */
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

size_t ss_target_count(void) { return NTARGETS + ss_torch_target_count() + ss_plugin_target_count(); }

const ss_target *ss_target_at(size_t i) {
    if (i < NTARGETS) return &targets[i];
    i -= NTARGETS;
    return i < ss_torch_target_count() ? ss_torch_target_at(i)
                                       : ss_plugin_target_at(i - ss_torch_target_count());
}

const ss_target *ss_target_find(const char *name) {
    for (size_t i = 0, n = ss_target_count(); i < n; i++) {
        const ss_target *t = ss_target_at(i);
        if (!strcmp(t->name, name)) return t;
    }
    return NULL;
}

const char *ss_target_schedule(const ss_target *t, int s) {
    return s >= 0 && s < t->scheduled ? t->schedules[s] : NULL;
}

int ss_target_schedule_index(const ss_target *t, const char *name) {
    for (int s = 0; s < t->scheduled; s++)
        if (!strcmp(t->schedules[s], name)) return s;
    return -1;
}

int ss_schedule_known(const char *name) {
    for (size_t i = 0, n = ss_target_count(); i < n; i++)
        if (ss_target_schedule_index(ss_target_at(i), name) >= 0) return 1;
    return 0;
}

const char *ss_schedule_list(void) {
    static char list[256];
    if (list[0]) return list;
    size_t len = 0;
    for (size_t i = 0, n = ss_target_count(); i < n; i++) {
        const ss_target *t = ss_target_at(i);
        for (int s = 0; s < t->scheduled; s++) {
            char probe[40];
            snprintf(probe, sizeof probe, "%s, ", t->schedules[s]);
            if (strstr(list, probe) || len + strlen(probe) >= sizeof list) continue;
            memcpy(list + len, probe, strlen(probe) + 1);
            len += strlen(probe);
        }
    }
    snprintf(list + len, sizeof list - len, "all");
    return list;
}

static ss_clock_hook clock_hook;
static void *clock_user;

void ss_target_set_clock_hook(ss_clock_hook fn, void *user) {
    clock_hook = fn;
    clock_user = user;
}

void ss_target_clock(double budget_s) {
    if (clock_hook) clock_hook(clock_user, budget_s);
}

const char *ss_schedule_name(ss_schedule s) {
    return (unsigned)s < SS_SCHED_COUNT ? schedule_names[s] : "?";
}

int ss_schedule_from_name(const char *name, ss_schedule *out) {
    for (int i = 0; i < SS_SCHED_COUNT; i++)
        if (!strcmp(name, schedule_names[i])) { *out = (ss_schedule)i; return 0; }
    return -1;
}

const char *ss_schedule_class(const char *name) {
    ss_schedule s;
    if (!name) return "";
    if (ss_schedule_from_name(name, &s)) return name;   /* torch's input forms: each its own */
    return s == SS_SCHED_FORWARD || s == SS_SCHED_REVERSE ? "sequential" : "wave";
}
