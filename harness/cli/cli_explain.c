/* cli_explain.c - `ssfuzz explain`: a case's plan, validity, overlap class and memory map, then each target's wrong cells. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_opts.h"
#include "ss_cli.h"
#include "ss_compare.h"
#include "ss_picture.h"
#include "ss_plan_build.h"
#include "ss_program_py.h"
#include "ss_program_ref.h"
#include "ss_pyexpr.h"
#include "ss_escape.h"
#include "ss_replay.h"
#include "ss_text.h"
#include "ss_wrong_cells.h"

/* Print `first` then text, word-wrapped at 80 columns, continuation lines indented by `indent`. */
/* The length of the word at p: up to the next space, or for Python up to the
 * next space inside brackets (where a statement may break: an implicit line
 * continuation); depth and quote carry the bracket state across words. */
static size_t word_at(const char *p, int python, int *depth, char *quote) {
    if (!python) return strcspn(p, " ");
    size_t n = 0;
    for (; p[n] && !(p[n] == ' ' && *depth > 0 && !*quote); n++) {
        const char ch = p[n];
        if (*quote) { if (ch == *quote) *quote = 0; }
        else if (ch == '\'' || ch == '"') *quote = ch;
        else if (ch == '(' || ch == '[' || ch == '{') ++*depth;
        else if ((ch == ')' || ch == ']' || ch == '}') && *depth > 0) --*depth;
    }
    return n;
}

/* text after `first`, broken at 80 columns between words, continued at
 * `indent`; a Python statement (python 1) only where it still pastes as
 * Python, so a line with no such place is left long. */
static void wrapped_as(const char *first, const char *text, int indent, int python) {
    int col = printf("%s", first), depth = 0;
    char quote = 0;
    const char *p = text;
    while (*p) {
        const size_t word = word_at(p, python, &depth, &quote);
        if (p != text && col + 1 + (int)word > 80) col = printf("\n%*s", indent, "") - 1;
        else if (p != text) col += printf(" ");
        col += printf("%.*s", (int)word, p);
        p += word;
        while (*p == ' ') p++;
    }
    printf("\n");
}

static void wrapped(const char *first, const char *text, int indent) { wrapped_as(first, text, indent, 0); }

static void print_view(const char *label, const ss_view *v) {
    printf("  %-7s offset %" PRId64 ", sizes [", label, v->offset);
    for (int d = 0; d < v->ndim; d++) printf("%s%" PRId64, d ? ", " : "", v->sizes[d]);
    printf("], strides [");
    for (int d = 0; d < v->ndim; d++) printf("%s%" PRId64, d ? ", " : "", v->strides[d]);
    printf("]\n");
}

static void print_bound(const char *name, int has, int64_t v) {
    if (has) printf(", %s %" PRId64, name, v);
    else printf(", %s None", name);
}

static void print_meta(const ss_case *c) {
    static const char *const keys[] = {"title", "upstream", "found_by", "target", "schedule", "signature"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(c->meta, keys[i]);
        if (!cJSON_IsString(it)) continue;
        char clean[300], label[16];
        ss_text_sanitize(it->valuestring, clean, sizeof clean);
        snprintf(label, sizeof label, "  %-9s ", keys[i]);
        wrapped(label, clean, 12);
    }
}

static const char *overlap_words(ss_overlap o) {
    switch (o) {
    case SS_OVL_SEPARATE: return "src has its own storage: nothing to stage";
    case SS_OVL_DISJOINT: return "src shares the storage but no element with the input view";
    case SS_OVL_SAME_VIEW: return "src is exactly the written slice: a copy onto itself";
    case SS_OVL_PARTIAL: return "src shares elements with the written slice: an in-place copy must stage src";
    case SS_OVL_OUTSIDE_SLICE: return "src shares elements with the input, none with the written slice";
    }
    return "?";
}

/* The program as Python lines (x and src as the case's views), and what the reference makes of it. */
/* One printed Python line, broken after ", " inside brackets where it would
 * pass 80 columns: still valid Python (an implicit continuation), indented
 * four more than the line. A line with no such place is printed whole. */
static void py_line(const char *line, size_t len) {
    size_t indent = 0, start = 0, width = 0;
    while (indent < len && line[indent] == ' ') indent++;
    for (;;) {
        size_t best = 0, depth = 0;
        for (size_t i = start; i + 1 < len; i++) {
            depth += line[i] == '(' || line[i] == '[';
            depth -= depth && (line[i] == ')' || line[i] == ']');
            if (depth && line[i] == ',' && line[i + 1] == ' ' && (width + i + 1 - start <= 80 || !best)) best = i + 1;
        }
        if (width + len - start <= 80 || !best) break;
        printf("%*s%.*s\n", (int)width, "", (int)(best - start), line + start);
        start = best + 1;   /* past the space */
        width = indent + 4;
    }
    printf("%*s%.*s\n", (int)width, "", (int)(len - start), line + start);
}

