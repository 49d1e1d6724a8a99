/* ss_export_issue.c - `ssfuzz export --issue`: the exported script run under each torch asked
 * for, and what they said as an upstream-ready Markdown report (title, a repro of at most
 * ten lines, expected against actual values, releases and verdicts, the first wrong stage). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ss_confirm.h"
#include "ss_export.h"
#include "ss_files.h"
#include "ss_export_issue.h"
#include "ss_plan_build.h"
#include "ss_text.h"
#include "ss_torch.h"

#define JSON_MAX ((size_t)256 << 20)

/* The largest n for which 0 .. n-1 are exact in t (torch.arange's values); 0: no arange. */
static int64_t arange_limit(ss_dtype t) {
    switch (t) {
    case SS_UINT8: return 256;
    case SS_INT8: return 128;
    case SS_INT16: return 32768;
    case SS_INT32: case SS_INT64: return INT64_C(1) << 31;
    case SS_FLOAT16: return 2048;
    case SS_BFLOAT16: return 256;
    case SS_FLOAT32: return INT64_C(1) << 24;
    case SS_FLOAT64: return INT64_C(1) << 31;
    default: return 0;   /* bool, complex: torch.arange has no such values */
    }
}

/* Element k of a storage holding first, first + 1, ... in t's bytes. */
static void arange_at(ss_dtype t, int64_t v, uint8_t *out) {
    const size_t es = ss_dtype_size(t);
    uint64_t bits = (uint64_t)v;
    if (t == SS_FLOAT16 || t == SS_BFLOAT16) {
        uint16_t h = 0;
        ss_double_to_half(t, (double)v, &h);
        bits = h;
    } else if (t == SS_FLOAT32) {
        const float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        bits = u;
    } else if (t == SS_FLOAT64) {
        const double d = (double)v;
        memcpy(&bits, &d, 8);
    }
    for (size_t i = 0; i < es; i++) out[i] = (uint8_t)(bits >> (8 * i));
}

/* The input storage as 0 .. n-1 and a separate src storage as n .. n+m-1. */
int ss_issue_arange_bytes(const ss_case *c, uint8_t **in, uint8_t **src) {
    const int64_t n = c->op.input_storage_numel, m = c->op.src_aliased ? 0 : c->op.src_storage_numel;
    const size_t es = c->op.elem_size;
    *in = *src = NULL;
    if (n + m > arange_limit(c->dtype) || n <= 0) return -1;
    *in = malloc((size_t)n * es);
    *src = malloc((size_t)(m ? m : 1) * es);
    if (!*in || !*src) { free(*in); free(*src); *in = *src = NULL; return -1; }
    for (int64_t k = 0; k < n; k++) arange_at(c->dtype, k, *in + k * es);
    for (int64_t k = 0; k < m; k++) arange_at(c->dtype, n + k, *src + k * es);
    return 0;
}

/* One script run under one python: its JSON (--actual-out), expectation and output. */
int ss_issue_run_script(const char *python, const char *script, const char *dir, const char *tag, int stage,
                        double timeout, ss_issue_run *out) {
    char actual[1200], expect[1200];
    snprintf(actual, sizeof actual, "%s/%s.actual.json", dir, tag);
    snprintf(expect, sizeof expect, "%s/%s.expected.json", dir, tag);
    const char *args[] = {script, "--actual-out", actual, "--expected-out", expect, stage ? "--stage" : NULL, NULL};
    ss_script_run r;
    memset(out, 0, sizeof *out);
    snprintf(out->python, sizeof out->python, "%s", python);
    if (ss_script_run_python(python, args, timeout, &r)) {
        snprintf(out->failure, sizeof out->failure, "%s", r.why);
        return -1;
    }
    out->exit_code = r.exit_code;
    if (r.timed_out) snprintf(out->failure, sizeof out->failure, "timed out after %.0f s", timeout);
    else if (r.signal) snprintf(out->failure, sizeof out->failure, "died from signal %d", r.signal);
    char *text = NULL;
    size_t len = 0;
    if (!out->failure[0] && ss_read_file(actual, JSON_MAX, &text, &len, NULL) == 0) out->actual = cJSON_Parse(text);
    free(text);
    text = NULL;
    if (!out->failure[0] && ss_read_file(expect, JSON_MAX, &text, &len, NULL) == 0) out->expected = cJSON_Parse(text);
    free(text);
    if (!out->failure[0] && (!out->actual || !out->expected)) {
        const char *o = r.output ? r.output : "";
        const char *e = o + strlen(o);
        while (e > o && e[-1] == '\n') e--;
        const char *s = e;
        while (s > o && s[-1] != '\n') s--;
        char raw[400];
        snprintf(raw, sizeof raw, "exit %d: %.*s", r.exit_code, (int)(e - s > 300 ? 300 : e - s), s);
        ss_text_inert(raw, out->failure, sizeof out->failure);
    }
    ss_script_run_free(&r);
    unlink(actual);
    unlink(expect);
    return 0;
}

void ss_issue_free_run(ss_issue_run *r) {
    cJSON_Delete(r->actual);
    cJSON_Delete(r->expected);
    r->actual = r->expected = NULL;
}

static int export_script(const char *path, const ss_case *c, const ss_export_opts *base, const char *form,
                         const uint8_t *in, const uint8_t *src, ss_error *err) {
    ss_export_opts o = *base;
    o.form = form;
    o.input_bytes = in;
    o.src_bytes = src;
    return ss_export_torch_file(path, c, &o, err);
}

/* "x-input,user": the finding's forms with the user form beside them. */
static void forms_with_user(const char *forms, char *out, size_t n) {
    if (!strcmp(forms, "all") || strstr(forms, "user")) snprintf(out, n, "%s", forms);
    else snprintf(out, n, "%s,user", forms);
}

int ss_issue_default_python(const char **python, ss_error *err) {
    const char *why = NULL;
    if (!ss_torch_version(&why) || !(*python = ss_torch_known_python()))
        return ss_fail(err, "--python", "no python with torch to run the script: %s", why ? why : "none found");
    return 0;
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
    char dir[1024] = "", s1[1100], s2[1100], forms[96];
    const char *pythons[16];
    size_t np = o->n_pythons < 16 ? o->n_pythons : 16;
    int rc = -1;
    for (size_t i = 0; i < np; i++) pythons[i] = o->pythons[i];
    if (ss_export_resolve(&c, o->export_opts, &iss.how, err) ||
        ss_plan_build_limited(&c.op, o->export_opts->max_bytes ? o->export_opts->max_bytes : SS_EXPORT_MAX_BYTES,
                              &iss.plan, err) ||
        ss_pyexpr_derive(&c, &iss.expr) != 0)
        goto done;
    if (!np && ss_issue_default_python(&pythons[np++], err)) goto done;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ssfuzz-issue-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) { ss_fail(err, "--issue", "cannot make a temporary directory: %s", strerror(errno)); dir[0] = 0; goto done; }
    snprintf(s1, sizeof s1, "%s/as-found.py", dir);
    snprintf(s2, sizeof s2, "%s/arange.py", dir);
    forms_with_user(iss.how.form, forms, sizeof forms);
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
        export_script(s2, &c, o->export_opts, "user", ain, asrc, err) == 0) {
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
