/* ss_pykernel.c - the Python-kernel engine: modules from --py-kernel, targets NAME:KERNEL[@cuda], their workers. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_files.h"
#include "ss_pykernel.h"
#include "ss_pyworker.h"
#include "ss_text.h"
#include "ss_torch.h"
#include "ss_torch_proto.h"

#define SS_PYKERNEL_MAX_MODULES 16
#define SS_PYKERNEL_MAX_TARGETS 128

typedef struct module {
    char path[PATH_MAX];
    char name[SS_PYKERNEL_NAME_MAX + 1];
} module;

/* The ss_target comes first: a target pointer is a pktarget pointer. */
typedef struct pktarget {
    ss_target t;
    const module *m;
    int cuda;
    int asked;                 /* the worker's answer is known in this process */
    char kernel[SS_PYKERNEL_NAME_MAX + 1];
    char name[2 * SS_PYKERNEL_NAME_MAX + 8];
    char answer[400];          /* "ok[ triton=VERSION]", or why not */
} pktarget;

static module modules[SS_PYKERNEL_MAX_MODULES];
static size_t n_modules;
static pktarget targets[SS_PYKERNEL_MAX_TARGETS];
static size_t n_targets;

size_t ss_pykernel_target_count(void) { return n_targets; }
const ss_target *ss_pykernel_target_at(size_t i) { return i < n_targets ? &targets[i].t : NULL; }

static const pktarget *own_target(const char *name) {
    for (size_t i = 0; i < n_targets; i++)
        if (!strcmp(targets[i].name, name)) return &targets[i];
    return NULL;
}

/* Triton's interpreter is switched on before anything imports Triton, which
 * is why CPU kernels have a worker of their own: in the torch engine's, it
 * would turn inductor's CUDA kernels into interpreted ones. The CUDA worker
 * never interprets, whatever the user's environment says. */
static void cpu_env(void) {
    ss_torch_child_env();
    setenv("TRITON_INTERPRET", "1", 1);
}
static void cuda_env(void) {
    ss_torch_child_env();
    unsetenv("TRITON_INTERPRET");
}
static ss_pyworker workers[2] = {SS_PYWORKER_INIT("python kernel worker", cpu_env),
                                 SS_PYWORKER_INIT("python kernel worker (cuda)", cuda_env)};

void ss_pykernel_shutdown(void) {
    ss_pyworker_stop(&workers[0]);
    ss_pyworker_stop(&workers[1]);
}

static int pk_large(const ss_target *t) { return ((const pktarget *)t)->cuda ? 250 : 0; }
static int64_t pk_max_numel(const ss_target *t) {
    return ((const pktarget *)t)->cuda ? 0 : SS_PYKERNEL_CPU_MAX_NUMEL;
}
static const char *pk_loaded_from(const ss_target *t) { return ((const pktarget *)t)->m->path; }
static int pk_meta_write(cJSON *meta, const ss_target *t, const char *schedule);
static void pk_meta_note(const cJSON *meta, char *note, size_t note_len);

/* A worker shared by every target of a device: a crash reproducer isolates
 * them all. Interpreted CPU targets want small cases only (large_per_mille 0,
 * max_numel); on a GPU size changes the waves, as for compiled torch. */
const ss_engine ss_pykernel_engine = {
    .name = "pykernel", .kind = "pykernel", .shared_state = 1, .meta_key = "pykernel",
    .load_option = "--py-kernel", .large_per_mille = pk_large, .max_numel = pk_max_numel,
    .loaded_from = pk_loaded_from, .meta_write = pk_meta_write, .meta_check = ss_pykernel_check_meta,
    .meta_note = pk_meta_note, .before_fork = ss_pykernel_shutdown, .shutdown = ss_pykernel_shutdown,
};

/* Whether the kernel can run: a worker (started now if needed) imports its
 * module and looks the kernel up, once per process. */
