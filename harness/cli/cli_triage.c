/* cli_triage.c - `ssfuzz triage`: tonight's findings against the ledger, and the night's outputs. */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ss_cli.h"
#include "ss_files.h"
#include "ss_html.h"
#include "ss_replay.h"
#include "ss_text.h"

static void usage(FILE *f) {
    fprintf(f,
        "usage: ssfuzz triage [--found DIR] [--ledger FILE] [options]\n\n"
        "Classifies tonight's findings (the reproducers in DIR) against the findings ledger:\n"
        "new, known (open in the ledger), regressed (fixed in the ledger, failing again), and\n"
        "rechecks every ledger entry the campaign did not hit: fixed when its reproducer now\n"
        "agrees, unchecked when its target was not run tonight. Prints the lists.\n\n"
        "  --found DIR        tonight's report directory (reproducers, summary.json)\n"
        "  --ledger FILE      the findings ledger (default known/ledger.json)\n"
        "  --update           write tonight's facts into the ledger; copies new reproducers beside it\n"
        "  -t, --target T     a target tonight's campaign ran (repeatable; default: DIR/summary.json's)\n"
        "  --recheck-on T     recheck entries whose target was not run tonight on T (repeatable)\n"
        "  --recheck-time S   time limit of one recheck (default 60)\n"
        "  --date D --commit C --torch V   recorded in the ledger, history and verdict\n"
        "  --regress-exit N --fuzz-exit N  exit codes of tonight's regress and fuzz (default 0)\n"
        "  --verdict FILE     verdict.json: exit code, reason, one list per class\n"
        "  --junit FILE       JUnit XML: one testcase per finding (new/known/regressed fail)\n"
        "  --sarif FILE       SARIF 2.1.0: open findings, stable partialFingerprints\n"
        "  --sarif-base FILE  add them to this SARIF file's run (regress's)\n"
        "  --history FILE     append tonight's line (JSON Lines)\n"
        "  --html FILE        self-contained HTML report with the history's trend\n"
        "  --explain DIR      write each open finding's `ssfuzz explain` output into DIR\n"
        "  -q, --quiet        print only the verdict line\n\n"
        "exit: 0 nothing new (known findings only, or none), 1 a new or regressed finding or a\n"
        "      failed regress, 2 usage, an unreadable ledger or directory, or a tool error\n"
        "      (--regress-exit or --fuzz-exit above 1)\n");
}

typedef struct args {
    ss_triage_opts o;
    const char *ledger, *verdict, *junit, *sarif, *sarif_base, *history, *html, *explain;
    ss_night night;
    int quiet;
} args;

static int add_target(const ss_target **set, size_t *n, const char *name, const char *opt) {
    ss_error err;
    if (ss_target_set_add(set, n, name, opt, &err) == 0) return 0;
    fprintf(stderr, "ssfuzz triage: %s: %s\n", err.field, err.msg);
    return -1;
}

static int parse_exit(const char *opt, const char *s, int *out) {
    uint64_t v;
    ss_error err;
    if (ss_parse_u64(opt, s, &v, &err) || v > 255) { fprintf(stderr, "ssfuzz triage: %s: must be 0..255\n", opt); return -1; }
    *out = (int)v;
    return 0;
}