static void print_program_lines(const ss_case *c, const ss_plan *p) {
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) { ss_program_py_lines(stdout, c, p, "          "); return; }
    ss_program_py_lines(f, c, p, "          ");
    fclose(f);
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        py_line(line, nl ? (size_t)(nl - line) : strlen(line));
    }
    free(text);
}

static void print_program(const ss_case *c, const ss_plan *p, const ss_pyexpr *e) {
    /* x and src as python's names for the views (x = x[1:]; a whole storage needs no line) */
    const char *first = "program:  ";
    if (!e || strcmp(e->target, e->x)) { printf("%sx = %s\n", first, e ? e->target : "the input view"); first = "          "; }
    printf("%ssrc = %s\n", first, e ? e->rhs : "the src view");
    print_program_lines(c, p);
    ss_prog_result r;
    char line[400];
    switch (ss_prog_ref_check(c, p, &r)) {
    case SS_PROG_OK: snprintf(line, sizeof line, "runs; returns %d value%s", r.nret, r.nret == 1 ? "" : "s"); break;
    case SS_PROG_REFUSED:
        snprintf(line, sizeof line, "refused at program[%d] (%s): %s", r.step,
                 r.raises ? "PyTorch raises" : "no defined result", r.why);
        break;
    case SS_PROG_INVALID: snprintf(line, sizeof line, "invalid: %s: %s", r.err.field, r.err.msg); break;
    default: snprintf(line, sizeof line, "not checked (out of memory)"); break;
    }
    ss_prog_result_free(&r);
    wrapped("meaning:  ", line, 10);
}

static void print_plan(const char *path, const ss_case *c, const ss_plan *p) {
    const ss_op *op = &c->op;
    char shown[4096];   /* a file name is untrusted text too */
    ss_text_inert(path, shown, sizeof shown);
    printf("case %s\n", shown);
    print_meta(c);
    printf("stated:\n  dtype   %s (%zu byte%s)\n  storage input %" PRId64 " elements", ss_dtype_name(c->dtype),
           op->elem_size, op->elem_size == 1 ? "" : "s", op->input_storage_numel);
    if (op->src_aliased) printf("; src views the same storage\n");
    else printf("; src separate, %" PRId64 " elements\n", op->src_storage_numel);
    print_view("input", &op->input);
    print_view("src", &op->src);
    printf("  op      dim %" PRId64, op->dim);
    print_bound("start", op->has_start, op->start);
    print_bound("end", op->has_end, op->end);
    printf(", step %" PRId64 "\n", op->step);
    printf("normalized:\n  slice   dim %d, start %" PRId64 ", end %" PRId64 ", step %" PRId64
           ", %" PRId64 " of %" PRId64 " along the dim\n", p->dim, p->start, p->end, p->step, p->slice_len,
           op->input.sizes[p->dim]);
    print_view("written", &p->slice);
    printf("  numel   input view %" PRId64 ", slice %" PRId64 "\n", p->input_numel, p->slice_numel);
    ss_pyexpr e;
    if (ss_pyexpr_derive(c, &e) == 0) {
        wrapped_as("python:   ", e.line, 10, 1);
        char shapes[512];
        size_t k = (size_t)snprintf(shapes, sizeof shapes, "%s = the input storage as shape", e.x);
        for (int d = 0; d < e.x_ndim && k < sizeof shapes; d++)
            k += (size_t)snprintf(shapes + k, sizeof shapes - k, "%s%" PRId64, d ? "x" : " ", e.x_shape[d]);
        if (!op->src_aliased && k < sizeof shapes) {
            k += (size_t)snprintf(shapes + k, sizeof shapes - k, "; %s = the src storage as shape", e.y);
            for (int d = 0; d < e.y_ndim && k < sizeof shapes; d++)
                k += (size_t)snprintf(shapes + k, sizeof shapes - k, "%s%" PRId64, d ? "x" : " ", e.y_shape[d]);
        }
        if (!e.exact && k < sizeof shapes) snprintf(shapes + k, sizeof shapes - k, " (as_strided: no indexing spells a view)");
        wrapped("          ", shapes, 10);
    }
    if (c->program) print_program(c, p, ss_pyexpr_derive(c, &e) == 0 ? &e : NULL);
    if (p->internal_overlap && c->program)   /* only a write into x is ill-defined; reads of x are not */
        wrapped("valid:    yes - ", "a program on an input view with internal overlap (two indices share a "
                "storage element): a write into it is refused, a read of it runs (meaning: says which)", 10);
    else if (p->internal_overlap)
        wrapped("valid:    no - ", "the input view has internal overlap (two indices share a storage element, "
                "e.g. a stride-0 dim): an in-place write is ill-defined, every target must reject it", 10);
    else
        printf("valid:    yes\n");
    char line[256];
    const ss_overlap o = ss_plan_overlap(p);
    snprintf(line, sizeof line, "%s - %s", ss_overlap_name(o), overlap_words(o));
    wrapped("overlap:  ", line, 10);
}

