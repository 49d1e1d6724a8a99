/* ss_target.h - the registry of everything under test ("ENGINE:KERNEL"). */
#ifndef SS_TARGET_H
#define SS_TARGET_H

#include "ss_plan.h"

typedef struct ss_target ss_target;
struct ss_target {
    const char *name;         /* "emu:reinplace", "cuda:mut-step-ignored", ... */
    const char *engine;       /* "emu", "cuda" */
    const char *kernel;       /* "reinplace", "functional", "index", "mut-..." */
    int mutant;               /* 1: deliberately wrong */
    int scheduled;            /* 1: honours ss_run_opts.schedule (emulator) */
    /* NULL when the target can run here, else why not (static string). */
    const char *(*unavailable)(const ss_target *t);
    ss_run_status (*run)(const ss_target *t, const ss_plan *plan, ss_storage *input,
                         ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len);
};

size_t ss_target_count(void);
const ss_target *ss_target_at(size_t i);
const ss_target *ss_target_find(const char *name);
const char *ss_schedule_name(ss_schedule s);
int ss_schedule_from_name(const char *name, ss_schedule *out);  /* 0 ok, -1 unknown */

#endif
