/* ss_target.h - everything under test ("ENGINE:KERNEL"): the target and engine
 * descriptors, the registry over every engine (ss_targets.c), and the helpers
 * engines share (ss_target.c). */
#ifndef SS_TARGET_H
#define SS_TARGET_H

#include "ss_case.h"
#include "ss_error.h"
#include "ss_plan.h"
#include "ss_program.h"

/* A target's schedules are the ways one case can be run on it that may give
 * different answers: the emulator's execution orders (forward, reverse, ...),
 * or how the views reach a compiled PyTorch function (x-input, storage-input,
 * two-inputs). ss_run_opts.schedule indexes `schedules`; a target with none
 * runs once per case. */
typedef struct ss_target ss_target;
typedef struct ss_engine ss_engine;
struct cJSON;

/* One case of a batch (ss_engine.run_batch): what to run, and its answer. */
typedef struct ss_batch_item {
    const ss_case *c;            /* the case (a program case: c->program) */
    const ss_plan *plan;
    ss_storage *input, *src;     /* run in place, as by `run` */
    ss_run_opts opts;
    ss_prog_actual *act;         /* a program case's returned values, as run_program fills them */
    ss_run_status status;        /* filled by run_batch */
    char *why;                   /* why_len bytes, filled by run_batch */
    size_t why_len;
} ss_batch_item;

/* One engine, described once: what the campaign, replay, minimize and the
 * reports need to know about its targets. Each engine fills in one (emu, cuda:
 * ss_engine_kernels.c; torch: ss_torch.c; plugins: ss_plugin.c);
 * nothing outside harness/engines/ tests an engine's name. A NULL hook means
 * "nothing to do" (or "no", for a question). */
struct ss_engine {
    const char *name;          /* "emu", "cuda", "torch", "plugin", "pykernel" */
    /* How `ssfuzz targets` lists its correct targets ("kernel", "torch", "plugin"). */
    const char *kind;
    /* 1: one case always gives one result (minimize confirms a finding with one
     * run); 0: an external engine may race, so a finding is rerun to confirm. */
    int deterministic;
    /* 1: asking whether it can run touches process state a fork cannot share
     * (a CUDA context, a user's library): a campaign asks in a child process. */
    int probe_in_child;
    /* 1: a crash of one target may leave the engine's state in this process
     * broken (a CUDA context, a Python worker), so replaying a crash reproducer
     * of it isolates every run of this engine in that case, not only its own. */
    int shared_state;
    /* The default target set: the correct targets of the highest-ranked engine
     * all of whose correct targets can run here (cuda 2, emu 1); 0: never. */
    int default_rank;
    /* The key of the engine's block in a reproducer's meta (meta.torch,
     * meta.plugin), or NULL. */
    const char *meta_key;
    /* The global option that loads its targets from loaded_from's path
     * ("--plugin", "--py-kernel"), for a command line that recreates them. */
    const char *load_option;

