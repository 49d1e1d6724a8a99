/* cli_opts.c - the one option parser of every subcommand, and the --help it prints from the same table. */
#include <stdlib.h>
#include <string.h>
#include "cli_opts.h"
#include "ss_exit.h"
#include "ss_replay.h"

enum { HELP_COL = 24, WIDTH = 80 };

/* text from column col, broken between words at WIDTH, continued at HELP_COL. */
static void wrap(FILE *f, int col, const char *text) {
    for (const char *p = text; *p;) {
        const size_t word = strcspn(p, " ");
        if (p != text && col + 1 + (int)word > WIDTH) col = fprintf(f, "\n%*s", HELP_COL, "") - 1;
        else if (p != text) col += fprintf(f, " ");
        col += fprintf(f, "%.*s", (int)word, p);
        p += word;
        while (*p == ' ') p++;
    }
    fputc('\n', f);
}

static void print_opt(FILE *f, char s, const char *name, const char *arg, const char *help) {
    int col = s ? fprintf(f, "  -%c, ", s) : fprintf(f, "      ");
    col += fprintf(f, "--%s%s%s", name, arg ? " " : "", arg ? arg : "");
    col += fprintf(f, "%*s", col < HELP_COL - 2 ? HELP_COL - col : 2, "");
    wrap(f, col, help);
}

void cli_print_opts(const cli_opt *opts, FILE *f) {
    for (const cli_opt *o = opts; o->name; o++) print_opt(f, o->short_name, o->name, o->arg, o->help);
}

void cli_usage(const cli_cmd *c, FILE *f) {
    fprintf(f, "usage: ssfuzz %s%s", c->name, c->usage[0] ? " " : "");
    for (const char *p = c->usage; *p; p++) {
        fputc(*p, f);
        if (*p == '\n') fprintf(f, "%*s", (int)strlen(c->name) + 14, "");
    }
    fprintf(f, "\n\n");
    if (c->about) fprintf(f, "%s\n\n", c->about);
    cli_print_opts(c->opts, f);
    print_opt(f, 'h', "help", NULL, "print this help (global options: ssfuzz help)");
    fprintf(f, "\n%s", c->exits);
}

int cli_seen(const cli_opt *opts, const char *name) {
    for (; opts->name; opts++)
        if (!strcmp(opts->name, name)) return opts->seen;
    return 0;
}

/* "must be in [1, 2^40]": a large power of two as one. */
static void bound(char *out, size_t n, uint64_t v) {
    int k = 0;
    while (k < 63 && ((uint64_t)1 << k) < v) k++;
    if (v >= ((uint64_t)1 << 20) && v == ((uint64_t)1 << k)) snprintf(out, n, "2^%d", k);
    else snprintf(out, n, "%llu", (unsigned long long)v);
}

/* Stores arg as option o wants it; 0, or -1 with err filled (empty msg: reported). */
static int store(cli_opt *o, const char *arg, ss_error *err) {
    uint64_t v;
    char *end, lo[32], hi[32];
    switch (o->kind) {
    case CLI_FLAG: *(int *)o->dest = o->val; return 0;
    case CLI_STR: *(const char **)o->dest = arg; return 0;
    case CLI_CALL: return o->call(o->dest, arg, err);
    case CLI_SECS: {
        const double s = strtod(arg, &end);
        if (!*arg || *end || !(o->min ? s >= (double)o->min : s > 0) || !(s <= (double)o->max))
            return ss_fail(err, err->field, "must be seconds in %s%llu, %llu] (got '%s')", o->min ? "[" : "(",
                           (unsigned long long)o->min, (unsigned long long)o->max, arg);
        *(double *)o->dest = s;
        return 0;
    }
    case CLI_UINT: {
        /* a 4-byte destination is an int or an unsigned: past INT32_MAX it would wrap */
        const uint64_t max = o->size == sizeof(uint64_t) || o->max <= INT32_MAX ? o->max : INT32_MAX;
        if (ss_parse_u64(err->field, arg, &v, err)) return -1;
        if (v < o->min || v > max) {
            bound(lo, sizeof lo, o->min);
            bound(hi, sizeof hi, max);
            if (max == UINT64_MAX) return ss_fail(err, err->field, "must be >= %s", lo);
            return ss_fail(err, err->field, "must be in [%s, %s]", lo, hi);
        }
        if (o->size == sizeof(uint64_t)) *(uint64_t *)o->dest = v;
        else *(uint32_t *)o->dest = (uint32_t)v;
        return 0;
    }
    }
    return -1;
}

static cli_opt *find_long(cli_opt *opts, const char *name, size_t len) {
    for (; opts->name; opts++)
        if (strlen(opts->name) == len && !strncmp(opts->name, name, len)) return opts;
    return NULL;
}

