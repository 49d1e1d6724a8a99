/* ss_plugin.h - the plugin engine: user kernels loaded from shared libraries
 * (the ABI is include/ssfuzz_plugin.h) as targets PLUGIN:KERNEL.
 *
 * Libraries are loaded in the main process before any subcommand runs (the
 * global --plugin option and $SSFUZZ_PLUGINS); fuzz workers inherit them.
 * A plugin's init runs lazily in each process that runs one of its kernels,
 * its fini when ss_plugin_shutdown is called in that process. */
#ifndef SS_PLUGIN_H
#define SS_PLUGIN_H

#include <stddef.h>
#include "ss_error.h"
#include "ss_target.h"

struct cJSON;
struct ssfuzz_plugin;

extern const ss_engine ss_plugin_engine;

/* The target of that name among every target (ss_target_find), for the
 * check that a plugin's names are new; NULL: only plugins' own are checked.
 * Passed in, because the registry above this engine lists its targets. */
typedef const ss_target *(*ss_target_lookup)(const char *name);

/* Load one library and register its kernels. The same file twice is loaded
 * once. -1 with err (field: the path) on a dlopen error, a missing symbol, a
 * wrong ABI version or struct_size, a bad name, or a target name taken. */
int ss_plugin_load(const char *path, ss_target_lookup taken, ss_error *err);
/* The second half of loading: check a descriptor and register its kernels as
 * loaded from `path` (for tests, and plugins linked in statically). */
int ss_plugin_register(const struct ssfuzz_plugin *d, const char *path, ss_target_lookup taken,
                       ss_error *err);
/* Load every library of $SSFUZZ_PLUGINS (colon-separated); 0 when unset. */
int ss_plugin_load_env(ss_target_lookup taken, ss_error *err);

size_t ss_plugin_target_count(void);
const ss_target *ss_plugin_target_at(size_t i);

/* For a plugin target: the plugin's name and the library's absolute path,
 * and the kernel's memory kind ("host" or "cuda"); -1 for any other target. */
int ss_plugin_describe(const ss_target *t, const char **plugin, const char **path,
                       const char **memory);
/* A case's meta names a plugin target (meta.plugin) that is not loaded:
 * -1 and one line saying which and how to load it; 0 otherwise. */
int ss_plugin_check_meta(const struct cJSON *meta, char *why, size_t why_len);
/* The target a case's meta.plugin block asks for, when loaded; else NULL. */
const ss_target *ss_plugin_meta_target(const struct cJSON *meta);

/* Runs the fini of every plugin whose init ran in this process. */
void ss_plugin_shutdown(void);

#endif
