/* cli_triage.c - `ssfuzz triage`: tonight's findings against the ledger, and the night's outputs. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "cli_opts.h"
#include "ss_cli.h"
#include "ss_files.h"
#include "ss_html.h"
#include "ss_replay.h"
#include "ss_text.h"

typedef struct args {
    ss_triage_opts o;
    const char *ledger, *verdict, *junit, *sarif, *sarif_base, *history, *html, *explain;
    ss_night night;
    int quiet;
} args;

static int add_tonight(void *o, const char *name, ss_error *err) {
    ss_triage_opts *t = o;
    return ss_target_set_add(t->tonight, &t->n_tonight, name, "--target", err);
}

static int add_recheck(void *o, const char *name, ss_error *err) {
    ss_triage_opts *t = o;
    return ss_target_set_add(t->recheck_on, &t->n_recheck_on, name, "--recheck-on", err);
}

/* Returns -1 to go on, else the exit code. */
static int parse(args *a, int argc, char **argv) {
    const char *date = NULL, *commit = NULL, *torch = NULL;
    cli_opt opts[] = {
        CLI_OPT_STR(0, "found", "DIR", &a->o.found_dir, "tonight's report directory (reproducers, summary.json)"),
        CLI_OPT_STR(0, "ledger", "FILE", &a->ledger, "the findings ledger (default known/ledger.json)"),
        CLI_OPT_FLAG(0, "update", &a->o.update,
                     "write tonight's facts into the ledger; copies new reproducers beside it"),
        CLI_OPT_CALL('t', "target", "T", &a->o, add_tonight,
                     "a target tonight's campaign ran (repeatable; default: DIR/summary.json's)"),
        CLI_OPT_CALL(0, "recheck-on", "T", &a->o, add_recheck,
                     "recheck entries whose target was not run tonight on T (repeatable)"),
        CLI_OPT_SECS(0, "recheck-time", "S", &a->o.recheck_seconds, 1, 86400, "time limit of one recheck (default 60)"),
        CLI_OPT_STR(0, "date", "D", &date, "tonight's date, recorded in the ledger, history and verdict (default today, UTC)"),
        CLI_OPT_STR(0, "commit", "C", &commit, "the commit tested, recorded likewise"),
        CLI_OPT_STR(0, "torch", "V", &torch, "the torch version tested, recorded likewise"),
        CLI_OPT_UINT(0, "regress-exit", "N", &a->night.regress_rc, 0, 255, "exit code of tonight's regress (default 0)"),
        CLI_OPT_UINT(0, "fuzz-exit", "N", &a->night.fuzz_rc, 0, 255, "exit code of tonight's fuzz (default 0)"),
        CLI_OPT_STR(0, "verdict", "FILE", &a->verdict, "verdict.json: exit code, reason, one list per class"),
        CLI_OPT_STR(0, "junit", "FILE", &a->junit, "JUnit XML: one testcase per finding (new/known/regressed fail)"),
        CLI_OPT_STR(0, "sarif", "FILE", &a->sarif, "SARIF 2.1.0: open findings, stable partialFingerprints"),
        CLI_OPT_STR(0, "sarif-base", "FILE", &a->sarif_base, "add them to this SARIF file's run (regress's)"),
        CLI_OPT_STR(0, "history", "FILE", &a->history, "append tonight's line (JSON Lines)"),
        CLI_OPT_STR(0, "html", "FILE", &a->html, "self-contained HTML report with the history's trend"),
        CLI_OPT_STR(0, "explain", "DIR", &a->explain, "write each open finding's `ssfuzz explain` output into DIR"),
        CLI_OPT_FLAG('q', "quiet", &a->quiet, "print only the verdict line"),
        CLI_OPT_END};
    const cli_cmd cmd = {"triage", "[--found DIR] [--ledger FILE] [options]",
        "Classifies tonight's findings (the reproducers in DIR) against the findings ledger:\n"
        "new, known (open in the ledger), regressed (fixed in the ledger, failing again), and\n"
        "rechecks every ledger entry the campaign did not hit: fixed when its reproducer now\n"
        "agrees, unchecked when its target was not run tonight. Prints the lists.",
        "exit: 0 nothing new (known findings only, or none), 1 a new or regressed finding or a\n"
        "      failed regress, 2 usage, an unreadable ledger or directory, or a tool error\n"
        "      (--regress-exit or --fuzz-exit above 1)\n", opts, "", 0, 0};
    const int pr = cli_parse(&cmd, &argc, argv);
    if (pr >= 0) return pr;
    if (date) snprintf(a->night.date, sizeof a->night.date, "%s", date);
    if (commit) snprintf(a->night.commit, sizeof a->night.commit, "%s", commit);
    if (torch) snprintf(a->night.torch, sizeof a->night.torch, "%s", torch);
    return -1;
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
    if (pr >= 0) return pr;
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