static const char *pk_unavailable(const ss_target *t) {
    pktarget *pt = (pktarget *)t;
    ss_pyworker *w = &workers[pt->cuda];
    static char why[700];
    if (ss_pyworker_start(w)) return w->error;
    if (pt->cuda && w->caps.cuda[0]) {
        snprintf(why, sizeof why, "%s (python: %.300s)", w->caps.cuda, w->python);
        return why;
    }
    if (!pt->asked) {
        char payload[16 + PATH_MAX + 2 * SS_PYKERNEL_NAME_MAX], lost[400];
        const int len = snprintf(payload, sizeof payload, "pykernel%c%s%c%s%c%s", 0, pt->m->path, 0, pt->kernel, 0,
                                 pt->cuda ? "cuda" : "cpu");
        if (len < 0 || (size_t)len >= sizeof payload) {
            snprintf(pt->answer, sizeof pt->answer, "module path too long");
        } else if (ss_pyworker_ask(w, payload, (size_t)len, pt->answer, sizeof pt->answer, lost, sizeof lost)) {
            snprintf(why, sizeof why, "asking the worker about %s failed: %.400s", t->name, lost);
            return why;   /* not kept: a fresh worker may answer */
        }
        pt->asked = 1;
    }
    if (!strncmp(pt->answer, "ok", 2)) return NULL;
    char shown[sizeof pt->answer];
    ss_text_inert(pt->answer, shown, sizeof shown);
    snprintf(why, sizeof why, "%s (python: %.200s)", shown, w->python);
    return why;
}

/* One case: the kernel part names the module and kernel; both storages go
 * with their guard bands, so a write just outside a storage comes back as a
 * guard-band write. A raise is `raised`, or agreement where the reference
 * rejects the case too (internal overlap). */
static ss_run_status pk_run(const ss_target *t, const ss_plan *plan, ss_storage *input, ss_storage *src,
                            const ss_run_opts *opts, char *why, size_t why_len) {
    const pktarget *pt = (const pktarget *)t;
    const char *r = pk_unavailable(t);
    if (r) { snprintf(why, why_len, "%s", r); return SS_RUN_UNAVAILABLE; }
    const ss_op *op = &plan->op;
    const ss_dtype dt = opts ? (ss_dtype)opts->dtype : SS_UINT8;
    const int aliased = op->src_aliased;
    if (ss_tp_run_check(op, dt, why, why_len)) return SS_RUN_FAILED;
    if (input->guard % 16 || input->guard > UINT32_MAX || (!aliased && src->guard != input->guard)) {
        snprintf(why, why_len, "guard bands of %zu and %zu bytes: the kernel frame needs one multiple of 16",
                 input->guard, aliased ? input->guard : src->guard);
        return SS_RUN_FAILED;
    }
    uint8_t head[SS_TP_RUN_HEAD_MAX], part[16 + SS_TP_MAX_PATH + SS_TP_MAX_KERNEL + 16];
    const size_t head_len = ss_tp_run_head_size(op);
    if (ss_tp_run_head_encode(head, pt->cuda ? "pykernel-cuda" : "pykernel-cpu", "", "", ss_dtype_name(dt), op) ||
        ss_tp_run_pykernel_encode(head, part, pt->m->path, pt->kernel, (uint32_t)input->guard)) {
        snprintf(why, why_len, "the module's path is longer than %d bytes", SS_TP_MAX_PATH);
        return SS_RUN_FAILED;
    }
    const ss_pyw_run run = {
        head, part, head_len, ss_tp_run_pykernel_size(strlen(pt->m->path), strlen(pt->kernel)),
        {input->base, aliased ? NULL : src->base},
        {input->bytes + 2 * input->guard, aliased ? 0 : src->bytes + 2 * src->guard}, NULL,
    };
    const ss_run_status st = ss_pyworker_run(&workers[pt->cuda], &run, why, why_len);
    return st == SS_RUN_RAISED && plan->internal_overlap ? SS_RUN_REJECTED : st;
}

static int plain_name(const char *s, size_t len) {
    if (len == 0 || len > SS_PYKERNEL_NAME_MAX) return 0;
    for (size_t i = 0; i < len; i++) {
        const char c = s[i];
        if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') && c != '_' &&
            c != '.' && c != '-')
            return 0;
    }
    return 1;
}

