/* ss_export.h - `ssfuzz export --torch`: a standalone PyTorch script that reproduces a case
 * as it was found (mode, form, spelling), and `--issue`: an upstream-ready Markdown report.
 *
 * Ownership: every function writes into a FILE or a path the caller names; nothing
 * returned needs freeing. */
#ifndef SS_EXPORT_H
#define SS_EXPORT_H

#include <stdint.h>
#include <stdio.h>
#include "ss_case.h"
#include "ss_error.h"
#include "ss_pyexpr.h"

/* The exported scripts' Python, built in from harness/report/NAME.py (the Makefile's PY_EMBED),
 * each emitted after the case's constants (ss_export_py_body): what both scripts share
 * (ss_export_common.py), then a single write's body (ss_export_write.py: it follows DTYPE,
 * INPUT_VIEW, ..., MODE, FORM, DEVICE, SHARED_SOURCE, PROGRAMS, one function per spelling) or
 * a program case's (ss_export_prog.py). */
extern const char ss_export_common_py[];
extern const char ss_export_write_py[];
extern const char ss_export_prog_py[];

/* How user code writes the in-place update (the torch engine's names), NULL-terminated:
 * setitem, setitem-clone, copy, scatter-copy, scatter-return, clone-scatter, index-put. */
extern const char *const ss_export_spellings[];
int ss_export_spelling_valid(const char *name);

/* One Python function per spelling, each the case's line in that spelling
 * (`x[:, 1:] = x[:, :-1]`, `x[:, 1:].copy_(x[:, :-1])`, ...), the PROGRAMS
 * table of their one-line texts, and finish_scatter_return. */
void ss_export_programs(FILE *f, const ss_case *c, const ss_pyexpr *e);
/* The statement(s) of spelling `s` for the case, lines separated by "\n". */
void ss_export_statement(const char *spelling, const ss_case *c, const ss_pyexpr *e, char *out, size_t n);

/* What the script runs by default. NULL fields come from the case's meta.torch
 * (mode "compile-dynamic-cpu" gives mode compile-dynamic and device cpu; form;
 * spelling), else mode all, form x-input, device all, spelling setitem; mode may
 * also be one mode as meta.torch names it ("compile-dynamic-cpu", which sets the
 * device too). mode and form may be comma lists: modes eager, compile,
 * compile-dynamic, all; forms x-input, storage-input, two-inputs, user, user-two-inputs, all. A
 * program case also has the modes aot-eager, dynamo-eager and their -dynamic
 * forms; its spelling is "program" and its one form "two-inputs" (--form is
 * checked, not used). */
typedef struct ss_export_opts {
    const char *mode, *form, *spelling, *device;
    size_t max_bytes;                  /* largest storages exported; 0: SS_EXPORT_MAX_BYTES */
    const uint8_t *input_bytes;        /* replace the case's input storage bytes (NULL: its fill) */
    const uint8_t *src_bytes;          /* and its separate src storage's */
    const char *label;                 /* the case's name in the script's first comment */
} ss_export_opts;

#define SS_EXPORT_MAX_BYTES ((size_t)16 << 20)

/* The defaults a case gives (meta.torch) with o's fields over them; 0, or -1
 * with err naming the field (an unknown mode, form, spelling or device). */
typedef struct ss_export_defaults { char mode[128], form[80], spelling[24], device[8]; } ss_export_defaults;
int ss_export_resolve(const ss_case *c, const ss_export_opts *o, ss_export_defaults *d, ss_error *err);

/* The whole script for c into f. 0, or -1 with err (invalid case, storages over
 * max_bytes, an unknown option value, out of memory; a program the reference finds
 * invalid or without a defined result). A program case's script is another one
 * (ss_export_torch_program). */
int ss_export_torch(FILE *f, const ss_case *c, const ss_export_opts *o, ss_error *err);
/* The same, written atomically to path. */
int ss_export_torch_file(const char *path, const ss_case *c, const ss_export_opts *o, ss_error *err);

/* ---- program cases (docs/programs.md) ---------------------------------------- */

/* A program case's script: the printed `def program(x, src)`, the initial storages
 * (o->input_bytes/src_bytes over the case's fill), the reference's result on them
 * (final storages, returned values, open elements, alias facts) and the body that
 * runs it in each mode of d. 0, or -1 with err. */
int ss_export_torch_program(FILE *f, const ss_case *c, const ss_export_opts *o, const ss_export_defaults *d,
                            ss_error *err);

/* ---- --issue ------------------------------------------------------------ */

typedef struct ss_issue_opts {
    const char *const *pythons;        /* interpreters to try (each one's torch is a release tried) */
    size_t n_pythons;
    double timeout_s;                  /* per script run */
    const ss_export_opts *export_opts; /* mode, form, spelling overrides */
    int quiet;                         /* 1: no progress lines on stderr */
} ss_issue_opts;

/* The Markdown report of the torch case at case_path, written atomically to
 * out_path: title, a repro of at most ten lines, expected against actual
 * values, releases tried and their verdicts, the first wrong compile stage,
 * the environment. 0, or -1 with err. */
int ss_export_issue(const char *case_path, const char *out_path, const ss_issue_opts *o, ss_error *err);

#endif
