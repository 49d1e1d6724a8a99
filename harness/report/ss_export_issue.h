/* ss_export_issue.h - what `export --issue` gathered (the script's runs under each python, the
 * repro's values) and the Markdown writer that turns it into an upstream report. */
#ifndef SS_EXPORT_ISSUE_H
#define SS_EXPORT_ISSUE_H

#include "ss_export.h"
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
    ss_issue_run runs[16];     /* the as-found script (its forms and form user, --stage) per python */
    size_t n_runs;
    ss_issue_run arange;       /* form user with values 0, 1, 2, ... under the first python */
    int has_arange;
} ss_issue;

/* The report, written atomically (ss_write_atomic_with). 0, or -1 with err. */
int ss_issue_write(const char *path, const ss_issue *iss, ss_error *err);

#endif
