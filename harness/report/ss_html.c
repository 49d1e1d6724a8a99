/* ss_html.c - the nightly HTML report: verdict, finding tables, inline-SVG trend plot. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_escape.h"
#include "ss_files.h"
#include "ss_html.h"

/* `target` as a link relative to directory `from` (both resolved); as given when either
 * cannot be resolved. */
static void rel_link(const char *from, const char *target, char *out, size_t n) {
    char a[PATH_MAX], b[PATH_MAX];
    if (!realpath(from, a) || !realpath(target, b)) { snprintf(out, n, "%.2000s", target); return; }
    size_t la = strlen(a);
    if (la + 1 < sizeof a && a[la - 1] != '/') { a[la++] = '/'; a[la] = 0; }
    size_t common = 0;   /* the longest common prefix that ends with a '/' */
    for (size_t i = 0; a[i] && a[i] == b[i]; i++)
        if (a[i] == '/') common = i + 1;
    size_t o = 0;
    out[0] = 0;
    for (size_t i = common; a[i]; i++)
        if (a[i] == '/' && o < n) o += (size_t)snprintf(out + o, n - o, "../");
    if (o < n) snprintf(out + o, n - o, "%s", b + common);
}

static const char *const STYLE =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}"
    "h1{font-size:20px;margin:0 0 12px}h2{font-size:16px;margin:22px 0 6px}"
    ".verdict{padding:10px 14px;border-radius:6px;font-weight:600;margin-bottom:14px}"
    ".exit0{background:#e3f4e3;border:1px solid #5a5}.exit1{background:#fbe3e3;border:1px solid #c44}"
    ".exit2{background:#fff1d6;border:1px solid #d90}"
    "table{border-collapse:collapse;margin:4px 0 8px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
    "vertical-align:top}th{background:#f3f3f3}code{font-size:12px}.none{color:#777}";

static void facts(FILE *f, const ss_night *n) {
    fprintf(f, "<table id=\"facts\"><tr><th>commit</th><td><code>");
    ss_xml_escape(f, n->commit[0] ? n->commit : "-");
    fprintf(f, "</code></td></tr><tr><th>torch</th><td>");
    ss_xml_escape(f, n->torch[0] ? n->torch : "none");
    fprintf(f, "</td></tr><tr><th>cases</th><td>%.0f in %.1f s (%.0f cases/s)</td></tr>", n->cases, n->seconds,
            n->cases_per_second);
    fprintf(f, "<tr><th>aliasing kinds covered</th><td>%d of %d: ", n->alias_kinds, n->alias_kinds_total);
    ss_xml_escape(f, n->aliasing[0] ? n->aliasing : "-");
    fprintf(f, "</td></tr><tr><th>regress exit</th><td>%d</td></tr><tr><th>fuzz exit</th><td>%d</td></tr></table>\n",
            n->regress_rc, n->fuzz_rc);
}

static void link_cell(FILE *f, const char *dir, const char *target, const char *label) {
    char rel[PATH_MAX];
    rel_link(dir, target, rel, sizeof rel);
    fputs("<td><a href=\"", f);
    ss_xml_escape(f, rel);
    fputs("\">", f);
    ss_xml_escape(f, label);
    fputs("</a></td>", f);
}