/* The new targets' names are free: not built in, not a plugin's, not
 * another module's (taken), not twice in this one. */
static int check_names(const char *stem, char kernels[][SS_PYKERNEL_NAME_MAX + 1], int nk,
                       ss_pykernel_lookup taken, const char *path, ss_error *err) {
    if (n_targets + 2 * (size_t)nk > SS_PYKERNEL_MAX_TARGETS)
        return ss_fail(err, path, "more than %d Python kernel targets in all", SS_PYKERNEL_MAX_TARGETS);
    for (int i = 0; i < nk; i++)
        for (int cuda = 0; cuda < 2; cuda++) {
            char name[sizeof targets[0].name];
            snprintf(name, sizeof name, "%.64s:%.64s%s", stem, kernels[i], cuda ? "@cuda" : "");
            const pktarget *own = own_target(name);
            const ss_target *t = taken ? taken(name) : own ? &own->t : NULL;
            if (!t) continue;
            const char *from = t->engine->loaded_from ? t->engine->loaded_from(t) : NULL;
            char shown[PATH_MAX + 8];
            ss_text_inert(from ? from : "", shown, sizeof shown);
            return ss_fail(err, path, "duplicate target %s (%s%s)", name, from ? "already loaded from " : "a built-in target",
                           shown);
        }
    return 0;
}

int ss_pykernel_load(const char *path, ss_pykernel_lookup taken, ss_error *err) {
    char real[PATH_MAX];
    if (!realpath(path, real)) return ss_fail(err, path, "cannot open: no such file");
    for (size_t i = 0; i < n_modules; i++)
        if (!strcmp(modules[i].path, real)) return 0;
    if (n_modules == SS_PYKERNEL_MAX_MODULES)
        return ss_fail(err, path, "at most %d Python kernel modules", SS_PYKERNEL_MAX_MODULES);
    if (strlen(real) > SS_TP_MAX_PATH) return ss_fail(err, path, "path longer than %d bytes", SS_TP_MAX_PATH);
    const char *base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
    const size_t blen = strlen(base);
    if (blen < 4 || strcmp(base + blen - 3, ".py") || !plain_name(base, blen - 3))
        return ss_fail(err, path, "a kernel module is NAME.py, NAME 1-%d of [A-Za-z0-9_.-] (it names the targets "
                                  "NAME:KERNEL)", SS_PYKERNEL_NAME_MAX);
    char *text = NULL;
    size_t len = 0;
    if (ss_read_file(real, SS_PYKERNEL_SOURCE_MAX, &text, &len, err)) {
        ss_text_inert(path, err->field, sizeof err->field);
        return -1;
    }
    static char kernels[SS_PYKERNEL_MAX_KERNELS][SS_PYKERNEL_NAME_MAX + 1];
    char why[300];
    int nk = 0;
    const int bad = ss_pykernel_scan(text, len, kernels, SS_PYKERNEL_MAX_KERNELS, &nk, why, sizeof why);
    free(text);
    if (bad) return ss_fail(err, path, "%s", why);
    module *m = &modules[n_modules];
    memset(m, 0, sizeof *m);
    snprintf(m->path, sizeof m->path, "%s", real);
    memcpy(m->name, base, blen - 3);
    if (check_names(m->name, kernels, nk, taken, path, err)) return -1;
    n_modules++;
    for (int i = 0; i < nk; i++)
        for (int cuda = 0; cuda < 2; cuda++) {
            pktarget *pt = &targets[n_targets++];
            memset(pt, 0, sizeof *pt);
            pt->m = m;
            pt->cuda = cuda;
            snprintf(pt->kernel, sizeof pt->kernel, "%.64s", kernels[i]);
            snprintf(pt->name, sizeof pt->name, "%.64s:%.64s%s", m->name, kernels[i], cuda ? "@cuda" : "");
            pt->t = (ss_target){pt->name, &ss_pykernel_engine, pt->name + strlen(m->name) + 1, 0, 0, NULL, 1,
                                pk_unavailable, pk_run};
        }
    return 0;
}

