/* ss_confirm.h - a torch finding confirmed outside the harness: its exported script
 * (`ssfuzz export --torch`) run in a fresh interpreter of the same torch, under a time limit.
 *
 * The script is written by an exporter the command line registers
 * (ss_confirm_set_exporter): exports live in a higher layer. A finding is
 * confirmed when the script, run in the finding's mode, form and spelling, reports
 * the same kind of wrong result (DIFFER for a mismatch, RAISED for a raised
 * finding); its reproducer's meta then gets "confirmed": "standalone", else
 * "confirmed": "no: WHY" (the script agreed, errored, timed out, ...), and
 * "confirmed_by": the script's verdict line. The script runs with an empty
 * inductor cache of its own (a fresh machine's), so a confirmation owes nothing
 * to what the campaign compiled before; when a compiled finding's script agrees
 * there, it runs again with the campaign's cache (ss_torch_cache_dir), and
 * failing then is "confirmed": "standalone with the campaign's inductor cache
 * (DIR) only: ..." (a bug of the cache, counted as confirmed); agreeing, the
 * "no: the script agreed" says "also with the campaign's inductor cache".
 * A program case is confirmed the
 * same way (its script runs the program and holds it to the program's
 * reference). A case no script can be written for (the exporter fails: a
 * program without a defined result, storages over the export's limit) is not
 * tried and its meta is left alone.
 *
 * Settings: SSFUZZ_CONFIRM=0 turns confirmation off in `fuzz`;
 * SSFUZZ_CONFIRM_TIMEOUT (seconds, default 300) limits one script run.
 *
 * Ownership: ss_script_run owns `output` (free with ss_script_run_free); every
 * other result is a fixed-size struct. */
#ifndef SS_CONFIRM_H
#define SS_CONFIRM_H

#include <stddef.h>
#include <stdio.h>
#include "ss_case.h"
#include "ss_error.h"
#include "ss_target.h"
#include "ss_report.h"

struct cJSON;

/* The finding as meta.torch names it: mode "compile-dynamic-cpu", form
 * "x-input" ("" for eager), spelling, and the finding's kind ("mismatch"). */
typedef struct ss_confirm_spec {
    char mode[32], form[24], spelling[24], kind[32];
} ss_confirm_spec;

/* Writes the script reproducing c as spec says to script_path; 0, or -1 with err. */
typedef int (*ss_confirm_export_fn)(const ss_case *c, const ss_confirm_spec *spec, const char *script_path,
                                    ss_error *err);
void ss_confirm_set_exporter(ss_confirm_export_fn fn);

/* ---- running a Python script ----------------------------------------------- */

typedef struct ss_script_run {
    int exit_code;             /* the script's exit status; -1 when it did not exit normally */
    int timed_out;             /* 1: killed at the time limit (with its process group) */
    int signal;                /* the signal that ended it, else 0 */
    double seconds;
    char *output;              /* stdout and stderr, interleaved, NUL-terminated (at most 1 MiB kept) */
    size_t len;
    char why[256];             /* when it could not start */
} ss_script_run;

/* Runs `python SCRIPT ARGS...` (args: NULL-terminated, args[0] the script) in its own
 * process group, stdin from /dev/null, under timeout_s. 0 when it ran (whatever
 * its exit), -1 with r->why when it could not be started. */
int ss_script_run_python(const char *python, const char *const *args, double timeout_s, ss_script_run *r);
void ss_script_run_free(ss_script_run *r);

/* ---- confirming ---------------------------------------------------------- */

typedef enum { SS_CONFIRM_NOT_TRIED = 0, SS_CONFIRM_YES = 1, SS_CONFIRM_NO = 2 } ss_confirm_state;

typedef struct ss_confirm_result {
    ss_confirm_state state;
    char value[320];           /* meta.confirmed: "standalone", "standalone with the campaign's ...", or "no: WHY" */
    char evidence[512];        /* the script's verdict line that decided it */
    double seconds;
} ss_confirm_result;

/* spec from a meta object holding a "torch" block (a reproducer's meta, or what
 * ss_target_meta_write gives a run's target); -1 when there is none. */
int ss_confirm_spec_from_meta(const struct cJSON *meta, const char *kind, ss_confirm_spec *spec);

/* Exports c as spec says into a private temporary directory and runs it with
 * python under timeout_s (SSFUZZ_CONFIRM_TIMEOUT when <= 0). */
void ss_confirm_case(const ss_case *c, const ss_confirm_spec *spec, const char *python, double timeout_s,
                     ss_confirm_result *r);

/* Sets meta.confirmed (and meta.confirmed_by) from r; -1 out of memory. */
int ss_confirm_set_meta(struct cJSON *meta, const ss_confirm_result *r);

/* fuzz: confirms the reproducer just written at path (a torch finding; any other
 * is left alone), records the result in its meta (atomically) and appends it
 * to the finding's line ("; confirmed standalone" / "; not confirmed: ..."). */
void ss_confirm_finding(const char *path, char *line, size_t line_len);
/* fuzz's parent: counts the reproducer at path in sum->confirmed or sum->unconfirmed. */
void ss_confirm_tally(ss_summary *sum, const char *path);

/* replay --confirm: the case file at path, which failed on torch target t (under
 * schedule, a form) with kind ("mismatch"), is confirmed; a line goes to out and
 * meta.confirmed into the file. SS_CONFIRM_NOT_TRIED when t is not a torch target. */
ss_confirm_state ss_confirm_replayed(const char *path, const ss_target *t, const char *schedule, const char *kind,
                                     FILE *out);

#endif
