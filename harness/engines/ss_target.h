/* ss_target.h - the registry of everything under test ("ENGINE:KERNEL"). */
#ifndef SS_TARGET_H
#define SS_TARGET_H

#include "ss_plan.h"

/* A target's schedules are the ways one case can be run on it that may give
 * different answers: the emulator's execution orders (forward, reverse, ...),
 * or how the views reach a compiled PyTorch function (x-input, storage-input,
 * two-inputs). ss_run_opts.schedule indexes `schedules`; a target with none
 * runs once per case. */
typedef struct ss_target ss_target;
struct ss_target {
    const char *name;         /* "emu:reinplace", "torch:compile-cpu:setitem", ... */
    const char *engine;       /* "emu", "cuda", "torch" */
    const char *kernel;       /* "reinplace", "mut-...", "compile-cpu:setitem", ... */
    int mutant;               /* 1: deliberately wrong */
    int scheduled;            /* number of schedules (0: none) */
    const char *const *schedules;
    /* 1: only run when named (slow or external engines); never a default target. */
    int explicit_only;
    /* NULL when the target can run here, else why not (static string). */
    const char *(*unavailable)(const ss_target *t);
    ss_run_status (*run)(const ss_target *t, const ss_plan *plan, ss_storage *input,
                         ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len);
};

size_t ss_target_count(void);
const ss_target *ss_target_at(size_t i);
const ss_target *ss_target_find(const char *name);
/* The name of t's schedule s; NULL for an unscheduled target or s out of range. */
const char *ss_target_schedule(const ss_target *t, int s);
/* Index of schedule `name` on t, or -1 when t has no such schedule. */
int ss_target_schedule_index(const ss_target *t, const char *name);
/* 1 when some target has a schedule of that name ("all" is not one). */
int ss_schedule_known(const char *name);
/* Every schedule name of every target, comma-separated (for error messages). */
const char *ss_schedule_list(void);

/* 1 when every schedule of t is known to give the same result on this case,
 * so that a campaign may run one for all: the emulator's program for it is
 * refused before running, or order-free in every launch (it then runs every
 * schedule as the forward one). 0 otherwise and for every other engine (the
 * torch engine's schedules are input forms, not orders). Storages with
 * SS_GUARD_DEFAULT bands. */
int ss_target_schedules_agree(const ss_target *t, const ss_plan *plan);

/* The class of a schedule for deduplicating findings: "sequential" (an element
 * loop: forward, reverse) or "wave" (loads before stores: lockstep, warp, random)
 * for the emulator's; any other schedule is its own class; "" for NULL. */
const char *ss_schedule_class(const char *name);

/* The emulator's schedules (ss_schedule values). */
const char *ss_schedule_name(ss_schedule s);
int ss_schedule_from_name(const char *name, ss_schedule *out);  /* 0 ok, -1 unknown */

/* Engines may restart the per-run clock of whoever runs them (the campaign's
 * timeout watchdog) before a slow phase that is not the target's fault, e.g.
 * starting a Python worker or a first compile: budget_s > 0 gives that phase
 * its own limit, 0 returns to the normal per-case limit. No-op when unset. */
typedef void (*ss_clock_hook)(void *user, double budget_s);
void ss_target_set_clock_hook(ss_clock_hook fn, void *user);
void ss_target_clock(double budget_s);

#endif
