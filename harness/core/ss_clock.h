/* ss_clock.h - monotonic wall time in seconds, for timings and time budgets. */
#ifndef SS_CLOCK_H
#define SS_CLOCK_H

#include <time.h>

static inline double ss_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
