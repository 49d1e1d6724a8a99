/* ss_fuzz_cases.c - which cases and schedules a campaign runs: a shard's case indices, the
 * schedules of a target for a case (all, one, or one chosen by the case's index), the size of
 * a worker's groups; and the pipe I/O its parent and workers share. The bottom of the
 * campaign's files: the parent, its workers and the finding policy all read it. */
#include <errno.h>
#include <unistd.h>
#include "ss_bits.h"
#include "ss_fuzz_int.h"

int fz_io_full(int fd, void *buf, size_t n, int writing) {
    char *p = buf;
    while (n) {
        ssize_t k = writing ? write(fd, p, n) : read(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

uint64_t ss_fuzz_case_index(const ss_fuzz_config *cfg, uint64_t local) {
    return cfg->shard_count > 1 ? local * cfg->shard_count + cfg->shard_index : local;
}

int ss_fuzz_schedules(const ss_fuzz_config *cfg, const ss_target *t, int *first, int *last) {
    *first = *last = 0;
    if (!t->scheduled) return 0;
    if (cfg->all_schedules) { *last = t->scheduled - 1; return 0; }
    *first = *last = ss_target_schedule_index(t, cfg->schedule ? cfg->schedule : "");
    return *first < 0 ? -1 : 0;
}

int fz_rotates_on(const ss_fuzz_config *cfg, const ss_target *t) {
    if (!cfg->all_schedules || t->scheduled < 2) return 0;
    return cfg->rotate == SS_ROTATE_ALWAYS || (cfg->rotate == SS_ROTATE_BATCHING && ss_target_batch_limit(t) > 1);
}

int ss_fuzz_case_schedules(const ss_fuzz_config *cfg, const ss_target *t, uint64_t index, int *first, int *last) {
    if (ss_fuzz_schedules(cfg, t, first, last)) return -1;
    /* By a hash of the index, not the index itself: shard I of N sees only
     * indices I mod N, and those would fall on one schedule when N shares a
     * factor with the schedule count. */
    if (fz_rotates_on(cfg, t)) *first = *last = (int)(ss_mix64(index) % (uint64_t)t->scheduled);
    return 0;
}

const char *ss_fuzz_schedule_mode(const ss_fuzz_config *cfg) {
    if (!cfg->all_schedules) return cfg->schedule;
    if (cfg->rotate == SS_ROTATE_ALWAYS) return "rotate";
    for (size_t i = 0; cfg->rotate == SS_ROTATE_BATCHING && i < cfg->n_targets; i++)
        if (fz_rotates_on(cfg, cfg->targets[i])) return "all; rotate on compiled targets";
    return "all";
}

/* The most cases a group holds: --batch, else the largest batch any target
 * runs (1: no target batches; cases run one by one, as run_case). */
int ss_fuzz_group_limit(const ss_fuzz_config *cfg) {
    int k = 1;
    for (size_t ti = 0; ti < cfg->n_targets; ti++) {
        const int b = ss_target_batch_limit(cfg->targets[ti]);
        if (b > k) k = b;
    }
    if (cfg->batch > 0 && k > 1) k = cfg->batch;
    return k > SS_CHECK_MAX_BATCH ? SS_CHECK_MAX_BATCH : k;
}
