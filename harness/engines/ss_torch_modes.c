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

const ss_torch_mode *ss_torch_mode_in_stage_order(size_t i, int cuda) {
    for (int rank = 0; rank < 2 * SS_TB_COUNT; rank++)
        for (size_t k = 0; k < NMODES; k++)
            if (modes[k].cuda == cuda && ss_torch_stage_rank(&modes[k]) == rank && i-- == 0) return &modes[k];
    return NULL;
}

/* Appends printf-style text at *used, which stays below cap (a short table: it fits). */
#define ADD(buf, used, ...) \
    ((used) += (size_t)snprintf((buf) + (used), sizeof(buf) > (used) ? sizeof(buf) - (used) : 0, __VA_ARGS__))

const char *ss_torch_modes_json(void) {
    static char json[1400];
    if (json[0]) return json;
    size_t used = 0;
    ADD(json, used, "{\"modes\": {");
    for (size_t i = 0; i < NMODES; i++) {
        const ss_torch_mode *m = &modes[i];
        ADD(json, used, "%s\"%s\": ", i ? ", " : "", m->name);
        if (m->backend == SS_TB_NONE) ADD(json, used, "null");
        else ADD(json, used, "[\"%s\", %s]", ss_torch_backend_name(m->backend), m->dynamic ? "true" : "false");
    }
    ADD(json, used, "}, \"stages\": [");
    for (int b = SS_TB_EAGER; b < SS_TB_COUNT; b++)
        ADD(json, used, "%s[\"%s\", \"%s\"]", b > SS_TB_EAGER ? ", " : "", ss_torch_backend_name((ss_torch_backend)b),
            ss_torch_stage_name((ss_torch_backend)b));
    ADD(json, used, "]}");
    return used < sizeof json ? json : "{}";   /* "{}" cannot happen: the table is ours */
}
