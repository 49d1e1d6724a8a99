/* ss_plugin.c - the plugin engine: loads user kernel libraries and runs them as targets PLUGIN:KERNEL. */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_case.h"
#include "ss_cuda.h"
#include "ss_plugin.h"
#include "ss_text.h"
#include "ssfuzz_plugin.h"

#define SS_PLUGIN_MAX 16
#define SS_PLUGIN_MAX_TARGETS 128

typedef struct plugin {
    void *handle;
    const ssfuzz_plugin *desc;
    char path[PATH_MAX];
    int init_ran;            /* init ran in this process (a forked child starts at 0) */
    int init_failed;
    char init_msg[256];
} plugin;

/* The ss_target comes first: a target pointer is a ptarget pointer. */
typedef struct ptarget {
    ss_target t;
    const plugin *p;
    const ssfuzz_kernel *k;
    char name[160];
} ptarget;

static plugin plugins[SS_PLUGIN_MAX];
static size_t n_plugins;
static ptarget targets[SS_PLUGIN_MAX_TARGETS];
static size_t n_targets;

size_t ss_plugin_target_count(void) { return n_targets; }
const ss_target *ss_plugin_target_at(size_t i) { return i < n_targets ? &targets[i].t : NULL; }

static const ss_target *own_target(const char *name) {
    for (size_t i = 0; i < n_targets; i++)
        if (!strcmp(targets[i].name, name)) return &targets[i].t;
    return NULL;
}

static const char *plugin_loaded_from(const ss_target *t);
static int plugin_meta_write(cJSON *meta, const ss_target *t, const char *schedule);

/* A user's library: probed in a child (its init may crash), confirmed by
 * reruns (it may race), loaded again from meta.plugin's path by the user. */
const ss_engine ss_plugin_engine = {
    .name = "plugin", .kind = "plugin", .probe_in_child = 1, .shared_state = 1, .meta_key = "plugin",
    .load_option = "--plugin",
    .loaded_from = plugin_loaded_from, .meta_write = plugin_meta_write,
    .meta_check = ss_plugin_check_meta, .shutdown = ss_plugin_shutdown,
};

static int plain_name(const char *s) {
    if (!s || !*s || strlen(s) > 64) return 0;
    for (; *s; s++)
        if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9') &&
            *s != '_' && *s != '.' && *s != '-')
            return 0;
    return 1;
}

/* A forked child has run no init yet. (Not getpid() per run: a system call
 * costs more than the rest of a plugin call on small cases.) */
static void forget_init(void) {
    for (size_t i = 0; i < n_plugins; i++) plugins[i].init_ran = 0;
}

/* Runs the plugin's init once in this process; its message when it failed. */
static const char *ensure_init(plugin *p) {
    if (p->init_ran) return p->init_failed ? p->init_msg : NULL;
    p->init_ran = 1;
    p->init_failed = 0;
    p->init_msg[0] = '\0';
    if (p->desc->init && p->desc->init(p->init_msg, sizeof p->init_msg)) {
        p->init_msg[sizeof p->init_msg - 1] = '\0';
        char m[sizeof p->init_msg];
        ss_text_inert(p->init_msg[0] ? p->init_msg : "no message", m, sizeof m);   /* printed as is */
        snprintf(p->init_msg, sizeof p->init_msg, "plugin %s: init failed: %.180s", p->desc->name, m);
        p->init_failed = 1;
        return p->init_msg;
    }
    return NULL;
}

static const char *plugin_unavailable(const ss_target *t) {
    const ptarget *pt = (const ptarget *)t;
    if (pt->k->memory == SSFUZZ_MEMORY_CUDA) {
        const char *r = ss_cuda_unavailable();
        if (r) return r;
    }
    return ensure_init((plugin *)pt->p);
}

static void view_out(ssfuzz_view *o, const ss_view *v) {
    memset(o, 0, sizeof *o);
    o->offset = v->offset;
    o->ndim = v->ndim;
    for (int d = 0; d < v->ndim; d++) {
        o->sizes[d] = v->sizes[d];
        o->strides[d] = v->strides[d];
    }
}

