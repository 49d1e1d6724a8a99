/* ss_export_issue_prog.h - what `export --issue` gathers for a program case (the script's runs,
 * the repro's values, the reference on them, the first difference and the step it blames), for
 * the Markdown writer (ss_export_issue_prog_md.c). Internal to the exporter. */
#ifndef SS_EXPORT_ISSUE_PROG_H
#define SS_EXPORT_ISSUE_PROG_H

#include "ss_export_issue.h"
#include "ss_program.h"

typedef struct ss_issue_prog {
    ss_issue iss;                  /* c, case_path, plan, expr, how; runs: the as-found script under each
                                      python (--stage); arange: the repro's values under the first one */
    int expr_ok;                   /* iss.expr holds the case's views as Python */
    const struct cJSON *found;     /* the first python's wrong run the report is about; NULL: none */
    const struct cJSON *shown;     /* the run with the repro's values (arange's, else found) */
    int arange;                    /* 1: the repro's values are 0, 1, 2, ...; 0: the case's own */
    ss_storage init_in, init_src;  /* the repro's initial storages */
    ss_storage ref_in, ref_src;    /* the reference's final storages on them */
    ss_prog_result ref;
    int ref_ok;                    /* ref ran (SS_PROG_OK) */
    ss_storage act_in, act_src;    /* shown's final storages */
    ss_prog_actual act;
    uint8_t *act_bytes[SS_PROG_MAX_RETURNS];
    int has_act;                   /* act holds shown's result */
    ss_prog_diff diff;
    int has_diff;                  /* diff (and diff.step) hold the first difference */
} ss_issue_prog;

/* The report, written atomically. 0, or -1 with err. */
int ss_issue_prog_write(const char *path, const ss_issue_prog *ip, ss_error *err);

#endif