static void table(FILE *f, const char *dir, const ss_triage *t, ss_triage_class c) {
    fprintf(f, "<h2>%s (%zu)</h2>\n", ss_triage_class_name(c), t->count[c]);
    if (!t->count[c]) { fputs("<p class=\"none\">none</p>\n", f); return; }
    fprintf(f, "<table class=\"findings\" id=\"%s\"><tr><th>signature</th><th>reproducer</th><th>explain</th>"
               "<th>first seen</th><th>upstream</th><th>detail</th></tr>\n", ss_triage_class_name(c));
    for (size_t i = 0; i < t->n; i++) {
        const ss_triage_item *it = &t->it[i];
        if (it->cls != c) continue;
        char stem[300];
        ss_triage_item_stem(it, stem, sizeof stem);
        fputs("<tr><td><code>", f);
        ss_xml_escape(f, it->signature);
        fputs("</code></td>", f);
        link_cell(f, dir, it->reproducer, stem);
        if (it->explain[0]) {
            fputs("<td><a href=\"", f);
            ss_xml_escape(f, it->explain);
            fputs("\">explain</a></td>", f);
        } else {
            fputs("<td>-</td>", f);
        }
        fputs("<td>", f);
        ss_xml_escape(f, it->first_seen[0] ? it->first_seen : "tonight");
        fputs("</td><td>", f);
        if (it->upstream[0]) { fputs("<a href=\"", f); ss_xml_escape(f, it->upstream); fputs("\">", f); ss_xml_escape(f, it->upstream); fputs("</a>", f); }
        else fputs("-", f);
        fputs("</td><td>", f);
        ss_xml_escape(f, it->detail);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* Trend: cases/s as a line (left axis), unique findings per night as stacked bars
 * (right axis: new, regressed, known, fixed). */
static void trend(FILE *f, const ss_history_row *r, size_t n) {
    const double W = 720, H = 260, L = 70, R = 70, T = 30, B = 40, pw = W - L - R, ph = H - T - B;
    double max_rate = 1, max_found = 1;
    for (size_t i = 0; i < n; i++) {
        if (r[i].cases_per_second > max_rate) max_rate = r[i].cases_per_second;
        const double found = (double)(r[i].n_new + r[i].n_regressed + r[i].n_known + r[i].n_fixed);
        if (found > max_found) max_found = found;
    }
    fprintf(f, "<h2>trend (last %zu night%s)</h2>\n<svg id=\"trend\" xmlns=\"http://www.w3.org/2000/svg\" "
               "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-size=\"11\">\n", n, n == 1 ? "" : "s",
            W, H, W, H);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafafa\" stroke=\"#bbb\"/>\n", L, T, pw, ph);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" fill=\"#2563eb\">%.0f</text>"
               "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\" fill=\"#2563eb\">0</text>"
               "<text x=\"%.0f\" y=\"%.0f\" fill=\"#2563eb\">cases/s</text>\n",
            L - 6, T + 4, max_rate, L - 6, T + ph, L, T - 10);
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%.0f</text><text x=\"%.0f\" y=\"%.0f\">0</text>"
               "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">unique findings: "
               "<tspan fill=\"#d33\">new</tspan> <tspan fill=\"#a3a\">regressed</tspan> "
               "<tspan fill=\"#e90\">known</tspan> <tspan fill=\"#3a3\">fixed</tspan></text>\n",
            L + pw + 6, T + 4, max_found, L + pw + 6, T + ph, L + pw, T - 10);
    const double pad = 24;   /* keeps the outermost bars inside the frame */
    const double step = n > 1 ? (pw - 2 * pad) / (double)(n - 1) : 0, bw = n ? (pw / (double)n) * 0.5 : 0;
    const double bar_w = bw > 24 ? 24 : bw;
    for (size_t i = 0; i < n; i++) {
        const double x = n > 1 ? L + pad + step * (double)i : L + pw / 2;
        const long part[4] = {r[i].n_new, r[i].n_regressed, r[i].n_known, r[i].n_fixed};
        static const char *const color[4] = {"#d33", "#a3a", "#e90", "#3a3"};
        double y = T + ph;
        for (int k = 0; k < 4; k++) {
            const double h = ph * (double)part[k] / max_found;
            if (h <= 0) continue;
            y -= h;
            fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                    x - bar_w / 2, y, bar_w, h, color[k]);
        }
        if (n <= 12 || i == 0 || i + 1 == n || i % (n / 6 + 1) == 0) {
            fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">", x, T + ph + 16);
            ss_xml_escape(f, r[i].date);
            fputs("</text>\n", f);
        }
    }
    fputs("<polyline id=\"rate\" fill=\"none\" stroke=\"#2563eb\" stroke-width=\"2\" points=\"", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%.1f,%.1f", i ? " " : "", n > 1 ? L + pad + step * (double)i : L + pw / 2,
                T + ph - ph * r[i].cases_per_second / max_rate);
    fputs("\"/>\n", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#2563eb\"><title>", n > 1 ? L + pad + step * (double)i : L + pw / 2,
                T + ph - ph * r[i].cases_per_second / max_rate);
        ss_xml_escape(f, r[i].date);
        fprintf(f, ": %.0f cases/s, %ld new, %ld known, %ld fixed, %ld regressed, exit %d</title></circle>\n",
                r[i].cases_per_second, r[i].n_new, r[i].n_known, r[i].n_fixed, r[i].n_regressed, r[i].exit_code);
    }
    fputs("</svg>\n", f);
}

typedef struct page {
    const char *dir;   /* the page's directory: links are relative to it */
    const ss_night *n;
    const ss_triage *t;
    const ss_history_row *rows;
    size_t nrows;
} page;

static int page_emit(FILE *f, const void *user) {
    const page *pg = user;
    const ss_night *n = pg->n;
    const ss_triage *t = pg->t;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ssfuzz nightly ", f);
    ss_xml_escape(f, n->date);
    fprintf(f, "</title><style>%s</style></head><body>\n<h1>ssfuzz nightly ", STYLE);
    ss_xml_escape(f, n->date);
    fprintf(f, "</h1>\n<div class=\"verdict exit%d\" id=\"verdict\">exit %d: ", n->exit_code, n->exit_code);
    ss_xml_escape(f, n->verdict ? n->verdict : "");
    fprintf(f, " &mdash; %zu new, %zu regressed, %zu known, %zu fixed, %zu unchecked</div>\n", t->count[SS_TRIAGE_NEW],
            t->count[SS_TRIAGE_REGRESSED], t->count[SS_TRIAGE_KNOWN], t->count[SS_TRIAGE_FIXED],
            t->count[SS_TRIAGE_UNCHECKED]);
    facts(f, n);
    trend(f, pg->rows, pg->nrows);
    static const ss_triage_class order[] = {SS_TRIAGE_NEW, SS_TRIAGE_REGRESSED, SS_TRIAGE_KNOWN, SS_TRIAGE_FIXED,
                                            SS_TRIAGE_UNCHECKED};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) table(f, pg->dir, t, order[i]);
    fputs("</body></html>\n", f);
    return 0;
}

int ss_html_write(const char *path, const ss_night *n, const ss_triage *t, const ss_history_row *rows,
                  size_t nrows, ss_error *err) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    const page pg = {dir, n, t, rows, nrows};
    return ss_write_atomic_with(path, page_emit, &pg, err);
}
