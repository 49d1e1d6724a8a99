/* ss_export_issue.c - `ssfuzz export --issue`: the exported script run under each torch asked
 * for, and what they said as an upstream-ready Markdown report (title, a repro of at most
 * ten lines, expected against actual values, releases and verdicts, the first wrong stage). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ss_export.h"
#include "ss_export_issue.h"
#include "ss_plan_build.h"

static int export_script(const char *path, const ss_case *c, const ss_export_opts *base, const char *form,
                         const uint8_t *in, const uint8_t *src, ss_error *err) {
    ss_export_opts o = *base;
    o.form = form;
    o.input_bytes = in;
    o.src_bytes = src;
    return ss_export_torch_file(path, c, &o, err);
}

/* 1 when the comma list holds word (whole words: "user" is not in "user-two-inputs"). */
static int has_word(const char *list, const char *word) {
    const size_t n = strlen(word);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, word, n) && (p[n] == ',' || !p[n])) return 1;
    return 0;
}

/* "x-input,user": the finding's forms with the user forms beside them (user-two-inputs too for a
 * two-inputs finding); "all" when the list would outgrow what a form option holds. */
static void forms_with_user(const char *forms, int two, char *out, size_t n) {
    const int one = !has_word(forms, "user"), other = two && !has_word(forms, "user-two-inputs");
    const int k = snprintf(out, n, "%s%s%s", forms, one ? ",user" : "", other ? ",user-two-inputs" : "");
    if (has_word(forms, "all") || k < 0 || (size_t)k >= sizeof ((ss_export_defaults *)0)->form)
        snprintf(out, n, "all");
}

int ss_export_issue(const char *case_path, const char *out_path, const ss_issue_opts *o, ss_error *err) {
    ss_case c;
    ss_case_init(&c);
    if (ss_case_load(case_path, &c, err)) {
        ss_case_free(&c);
        return -1;
    }
    if (c.program) {   /* a program case: its own script, repro and report */
        const int prc = ss_export_issue_program(&c, case_path, out_path, o, err);
        ss_case_free(&c);
        return prc;
    }
    ss_issue iss;
    memset(&iss, 0, sizeof iss);
    iss.c = &c;
    iss.case_path = case_path;
    uint8_t *ain = NULL, *asrc = NULL;
    char dir[1024] = "", s1[1100], s2[1100], forms[128];
    const char *pythons[16];
    size_t np = o->n_pythons < 16 ? o->n_pythons : 16;
    int rc = -1;
    for (size_t i = 0; i < np; i++) pythons[i] = o->pythons[i];
    if (ss_export_resolve(&c, o->export_opts, &iss.how, err) ||
        ss_plan_build_limited(&c.op, o->export_opts->max_bytes ? o->export_opts->max_bytes : SS_EXPORT_MAX_BYTES,
                              &iss.plan, err) ||
        ss_pyexpr_derive(&c, &iss.expr) != 0)
        goto done;
    /* two overlapping graph inputs may be the bug (the one-input user form agreeing): repro both ways */
    iss.two_inputs = has_word(iss.how.form, "two-inputs") && c.op.src_aliased &&
                     ss_pyexpr_two_inputs(&c, &iss.two) == 0 && ss_pyexpr_derive_named(&c, "base", &iss.based) == 0;
    if (!np && ss_issue_default_python(&pythons[np++], err)) goto done;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ssfuzz-issue-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) { ss_fail(err, "--issue", "cannot make a temporary directory: %s", strerror(errno)); dir[0] = 0; goto done; }
    snprintf(s1, sizeof s1, "%s/as-found.py", dir);
    snprintf(s2, sizeof s2, "%s/arange.py", dir);
    forms_with_user(iss.how.form, iss.two_inputs, forms, sizeof forms);
    if (export_script(s1, &c, o->export_opts, forms, NULL, NULL, err)) goto done;
    /* every release: the case's own values, as found and as user code, with the stage */
    for (size_t i = 0; i < np; i++) {
        if (!o->quiet) fprintf(stderr, "export: running the script under %s ...\n", pythons[i]);
        if (ss_issue_run_script(pythons[i], s1, dir, "as-found", 1, o->timeout_s, &iss.runs[iss.n_runs]) &&
            !iss.runs[iss.n_runs].failure[0])
            snprintf(iss.runs[iss.n_runs].failure, sizeof iss.runs[0].failure, "could not run");
        iss.n_runs++;
    }
    /* the repro's values: 0, 1, 2, ... when the user form is wrong with them too */
    if (ss_issue_arange_bytes(&c, &ain, &asrc) == 0 &&
        export_script(s2, &c, o->export_opts, iss.two_inputs ? "user,user-two-inputs" : "user", ain, asrc, err) == 0) {
        if (!o->quiet) fprintf(stderr, "export: the repro's values (0, 1, 2, ...) under %s ...\n", pythons[0]);
        ss_issue_run_script(pythons[0], s2, dir, "arange", 0, o->timeout_s, &iss.arange);
        iss.has_arange = 1;
    }
    rc = ss_issue_write(out_path, &iss, err);
done:
    for (size_t i = 0; i < iss.n_runs; i++) ss_issue_free_run(&iss.runs[i]);
    ss_issue_free_run(&iss.arange);
    free(ain);
    free(asrc);
    if (dir[0]) {
        unlink(s1);
        unlink(s2);
        rmdir(dir);
    }
    ss_case_free(&c);
    return rc;
}
