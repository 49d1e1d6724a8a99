/* ss_torch.c - the torch engine: its targets, and what it asks of its Python worker (ss_pyworker.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_case.h"
#include "ss_program_py.h"
#include "ss_pyworker.h"
#include "ss_text.h"
#include "ss_torch.h"
#include "ss_torch_modes.h"
#include "ss_torch_proto.h"
#include "ss_vec.h"

static const char *torch_unavailable(const ss_target *t);
static ss_run_status torch_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                               ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len);

static int torch_large(const ss_target *t);
static int torch_meta_write(cJSON *meta, const ss_target *t, const char *schedule);
static void torch_meta_note(const cJSON *meta, char *note, size_t note_len);
static int torch_runs_programs(const ss_target *t);
static ss_run_status torch_run_program(const ss_target *t, const ss_case *c, const ss_plan *plan,
                                       ss_storage *input, ss_storage *src, const ss_run_opts *opts,
                                       ss_prog_actual *act, char *why, size_t why_len);
static int torch_stages(const ss_target *t, const ss_target **siblings, const char **names,
                        const char **last, int cap);
static const ss_target *torch_baseline(const ss_target *t, const char **name);
static int torch_batch_limit(const ss_target *t);
static void torch_run_batch(const ss_target *t, ss_batch_item *items, size_t n);

/* Compiled code runs in parallel chunks whose shape changes with size: many
 * large cases there. A Python worker shared by every torch target: a crash
 * reproducer isolates them all. */
const ss_engine ss_torch_engine = {
    .name = "torch", .kind = "torch", .shared_state = 1, .meta_key = "torch",
    .large_per_mille = torch_large, .version = ss_torch_version,
    .meta_write = torch_meta_write, .meta_note = torch_meta_note, .runs_programs = torch_runs_programs, .run_program = torch_run_program,
    .stages = torch_stages, .baseline = torch_baseline, .batch_limit = torch_batch_limit, .run_batch = torch_run_batch,
    .before_fork = ss_torch_shutdown, .shutdown = ss_torch_shutdown,
};

static const char *const forms[] = {"x-input", "storage-input", "two-inputs"};
#define NFORMS 3
/* A program takes x and src as its two inputs (v1: one form). */
static const char *const program_forms[] = {"two-inputs"};

#define T(mode, spelling, sched) \
    {"torch:" mode ":" spelling, &ss_torch_engine, mode ":" spelling, 0, (sched) ? NFORMS : 0, \
     (sched) ? forms : NULL, 1, torch_unavailable, torch_run}
#define P(mode, sched) \
    {"torch:" mode ":program", &ss_torch_engine, mode ":program", 0, (sched) ? 1 : 0, \
     (sched) ? program_forms : NULL, 1, torch_unavailable, torch_run}
#define SPELLINGS(mode, sched)                                                              \
    T(mode, "setitem", sched), T(mode, "setitem-clone", sched), T(mode, "copy", sched),      \
    T(mode, "scatter-copy", sched), T(mode, "scatter-return", sched),                        \
    T(mode, "clone-scatter", sched), T(mode, "index-put", sched), P(mode, sched)
#define NSPELLINGS 8   /* the program spelling last */

/* Mode i (ss_torch_modes.h) is entries [i * NSPELLINGS, (i + 1) * NSPELLINGS). Eager
 * modes have no forms: the tensors eager sees are the same whichever way they are
 * built. The unlisted modes (ss_torch_target_count stops before them) place a
 * compile-dynamic finding's stage (torch_stages). */
#define MODE_TARGETS(name, kind, backend, cuda, dynamic, listed) SPELLINGS(name, (backend) != SS_TB_NONE),
static const ss_target targets[] = {SS_TORCH_MODES(MODE_TARGETS)};
#undef MODE_TARGETS
#define NTARGETS (sizeof targets / sizeof targets[0])
#define ONE_MODE(...) +1
_Static_assert(NTARGETS == (0 SS_TORCH_MODES(ONE_MODE)) * NSPELLINGS, "one target per mode and spelling");
#undef ONE_MODE

size_t ss_torch_target_count(void) { return ss_torch_listed_mode_count() * NSPELLINGS; }
const ss_target *ss_torch_target_at(size_t i) { return i < ss_torch_target_count() ? &targets[i] : NULL; }

/* ---- the worker process (ss_pyworker.c) ------------------------------ */