static int parse(args *a, int argc, char **argv) {
    enum { O_LEDGER = 256, O_UPDATE, O_TARGET, O_RECHECK, O_RTIME, O_DATE, O_COMMIT, O_TORCH, O_REXIT, O_FEXIT,
           O_VERDICT, O_JUNIT, O_SARIF, O_SBASE, O_HISTORY, O_HTML, O_EXPLAIN, O_FOUND };
    static const struct option opts[] = {
        {"found", required_argument, 0, O_FOUND}, {"ledger", required_argument, 0, O_LEDGER},
        {"update", no_argument, 0, O_UPDATE}, {"target", required_argument, 0, 't'},
        {"recheck-on", required_argument, 0, O_RECHECK}, {"recheck-time", required_argument, 0, O_RTIME},
        {"date", required_argument, 0, O_DATE}, {"commit", required_argument, 0, O_COMMIT},
        {"torch", required_argument, 0, O_TORCH}, {"regress-exit", required_argument, 0, O_REXIT},
        {"fuzz-exit", required_argument, 0, O_FEXIT}, {"verdict", required_argument, 0, O_VERDICT},
        {"junit", required_argument, 0, O_JUNIT}, {"sarif", required_argument, 0, O_SARIF},
        {"sarif-base", required_argument, 0, O_SBASE}, {"history", required_argument, 0, O_HISTORY},
        {"html", required_argument, 0, O_HTML}, {"explain", required_argument, 0, O_EXPLAIN},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":t:qh", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case O_FOUND: a->o.found_dir = optarg; break;
        case O_LEDGER: a->ledger = optarg; break;
        case O_UPDATE: a->o.update = 1; break;
        case 't': if (add_target(a->o.tonight, &a->o.n_tonight, optarg, "--target")) return -1; break;
        case O_RECHECK: if (add_target(a->o.recheck_on, &a->o.n_recheck_on, optarg, "--recheck-on")) return -1; break;
        case O_RTIME:
            a->o.recheck_seconds = strtod(optarg, &end);
            if (!*optarg || *end || !(a->o.recheck_seconds >= 1 && a->o.recheck_seconds <= 86400)) {
                fprintf(stderr, "ssfuzz triage: --recheck-time: must be 1..86400 seconds\n");
                return -1;
            }
            break;
        case O_DATE: snprintf(a->night.date, sizeof a->night.date, "%s", optarg); break;
        case O_COMMIT: snprintf(a->night.commit, sizeof a->night.commit, "%s", optarg); break;
        case O_TORCH: snprintf(a->night.torch, sizeof a->night.torch, "%s", optarg); break;
        case O_REXIT: if (parse_exit("--regress-exit", optarg, &a->night.regress_rc)) return -1; break;
        case O_FEXIT: if (parse_exit("--fuzz-exit", optarg, &a->night.fuzz_rc)) return -1; break;
        case O_VERDICT: a->verdict = optarg; break;
        case O_JUNIT: a->junit = optarg; break;
        case O_SARIF: a->sarif = optarg; break;
        case O_SBASE: a->sarif_base = optarg; break;
        case O_HISTORY: a->history = optarg; break;
        case O_HTML: a->html = optarg; break;
        case O_EXPLAIN: a->explain = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'h': usage(stdout); return 1;
        case ':': fprintf(stderr, "ssfuzz triage: %s needs a value (ssfuzz triage --help)\n", argv[optind - 1]); return -1;
        default: fprintf(stderr, "ssfuzz triage: unknown option '%s' (ssfuzz triage --help)\n", argv[optind - 1]); return -1;
        }
    }
    if (optind < argc) { fprintf(stderr, "ssfuzz triage: unexpected argument '%s'\n", argv[optind]); return -1; }
    return 0;
}

/* Tonight's targets from DIR/summary.json's "targets" (every campaign's, merged). */
static void targets_from_summary(args *a) {
    char path[4200], *text;
    size_t len;
    ss_error err;
    snprintf(path, sizeof path, "%s/summary.json", a->o.found_dir);
    if (ss_read_file(path, (size_t)64 << 20, &text, &len, &err)) return;
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(text);
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "targets"));
    char list[4096];
    snprintf(list, sizeof list, "%s", s ? s : "");
    cJSON_Delete(root);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const ss_target *t = ss_target_find(tok);
        if (t) ss_target_set_put(a->o.tonight, &a->o.n_tonight, t);   /* full: the rest go unlisted */
    }
}

/* `ssfuzz explain` of an open finding into DIR/STEM.txt, in a child (it may crash). */
static void explain_item(const char *dir, ss_triage_item *it) {
    char stem[300], path[4400];
    ss_triage_item_stem(it, stem, sizeof stem);
    snprintf(path, sizeof path, "%s/%s.txt", dir, stem);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(2);
        alarm(60);
        char *av[] = {"explain", it->reproducer, "--target", it->target, "--color", "never",
                      it->schedule[0] ? "--schedule" : NULL, it->schedule, NULL};
        const int ac = it->schedule[0] ? 8 : 6;
        fflush(NULL);
        _exit(ss_cmd_explain(ac, av) > 3 ? 2 : 0);
    }
    int st;
    if (pid > 0 && waitpid(pid, &st, 0) == pid) {
        const char *base = strrchr(dir, '/');
        snprintf(it->explain, sizeof it->explain, "%.200s/%.90s.txt", base ? base + 1 : dir, stem);
    }
}

