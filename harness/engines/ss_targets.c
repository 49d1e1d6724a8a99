/* ss_targets.c - the registry: every engine and every target, and the questions
 * the layers above ask of an engine, answered from its descriptor. */
#include <stdio.h>
#include <string.h>
#include "ss_engine_kernels.h"
#include "ss_plugin.h"
#include "ss_pykernel.h"
#include "ss_torch.h"

static const ss_engine *const engines[] = {&ss_engine_emu, &ss_engine_cuda, &ss_torch_engine,
                                           &ss_plugin_engine, &ss_pykernel_engine};
#define NENGINES (sizeof engines / sizeof engines[0])

size_t ss_engine_count(void) { return NENGINES; }
const ss_engine *ss_engine_at(size_t i) { return i < NENGINES ? engines[i] : NULL; }

/* Where targets come from, in listing order. */
static const struct {
    size_t (*count)(void);
    const ss_target *(*at)(size_t i);
} tables[] = {
    {ss_kernel_target_count, ss_kernel_target_at},
    {ss_torch_target_count, ss_torch_target_at},
    {ss_plugin_target_count, ss_plugin_target_at},
    {ss_pykernel_target_count, ss_pykernel_target_at},
};
#define NTABLES (sizeof tables / sizeof tables[0])

size_t ss_target_count(void) {
    size_t n = 0;
    for (size_t k = 0; k < NTABLES; k++) n += tables[k].count();
    return n;
}

const ss_target *ss_target_at(size_t i) {
    for (size_t k = 0; k < NTABLES; k++) {
        const size_t n = tables[k].count();
        if (i < n) return tables[k].at(i);
        i -= n;
    }
    return NULL;
}

const ss_target *ss_target_find(const char *name) {
    for (size_t i = 0, n = ss_target_count(); i < n; i++) {
        const ss_target *t = ss_target_at(i);
        if (!strcmp(t->name, name)) return t;
    }
    return NULL;
}

int ss_target_set_put(const ss_target **set, size_t *n, const ss_target *t) {
    for (size_t i = 0; i < *n; i++)
        if (set[i] == t) return 0;
    if (*n == SS_MAX_TARGETS) return -1;
    set[(*n)++] = t;
    return 0;
}

int ss_target_set_add(const ss_target **set, size_t *n, const char *name, const char *option, ss_error *err) {
    const ss_target *t = ss_target_find(name);
    if (!t) return ss_fail(err, option, "unknown target '%s' (ssfuzz targets lists them)", name);
    if (ss_target_set_put(set, n, t)) return ss_fail(err, option, "at most %d targets", SS_MAX_TARGETS);
    return 0;
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

int ss_target_schedules_agree(const ss_target *t, const ss_plan *plan) {
    return t->engine->schedules_agree ? t->engine->schedules_agree(t, plan) : 0;
}

const char *ss_target_poisoned(const ss_target *t) {
    return t->engine->poisoned ? t->engine->poisoned() : NULL;
}

int ss_target_large_per_mille(const ss_target *t) {
    return t->engine->large_per_mille ? t->engine->large_per_mille(t) : -1;
}

const char *ss_target_loaded_from(const ss_target *t) {
    return t->engine->loaded_from ? t->engine->loaded_from(t) : NULL;
}

int64_t ss_target_max_numel(const ss_target *t) {
    return t->engine->max_numel ? t->engine->max_numel(t) : 0;
}

int ss_target_batch_limit(const ss_target *t) {
    const int k = t->engine->batch_limit && t->engine->run_batch ? t->engine->batch_limit(t) : 1;
    return k > 1 ? k : 1;
}

int ss_target_meta_write(struct cJSON *meta, const ss_target *t, const char *schedule) {
    return t->engine->meta_write ? t->engine->meta_write(meta, t, schedule) : 0;
}

int ss_engines_meta_check(const struct cJSON *meta, const char **field, char *why, size_t why_len) {
    static char fields[NENGINES][40];
    for (size_t i = 0; i < NENGINES; i++) {
        const ss_engine *e = engines[i];
        if (!e->meta_check || !e->meta_check(meta, why, why_len)) continue;
        snprintf(fields[i], sizeof fields[i], "meta.%s", e->meta_key ? e->meta_key : e->name);
        *field = fields[i];
        return -1;
    }
    return 0;
}

void ss_engines_enter_worker(void) {
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->enter_worker) engines[i]->enter_worker();
}

void ss_engines_before_fork(void) {
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->before_fork) engines[i]->before_fork();
}

void ss_engines_shutdown(void) {
    for (size_t i = 0; i < NENGINES; i++)
        if (engines[i]->shutdown) engines[i]->shutdown();
}
