/* ss_target.c - what every engine may use: schedule names and lookups, the clock hook. */
#include <string.h>
#include "ss_target.h"

const char *const ss_emu_schedule_names[SS_SCHED_COUNT] = {
    [SS_SCHED_FORWARD] = "forward", [SS_SCHED_REVERSE] = "reverse",
    [SS_SCHED_LOCKSTEP] = "lockstep", [SS_SCHED_WARP] = "warp", [SS_SCHED_RANDOM] = "random",
};

const char *ss_target_schedule(const ss_target *t, int s) {
    return s >= 0 && s < t->scheduled ? t->schedules[s] : NULL;
}

int ss_target_schedule_index(const ss_target *t, const char *name) {
    for (int s = 0; s < t->scheduled; s++)
        if (!strcmp(t->schedules[s], name)) return s;
    return -1;
}

const char *ss_schedule_name(ss_schedule s) {
    return (unsigned)s < SS_SCHED_COUNT ? ss_emu_schedule_names[s] : "?";
}

int ss_schedule_from_name(const char *name, ss_schedule *out) {
    for (int i = 0; i < SS_SCHED_COUNT; i++)
        if (!strcmp(name, ss_emu_schedule_names[i])) { *out = (ss_schedule)i; return 0; }
    return -1;
}

const char *ss_schedule_class(const char *name) {
    ss_schedule s;
    if (!name) return "";
    if (ss_schedule_from_name(name, &s)) return name;   /* torch's input forms: each its own */
    return s == SS_SCHED_FORWARD || s == SS_SCHED_REVERSE ? "sequential" : "wave";
}

/* The clock hook: engines restart their runner's per-run clock through it
 * without knowing who runs them (a fuzz worker's watchdog, or nobody). */
static ss_clock_hook clock_hook;
static void *clock_user;

void ss_target_set_clock_hook(ss_clock_hook fn, void *user) {
    clock_hook = fn;
    clock_user = user;
}

void ss_target_clock(double budget_s) {
    if (clock_hook) clock_hook(clock_user, budget_s);
}
