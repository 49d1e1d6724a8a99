/* ss_pykernel.h - the Python-kernel engine: a user's kernels written in Python
 * (Triton, or plain PyTorch) as targets NAME:KERNEL (CPU; Triton through its
 * interpreter) and NAME:KERNEL@cuda, run by the torch engine's worker script
 * in a worker of their own (docs/plugins.md, "Test your own Triton kernel").
 *
 * A module is a file NAME.py (the global --py-kernel option, repeatable, and
 * $SSFUZZ_PY_KERNELS=a.py:b.py) declaring its kernels in a top-level dict
 * literal, SSFUZZ_KERNELS = {"KERNEL": fn, ...}; ssfuzz reads the names from
 * the source without running it, and the worker imports the module, by the
 * path given on the command line only (never one a case file names). Each
 * fn(x, src, dim, start, end, step) writes slice_scatter(x, src, ...) into x
 * in place, with torch tensors; raising on a case the reference rejects
 * (internal overlap) agrees, raising on any other is a finding, `raised`. */
#ifndef SS_PYKERNEL_H
#define SS_PYKERNEL_H

#include <stddef.h>
#include <stdint.h>
#include "ss_error.h"
#include "ss_target.h"

struct cJSON;

extern const ss_engine ss_pykernel_engine;

#define SS_PYKERNEL_NAME_MAX 64      /* a module's stem, a kernel's name */
#define SS_PYKERNEL_MAX_KERNELS 32   /* per module */
#define SS_PYKERNEL_SOURCE_MAX ((size_t)4 << 20)
/* Generated cases for an interpreted (CPU) target stay at most this many
 * storage elements unless --max-numel says otherwise (docs/plugins.md has
 * the throughput it buys). */
#define SS_PYKERNEL_CPU_MAX_NUMEL 4096

/* The target of that name among every target, for the check that a module's
 * targets are new (the registry's ss_target_find, passed in: it lists this
 * engine's targets). NULL: only this engine's own are checked. */
typedef const ss_target *(*ss_pykernel_lookup)(const char *name);

/* Load one module: read its kernel names and register NAME:KERNEL and
 * NAME:KERNEL@cuda for each. The same file twice loads once. -1 with err
 * (field: the path) when the file cannot be read, its name is not 1-64 of
 * [A-Za-z0-9_.-] before ".py", SSFUZZ_KERNELS does not read, or a target
 * name is taken. Nothing of the module runs here. */
int ss_pykernel_load(const char *path, ss_pykernel_lookup taken, ss_error *err);
/* Every module of $SSFUZZ_PY_KERNELS (colon-separated); 0 when unset. */
int ss_pykernel_load_env(ss_pykernel_lookup taken, ss_error *err);

size_t ss_pykernel_target_count(void);
const ss_target *ss_pykernel_target_at(size_t i);

/* The kernel names of a module's source (len bytes at text): the keys of its
 * last top-level `SSFUZZ_KERNELS = {...}` dict literal, each a plain string
 * of 1-64 of [A-Za-z0-9_.-], at most cap, none twice. 0 with *count, or -1
 * with why (a line number where it helps). */
int ss_pykernel_scan(const char *text, size_t len, char names[][SS_PYKERNEL_NAME_MAX + 1], int cap, int *count,
                     char *why, size_t n);

/* A case's meta names a Python kernel (meta.pykernel) whose target is not
 * loaded: -1 and one line saying which and how to load it; 0 otherwise. */
int ss_pykernel_check_meta(const struct cJSON *meta, char *why, size_t why_len);

/* Stops this process's Python-kernel workers. */
void ss_pykernel_shutdown(void);

#endif