static cli_opt *find_short(cli_opt *opts, char s) {
    for (; opts->name; opts++)
        if (s && opts->short_name == s) return opts;
    return NULL;
}

/* One option word argv[*i] (its value may be argv[*i + 1]): -1 go on, else an exit code. */
static int one(const cli_cmd *c, int argc, char **argv, int *i) {
    const char *w = argv[*i], *inline_val = NULL;
    if (!strcmp(w, "--help")) { cli_usage(c, stdout); return SS_EXIT_OK; }
    for (const char *p = w + 1; p == w + 1 || (w[1] != '-' && *p); p++) {
        cli_opt *o;
        if (w[1] == '-') {
            const char *eq = strchr(w + 2, '=');
            o = find_long(c->opts, w + 2, eq ? (size_t)(eq - w - 2) : strlen(w + 2));
            inline_val = eq ? eq + 1 : NULL;
        } else {   /* -qt T, -tT: flags clustered, a value's option last */
            if (*p == 'h') { cli_usage(c, stdout); return SS_EXIT_OK; }
            o = find_short(c->opts, *p);
            inline_val = o && o->arg && p[1] ? p + 1 : NULL;
        }
        if (!o) {
            fprintf(stderr, "ssfuzz %s: unknown option '%s' (ssfuzz %s --help)\n", c->name, w, c->name);
            return SS_EXIT_USAGE;
        }
        ss_error err = {{0}, {0}};
        snprintf(err.field, sizeof err.field, "--%s", o->name);
        const char *arg = inline_val;
        if (o->arg && !arg && *i + 1 >= argc) {
            fprintf(stderr, "ssfuzz %s: --%s needs a value: %s (ssfuzz %s --help)\n", c->name, o->name, o->arg, c->name);
            return SS_EXIT_USAGE;
        }
        if (o->arg && !arg) arg = argv[++*i];
        if (!o->arg && inline_val) {
            fprintf(stderr, "ssfuzz %s: --%s takes no value (got '%s')\n", c->name, o->name, w);
            return SS_EXIT_USAGE;
        }
        o->seen = 1;
        if (store(o, arg, &err)) {
            if (err.msg[0]) fprintf(stderr, "ssfuzz %s: %s: %s\n", c->name, err.field, err.msg);
            return SS_EXIT_USAGE;
        }
        if (o->arg) break;   /* the rest of a short cluster was its value */
    }
    return -1;
}

int cli_parse(const cli_cmd *c, int *argc, char **argv) {
    int words = 0;
    for (cli_opt *o = c->opts; o->name; o++) o->seen = 0;
    int i = 1;
    for (; i < *argc && strcmp(argv[i], "--"); i++) {
        if (argv[i][0] != '-' || !argv[i][1]) { argv[1 + words++] = argv[i]; continue; }   /* "-" is a word */
        const int rc = one(c, *argc, argv, &i);
        if (rc >= 0) return rc;
    }
    for (i++; i < *argc; i++) argv[1 + words++] = argv[i];   /* after "--": words only */
    argv[1 + words] = NULL;
    *argc = 1 + words;
    if (words > c->max_words)
        fprintf(stderr, "ssfuzz %s: unexpected argument '%s' (ssfuzz %s --help)\n", c->name, argv[1 + c->max_words], c->name);
    else if (words < c->min_words)
        fprintf(stderr, "ssfuzz %s: give %s (ssfuzz %s --help)\n", c->name, c->words, c->name);
    else return -1;
    return SS_EXIT_USAGE;
}

int cli_take_globals(const cli_opt *globals, int *argc, char **argv) {
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], "--")) {
            while (i < *argc) argv[out++] = argv[i++];
            break;
        }
        const cli_opt *g = globals;
        size_t len = 0;
        for (; g->name; g++) {
            len = strlen(g->name);
            if (!strncmp(argv[i], "--", 2) && !strncmp(argv[i] + 2, g->name, len) &&
                (argv[i][2 + len] == '\0' || argv[i][2 + len] == '=')) break;
        }
        if (!g->name) { argv[out++] = argv[i]; continue; }
        const char *v = argv[i][2 + len] == '=' ? argv[i] + 3 + len : (i + 1 < *argc ? argv[++i] : NULL);
        ss_error err;
        if (g->call(g->dest, v && *v ? v : NULL, &err)) return -1;
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

int cli_replay_target(void *o, const char *name, ss_error *err) { return ss_replay_add_target(o, name, err); }
int cli_replay_schedule(void *o, const char *name, ss_error *err) { return ss_replay_set_schedule(o, name, err); }
