/* ss_torch_modes.h - the torch modes, once: name, what a script calls it, backend, device,
 * dynamic shapes, whether `targets` lists it, and its place in the one stage order.
 *
 * Every reader takes the modes from here: the torch engine's targets (torch:MODE:SPELLING)
 * and its stage hooks, export's --mode words and its scripts' mode tables, the --issue
 * report's choice of the run to show, and the docs' mode table (a test compares them).
 *
 * The stage order (docs/torch.md, "Where a compile bug lives"): eager, then dynamo
 * (backend "eager"), then AOT autograd with functionalization (backend "aot_eager"), then
 * inductor; static shapes before dynamic ones. The first stage in that order whose result
 * differs from the reference is the wrong one, for a write as for a program. */
#ifndef SS_TORCH_MODES_H
#define SS_TORCH_MODES_H

#include <stddef.h>

/* What torch.compile runs; the order is the stage order. */
typedef enum ss_torch_backend {
    SS_TB_NONE = 0,       /* eager PyTorch, no compile */
    SS_TB_EAGER,          /* torch.compile(backend="eager"): dynamo alone */
    SS_TB_AOT_EAGER,      /* backend="aot_eager": + AOT autograd and functionalization */
    SS_TB_INDUCTOR,       /* inductor, the default backend */
    SS_TB_COUNT
} ss_torch_backend;

/* X(name, kind, backend, cuda, dynamic, listed): one row a mode, the listed modes first
 * (the targets' order). kind is the mode without its device: export's --mode word and
 * the scripts' name for it. Unlisted modes only place a dynamic finding's stage. */
#define SS_TORCH_MODES(X)                                                          \
    X("eager-cpu", "eager", SS_TB_NONE, 0, 0, 1)                                   \
    X("compile-cpu", "compile", SS_TB_INDUCTOR, 0, 0, 1)                           \
    X("compile-dynamic-cpu", "compile-dynamic", SS_TB_INDUCTOR, 0, 1, 1)           \
    X("aot-eager-cpu", "aot-eager", SS_TB_AOT_EAGER, 0, 0, 1)                      \
    X("dynamo-eager-cpu", "dynamo-eager", SS_TB_EAGER, 0, 0, 1)                    \
    X("eager-cuda", "eager", SS_TB_NONE, 1, 0, 1)                                  \
    X("compile-cuda", "compile", SS_TB_INDUCTOR, 1, 0, 1)                          \
    X("compile-dynamic-cuda", "compile-dynamic", SS_TB_INDUCTOR, 1, 1, 1)          \
    X("aot-eager-cuda", "aot-eager", SS_TB_AOT_EAGER, 1, 0, 1)                     \
    X("dynamo-eager-cuda", "dynamo-eager", SS_TB_EAGER, 1, 0, 1)                   \
    X("aot-eager-dynamic-cpu", "aot-eager-dynamic", SS_TB_AOT_EAGER, 0, 1, 0)      \
    X("dynamo-eager-dynamic-cpu", "dynamo-eager-dynamic", SS_TB_EAGER, 0, 1, 0)    \
    X("aot-eager-dynamic-cuda", "aot-eager-dynamic", SS_TB_AOT_EAGER, 1, 1, 0)     \
    X("dynamo-eager-dynamic-cuda", "dynamo-eager-dynamic", SS_TB_EAGER, 1, 1, 0)

typedef struct ss_torch_mode {
    const char *name;           /* "compile-dynamic-cpu" */
    const char *kind;           /* "compile-dynamic" */
    ss_torch_backend backend;
    int cuda;
    int dynamic;
    int listed;
} ss_torch_mode;

size_t ss_torch_mode_count(void);
size_t ss_torch_listed_mode_count(void);
/* Mode i in the table's order (the targets'); NULL past the end. */
const ss_torch_mode *ss_torch_mode_at(size_t i);
/* The mode named `name` ("aot-eager-cpu"); NULL when there is none. */
const ss_torch_mode *ss_torch_mode_named(const char *name);
/* The mode of `kind` ("compile-dynamic") on a device; NULL when there is none. */
const ss_torch_mode *ss_torch_mode_of_kind(const char *kind, int cuda);

/* torch.compile's backend name ("aot_eager"; NULL for SS_TB_NONE), and the stage it is
 * ("eager", "dynamo", "aot", "inductor"). */
const char *ss_torch_backend_name(ss_torch_backend b);
const char *ss_torch_stage_name(ss_torch_backend b);
/* The mode's place in the stage order: backends first, static before dynamic
 * (eager 0, ..., inductor 3, dynamo-dynamic 5, ..., inductor-dynamic 7). */
int ss_torch_stage_rank(const ss_torch_mode *m);
/* The modes a compiled finding of m is rerun on to place its stage, in the stage order:
 * the compiled modes before m's backend on its device and shapes (compile-dynamic-cpu:
 * dynamo-eager-dynamic-cpu, aot-eager-dynamic-cpu). Their count (at most cap). */
int ss_torch_stage_modes(const ss_torch_mode *m, const ss_torch_mode **out, int cap);
/* Eager on m's device: the baseline a compiled finding is rerun on first. */
const ss_torch_mode *ss_torch_baseline_mode(const ss_torch_mode *m);

/* The modes of one device in the stage order (by ss_torch_stage_rank): the i-th, NULL past
 * the last. Their kinds are every kind once, in the order scripts run and reports pick. */
const ss_torch_mode *ss_torch_mode_in_stage_order(size_t i, int cuda);

/* The table as the worker reads it (its argv[2]): {"modes": {NAME: [backend, dynamic] or
 * null for eager, ...}, "stages": [[backend, stage], ...] (the compiled backends in the
 * stage order)}. A constant string. */
const char *ss_torch_modes_json(void);

#endif
