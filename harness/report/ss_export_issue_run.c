/* ss_export_issue_run.c - what `export --issue` runs, for both kinds of report: the pipeline's start
 * and end (defaults, plan, pythons, scratch directory), a script under one python or all of them
 * with its documents read back, the python to use, the repro's values 0, 1, 2, ... */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ss_confirm.h"
#include "ss_export_issue.h"
#include "ss_files.h"
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

int ss_issue_begin(ss_issue *iss, const ss_case *c, const char *case_path, const ss_issue_opts *o,
                   ss_issue_work *w, ss_error *err) {
    memset(w, 0, sizeof *w);
    iss->c = c;
    iss->case_path = case_path;
    w->np = o->n_pythons < 16 ? o->n_pythons : 16;
    for (size_t i = 0; i < w->np; i++) w->pythons[i] = o->pythons[i];
    const size_t max_bytes = o->export_opts->max_bytes ? o->export_opts->max_bytes : SS_EXPORT_MAX_BYTES;
    if (ss_export_resolve(c, o->export_opts, &iss->how, err) ||
        ss_plan_build_limited(&c->op, max_bytes, &iss->plan, err))
        return -1;
    if (!w->np && ss_issue_default_python(&w->pythons[w->np++], err)) return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(w->dir, sizeof w->dir, "%s/ssfuzz-issue-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(w->dir)) {
        ss_fail(err, "--issue", "cannot make a temporary directory: %s", strerror(errno));
        w->dir[0] = 0;
        return -1;
    }
    snprintf(w->found, sizeof w->found, "%s/as-found.py", w->dir);
    snprintf(w->arange, sizeof w->arange, "%s/arange.py", w->dir);
    return 0;
}

void ss_issue_run_found(ss_issue *iss, const ss_issue_work *w, const ss_issue_opts *o) {
    for (size_t i = 0; i < w->np && iss->n_runs < sizeof iss->runs / sizeof iss->runs[0]; i++) {
        ss_issue_run *r = &iss->runs[iss->n_runs++];
        if (!o->quiet) fprintf(stderr, "export: running the script under %s ...\n", w->pythons[i]);
        if (ss_issue_run_script(w->pythons[i], w->found, w->dir, "as-found", 1, o->timeout_s, r) && !r->failure[0])
            snprintf(r->failure, sizeof r->failure, "could not run");
    }
}

void ss_issue_run_arange(ss_issue *iss, const ss_issue_work *w, const ss_issue_opts *o) {
    if (!o->quiet) fprintf(stderr, "export: the repro's values (0, 1, 2, ...) under %s ...\n", w->pythons[0]);
    ss_issue_run_script(w->pythons[0], w->arange, w->dir, "arange", 0, o->timeout_s, &iss->arange);
    iss->has_arange = 1;
}

void ss_issue_end(ss_issue *iss, ss_issue_work *w) {
    for (size_t i = 0; i < iss->n_runs; i++) ss_issue_free_run(&iss->runs[i]);
    iss->n_runs = 0;
    ss_issue_free_run(&iss->arange);
    if (!w->dir[0]) return;
    unlink(w->found);
    unlink(w->arange);
    rmdir(w->dir);
    w->dir[0] = 0;
}

int ss_issue_default_python(const char **python, ss_error *err) {
    const char *why = NULL;
    if (!ss_torch_version(&why) || !(*python = ss_torch_known_python()))
        return ss_fail(err, "--python", "no python with torch to run the script: %s", why ? why : "none found");
    return 0;
}
