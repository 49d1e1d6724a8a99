/* cli_merge.c - `ssfuzz merge`: shard directories into one summary and one reproducer per bug, then the ledger. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ss_cli.h"
#include "ss_merge.h"
#include "ss_text.h"

static void usage(FILE *f) {
    fprintf(f,
        "usage: ssfuzz merge [-o OUT] [--ledger FILE [--update]] DIR... [-- TRIAGE-OPTIONS]\n\n"
        "Folds the directories campaigns wrote (the shards of a Slurm job array or a CI matrix,\n"
        "or one shared --out holding summary-shard-I.json files) into OUT: one reproducer per\n"
        "bug (kind, target, schedule class, overlap class: the one already in OUT, else a\n"
        "minimized one, else the smallest), and OUT/summary.json: every run once, totals\n"
        "recomputed, the shards present and missing. Inputs are searched recursively and\n"
        "never changed.\n\n"
        "  -o, --out DIR      merge into DIR (default: the one DIR given; needed with several)\n"
        "      --keep-variants  one reproducer per shape of a bug (as fuzz --keep-variants wrote)\n"
        "      --ledger FILE  then classify the merged findings against the ledger, as\n"
        "                     `ssfuzz triage --found OUT --ledger FILE`: new, known, regressed, fixed\n"
        "      --update       and record them in the ledger (needs --ledger)\n"
        "  -q, --quiet        only the merge line (and triage's verdict line)\n"
        "  -- ARGS            more options for that triage (--junit F, --sarif F, --verdict F, ...)\n\n"
        "exit: 0 merged, nothing found (with --ledger: nothing new or regressed), 1 findings (with\n"
        "      --ledger: a new or regressed one), 2 usage, OUT not writable, or the merge is\n"
        "      incomplete: a shard without a summary or an unreadable summary (merged all the same)\n");
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The merged directory through `ssfuzz triage`: one ledger update for all shards. */
static int triage(const char *out, const char *ledger, int update, int quiet, int n_extra, char **extra) {
    char **av = calloc((size_t)n_extra + 9, sizeof *av);
    if (!av) { fprintf(stderr, "ssfuzz merge: out of memory\n"); return SS_EXIT_USAGE; }
    int ac = 0;
    av[ac++] = "triage";
    av[ac++] = "--found";
    av[ac++] = (char *)out;
    av[ac++] = "--ledger";
    av[ac++] = (char *)ledger;
    if (update) av[ac++] = "--update";
    if (quiet) av[ac++] = "-q";
    for (int i = 0; i < n_extra; i++) av[ac++] = extra[i];
    av[ac] = NULL;
    fflush(NULL);
    const int rc = ss_cmd_triage(ac, av);
    free(av);
    return rc;
}

static void report(const ss_merge_result *r, const char *out, double secs, int quiet) {
    printf("merge: %zu summar%s, %zu run%s (%zu seen twice), %zu case file%s: %zu unique finding%s kept "
           "(%zu copied), %llu cases, %ld hits (%.2f s) -> %s/summary.json\n",
           r->summaries, r->summaries == 1 ? "y" : "ies", r->runs, r->runs == 1 ? "" : "s", r->duplicate_runs,
           r->cases_read, r->cases_read == 1 ? "" : "s", r->bugs, r->bugs == 1 ? "" : "s", r->copied,
           (unsigned long long)r->cases, r->hits, secs, out);
    if (!quiet && r->shard_count && !r->mixed_counts)
        printf("shards: %zu of %llu\n", r->shards_present, (unsigned long long)r->shard_count);
    if (r->mixed_counts)
        fprintf(stderr, "ssfuzz merge: runs of different shard counts (N of I/N) merged: which shards are "
                "missing cannot be told\n");
    if (r->shards_missing)
        fprintf(stderr, "ssfuzz merge: incomplete: %zu of %llu shards have no summary (shard %s): a task that "
                "failed, was cancelled or never ran\n", r->shards_missing, (unsigned long long)r->shard_count,
                r->missing);
    if (r->unreadable)
        fprintf(stderr, "ssfuzz merge: incomplete: %zu summar%s unreadable (first: %s)\n", r->unreadable,
                r->unreadable == 1 ? "y" : "ies", r->problem);
    if (!r->summaries && !r->unreadable)
        fprintf(stderr, "ssfuzz merge: no summary.json or summary-shard-*.json in the directories given: "
                "reproducers only\n");
}

int ss_cmd_merge(int argc, char **argv) {
    const char *out = NULL, *ledger = NULL;
    int update = 0, quiet = 0;
    ss_merge_opts o = {0};
    /* options after `--` are triage's, untouched by getopt */
    int n_own = argc, n_extra = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) { n_own = i; n_extra = argc - i - 1; break; }
    enum { O_LEDGER = 256, O_UPDATE, O_VARIANTS };
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'}, {"ledger", required_argument, 0, O_LEDGER},
        {"update", no_argument, 0, O_UPDATE}, {"keep-variants", no_argument, 0, O_VARIANTS},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(n_own, argv, ":o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case O_LEDGER: ledger = optarg; break;
        case O_UPDATE: update = 1; break;
        case O_VARIANTS: o.keep_variants = 1; break;
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return SS_EXIT_OK;
        case ':': fprintf(stderr, "ssfuzz merge: %s needs a value (ssfuzz merge --help)\n", argv[optind - 1]); return SS_EXIT_USAGE;
        default: fprintf(stderr, "ssfuzz merge: unknown option '%s' (ssfuzz merge --help)\n", argv[optind - 1]); return SS_EXIT_USAGE;
        }
    }
    o.dirs = (const char *const *)argv + optind;
    o.n_dirs = (size_t)(n_own - optind);
    if (!o.n_dirs) { fprintf(stderr, "ssfuzz merge: give the directories to merge (ssfuzz merge --help)\n"); return SS_EXIT_USAGE; }
    if (!out && o.n_dirs > 1) {
        fprintf(stderr, "ssfuzz merge: %zu directories: say where to merge them with -o OUT\n", o.n_dirs);
        return SS_EXIT_USAGE;
    }
    if ((update || n_extra) && !ledger) {
        fprintf(stderr, "ssfuzz merge: %s needs --ledger FILE\n", update ? "--update" : "options after --");
        return SS_EXIT_USAGE;
    }
    o.out = out ? out : o.dirs[0];
    ss_merge_result r;
    ss_error err;
    const double t0 = now_s();
    if (ss_merge_run(&o, &r, &err)) {
        fprintf(stderr, "ssfuzz merge: %s: %s\n", err.field, err.msg);
        return SS_EXIT_USAGE;
    }
    report(&r, o.out, now_s() - t0, quiet);
    const int incomplete = r.shards_missing || r.unreadable;
    int rc = r.bugs ? SS_EXIT_FINDING : SS_EXIT_OK;
    if (ledger) rc = triage(o.out, ledger, update, quiet, n_extra, argv + n_own + 1);
    return incomplete ? SS_EXIT_USAGE : rc;
}
