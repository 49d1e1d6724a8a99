/* ss_export_issue.c - `ssfuzz export --issue`: the exported script run under each torch asked
 * for, and what they said as an upstream-ready Markdown report (title, a repro of at most
 * ten lines, expected against actual values, releases and verdicts, the first wrong stage). */
#include <stdlib.h>
#include <string.h>
#include "ss_export.h"
#include "ss_export_issue.h"

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
    ss_issue_work w;
    uint8_t *ain = NULL, *asrc = NULL;
    char forms[128];
    memset(&iss, 0, sizeof iss);
    int rc = -1;
    if (ss_issue_begin(&iss, &c, case_path, o, &w, err) || ss_pyexpr_derive(&c, &iss.expr) != 0) goto done;
    /* two overlapping graph inputs may be the bug (the one-input user form agreeing): repro both ways */
    iss.two_inputs = has_word(iss.how.form, "two-inputs") && c.op.src_aliased &&
                     ss_pyexpr_two_inputs(&c, &iss.two) == 0 && ss_pyexpr_derive_named(&c, "base", &iss.based) == 0;
    forms_with_user(iss.how.form, iss.two_inputs, forms, sizeof forms);
    if (export_script(w.found, &c, o->export_opts, forms, NULL, NULL, err)) goto done;
    /* every release: the case's own values, as found and as user code, with the stage */
    ss_issue_run_found(&iss, &w, o);
    /* the repro's values: 0, 1, 2, ... when the user form is wrong with them too */
    if (ss_issue_arange_bytes(&c, &ain, &asrc) == 0 &&
        export_script(w.arange, &c, o->export_opts, iss.two_inputs ? "user,user-two-inputs" : "user", ain, asrc, err) == 0)
        ss_issue_run_arange(&iss, &w, o);
    rc = ss_issue_write(out_path, &iss, err);
done:
    ss_issue_end(&iss, &w);
    free(ain);
    free(asrc);
    ss_case_free(&c);
    return rc;
}