typedef struct call {
    const ptarget *pt;
    const ss_plan *plan;
    ssfuzz_case c;
    ss_run_status st;
} call;

/* Calls the kernel on storages at in/src; maps its status. */
static ss_run_status call_kernel(void *user, void *in, void *src, char *why, size_t why_len) {
    call *k = user;
    k->c.input_storage = in;
    k->c.src_storage = src;
    char msg[256] = "";
    const int rc = k->pt->k->run(&k->c, msg, sizeof msg);
    msg[sizeof msg - 1] = '\0';
    switch (rc) {
    case SSFUZZ_OK: return SS_RUN_OK;
    case SSFUZZ_REFUSED:
        /* Declining a case that cannot run in place agrees with the reference;
         * declining any other is the kernel being safe: counted, not a finding. */
        snprintf(why, why_len, "%s", msg[0] ? msg : "refused (no message)");
        return k->plan->internal_overlap ? SS_RUN_REJECTED : SS_RUN_REFUSED;
    case SSFUZZ_ERROR:
        snprintf(why, why_len, "%s: error: %s", k->pt->t.name, msg[0] ? msg : "no message");
        return SS_RUN_FAILED;
    default:
        snprintf(why, why_len, "%s: run() returned %d, not an ssfuzz status (0 ok, 1 refused, 2 error)",
                 k->pt->t.name, rc);
        return SS_RUN_FAILED;
    }
}

static ss_run_status plugin_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                                ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len) {
    const char *r = plugin_unavailable(t);
    if (r) {
        snprintf(why, why_len, "%s", r);
        return SS_RUN_UNAVAILABLE;
    }
    const ss_op *op = &plan->op;
    call k = {(const ptarget *)t, plan, {0}, SS_RUN_OK};
    ssfuzz_case *c = &k.c;
    c->struct_size = sizeof *c;
    c->has_start = op->has_start;
    c->has_end = op->has_end;
    c->src_aliased = op->src_aliased;
    c->dtype = ss_dtype_name((ss_dtype)(opts ? opts->dtype : 0));
    c->elem_size = op->elem_size;
    c->input_numel = op->input_storage_numel;
    c->src_numel = op->src_aliased ? op->input_storage_numel : op->src_storage_numel;
    view_out(&c->input, &op->input);
    view_out(&c->src, &op->src);
    c->dim = op->dim;
    c->start = op->start;
    c->end = op->end;
    c->step = op->step;
    ss_storage *s = op->src_aliased ? NULL : src;
    if (k.pt->k->memory == SSFUZZ_MEMORY_CUDA)
        return ss_cuda_exec_call(input, s, call_kernel, &k, why, why_len);
    return call_kernel(&k, ss_storage_data(input), ss_storage_data(s ? s : input), why, why_len);
}

