/* ss_export_issue.h - what `export --issue` gathered (the script's runs under each python, the
 * repro's values) and the Markdown writer that turns it into an upstream report. */
#ifndef SS_EXPORT_ISSUE_H
#define SS_EXPORT_ISSUE_H

#include "ss_export.h"
#include <stdint.h>
#include <stdio.h>
#include "ss_plan.h"

struct cJSON;

/* One script run: its --actual-out and --expected-out documents (NULL when missing). */
typedef struct ss_issue_run {
    char python[512];
    int exit_code;
    char failure[400];         /* why there are no documents (could not run, timed out, ...) */
    struct cJSON *actual, *expected;
} ss_issue_run;

typedef struct ss_issue {
    const ss_case *c;
    const char *case_path;
    ss_plan plan;
    ss_pyexpr expr;
    ss_export_defaults how;    /* the finding's mode, form, spelling, device */
    ss_issue_run runs[16];     /* the as-found script (its forms and the user forms, --stage) per python */
    size_t n_runs;
    ss_issue_run arange;       /* form user with values 0, 1, 2, ... under the first python */
    int has_arange;
    int two_inputs;            /* a two-inputs finding with src aliased: form user-two-inputs runs too */
    ss_pyexpr two;             /* its line on x and src, two arguments (ss_pyexpr_two_inputs) */
    ss_pyexpr based;           /* the case with the storage named base: the call's two views */
} ss_issue;

/* The report, written atomically (ss_write_atomic_with). 0, or -1 with err. */
int ss_issue_write(const char *path, const ss_issue *iss, ss_error *err);

/* ---- shared by the single-write and the program report (ss_export_issue_run.c, _md.c) ---- */

/* One script run under python with --actual-out/--expected-out (and --stage) into
 * dir/TAG.*.json: out's documents, or its failure. 0 when it ran, -1 when it could not start. */
int ss_issue_run_script(const char *python, const char *script, const char *dir, const char *tag, int stage,
                        double timeout, ss_issue_run *out);
void ss_issue_free_run(ss_issue_run *r);
/* The python the torch engine uses; -1 with err when there is none. */
int ss_issue_default_python(const char **python, ss_error *err);

/* One report's work, a single write's as a program's: the pythons it runs (at most 16) and its
 * scratch directory, with the two scripts' paths there (as found; the repro's values). */
typedef struct ss_issue_work {
    const char *pythons[16];
    size_t np;
    char dir[1024], found[1100], arange[1100];
} ss_issue_work;
/* The start of every report: iss's case, defaults (ss_export_resolve) and plan; w's pythons (o's,
 * else the torch engine's) and an empty scratch directory. 0, or -1 with err (w ends clean). */
int ss_issue_begin(ss_issue *iss, const ss_case *c, const char *case_path, const ss_issue_opts *o,
                   ss_issue_work *w, ss_error *err);
/* The script at w->found run under every python with --stage, into iss->runs. */
void ss_issue_run_found(ss_issue *iss, const ss_issue_work *w, const ss_issue_opts *o);
/* The script at w->arange run under the first python (no stage) into iss->arange. */
void ss_issue_run_arange(ss_issue *iss, const ss_issue_work *w, const ss_issue_opts *o);
/* The end of every report: the runs freed, the scratch directory and its scripts removed. */
void ss_issue_end(ss_issue *iss, ss_issue_work *w);
/* The case's storages as 0, 1, 2, ... (src after input) in its dtype (malloc'ed; free both);
 * -1 when the dtype cannot hold them exactly (bool, complex, too many elements). */
int ss_issue_arange_bytes(const ss_case *c, uint8_t **in, uint8_t **src);
/* Markdown pieces: a Python list of the values; a table cell (inert, pipes escaped); the
 * releases table (how: the runs in words); the stage in words (NULL: unknown); the environment section. */
void ss_issue_values_list(FILE *f, ss_dtype t, const uint8_t *b, long nbytes);
void ss_issue_cell(FILE *f, const char *s);
void ss_issue_releases(FILE *f, const ss_issue *iss, const char *how);
const char *ss_issue_stage_words(const char *stage);
void ss_issue_environment(FILE *f, const ss_issue *iss);
/* The decorator a repro compiles with for a script run's kind ("@torch.compile(backend=\"aot_eager\")");
 * NULL: eager (or an unknown kind), no decorator. static_spelled 1 writes dynamic=False for the static
 * kinds (compile, aot-eager, dynamo-eager); 0 leaves torch's default there. */
const char *ss_issue_decorator(const char *kind, int static_spelled);
/* The script's run kinds in the order a report picks the wrong one in: the stage order of
 * ss_torch_modes.h (eager, dynamo, aot, inductor; static before dynamic), the automatic
 * switch last; NULL past the end. One policy for a write and a program. */
const char *ss_issue_kind_at(size_t i);

/* A program case's report (ss_export_issue_prog.c): its script run under each python,
 * a repro of the program under @torch.compile in at most ten lines, the first wrong step. */
int ss_export_issue_program(const ss_case *c, const char *case_path, const char *out_path, const ss_issue_opts *o,
                            ss_error *err);

#endif