/* Inductor's and Triton's on-disk caches (in the worker's environment): the
 * user's own TORCHINDUCTOR_CACHE_DIR / TRITON_CACHE_DIR win; else
 * $SSFUZZ_INDUCTOR_CACHE; else ssfuzz's own directory under the user's cache
 * directory, shared by every command (fuzz, regress, the nightly), so a later
 * run loads what an earlier one compiled instead of compiling it again.
 * own_cache_dir: that directory; -1 when there is none (inductor's default,
 * under /tmp). */
static int own_cache_dir(char *out, size_t n) {
    const char *given = getenv("SSFUZZ_INDUCTOR_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int k = -1;
    if (given && *given) k = snprintf(out, n, "%s", given);
    else if (xdg && *xdg == '/') k = snprintf(out, n, "%s/ssfuzz/inductor", xdg);
    else if (home && *home == '/') k = snprintf(out, n, "%s/.cache/ssfuzz/inductor", home);
    return k >= 0 && (size_t)k < n ? 0 : -1;   /* a path cut short is no directory of the user's */
}

int ss_torch_cache_dir(char *out, size_t n) {
    const char *users = getenv("TORCHINDUCTOR_CACHE_DIR");
    if (users && *users) {
        const int k = snprintf(out, n, "%s", users);
        return k >= 0 && (size_t)k < n ? 0 : -1;
    }
    return own_cache_dir(out, n);
}

static void compile_cache_env(void) {
    char dir[2048], triton[2100];
    if (own_cache_dir(dir, sizeof dir)) return;
    snprintf(triton, sizeof triton, "%s/triton", dir);
    setenv("TORCHINDUCTOR_CACHE_DIR", dir, 0);
    setenv("TRITON_CACHE_DIR", triton, 0);
}

/* The torch worker's own environment (in its child, before exec); the
 * Python-kernel engine's workers start from it too. */
void ss_torch_child_env(void) {
    setenv("TORCHINDUCTOR_COMPILE_THREADS", "1", 0);   /* no compile pool to orphan */
    compile_cache_env();
}

static ss_pyworker W = SS_PYWORKER_INIT("torch worker", ss_torch_child_env);

void ss_torch_set_python(const char *path) { ss_pyworker_set_python(path); }
void ss_torch_shutdown(void) { ss_pyworker_stop(&W); }
static int start_worker(void) { return ss_pyworker_start(&W); }

const char *ss_torch_version(const char **why) {
    if (start_worker()) { if (why) *why = W.error; return NULL; }
    return W.caps.torch;
}

const char *ss_torch_known_version(void) { return W.caps.torch[0] ? W.caps.torch : NULL; }
const char *ss_torch_known_python(void) { return W.caps.torch[0] && W.python[0] ? W.python : NULL; }

/* ---- targets ----------------------------------------------------------- */

static const ss_torch_mode *mode_of(const ss_target *t) { return ss_torch_mode_at((size_t)(t - targets) / NSPELLINGS); }

/* The target of mode m in t's spelling. */
static const ss_target *in_mode(const ss_target *t, const ss_torch_mode *m) {
    return &targets[(size_t)(m - ss_torch_mode_at(0)) * NSPELLINGS + (size_t)(t - targets) % NSPELLINGS];
}

static const char *spelling_of(const ss_target *t) { return strchr(t->kernel, ':') + 1; }

static int torch_runs_programs(const ss_target *t) { return (size_t)(t - targets) % NSPELLINGS == NSPELLINGS - 1; }

static int compiled(const ss_target *t) { return mode_of(t)->backend != SS_TB_NONE; }

/* The compiled modes before t's backend in the stage order, on its device and shapes
 * (ss_torch_stage_modes): compile-SUFFIX reruns on dynamo-eager-SUFFIX (blames dynamo),
 * then aot-eager-SUFFIX (functionalization, "aot"); both right: inductor. A
 * compile-dynamic finding reruns with dynamic shapes. */
static int torch_stages(const ss_target *t, const ss_target **siblings, const char **names,
                        const char **last, int cap) {
    const ss_torch_mode *m = mode_of(t), *before[SS_TB_COUNT];
    if (m->backend == SS_TB_NONE) return 0;
    const int n = ss_torch_stage_modes(m, before, cap < SS_TB_COUNT ? cap : SS_TB_COUNT);
    for (int k = 0; k < n; k++) {
        siblings[k] = in_mode(t, before[k]);
        names[k] = ss_torch_stage_name(before[k]->backend);
    }
    *last = ss_torch_stage_name(m->backend);
    return n;
}

/* Eager on t's device, t's spelling: a compiled target wrong where eager is
 * wrong the same way reproduces eager's own result (an overlapping copy eager
 * does not refuse: #144861), not a compiler's bug. */
static const ss_target *torch_baseline(const ss_target *t, const char **name) {
    const ss_torch_mode *e = ss_torch_baseline_mode(mode_of(t));
    if (!e) return NULL;
    *name = ss_torch_stage_name(e->backend);
    return in_mode(t, e);
}

/* A compiled program is a new compile per case whatever its size, and a large
 * one adds seconds of data movement: few large program cases (measured: 250
 * per mille made a 15-minute compile-cpu:program campaign 103 cases, a quarter
 * of them above 1 Mi elements). */
static int torch_large(const ss_target *t) {
    return !compiled(t) ? -1 : torch_runs_programs(t) ? 30 : 250;
}

/* meta.torch of a finding: what a maintainer asks first. */
static int torch_meta_write(cJSON *meta, const ss_target *t, const char *schedule) {
    const ss_torch_mode *m = mode_of(t);
    const char *version = ss_torch_known_version(), *python = ss_torch_known_python();
    cJSON *o = cJSON_AddObjectToObject(meta, "torch");
    const int ok = o && cJSON_AddStringToObject(o, "version", version ? version : "unknown") &&
                   cJSON_AddStringToObject(o, "mode", m->name) && cJSON_AddStringToObject(o, "spelling", spelling_of(t)) &&
                   cJSON_AddStringToObject(o, "device", m->cuda ? "cuda" : "cpu") &&
                   cJSON_AddBoolToObject(o, "compiled", compiled(t)) &&
                   (!schedule || cJSON_AddStringToObject(o, "form", schedule)) &&
                   (!python || cJSON_AddStringToObject(o, "python", python));
    return ok ? 0 : -1;
}

/* A reproducer replayed on another torch than the one that found it: say so
 * (the file's own python is never run, and its words are shown inert: a case
 * file is untrusted). */
static void torch_meta_note(const cJSON *meta, char *note, size_t note_len) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(meta, "torch");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, "version"), *py = cJSON_GetObjectItemCaseSensitive(t, "python");
    const char *running = ss_torch_known_version();
    note[0] = 0;
    if (!running || !cJSON_IsString(v) || !strcmp(v->valuestring, running)) return;
    char version[48], python[208];
    ss_text_inert(v->valuestring, version, sizeof version);
    ss_text_inert(cJSON_IsString(py) ? py->valuestring : "", python, sizeof python);
    snprintf(note, note_len, "found with torch %s%s%s%s, replayed on torch %s (--python chooses)", version,
             python[0] ? " (" : "", python, python[0] ? ")" : "", running);
}