int ss_pykernel_load_env(ss_pykernel_lookup taken, ss_error *err) {
    const char *env = getenv("SSFUZZ_PY_KERNELS");
    if (!env) return 0;
    char *list = strdup(env), *save = NULL;
    if (!list) return ss_fail(err, "SSFUZZ_PY_KERNELS", "out of memory");
    int rc = 0;
    for (char *p = strtok_r(list, ":", &save); p && !rc; p = strtok_r(NULL, ":", &save))
        rc = ss_pykernel_load(p, taken, err);
    free(list);
    return rc;
}

static const char *meta_string(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* meta.pykernel of a finding: which module to load to replay it, and what ran it. */
static int pk_meta_write(cJSON *meta, const ss_target *t, const char *schedule) {
    (void)schedule;
    const pktarget *pt = (const pktarget *)t;
    const ss_pyworker *w = &workers[pt->cuda];
    const char *triton = strstr(pt->answer, "triton=");
    char version[64] = "";
    if (triton) snprintf(version, sizeof version, "%.*s", (int)strcspn(triton + 7, " "), triton + 7);
    cJSON *o = cJSON_AddObjectToObject(meta, "pykernel");
    const int ok = o && cJSON_AddStringToObject(o, "name", pt->m->name) &&
                   cJSON_AddStringToObject(o, "path", pt->m->path) &&
                   cJSON_AddStringToObject(o, "kernel", pt->kernel) &&
                   cJSON_AddStringToObject(o, "device", pt->cuda ? "cuda" : "cpu") &&
                   (!w->caps.torch[0] || cJSON_AddStringToObject(o, "torch", w->caps.torch)) &&
                   (!version[0] || cJSON_AddStringToObject(o, "triton", version)) &&
                   (pt->cuda || !version[0] || cJSON_AddBoolToObject(o, "triton_interpreter", 1)) &&
                   (!w->python[0] || cJSON_AddStringToObject(o, "python", w->python));
    return ok ? 0 : -1;
}

/* The case file names a module: every word of it is untrusted, so the names
 * are shown inert and the path quoted for the shell (then inert). The module
 * is never loaded from there: the user reruns with the option. A path whose
 * command would not fit is not shown cut. */
int ss_pykernel_check_meta(const cJSON *meta, char *why, size_t why_len) {
    const cJSON *pk = cJSON_GetObjectItemCaseSensitive(meta, "pykernel");
    const char *target = meta_string(meta, "target");
    if (!cJSON_IsObject(pk) || (target && own_target(target))) return 0;
    const char *name = meta_string(pk, "name"), *path = meta_string(pk, "path");
    char shown_name[80], shown_target[160], head[320], word[512];
    ss_text_inert(name ? name : "?", shown_name, sizeof shown_name);
    ss_text_inert(target ? target : "?", shown_target, sizeof shown_target);
    const int k = snprintf(head, sizeof head, "Python kernel module %s is not loaded (its target %s): rerun with "
                           "--py-kernel ", shown_name, shown_target);
    const int w = path ? ss_shell_word(path, word, sizeof word) : -1;
    const int fits = w >= 0 && k >= 0 && (size_t)k + (size_t)w < why_len;
    snprintf(why, why_len, "%s%s", head,
             fits ? word : path ? "NAME.py (meta.pykernel.path is too long to show here)" : "NAME.py");
    return -1;
}

/* A reproducer replayed with another file of the same name than the one
 * that found it: say so (the file's own path is never loaded). */
static void pk_meta_note(const cJSON *meta, char *note, size_t note_len) {
    const cJSON *pk = cJSON_GetObjectItemCaseSensitive(meta, "pykernel");
    const char *path = meta_string(pk, "path"), *target = meta_string(meta, "target");
    const pktarget *pt = target ? own_target(target) : NULL;
    note[0] = '\0';
    if (!pt || !path || !strcmp(path, pt->m->path)) return;
    char shown[256], ours[256];
    ss_text_inert(path, shown, sizeof shown);
    ss_text_inert(pt->m->path, ours, sizeof ours);
    snprintf(note, note_len, "found with the kernel module %s, replayed with %s", shown, ours);
}
