/* ss_picture.c - storage maps for explain: classify each element, pack rows, draw with or without colour. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ss_compare.h"
#include "ss_picture.h"

#define ROW_CELLS 64   /* at most this many cells per row: with the label and gaps, under 80 columns */

/* Set `flag` on every element v reaches (odometer over its logical indices). */
static void mark_view(ss_picture *p, const ss_view *v, uint8_t flag) {
    int64_t idx[SS_MAX_NDIM] = {0};
    for (int d = 0; d < v->ndim; d++)
        if (v->sizes[d] == 0) return;
    int64_t off = v->offset;
    for (;;) {
        if (off >= 0 && off < p->numel) p->cell[off] |= flag;
        int d = v->ndim - 1;
        for (; d >= 0; d--) {
            off += v->strides[d];
            if (++idx[d] < v->sizes[d]) break;
            off -= v->strides[d] * v->sizes[d];
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}

/* Cells per group: the stride between innermost runs when the view is laid out
 * in rows (the innermost run fits before the next one starts), else the run's
 * own extent; a fixed width when that does not fit a row. */
static int64_t run_width(const ss_view *v, int64_t numel) {
    int64_t s0 = 0, n0 = 1, s1 = 0;
    for (int d = 0; d < v->ndim; d++)   /* an empty view has no runs (and may be huge) */
        if (v->sizes[d] == 0) return numel >= 1 && numel <= ROW_CELLS ? numel : 16;
    for (int d = 0; d < v->ndim; d++) {
        if (v->sizes[d] < 2 || v->strides[d] == 0) continue;
        if (!s0 || v->strides[d] < s0) { s1 = s0; s0 = v->strides[d]; n0 = v->sizes[d]; }
        else if (!s1 || v->strides[d] < s1) s1 = v->strides[d];
    }
    int64_t w = 16;
    if (s0) {
        const int64_t extent = (n0 - 1) * s0 + 1;
        w = s1 >= extent ? s1 : extent;
    } else if (numel <= ROW_CELLS) {
        w = numel;
    }
    if (w > ROW_CELLS) w = numel <= ROW_CELLS ? numel : ROW_CELLS;
    return w < 1 ? 1 : w;
}

int ss_picture_build(const ss_plan *plan, int which, ss_picture *p) {
    const ss_op *op = &plan->op;
    memset(p, 0, sizeof *p);
    p->numel = which == SS_STORAGE_INPUT ? op->input_storage_numel : op->src_storage_numel;
    p->cell = calloc(p->numel ? (size_t)p->numel : 1, 1);
    if (!p->cell) return -1;
    const ss_view *shape = which == SS_STORAGE_INPUT ? &op->input : &op->src;
    if (which == SS_STORAGE_INPUT) {
        mark_view(p, &op->input, SS_CELL_INPUT);
        mark_view(p, &plan->slice, SS_CELL_WRITE);
    }
    if (which == SS_STORAGE_SRC || op->src_aliased) mark_view(p, &op->src, SS_CELL_READ);
    p->run = run_width(shape, p->numel);
    p->per_row = ROW_CELLS / (p->run + 1) > 1 ? ROW_CELLS / (p->run + 1) : 1;
    /* Prefer rows that follow the next dim out (one row per x[i] of a 3-D x). */
    int64_t best = 0;
    for (int d = 0; d < shape->ndim; d++) {
        const int64_t st = shape->strides[d];
        if (shape->sizes[d] > 1 && st > p->run && st % p->run == 0 && st / p->run <= p->per_row &&
            st / p->run > best)
            best = st / p->run;
    }
    if (best) p->per_row = best;
    /* Align groups on the view's offset, so each run starts a group. */
    const int64_t phase = shape->offset % p->run;
    p->first = phase ? phase - p->run : 0;
    return 0;
}

void ss_picture_free(ss_picture *p) {
    free(p->cell);
    memset(p, 0, sizeof *p);
}

int64_t ss_picture_mark_wrong(ss_picture *p, const uint8_t *expected, const uint8_t *actual,
                              size_t elem_size) {
    int64_t n = 0;
    for (int64_t i = 0; i < p->numel; i++)
        if (memcmp(expected + (size_t)i * elem_size, actual + (size_t)i * elem_size, elem_size)) {
            p->cell[i] |= SS_CELL_WRONG;
            n++;
        }
    return n;
}

char ss_picture_char(uint8_t f) {
    if (f & SS_CELL_WRONG) return '!';
    if ((f & SS_CELL_WRITE) && (f & SS_CELL_READ)) return 'X';
    if (f & SS_CELL_WRITE) return 'W';
    if (f & SS_CELL_READ) return 'R';
    return (f & SS_CELL_INPUT) ? '.' : ' ';
}

static const char *ansi(char c) {
    switch (c) {
    case 'W': return "\033[1;33m";
    case 'R': return "\033[1;36m";
    case 'X': return "\033[1;35m";
    case '!': return "\033[1;97;41m";
    case '.': return "\033[2m";
    default: return "";
    }
}

static const char *const classes = "WRX. !";

void ss_picture_legend(FILE *f, int color) {
    static const char *const what[] = {"slice written", "src read", "both", "input view, untouched",
                                       "outside the input view", "wrong after a target ran"};
    fputs("legend:", f);
    for (int i = 0; classes[i]; i++) {
        const char c = classes[i];
        fprintf(f, "%s%s%s%c%s%s %s", i == 3 || i == 5 ? "\n        " : "  ", c == ' ' ? "'" : "", color ? ansi(c) : "",
                c, color ? "\033[0m" : "", c == ' ' ? "'" : "", what[i]);
    }
    fputc('\n', f);
}

static int blank_row(const ss_picture *p, int64_t start, int64_t span) {
    for (int64_t i = start < 0 ? 0 : start; i < start + span && i < p->numel; i++)
        if (p->cell[i]) return 0;
    return 1;
}

void ss_picture_draw(FILE *f, const ss_picture *p, int color, int64_t max_rows) {
    int64_t count[6] = {0};
    for (int64_t i = 0; i < p->numel; i++) count[strchr(classes, ss_picture_char(p->cell[i])) - classes]++;
    fprintf(f, " %" PRId64 " cells:", p->numel);
    for (int i = 0, n = 0; classes[i]; i++)
        if (count[i] && classes[i] == ' ') fprintf(f, "%s %" PRId64 " outside", n++ ? "," : "", count[i]);
        else if (count[i]) fprintf(f, "%s %" PRId64 " %c", n++ ? "," : "", count[i], classes[i]);
    fputc('\n', f);
    const int64_t row_span = p->run * p->per_row;
    const int64_t rows = p->numel ? (p->numel - p->first + row_span - 1) / row_span : 0;
    /* Too many rows: a summary, not a wall of cells; the first third of the
     * allowance, counted in lines drawn (a collapsed stretch is one line). */
    const int64_t lines = rows <= max_rows ? rows : max_rows / 3 > 0 ? max_rows / 3 : 1;
    int64_t r = 0;
    for (int64_t line = 0; r < rows && line < lines; line++) {
        const int64_t start = p->first + r * row_span;
        if (blank_row(p, start, row_span)) {   /* collapse rows wholly outside the input view */
            int64_t end = r;
            while (end + 1 < rows && blank_row(p, p->first + (end + 1) * row_span, row_span)) end++;
            const int64_t last = p->first + (end + 1) * row_span - 1;
            fprintf(f, "  %9" PRId64 " | (to %" PRId64 ": outside the input view)\n", start < 0 ? 0 : start,
                    last < p->numel ? last : p->numel - 1);
            r = end + 1;
            continue;
        }
        fprintf(f, "  %9" PRId64 " |", start < 0 ? 0 : start);
        char prev = 0;
        for (int64_t k = 0; k < row_span; k++) {
            const int64_t i = start + k;
            if (i >= p->numel) break;
            if (k && k % p->run == 0) fputc(' ', f);
            const char c = i < 0 ? ' ' : ss_picture_char(p->cell[i]);
            if (color && c != prev) fprintf(f, "\033[0m%s", ansi(c));
            prev = c;
            fputc(c, f);
        }
        fputs(color ? "\033[0m|\n" : "|\n", f);
        r++;
    }
    if (r < rows) {
        fprintf(f, "  ... %" PRId64 " more row%s", rows - r, rows - r == 1 ? "" : "s");
        for (int64_t i = 0; i < p->numel; i++)
            if (p->cell[i] & SS_CELL_WRONG) {
                if ((i - p->first) / row_span >= r) fprintf(f, " (first wrong cell: storage[%" PRId64 "])", i);
                break;
            }
        fputc('\n', f);
    }
}