/* Whether torch.compile really compiles on the CPU (cuda 0) or CUDA (1) with
 * this python: asked of the worker once per python and process (a PROBE
 * compiles a one-line program); "" when it does, else why not. */
static struct { char python[1024]; int asked[2][SS_TB_COUNT]; char why[2][SS_TB_COUNT][400]; } probes;

static const char *compile_probe(int cuda, ss_torch_backend backend) {
    if (strcmp(probes.python, W.python)) {
        memset(&probes, 0, sizeof probes);
        snprintf(probes.python, sizeof probes.python, "%s", W.python);
    }
    char *why = probes.why[cuda][backend];
    if (probes.asked[cuda][backend]) return why;
    char device[32], lost[400] = "";
    snprintf(device, sizeof device, "%s:%s", cuda ? "cuda" : "cpu", ss_torch_backend_name(backend));
    if (ss_pyworker_ask(&W, device, strlen(device), why, sizeof probes.why[0][0], lost, sizeof lost))
        snprintf(why, sizeof probes.why[0][0], "the torch.compile probe failed: %.360s", lost);
    probes.asked[cuda][backend] = 1;
    return why;
}

static const char *torch_unavailable(const ss_target *t) {
    static char why[600];
    if (start_worker()) return W.error;
    const ss_torch_mode *m = mode_of(t);
    const int cuda = m->cuda, compile = m->backend != SS_TB_NONE;
    const char *r = cuda && W.caps.cuda[0] ? W.caps.cuda : compile && W.caps.compile[0] ? W.caps.compile : "";
    if (!r[0] && compile) r = compile_probe(cuda, m->backend);
    if (!r[0]) return NULL;
    snprintf(why, sizeof why, "%s (python: %.300s)", r, W.python);
    return why;
}