/* The map of one storage; with runs, the cells any of them got wrong. A
 * disagreeing run is run again here to mark its cells, so only one target
 * storage is alive at a time (replay keeps no final storages for explain). */
static int draw(const ss_plan *plan, int which, const ss_replay_run *runs, size_t n,
                ss_check_ctx *ck, ss_run_status ref_status, uint64_t seed, int color, int64_t rows) {
    ss_picture pic;
    if (ss_picture_build(plan, which, &pic)) return -1;
    const size_t es = plan->op.elem_size;
    for (size_t i = 0; i < n; i++) {
        const ss_target *t = runs[i].target;
        ss_run_opts ro = {SS_SCHED_FORWARD, seed, 0};
        if (!t || (runs[i].res.verdict != SS_MISMATCH && runs[i].res.verdict != SS_GUARD_WRITE) ||
            (runs[i].schedule && (ro.schedule = ss_target_schedule_index(t, runs[i].schedule)) < 0))
            continue;
        ss_check_result res;
        ss_check_target(ck, plan, ref_status, t, &ro, &res);
        const ss_storage *fin = which == SS_STORAGE_INPUT ? &ck->tgt_in : &ck->tgt_src;
        const ss_storage *ref = which == SS_STORAGE_INPUT ? &ck->ref_in : &ck->ref_src;
        if (fin->bytes == ref->bytes)
            ss_picture_mark_wrong(&pic, ss_storage_data(ref), ss_storage_data(fin), es);
    }
    printf(" %s storage,", which == SS_STORAGE_INPUT ? "input" : "src");
    ss_picture_draw(stdout, &pic, color, rows);
    ss_picture_free(&pic);
    return 0;
}

/* One line per target, and a map of the cells it got wrong under any schedule. */
static void report_targets(ss_replay_ctx *rc, const ss_replay_case_result *r, int color, int64_t rows,
                           int values) {
    for (size_t k = 0; k < r->runs;) {
        size_t j = k, bad = 0;
        while (j < r->runs && r->run[j].target == r->run[k].target) bad += r->run[j++].res.verdict != SS_AGREE;
        const ss_replay_run *first = NULL;
        for (size_t i = k; i < j && !first; i++)
            if (r->run[i].res.verdict != SS_AGREE) first = &r->run[i];
        if (!first) {
            printf("%s: agrees (%zu run%s)\n", r->run[k].target->name, j - k, j - k == 1 ? "" : "s");
            k = j;
            continue;
        }
        char line[1024], detail[512];
        size_t n = (size_t)snprintf(line, sizeof line, "%s in %zu of %zu run%s (", ss_verdict_name(first->res.verdict),
                                    bad, j - k, j - k == 1 ? "" : "s");
        for (size_t i = k, c = 0; i < j && n < sizeof line; i++)
            if (r->run[i].res.verdict != SS_AGREE)
                n += (size_t)snprintf(line + n, sizeof line - n, "%s%s", c++ ? ", " : "",
                                      r->run[i].schedule ? r->run[i].schedule : "the run");
        if ((first->res.verdict == SS_MISMATCH || first->res.verdict == SS_GUARD_WRITE) && !first->res.program)
            ss_diff_format(&rc->plan, &first->res.diff, detail, sizeof detail);   /* a program's is in why */
        else
            ss_text_sanitize(first->res.why, detail, sizeof detail);
        if (n < sizeof line) snprintf(line + n, sizeof line - n, "): %s", detail);
        char head[96];
        snprintf(head, sizeof head, "%s: ", r->run[k].target->name);
        wrapped(head, line, 2);
        if (first->res.verdict == SS_MISMATCH || first->res.verdict == SS_GUARD_WRITE) {
            const uint64_t seed = rc->opts.seed;
            draw(&rc->plan, SS_STORAGE_INPUT, r->run + k, j - k, &rc->check, r->ref_status, seed, color, rows);
            if (!rc->plan.op.src_aliased)
                draw(&rc->plan, SS_STORAGE_SRC, r->run + k, j - k, &rc->check, r->ref_status, seed, color, rows);
        }
        if (values && (first->res.verdict == SS_MISMATCH || first->res.verdict == SS_GUARD_WRITE)) {
            printf("  wrong cells under %s:\n", first->schedule ? first->schedule : "the run");
            /* replay keeps no final storages for explain: run the first disagreeing run again */
            const ss_target *t = first->target;
            ss_run_opts ro = {SS_SCHED_FORWARD, rc->opts.seed, 0};
            if (t && (!first->schedule || (ro.schedule = ss_target_schedule_index(t, first->schedule)) >= 0)) {
                ss_check_result again;
                ss_check_target(&rc->check, &rc->plan, r->ref_status, t, &ro, &again);
                const int vt = first->res.diff.value_type;
                ss_wrong_cells_print(stdout, &rc->plan, vt, SS_STORAGE_INPUT, &rc->check.ref_in, &rc->check.tgt_in, rows);
                if (!rc->plan.op.src_aliased)
                    ss_wrong_cells_print(stdout, &rc->plan, vt, SS_STORAGE_SRC, &rc->check.ref_src, &rc->check.tgt_src, rows);
            }
        }
        k = j;
    }
}

