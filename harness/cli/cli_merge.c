/* cli_merge.c - `ssfuzz merge`: shard directories into one summary and one reproducer per bug, then the ledger. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli_opts.h"
#include "ss_cli.h"
#include "ss_merge.h"
#include "ss_text.h"

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
    int n_own = argc, n_extra = 0;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) { n_own = i; n_extra = argc - i - 1; break; }
    cli_opt opts[] = {
        CLI_OPT_STR('o', "out", "DIR", &out, "merge into DIR (default: the one DIR given; needed with several)"),
        CLI_OPT_FLAG(0, "keep-variants", &o.keep_variants, "one reproducer per shape of a bug (as fuzz --keep-variants wrote)"),
        CLI_OPT_STR(0, "ledger", "FILE", &ledger, "then classify the merged findings against the ledger, as `ssfuzz "
                    "triage --found OUT --ledger FILE`: new, known, regressed, fixed; options after -- go to that "
                    "triage (--junit F, --sarif F, --verdict F, ...)"),
        CLI_OPT_FLAG(0, "update", &update, "and record them in the ledger (needs --ledger)"),
        CLI_OPT_FLAG('q', "quiet", &quiet, "only the merge line (and triage's verdict line)"),
        CLI_OPT_END};
    const cli_cmd cmd = {"merge", "[-o OUT] [--ledger FILE [--update]] DIR... [-- TRIAGE-OPTIONS]",
        "Folds the directories campaigns wrote (the shards of a Slurm job array or a CI matrix,\n"
        "or one shared --out holding summary-shard-I.json files) into OUT: one reproducer per\n"
        "bug (kind, target, schedule class, overlap class: the one already in OUT, else a\n"
        "minimized one, else the smallest), and OUT/summary.json: every run once, totals\n"
        "recomputed, the shards present and missing. Inputs are searched recursively and\n"
        "never changed.",
        "exit: 0 merged, nothing found (with --ledger: nothing new or regressed), 1 findings (with\n"
        "      --ledger: a new or regressed one), 2 usage, OUT not writable, or the merge is\n"
        "      incomplete: a shard without a summary or an unreadable summary (merged all the same)\n", opts,
        "the directories to merge", 1, INT_MAX};
    int n = n_own;
    const int pr = cli_parse(&cmd, &n, argv);   /* the words after `--` are triage's */
    if (pr >= 0) return pr;
    o.dirs = (const char *const *)argv + 1;
    o.n_dirs = (size_t)n - 1;
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