/* A program case's part of a RUN (its Python source, returned count), and
 * where an OK result's returned values land (ss_torch_proto.h). */
typedef struct prog_io {
    const char *source;
    size_t source_len;
    uint32_t nret;
    ss_prog_actual *act;
} prog_io;

/* A case encoded for the worker: its RUN head and program part (grown to
 * the largest program sent), and the exchange they make. */
typedef struct encoded {
    uint8_t head[SS_TP_RUN_HEAD_MAX];
    uint8_t *part;
    size_t part_cap;
    ss_pyw_run run;
} encoded;

/* Encodes the case (a program case when prog) into e; SS_RUN_OK, or the
 * status the case gets without a worker (unavailable, failed) with why. */
static ss_run_status encode_case(const ss_target *t, const ss_plan *plan, ss_storage *input, ss_storage *src,
                                 const ss_run_opts *opts, const prog_io *prog, encoded *e, char *why,
                                 size_t why_len) {
    const char *r = torch_unavailable(t);
    if (r) { snprintf(why, why_len, "%s", r); return SS_RUN_UNAVAILABLE; }
    const ss_op *op = &plan->op;
    const int form = t->scheduled && opts ? opts->schedule : 0;
    const ss_dtype dt = opts ? (ss_dtype)opts->dtype : SS_UINT8;
    if (ss_tp_run_check(op, dt, why, why_len)) return SS_RUN_FAILED;
    if (prog && SS_GROW(e->part, e->part_cap, ss_tp_run_program_size(prog->source_len))) {
        snprintf(why, why_len, "out of memory for the program's source");
        return SS_RUN_FAILED;
    }
    ss_tp_run_head_encode(e->head, mode_of(t)->name, spelling_of(t), form >= 0 && form < t->scheduled ?
                          t->schedules[form] : "", ss_dtype_name(dt), op);
    if (prog) ss_tp_run_program_encode(e->head, e->part, prog->source, prog->source_len, prog->nret);
    const ss_pyw_run run = {
        e->head, e->part, ss_tp_run_head_size(op), prog ? ss_tp_run_program_size(prog->source_len) : 0,
        {ss_storage_data(input), op->src_aliased ? NULL : ss_storage_data(src)},
        {input->bytes, op->src_aliased ? 0 : src->bytes}, prog ? prog->act : NULL,
    };
    e->run = run;
    return SS_RUN_OK;
}

/* Runs the case (a program case when prog) in the worker (ss_pyworker_run:
 * a lost worker's case is rerun once in a fresh one). */
static ss_run_status run_case(const ss_target *t, const ss_plan *plan, ss_storage *input, ss_storage *src,
                              const ss_run_opts *opts, const prog_io *prog, char *why, size_t why_len) {
    static encoded e;
    const ss_run_status st = encode_case(t, plan, input, src, opts, prog, &e, why, why_len);
    return st != SS_RUN_OK ? st : ss_pyworker_run(&W, &e.run, why, why_len);
}

static ss_run_status torch_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                               ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len) {
    if (torch_runs_programs(t)) {
        snprintf(why, why_len, "not applicable: torch:%s:program runs program cases (--programs)", mode_of(t)->name);
        return SS_RUN_UNAVAILABLE;
    }
    if (plan->internal_overlap) {
        /* Writing through such a view has no defined result in PyTorch either:
         * every target rejects it; it is not sent. */
        snprintf(why, why_len, "input view has internal overlap: not sent to torch");
        return SS_RUN_REJECTED;
    }
    return run_case(t, plan, input, src, opts, NULL, why, why_len);
}

/* The program as the worker runs it: `def program(x, src):` from the one
 * printer (ss_program_py.h), the views x and src built by the worker.
 * 0 with *text (malloc'd) and io, or -1 with why (out of memory, too long). */
