/* ss_torch_modes.c - the torch mode table (ss_torch_modes.h) and the stage order over it. */
#include <stdio.h>
#include <string.h>
#include "ss_torch_modes.h"

#define ROW(name, kind, backend, cuda, dynamic, listed) {name, kind, backend, cuda, dynamic, listed},
static const ss_torch_mode modes[] = {SS_TORCH_MODES(ROW)};
#undef ROW
#define NMODES (sizeof modes / sizeof modes[0])

size_t ss_torch_mode_count(void) { return NMODES; }

size_t ss_torch_listed_mode_count(void) {
    size_t n = 0;
    while (n < NMODES && modes[n].listed) n++;
    return n;
}

const ss_torch_mode *ss_torch_mode_at(size_t i) { return i < NMODES ? &modes[i] : NULL; }

const ss_torch_mode *ss_torch_mode_named(const char *name) {
    for (size_t i = 0; i < NMODES; i++)
        if (!strcmp(modes[i].name, name)) return &modes[i];
    return NULL;
}

const ss_torch_mode *ss_torch_mode_of_kind(const char *kind, int cuda) {
    for (size_t i = 0; i < NMODES; i++)
        if (modes[i].cuda == cuda && !strcmp(modes[i].kind, kind)) return &modes[i];
    return NULL;
}

const char *ss_torch_backend_name(ss_torch_backend b) {
    static const char *const names[SS_TB_COUNT] = {NULL, "eager", "aot_eager", "inductor"};
    return (unsigned)b < SS_TB_COUNT ? names[b] : NULL;
}

const char *ss_torch_stage_name(ss_torch_backend b) {
    static const char *const names[SS_TB_COUNT] = {"eager", "dynamo", "aot", "inductor"};
    return (unsigned)b < SS_TB_COUNT ? names[b] : "unknown";
}

int ss_torch_stage_rank(const ss_torch_mode *m) { return (int)m->backend + (m->dynamic ? SS_TB_COUNT : 0); }

int ss_torch_stage_modes(const ss_torch_mode *m, const ss_torch_mode **out, int cap) {
    int n = 0;
    for (int b = SS_TB_EAGER; b < (int)m->backend && n < cap; b++)
        for (size_t i = 0; i < NMODES; i++)
            if (modes[i].backend == (ss_torch_backend)b && modes[i].cuda == m->cuda &&
                modes[i].dynamic == m->dynamic) {
                out[n++] = &modes[i];
                break;
            }
    return n;
}

const ss_torch_mode *ss_torch_baseline_mode(const ss_torch_mode *m) {
    return m->backend == SS_TB_NONE ? NULL : ss_torch_mode_of_kind("eager", m->cuda);
}

const char *ss_torch_modes_json(void) {
    static char json[1024];
    if (json[0]) return json;
    size_t used = 0;
    for (size_t i = 0; i < NMODES && used < sizeof json; i++) {
        const ss_torch_mode *m = &modes[i];
        char value[32] = "null";
        if (m->backend != SS_TB_NONE)
            snprintf(value, sizeof value, "[\"%s\", %s]", ss_torch_backend_name(m->backend),
                     m->dynamic ? "true" : "false");
        used += (size_t)snprintf(json + used, sizeof json - used, "%s\"%s\": %s", i ? ", " : "{", m->name, value);
    }
    if (used + 2 > sizeof json) return json[0] = 0, "{}";   /* cannot happen: the table is ours */
    memcpy(json + used, "}", 2);
    return json;
}