    /* Share of large cases (per mille) a campaign on t should generate: > 0
     * where size changes the code path (a GPU's waves, a compiled kernel's
     * chunks), 0 where it never does (the emulator), -1 no opinion (then the
     * generator's default). */
    int (*large_per_mille)(const ss_target *t);
    /* The largest storage numel a campaign on t should generate when
     * --max-numel is not given (an interpreted kernel's cases stay small);
     * 0: no opinion. The smallest asked for wins. */
    int64_t (*max_numel)(const ss_target *t);
    /* 1 when every schedule of t gives one result on this plan, so one run
     * stands for all (storages with SS_GUARD_DEFAULT bands). */
    int (*schedules_agree)(const ss_target *t, const ss_plan *plan);
    /* Non-NULL (why) when this process can no longer run the engine (a sticky
     * CUDA error): a fuzz worker then ends itself and is replaced. */
    const char *(*poisoned)(void);
    /* The engine's version ("2.14.1"), starting what it needs; NULL with *why. */
    const char *(*version)(const char **why);
    /* Where t comes from when it is not built in (a plugin's library path),
     * for the command line that recreates it; NULL for built-in targets. */
    const char *(*loaded_from)(const ss_target *t);
    /* Adds the engine's block (meta_key) for a finding of t under `schedule`
     * to a reproducer's meta: 0 ok, -1 out of memory. */
    int (*meta_write)(struct cJSON *meta, const ss_target *t, const char *schedule);
    /* A case's meta asks for something of this engine that is missing here (a
     * plugin not loaded): -1 and one line in why; 0 otherwise. */
    int (*meta_check)(const struct cJSON *meta, char *why, size_t why_len);
    /* One line for replay when the case was found on another version of the
     * engine than the one that ran it; "" when not. */
    void (*meta_note)(const struct cJSON *meta, char *note, size_t note_len);
    /* 1 when t runs program cases (docs/programs.md) and only them: then
     * t->run only says a case without a program is not applicable, and
     * run_program runs c->program on the storages like `run`, filling act's
     * returned values (act->nret, act->ret; their bytes belong to the engine
     * and live until its next run in this process). */
    int (*runs_programs)(const ss_target *t);
    ss_run_status (*run_program)(const ss_target *t, const ss_case *c, const ss_plan *plan,
                                 ss_storage *input, ss_storage *src, const ss_run_opts *opts,
                                 ss_prog_actual *act, char *why, size_t why_len);
    /* > 1: the most cases a campaign should run on t together (run_batch),
     * where one run of many costs about what one run of one does (a
     * compile); 0 or 1: one case at a time. */
    int (*batch_limit)(const ss_target *t);
    /* Runs items[0..n) on t together: each as `run` (run_program for a
     * program case on a program target) would alone, its status and why
     * filled; a batch's failure that the case alone does not show is said
     * in its why. */
    void (*run_batch)(const ss_target *t, ss_batch_item *items, size_t n);
    /* Where in t's pipeline a wrong result first appears (torch: dynamo,
     * functionalization, code generation): the sibling targets to rerun the
     * case on, in pipeline order, at most cap, each with the stage its wrong
     * answer blames (names[i]), and in *last the stage blamed when every
     * sibling is right (t's own last stage). Returns how many; 0 when t has
     * no stages to tell apart (eager). The campaign judges the reruns. */
    int (*stages)(const ss_target *t, const ss_target **siblings, const char **names,
                  const char **last, int cap);
    /* The behaviour t's pipeline starts from (torch: eager on t's device and
     * spelling), rerun before the stages: wrong too, t only inherits its
     * result, and the stage is *name; right or no answer (eager refusing the
     * overlap), the stages decide. NULL: none. */
    const ss_target *(*baseline)(const ss_target *t, const char **name);
    /* Process life: in a fuzz worker before its first case; in a campaign's
     * parent before it forks workers; at the end of a process or worker. */
    void (*enter_worker)(void);
    void (*before_fork)(void);
    void (*shutdown)(void);
};

/* A target's schedules are the ways one case can be run on it that may give
 * different answers: the emulator's execution orders (forward, reverse, ...),
 * or how the views reach a compiled PyTorch function (x-input, storage-input,
 * two-inputs). ss_run_opts.schedule indexes `schedules`; a target with none
 * runs once per case. */
struct ss_target {
    const char *name;         /* "emu:reinplace", "torch:compile-cpu:setitem", ... */
    const ss_engine *engine;
    const char *kernel;       /* "reinplace", "mut-...", "compile-cpu:setitem", ... */
    int mutant;               /* 1: deliberately wrong */
    int scheduled;            /* number of schedules (0: none) */
    const char *const *schedules;
    /* 1: only run when named (slow or external engines); never a default target. */
    int explicit_only;
    /* NULL when the target can run here, else why not (static string). */
    const char *(*unavailable)(const ss_target *t);
    ss_run_status (*run)(const ss_target *t, const ss_plan *plan, ss_storage *input,
                         ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len);
};