static int print_program(const ss_case *c, const ss_plan *plan, ss_prog_actual *act, char **text, prog_io *io,
                         char *why, size_t why_len) {
    size_t len = 0;
    *text = NULL;
    FILE *f = open_memstream(text, &len);
    if (!f) { snprintf(why, why_len, "out of memory printing the program"); return -1; }
    ss_program_py_function(f, c, plan);
    if (fclose(f) || !*text) {
        free(*text);
        *text = NULL;
        snprintf(why, why_len, "out of memory printing the program");
        return -1;
    }
    if (len > SS_TP_MAX_SOURCE) {
        snprintf(why, why_len, "the program's Python source of %zu bytes is above %d", len, SS_TP_MAX_SOURCE);
        free(*text);
        *text = NULL;
        return -1;
    }
    const ss_program *p = c->program;
    const prog_io made = {*text, len, p->nsteps && p->steps[p->nsteps - 1].op == SS_STEP_RETURN ?
                                      (uint32_t)p->steps[p->nsteps - 1].nret : 0, act};
    *io = made;
    return 0;
}

static ss_run_status torch_run_program(const ss_target *t, const ss_case *c, const ss_plan *plan,
                                       ss_storage *input, ss_storage *src, const ss_run_opts *opts,
                                       ss_prog_actual *act, char *why, size_t why_len) {
    act->nret = 0;
    if (!c->program) {
        snprintf(why, why_len, "the case has no program");
        return SS_RUN_UNAVAILABLE;
    }
    char *text;
    prog_io io;
    if (print_program(c, plan, act, &text, &io, why, why_len)) return SS_RUN_FAILED;
    const ss_run_status st = run_case(t, plan, input, src, opts, &io, why, why_len);
    if (st != SS_RUN_OK && st != SS_RUN_FLAKY) act->nret = 0;
    free(text);
    return st;
}

/* ---- batches ------------------------------------------------------------ */

/* How many cases a campaign runs on a compiled target together: compiling
 * one function for K small cases costs little more than compiling one
 * (measured on 2.15.0, CPU: 0.7-0.9 s for one case, 1.4-1.9 s for 16).
 * Eager targets run one at a time: there is no compile to share. */
static int torch_batch_limit(const ss_target *t) { return compiled(t) ? SS_TORCH_BATCH : 1; }

/* Runs the items as one BATCH (ss_pyworker_run_batch). Items the worker is
 * never sent (an internally overlapping view, a case of the other kind
 * than the target runs, a program too long) get their status as alone. */
static void torch_run_batch(const ss_target *t, ss_batch_item *items, size_t n) {
    static encoded enc[SS_TP_MAX_BATCH];
    static char whys[SS_TP_MAX_BATCH][256];
    ss_pyw_run runs[SS_TP_MAX_BATCH];
    ss_run_status st[SS_TP_MAX_BATCH];
    size_t sent[SS_TP_MAX_BATCH], k = 0;
    char *texts[SS_TP_MAX_BATCH] = {0};
    const int program = torch_runs_programs(t);
    for (size_t i = 0; i < n; i++) {
        ss_batch_item *it = &items[i];
        prog_io io;
        if (k == SS_TP_MAX_BATCH || !program != !it->c->program || (!program && it->plan->internal_overlap)) {
            /* not sent in this batch: as alone (a rejection, "not applicable", or a run of its own) */
            it->status = program ? torch_run_program(t, it->c, it->plan, it->input, it->src, &it->opts, it->act,
                                                     it->why, it->why_len)
                                 : torch_run(t, it->plan, it->input, it->src, &it->opts, it->why, it->why_len);
            continue;
        }
        if (program) it->act->nret = 0;
        if (program && print_program(it->c, it->plan, it->act, &texts[k], &io, it->why, it->why_len)) {
            it->status = SS_RUN_FAILED;
            continue;
        }
        it->status = encode_case(t, it->plan, it->input, it->src, &it->opts, program ? &io : NULL, &enc[k],
                                 it->why, it->why_len);
        if (it->status != SS_RUN_OK) { free(texts[k]); texts[k] = NULL; continue; }
        runs[k] = enc[k].run;
        sent[k++] = i;
    }
    if (k == 1) {
        ss_batch_item *it = &items[sent[0]];
        it->status = ss_pyworker_run(&W, &runs[0], it->why, it->why_len);
    } else if (k > 1) {
        ss_pyworker_run_batch(&W, runs, k, st, &whys[0][0], sizeof whys[0]);
        for (size_t j = 0; j < k; j++) {
            ss_batch_item *it = &items[sent[j]];
            it->status = st[j];
            snprintf(it->why, it->why_len, "%s", whys[j]);
        }
    }
    for (size_t j = 0; j < k; j++) {
        ss_batch_item *it = &items[sent[j]];
        if (it->act && it->status != SS_RUN_OK && it->status != SS_RUN_FLAKY) it->act->nret = 0;
        free(texts[j]);
    }
}