static int check_desc(const ssfuzz_plugin *d, ss_target_lookup taken, ss_error *err, const char *path) {
    if (!d) return ss_fail(err, path, "ssfuzz_plugin_v1() returned NULL");
    if (d->abi_version != SSFUZZ_PLUGIN_ABI_VERSION)
        return ss_fail(err, path, "built for plugin ABI version %u, this ssfuzz speaks version %d: "
                                  "recompile against this ssfuzz's ssfuzz_plugin.h",
                       d->abi_version, SSFUZZ_PLUGIN_ABI_VERSION);
    if (d->struct_size != sizeof *d)
        return ss_fail(err, path, "descriptor struct_size is %u bytes, this ssfuzz's is %zu: "
                                  "recompile against this ssfuzz's ssfuzz_plugin.h",
                       d->struct_size, sizeof *d);
    if (!plain_name(d->name))
        return ss_fail(err, path, "plugin name must be 1-64 of [A-Za-z0-9_.-]");
    if (!d->kernels || d->n_kernels == 0) return ss_fail(err, path, "plugin %s has no kernels", d->name);
    for (uint32_t i = 0; i < d->n_kernels; i++) {
        const ssfuzz_kernel *k = &d->kernels[i];
        if (!plain_name(k->name))
            return ss_fail(err, path, "kernel %u: name must be 1-64 of [A-Za-z0-9_.-]", i);
        if (!k->run) return ss_fail(err, path, "kernel %s has no run function", k->name);
        if (k->memory != SSFUZZ_MEMORY_HOST && k->memory != SSFUZZ_MEMORY_CUDA)
            return ss_fail(err, path, "kernel %s: memory must be SSFUZZ_MEMORY_HOST (0) or "
                                      "SSFUZZ_MEMORY_CUDA (1), got %d", k->name, k->memory);
    }
    if (n_targets + d->n_kernels > SS_PLUGIN_MAX_TARGETS)
        return ss_fail(err, path, "more than %d plugin kernels in all", SS_PLUGIN_MAX_TARGETS);
    for (uint32_t i = 0; i < d->n_kernels; i++) {
        char name[160];
        snprintf(name, sizeof name, "%s:%s", d->name, d->kernels[i].name);
        const ss_target *t = taken ? taken(name) : own_target(name);
        int twice = 0;
        for (uint32_t j = 0; j < i; j++) twice |= !strcmp(d->kernels[j].name, d->kernels[i].name);
        if (t || twice) {
            const char *other = "";
            if (t && ss_plugin_describe(t, NULL, &other, NULL) == 0)
                return ss_fail(err, path, "duplicate target %s (already loaded from %s)", name, other);
            return ss_fail(err, path, "duplicate target %s (%s)", name,
                           twice ? "twice in this plugin" : "a built-in target");
        }
    }
    return 0;
}

int ss_plugin_load(const char *path, ss_target_lookup taken, ss_error *err) {
    char real[PATH_MAX];
    if (!realpath(path, real)) return ss_fail(err, path, "cannot open: no such file");
    for (size_t i = 0; i < n_plugins; i++)
        if (!strcmp(plugins[i].path, real)) return 0;
    if (n_plugins == SS_PLUGIN_MAX) return ss_fail(err, path, "at most %d plugins", SS_PLUGIN_MAX);
    dlerror();
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    if (!h) return ss_fail(err, path, "cannot load: %s", dlerror());
    const ssfuzz_plugin *(*entry)(void);
    *(void **)&entry = dlsym(h, SSFUZZ_PLUGIN_SYMBOL);
    if (!entry) {
        dlclose(h);
        return ss_fail(err, path, "no symbol %s (export it as include/ssfuzz_plugin.h shows)",
                       SSFUZZ_PLUGIN_SYMBOL);
    }
    if (ss_plugin_register(entry(), real, taken, err)) {
        if (err) ss_text_inert(path, err->field, sizeof err->field);
        dlclose(h);
        return -1;
    }
    plugins[n_plugins - 1].handle = h;
    return 0;
}

int ss_plugin_register(const ssfuzz_plugin *d, const char *path, ss_target_lookup taken, ss_error *err) {
    if (n_plugins == SS_PLUGIN_MAX) return ss_fail(err, path, "at most %d plugins", SS_PLUGIN_MAX);
    if (check_desc(d, taken, err, path)) return -1;
    static int hooked;
    if (!hooked && pthread_atfork(NULL, NULL, forget_init))
        return ss_fail(err, path, "pthread_atfork failed");
    hooked = 1;
    plugin *p = &plugins[n_plugins++];
    memset(p, 0, sizeof *p);
    p->desc = d;
    snprintf(p->path, sizeof p->path, "%s", path);
    for (uint32_t i = 0; i < d->n_kernels; i++) {
        ptarget *pt = &targets[n_targets++];
        memset(pt, 0, sizeof *pt);
        snprintf(pt->name, sizeof pt->name, "%s:%s", d->name, d->kernels[i].name);
        pt->p = p;
        pt->k = &d->kernels[i];
        pt->t = (ss_target){pt->name, &ss_plugin_engine, d->kernels[i].name, 0, 0, NULL, 1,
                            plugin_unavailable, plugin_run};
    }
    return 0;
}