/* ---- the registry (ss_targets.c): every engine's targets ---------------- */

/* The engines (emu, cuda, torch, plugin, pykernel). */
size_t ss_engine_count(void);
const ss_engine *ss_engine_at(size_t i);
/* Every target, in listing order: our kernels (emu and cuda, kernel by kernel),
 * the torch engine's, loaded plugins', loaded Python kernels'. */
size_t ss_target_count(void);
const ss_target *ss_target_at(size_t i);
const ss_target *ss_target_find(const char *name);
/* 1 when some target has a schedule of that name ("all" is not one). */
int ss_schedule_known(const char *name);
/* Every schedule name of every target, comma-separated (for error messages). */
const char *ss_schedule_list(void);

/* 1 when every schedule of t is known to give the same result on this case,
 * so that a campaign may run one for all (the engine's schedules_agree hook;
 * 0 for engines without one: the torch engine's schedules are input forms,
 * not orders). */
int ss_target_schedules_agree(const ss_target *t, const ss_plan *plan);

/* A set of targets (a command's --target list, tonight's targets): at most
 * SS_MAX_TARGETS, each once. ss_target_set_add adds the target named `name`:
 * 0 added or already there; -1 with err (field: `option`) when no target has
 * that name or the set is full. ss_target_set_put adds t itself (-1: full). */
#define SS_MAX_TARGETS 64
int ss_target_set_add(const ss_target **set, size_t *n, const char *name, const char *option, ss_error *err);
int ss_target_set_put(const ss_target **set, size_t *n, const ss_target *t);

/* Questions and process events, asked of every engine (see ss_engine). */
int ss_target_batch_limit(const ss_target *t);              /* 1 when the engine runs one at a time */
const char *ss_target_poisoned(const ss_target *t);        /* t's engine's poisoned(), or NULL */
int ss_target_large_per_mille(const ss_target *t);          /* -1 when the engine has no opinion */
const char *ss_target_loaded_from(const ss_target *t);      /* NULL for built-in targets */
int64_t ss_target_max_numel(const ss_target *t);            /* 0 when the engine has no opinion */
int ss_target_meta_write(struct cJSON *meta, const ss_target *t, const char *schedule);
/* The first engine whose meta_check fails: -1 with *field ("meta.plugin") and why. */
int ss_engines_meta_check(const struct cJSON *meta, const char **field, char *why, size_t why_len);
void ss_engines_enter_worker(void);
void ss_engines_before_fork(void);
void ss_engines_shutdown(void);

/* ---- ss_target.c: helpers every engine may use (nothing above it) ------- */

/* The name of t's schedule s; NULL for an unscheduled target or s out of range. */
const char *ss_target_schedule(const ss_target *t, int s);
/* Index of schedule `name` on t, or -1 when t has no such schedule. */
int ss_target_schedule_index(const ss_target *t, const char *name);

/* The emulator's schedule names, in ss_schedule order (its targets' schedules). */
extern const char *const ss_emu_schedule_names[SS_SCHED_COUNT];

/* The class of a schedule for deduplicating findings: "sequential" (an element
 * loop: forward, reverse) or "wave" (loads before stores: lockstep, warp, random)
 * for the emulator's; any other schedule is its own class; "" for NULL. */
const char *ss_schedule_class(const char *name);

/* The emulator's schedules (ss_schedule values). */
const char *ss_schedule_name(ss_schedule s);
int ss_schedule_from_name(const char *name, ss_schedule *out);  /* 0 ok, -1 unknown */

/* Engines may restart the per-run clock of whoever runs them (the campaign's
 * timeout watchdog) before a slow phase that is not the target's fault, e.g.
 * starting a Python worker or a first compile: budget_s > 0 gives that phase
 * its own limit, 0 returns to the normal per-case limit. No-op when unset. */
typedef void (*ss_clock_hook)(void *user, double budget_s);
void ss_target_set_clock_hook(ss_clock_hook fn, void *user);
void ss_target_clock(double budget_s);

#endif