static int set_color(void *color, const char *when, ss_error *err) {
    if (!strcmp(when, "always")) *(int *)color = 1;
    else if (!strcmp(when, "never")) *(int *)color = 0;
    else if (strcmp(when, "auto")) return ss_fail(err, "--color", "must be auto, always or never");
    return 0;
}

int ss_cmd_explain(int argc, char **argv) {
    ss_replay_opts o;
    ss_replay_opts_init(&o);
    o.use_meta = 1;
    int color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    uint64_t rows = 24;
    int values = 0;
    cli_opt opts[] = {
        CLI_REPLAY_OPTS(&o),
        CLI_OPT_UINT(0, "rows", "N", &rows, 1, 1000000, "draw at most N rows per storage (default 24)"),
        CLI_OPT_FLAG(0, "values", &values,
                     "list each wrong cell: expected and actual value (at most --rows per storage)"),
        CLI_OPT_CALL(0, "color", "WHEN", &color, set_color, "auto (a terminal without NO_COLOR), always, never"),
        CLI_OPT_END};
    const cli_cmd cmd = {"explain", "CASE [options]", "Shows a case's plan, validity, overlap class and memory "
                         "map, then each target's result and the cells it got wrong.",
                         "exit: 0 every run agrees, 1 a finding (mismatch, crash, timeout, ...), 2 invalid case or "
                         "usage,\n      3 a target cannot run here\n", opts, "one CASE", 1, 1};
    const int pr = cli_parse(&cmd, &argc, argv);
    if (pr >= 0) return pr;
    o.keep_finals = values;   /* --values lists the cells of a run's final storages */
    const char *path = argv[1];
    ss_replay_ctx rc;
    ss_replay_ctx_init(&rc, &o);
    ss_error err;
    if (ss_case_load(path, &rc.c, &err) || ss_plan_build_limited(&rc.c.op, o.max_bytes, &rc.plan, &err)) {
        fprintf(stderr, "%s: invalid: %s: %s\n", path, err.field, err.msg);
        ss_replay_ctx_free(&rc);
        return SS_EXIT_USAGE;
    }
    ss_replay_case_result r;
    ss_replay_loaded(&rc, path, &r);
    if (!r.ran) {
        const int code = r.exit_code == SS_EXIT_TARGET ? SS_EXIT_TARGET : SS_EXIT_USAGE;
        if (code == SS_EXIT_TARGET) {
            if (r.report) fputs(r.report, stderr);
            if (r.diag) fputs(r.diag, stderr);
        }
        else fprintf(stderr, "%s: invalid: %s: %s\n", path, r.err.field, r.err.msg);
        ss_replay_case_result_free(&r);
        ss_replay_ctx_free(&rc);
        return code;
    }
    print_plan(path, &rc.c, &rc.plan);
    printf("map (one group per innermost run of the view):\n");
    ss_picture_legend(stdout, color);
    if (draw(&rc.plan, SS_STORAGE_INPUT, NULL, 0, &rc.check, r.ref_status, o.seed, color, (int64_t)rows) ||
        (!rc.plan.op.src_aliased &&
         draw(&rc.plan, SS_STORAGE_SRC, NULL, 0, &rc.check, r.ref_status, o.seed, color, (int64_t)rows)))
        fprintf(stderr, "ssfuzz explain: out of memory drawing the map\n");
    printf("targets (reference %s):\n", r.ref_status == SS_RUN_REJECTED ? "rejects the case" : "ran");
    if (r.note[0]) printf("  %s\n", r.note);
    report_targets(&rc, &r, color, (int64_t)rows, values);
    const int code = r.exit_code;
    ss_replay_case_result_free(&r);
    ss_replay_ctx_free(&rc);
    return code;
}