static void print_lists(const ss_triage *t, const ss_night *n, const char *ledger, int quiet) {
    static const ss_triage_class order[] = {SS_TRIAGE_NEW, SS_TRIAGE_REGRESSED, SS_TRIAGE_KNOWN, SS_TRIAGE_FIXED,
                                            SS_TRIAGE_UNCHECKED};
    for (size_t k = 0; !quiet && k < sizeof order / sizeof order[0]; k++)
        for (size_t i = 0; i < t->n; i++) {
            const ss_triage_item *it = &t->it[i];
            if (it->cls != order[k]) continue;
            /* the ledger, tonight's files and their names are untrusted text: shown inert */
            char sig[4 * sizeof it->signature], repro[sizeof it->reproducer], since[4 * sizeof it->first_seen],
                detail[4 * sizeof it->detail];
            ss_text_inert(it->signature, sig, sizeof sig);
            ss_text_inert(it->reproducer, repro, sizeof repro);
            ss_text_inert(it->first_seen, since, sizeof since);
            ss_text_inert(it->detail, detail, sizeof detail);
            printf("%-9s %s  %s%s%s%s%s\n", ss_triage_class_name(it->cls), sig, repro, since[0] ? "  since " : "",
                   since, detail[0] ? "  " : "", detail);
        }
    printf("triage: %zu new, %zu regressed, %zu known, %zu fixed, %zu unchecked, %zu still fixed (ledger %s) "
           "-> exit %d: %s\n", t->count[SS_TRIAGE_NEW], t->count[SS_TRIAGE_REGRESSED], t->count[SS_TRIAGE_KNOWN],
           t->count[SS_TRIAGE_FIXED], t->count[SS_TRIAGE_UNCHECKED], t->count[SS_TRIAGE_CLOSED], ledger,
           n->exit_code, n->verdict);
}

static int outputs(args *a, ss_triage *t, ss_error *err) {
    if (a->explain) {
        SS_TRY(ss_ensure_writable_dir(a->explain, err));
        for (size_t i = 0; i < t->n; i++)
            if (t->it[i].cls == SS_TRIAGE_NEW || t->it[i].cls == SS_TRIAGE_KNOWN || t->it[i].cls == SS_TRIAGE_REGRESSED)
                explain_item(a->explain, &t->it[i]);
    }
    if (a->verdict) SS_TRY(ss_triage_write_verdict(a->verdict, &a->night, t, err));
    if (a->junit) SS_TRY(ss_triage_write_junit(a->junit, t, err));
    if (a->sarif) SS_TRY(ss_triage_write_sarif(a->sarif, a->sarif_base, t, err));
    if (a->history) SS_TRY(ss_history_append(a->history, &a->night, t, err));
    if (a->html) {
        ss_history_row *rows = NULL;
        size_t n = 0;
        if (a->history) SS_TRY(ss_history_read(a->history, 30, &rows, &n, err));
        const int rc = ss_html_write(a->html, &a->night, t, rows, n, err);
        free(rows);
        SS_TRY(rc);
    }
    return 0;
}

int ss_cmd_triage(int argc, char **argv) {
    args a;
    memset(&a, 0, sizeof a);
    a.ledger = "known/ledger.json";
    a.o.recheck_seconds = 60;
    const int pr = parse(&a, argc, argv);
    if (pr) return pr > 0 ? SS_EXIT_OK : SS_EXIT_USAGE;
    if (!a.night.date[0]) {
        const time_t now = time(NULL);
        strftime(a.night.date, sizeof a.night.date, "%Y-%m-%d", gmtime(&now));
    }
    a.o.date = a.night.date;
    a.o.commit = a.night.commit;
    if (a.o.found_dir) {
        struct stat st;
        if (stat(a.o.found_dir, &st) || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "ssfuzz triage: --found %s: not a directory\n", a.o.found_dir);
            return SS_EXIT_USAGE;
        }
        if (!a.o.n_tonight) targets_from_summary(&a);
        ss_night_read_summary(a.o.found_dir, &a.night);
    }
    ss_ledger l;
    ss_triage t;
    ss_error err;
    if (ss_ledger_load(a.ledger, &l, &err)) {
        fprintf(stderr, "ssfuzz triage: %s: %s\n", err.field, err.msg);
        return SS_EXIT_USAGE;
    }
    int rc = ss_triage_run(&l, &a.o, &t, &err);
    if (!rc && a.o.update) rc = ss_ledger_save(&l, &err);
    if (!rc) {
        ss_night_verdict(&a.night, &t);
        rc = outputs(&a, &t, &err);
        print_lists(&t, &a.night, a.ledger, a.quiet);
    }
    if (rc) fprintf(stderr, "ssfuzz triage: %s: %s\n", err.field, err.msg);
    const int code = rc ? SS_EXIT_USAGE : a.night.exit_code;
    ss_triage_free(&t);
    ss_ledger_free(&l);
    return code;
}