int ss_plugin_load_env(ss_target_lookup taken, ss_error *err) {
    const char *env = getenv("SSFUZZ_PLUGINS");
    if (!env) return 0;
    char *list = strdup(env), *save = NULL;
    if (!list) return ss_fail(err, "SSFUZZ_PLUGINS", "out of memory");
    int rc = 0;
    for (char *p = strtok_r(list, ":", &save); p && !rc; p = strtok_r(NULL, ":", &save))
        rc = ss_plugin_load(p, taken, err);
    free(list);
    return rc;
}

int ss_plugin_describe(const ss_target *t, const char **plugin_name, const char **path,
                       const char **memory) {
    const uintptr_t a = (uintptr_t)t, first = (uintptr_t)&targets[0];
    if (!t || a < first || a >= (uintptr_t)&targets[n_targets] || (a - first) % sizeof targets[0])
        return -1;
    const ptarget *pt = (const ptarget *)t;
    if (plugin_name) *plugin_name = pt->p->desc->name;
    if (path) *path = pt->p->path;
    if (memory) *memory = pt->k->memory == SSFUZZ_MEMORY_CUDA ? "cuda" : "host";
    return 0;
}

static const char *meta_string(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

const ss_target *ss_plugin_meta_target(const cJSON *meta) {
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(meta, "plugin");
    const char *target = meta_string(meta, "target");
    if (!cJSON_IsObject(pl) || !target) return NULL;
    return own_target(target);
}

/* The case file says which library to load: every word of it is untrusted, so
 * the names are shown inert and the path quoted for the shell (then inert: a
 * quoted escape sequence still reaches the terminal). A path whose command
 * would not fit in why is not shown cut: a cut command may run something else. */
int ss_plugin_check_meta(const cJSON *meta, char *why, size_t why_len) {
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(meta, "plugin");
    if (!cJSON_IsObject(pl) || ss_plugin_meta_target(meta)) return 0;
    const char *name = meta_string(pl, "name"), *path = meta_string(pl, "path");
    const char *target = meta_string(meta, "target");
    char shown_name[80], shown_target[160], head[320], word[512];
    ss_text_inert(name ? name : "?", shown_name, sizeof shown_name);
    ss_text_inert(target ? target : "?", shown_target, sizeof shown_target);
    const int k = snprintf(head, sizeof head, "plugin %s is not loaded (its target %s): rerun with --plugin ",
                           shown_name, shown_target);
    const int w = path ? ss_shell_word(path, word, sizeof word) : -1;
    const int fits = w >= 0 && k >= 0 && (size_t)k + (size_t)w < why_len;
    snprintf(why, why_len, "%s%s", head,
             fits ? word : path ? "PATH.so (meta.plugin.path is too long to show here)" : "PATH.so");
    return -1;
}

static const char *plugin_loaded_from(const ss_target *t) {
    const char *path = NULL;
    return ss_plugin_describe(t, NULL, &path, NULL) == 0 ? path : NULL;
}

/* meta.plugin of a finding: which library to load to replay it. */
static int plugin_meta_write(cJSON *meta, const ss_target *t, const char *schedule) {
    (void)schedule;
    const char *name, *path, *memory;
    if (ss_plugin_describe(t, &name, &path, &memory)) return 0;
    cJSON *p = cJSON_AddObjectToObject(meta, "plugin");
    const int ok = p && cJSON_AddStringToObject(p, "name", name) && cJSON_AddStringToObject(p, "path", path) &&
                   cJSON_AddStringToObject(p, "kernel", t->kernel) && cJSON_AddStringToObject(p, "memory", memory);
    return ok ? 0 : -1;
}

void ss_plugin_shutdown(void) {
    for (size_t i = 0; i < n_plugins; i++) {
        plugin *p = &plugins[i];
        if (p->init_ran && !p->init_failed && p->desc->fini) p->desc->fini();
        p->init_ran = 0;
    }
}
