/* ss_junit.c - regress results as JUnit XML: one testsuite per case, one testcase per target. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ss_files.h"
#include "ss_regress_out.h"

int ss_check_list_add(ss_check_list *l, const char *case_path, const char *target,
                      const char *schedule, ss_check_status st, double seconds,
                      const char *signature, const char *message, const ss_diff *diff, int ndim) {
    if (l->n == l->cap) {
        const size_t cap = l->cap ? l->cap * 2 : 32;
        ss_check_record *r = realloc(l->r, cap * sizeof *r);
        if (!r) return -1;
        l->r = r;
        l->cap = cap;
    }
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

/* Length of the valid UTF-8 sequence at s (RFC 3629), 0 when invalid. */
static size_t utf8_len(const unsigned char *s) {
    const unsigned c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c >= 0xE0 && c <= 0xEF) { n = 2; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 3; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
    else return 0;
    for (size_t k = 1; k <= n; k++)   /* stops at the NUL terminator: it is not a continuation */
        if (s[k] < (k == 1 ? lo : 0x80) || s[k] > (k == 1 ? hi : 0xBF)) return 0;
    return n + 1;
}

void ss_xml_escape(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        const size_t k = utf8_len(p);
        if (k == 0) { fputs("\xEF\xBF\xBD", f); p++; continue; }
        /* U+FFFE and U+FFFF are valid UTF-8 but not XML 1.0 characters */
        const int nonchar = k == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE;
        if (nonchar) { fputs("\xEF\xBF\xBD", f); p += k; continue; }
        if (k > 1) { fwrite(p, 1, k, f); p += k; continue; }
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\t': case '\n': case '\r': fprintf(f, "&#%d;", *p); break;
        default:
            if (*p < 0x20 || *p == 0x7F) fputs("\xEF\xBF\xBD", f);   /* not allowed in XML 1.0 */
            else fputc(*p, f);
        }
        p++;
    }
}

void ss_text_sanitize(const char *s, char *out, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    if (!n) return;
    while (*p && o + 1 < n) {
        const size_t k = utf8_len(p);
        if (k > 1 && o + k < n) { memcpy(out + o, p, k); o += k; p += k; continue; }
        if (k > 1) break;
        out[o++] = (k == 0 || (*p < 0x20 && *p != '\t') || *p == 0x7F) ? '?' : (char)*p;
        p++;
    }
    out[o] = 0;
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
    ss_xml_escape(f, r->target);
    if (r->schedule) { fputs(" --schedule ", f); ss_xml_escape(f, r->schedule); }
    fputc(' ', f);
    ss_xml_escape(f, r->case_path);
    fputs("</failure>\n    </testcase>\n", f);
}

int ss_junit_write(const char *path, const ss_check_list *l, double total_seconds, ss_error *err) {
    char *buf = NULL;
    size_t len = 0, c[4];
    double secs;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return ss_fail(err, path, "out of memory");
    count(l, 0, l->n, c, &secs);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<testsuites name=\"ssfuzz regress\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
               "skipped=\"%zu\" time=\"%.6f\">\n", l->n, c[SS_CHECK_FAILED], c[SS_CHECK_ERROR],
            c[SS_CHECK_SKIPPED], total_seconds);
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
    if (fclose(f)) { free(buf); return ss_fail(err, path, "out of memory"); }
    const int rc = ss_write_atomic(path, buf, len, err);
    free(buf);
    return rc;
}
