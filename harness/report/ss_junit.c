/* ss_junit.c - regress results as JUnit XML: one testsuite per case, one testcase per target. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ss_escape.h"
#include "ss_files.h"
#include "ss_regress_out.h"
#include "ss_vec.h"

int ss_check_list_add(ss_check_list *l, const char *case_path, const char *target,
                      const char *schedule, ss_check_status st, double seconds,
                      const char *signature, const char *message, const ss_diff *diff, int ndim) {
    if (SS_GROW(l->r, l->cap, l->n + 1)) return -1;
    ss_check_record *r = &l->r[l->n];
    memset(r, 0, sizeof *r);
    r->case_path = strdup(case_path);
    r->target = strdup(target);
    r->schedule = schedule ? strdup(schedule) : NULL;
    r->message = strdup(message ? message : "");
    if (!r->case_path || !r->target || (schedule && !r->schedule) || !r->message) {
        free(r->case_path), free(r->target), free(r->schedule), free(r->message);
        return -1;
    }
    r->status = st;
    r->seconds = seconds;
    snprintf(r->signature, sizeof r->signature, "%s", signature ? signature : "");
    if (diff) { r->has_diff = 1; r->diff = *diff; r->ndim = ndim; }
    l->n++;
    return 0;
}

void ss_check_list_free(ss_check_list *l) {
    for (size_t i = 0; i < l->n; i++) {
        free(l->r[i].case_path), free(l->r[i].target), free(l->r[i].schedule), free(l->r[i].message);
    }
    free(l->r);
    memset(l, 0, sizeof *l);
}

void ss_diff_hex(const uint8_t *bytes, size_t elem_size, char *out, size_t n) {
    size_t o = (size_t)snprintf(out, n, "0x");
    for (size_t i = elem_size; i-- > 0 && o + 2 < n;) o += (size_t)snprintf(out + o, n - o, "%02x", bytes[i]);
}

void ss_diff_logical(const ss_diff *d, int ndim, char *out, size_t n) {
    if (!d->in_input_view) { snprintf(out, n, "outside the input view"); return; }
    size_t o = (size_t)snprintf(out, n, "[");
    for (int k = 0; k < ndim && o < n; k++)
        o += (size_t)snprintf(out + o, n - o, "%s%" PRId64, k ? ", " : "", d->logical[k]);
    if (o < n) snprintf(out + o, n - o, "]");
}

static void count(const ss_check_list *l, size_t from, size_t to, size_t c[4], double *secs) {
    memset(c, 0, 4 * sizeof *c);
    *secs = 0;
    for (size_t i = from; i < to; i++) { c[l->r[i].status]++; *secs += l->r[i].seconds; }
}

/* "corpus/a/b.json" -> "corpus.a.b": JUnit viewers split classnames on dots. */
static void classname(FILE *f, const char *path) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    const size_t len = strlen(buf);
    if (len > 5 && !strcmp(buf + len - 5, ".json")) buf[len - 5] = 0;
    size_t o = 0;
    for (const char *p = buf; *p; p++) {   /* separators become single dots */
        const int sep = *p == '/' || *p == '.';
        if (sep && (o == 0 || buf[o - 1] == '.')) continue;
        buf[o++] = sep ? '.' : *p;
    }
    buf[o] = 0;
    ss_xml_escape(f, buf);
}

static void testcase(FILE *f, const ss_check_record *r) {
    fputs("    <testcase classname=\"", f);
    classname(f, r->case_path);
    fputs("\" name=\"", f);
    ss_xml_escape(f, r->target);
    fprintf(f, "\" time=\"%.6f\"", r->seconds);
    if (r->status == SS_CHECK_HELD) { fputs("/>\n", f); return; }
    static const char *const tag[] = {"", "failure", "skipped", "error"};
    fprintf(f, ">\n      <%s", tag[r->status]);
    if (r->status != SS_CHECK_SKIPPED) {
        fputs(" type=\"", f);
        ss_xml_escape(f, r->signature);
        fputc('"', f);
    }
    fputs(" message=\"", f);
    ss_xml_escape(f, r->message);
    fputc('"', f);
    if (r->status != SS_CHECK_FAILED) { fputs("/>\n    </testcase>\n", f); return; }
    fputs(">", f);
    fputs("case: ", f);
    ss_xml_escape(f, r->case_path);
    fputs("\ntarget: ", f);
    ss_xml_escape(f, r->target);
    if (r->schedule) { fputs("\nschedule: ", f); ss_xml_escape(f, r->schedule); }
    if (r->has_diff && r->diff.count) {
        char e[40], a[40], lg[16 * 22 + 32];
        ss_diff_hex(r->diff.expected, r->diff.elem_size, e, sizeof e);
        ss_diff_hex(r->diff.actual, r->diff.elem_size, a, sizeof a);
        ss_diff_logical(&r->diff, r->ndim, lg, sizeof lg);
        fprintf(f, "\nfirst difference: %s storage index %" PRId64 ", logical index %s\n"
                   "expected: %s\nactual: %s\ndiffering elements: %" PRId64,
                r->diff.storage == SS_STORAGE_INPUT ? "input" : "src", r->diff.index, lg, e, a,
                r->diff.count);
    }
    if (r->has_diff && r->diff.guard_corrupt) fputs("\nguard band overwritten", f);
    fputs("\nreplay: ssfuzz replay --target ", f);
    ss_xml_escape_word(f, r->target);
    if (r->schedule) { fputs(" --schedule ", f); ss_xml_escape_word(f, r->schedule); }
    fputc(' ', f);
    ss_xml_escape_word(f, r->case_path);
    fputs("</failure>\n    </testcase>\n", f);
}

typedef struct junit_doc { const ss_check_list *l; double total_seconds; } junit_doc;

static int junit_emit(FILE *f, const void *user) {
    const junit_doc *d = user;
    const ss_check_list *l = d->l;
    size_t c[4];
    double secs;
    count(l, 0, l->n, c, &secs);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<testsuites name=\"ssfuzz regress\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
               "skipped=\"%zu\" time=\"%.6f\">\n", l->n, c[SS_CHECK_FAILED], c[SS_CHECK_ERROR],
            c[SS_CHECK_SKIPPED], d->total_seconds);
    for (size_t i = 0; i < l->n;) {
        size_t j = i;
        while (j < l->n && !strcmp(l->r[j].case_path, l->r[i].case_path)) j++;
        count(l, i, j, c, &secs);
        fputs("  <testsuite name=\"", f);
        ss_xml_escape(f, l->r[i].case_path);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.6f\">\n",
                j - i, c[SS_CHECK_FAILED], c[SS_CHECK_ERROR], c[SS_CHECK_SKIPPED], secs);
        for (; i < j; i++) testcase(f, &l->r[i]);
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
    return 0;
}

int ss_junit_write(const char *path, const ss_check_list *l, double total_seconds, ss_error *err) {
    const junit_doc d = {l, total_seconds};
    return ss_write_atomic_with(path, junit_emit, &d, err);
}
