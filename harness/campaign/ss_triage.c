/* ss_triage.c - classify tonight's findings against the ledger; recheck known reproducers in child processes. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ss_case.h"
#include "ss_exit.h"
#include "ss_files.h"
#include "ss_replay.h"
#include "ss_text.h"
#include "ss_triage.h"
#include "ss_vec.h"

const char *ss_triage_class_name(ss_triage_class c) {
    static const char *const names[SS_TRIAGE_CLASS_COUNT] = {"new", "known", "fixed", "regressed",
                                                             "unchecked", "closed"};
    return (unsigned)c < SS_TRIAGE_CLASS_COUNT ? names[c] : "?";
}

void ss_triage_free(ss_triage *t) {
    free(t->it);
    memset(t, 0, sizeof *t);
}

static ss_triage_item *item_for(ss_triage *t, const char *signature) {
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->it[i].signature, signature)) return &t->it[i];
    if (SS_GROW(t->it, t->cap, t->n + 1)) return NULL;
    ss_triage_item *it = &t->it[t->n++];
    memset(it, 0, sizeof *it);
    snprintf(it->signature, sizeof it->signature, "%s", signature);
    return it;
}

static const char *meta_str(const ss_case *c, const char *key) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c->meta, key));
    return s ? s : "";
}

/* Tonight's reproducers, one item per signature (the first file in sorted order shown). */
static int collect_tonight(const char *dir, ss_triage *t, ss_error *err) {
    ss_pathlist files = {0};
    if (ss_collect_cases(dir, &files, err)) {
        /* a readable directory without any case: a night without findings */
        DIR *d = opendir(dir);
        if (!d) return -1;
        closedir(d);
        ss_pathlist_free(&files);
        return 0;
    }
    int rc = 0;
    for (size_t i = 0; i < files.count && !rc; i++) {
        ss_case c;
        ss_case_init(&c);
        ss_error ignored;
        if (ss_case_load(files.paths[i], &c, &ignored) == 0 && meta_str(&c, "signature")[0] &&
            meta_str(&c, "target")[0]) {
            /* the file's words are untrusted: items, outputs and the ledger hold them
             * inert, cut to the item's fields before the signature is made of them (a
             * ledger entry read back makes the same one) */
            ss_triage_item *const none = NULL;
            char sig[160], kind[sizeof none->kind], target[sizeof none->target], schedule[sizeof none->schedule];
            ss_text_inert(meta_str(&c, "signature"), kind, sizeof kind);
            ss_text_inert(meta_str(&c, "target"), target, sizeof target);
            ss_text_inert(meta_str(&c, "schedule"), schedule, sizeof schedule);
            ss_ledger_signature(kind, target, schedule, sig, sizeof sig);
            ss_triage_item *it = item_for(t, sig);
            if (!it) rc = ss_fail(err, dir, "out of memory");
            else if (!it->reproducers_tonight++) {
                memcpy(it->kind, kind, sizeof kind);
                memcpy(it->target, target, sizeof target);
                memcpy(it->schedule, schedule, sizeof schedule);
                snprintf(it->found, sizeof it->found, "%s", files.paths[i]);
            }
        }
        ss_case_free(&c);
    }
    ss_pathlist_free(&files);
    return rc;
}

/* Child side of a recheck: replay, tell the parent one line, exit 0 agree, 1 fails,
 * 2 invalid reproducer, 3 target unavailable. */
static void recheck_child(int fd, const char *path, const ss_target *tg, const char *schedule) {
    char line[300] = "";
    int code;
    const char *why = tg->unavailable(tg);
    ss_replay_opts o;
    ss_replay_opts_init(&o);
    o.targets[0] = tg;
    o.n_targets = 1;
    if (tg->scheduled && schedule[0] && ss_target_schedule_index(tg, schedule) >= 0) {
        o.all_schedules = 0;
        snprintf(o.schedule, sizeof o.schedule, "%s", schedule);
    }
    if (why) {
        snprintf(line, sizeof line, "%s unavailable here: %s", tg->name, why);
        code = 3;
    } else {
        ss_replay_ctx rc;
        ss_replay_ctx_init(&rc, &o);
        ss_replay_case_result r;
        ss_replay_file(&rc, path, &r);
        code = r.exit_code == SS_EXIT_OK ? 0 : r.exit_code == SS_EXIT_USAGE ? 2 : 1;
        if (code == 2) snprintf(line, sizeof line, "reproducer invalid: %.60s: %.200s", r.err.field, r.err.msg);
        for (size_t i = 0; i < r.runs && !line[0]; i++)
            if (r.run[i].res.verdict != SS_AGREE)
                snprintf(line, sizeof line, "%s on %s%s%s", ss_verdict_name(r.run[i].res.verdict), tg->name,
                         r.run[i].schedule ? " under " : "", r.run[i].schedule ? r.run[i].schedule : "");
        if (code == 0) snprintf(line, sizeof line, "agrees on %s", tg->name);
    }
    if (write(fd, line, strlen(line)) < 0) code = 2;
    _exit(code);
}

/* 0 agrees, 1 still fails, -1 not rechecked; `detail` says what happened. */
static int recheck(const char *path, const ss_target *tg, const char *schedule, double seconds,
                   char *detail, size_t n) {
    int p[2];
    if (pipe(p)) { snprintf(detail, n, "cannot recheck: %s", strerror(errno)); return -1; }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) { close(p[0]), close(p[1]); snprintf(detail, n, "cannot recheck: %s", strerror(errno)); return -1; }
    if (pid == 0) {
        close(p[0]);
        alarm((unsigned)(seconds < 1 ? 1 : seconds));
        recheck_child(p[1], path, tg, schedule);
    }
    close(p[1]);
    char line[300];
    size_t got = 0;
    ssize_t k;
    while (got + 1 < sizeof line && (k = read(p[0], line + got, sizeof line - 1 - got)) != 0) {
        if (k < 0) { if (errno == EINTR) continue; break; }
        got += (size_t)k;
    }
    line[got] = 0;
    close(p[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(st)) {
        snprintf(detail, n, "%s on %s (signal %d)", WTERMSIG(st) == SIGALRM ? "timeout" : "crash", tg->name,
                 WTERMSIG(st));
        return 1;
    }
    snprintf(detail, n, "%s", line);
    const int code = WIFEXITED(st) ? WEXITSTATUS(st) : 2;
    return code == 0 ? 0 : code == 1 ? 1 : -1;
}

static int in_set(const ss_target *const *set, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(set[i]->name, name)) return 1;
    return 0;
}

/* Recheck an entry tonight's campaign did not hit; sets it->cls. */
static void recheck_entry(const ss_triage_opts *o, const ss_ledger *l, const ss_ledger_entry *e,
                          ss_triage_item *it) {
    const int fixed = e->status == SS_LEDGER_FIXED;
    const ss_target *own = ss_target_find(e->target);
    const ss_target *const *on = o->recheck_on;
    size_t n_on = o->n_recheck_on;
    if (own && (o->n_tonight == 0 || in_set(o->tonight, o->n_tonight, e->target))) { on = &own; n_on = 1; }
    it->cls = SS_TRIAGE_UNCHECKED;
    if (n_on == 0) {
        snprintf(it->detail, sizeof it->detail, "%s was not fuzzed tonight%s", e->target,
                 own ? "" : " (no such target in this build)");
        return;
    }
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", l->dir, e->reproducer);
    int fails = 0, agrees = 0;
    for (size_t i = 0; i < n_on && !fails; i++) {
        char d[300];
        const int r = recheck(path, on[i], e->schedule, o->recheck_seconds, d, sizeof d);
        if (r < 0) { snprintf(it->detail, sizeof it->detail, "not rechecked: %.280s", d); return; }
        fails += r == 1;
        agrees += r == 0;
        snprintf(it->detail, sizeof it->detail, "recheck: %.280s", d);
    }
    if (fails) it->cls = fixed ? SS_TRIAGE_REGRESSED : SS_TRIAGE_KNOWN;
    else if (agrees) it->cls = fixed ? SS_TRIAGE_CLOSED : SS_TRIAGE_FIXED;
}

static int copy_into_ledger(const ss_ledger *l, const char *from, char *name, size_t n, ss_error *err) {
    const char *base = strrchr(from, '/');
    base = base ? base + 1 : from;
    snprintf(name, n, "%s", base);
    char to[4400], *data;
    size_t len;
    snprintf(to, sizeof to, "%s/%s", l->dir, name);
    if (access(to, F_OK) == 0) return 0;   /* the same dedup name: the same reproducer class */
    SS_TRY(ss_ensure_writable_dir(l->dir, err));
    SS_TRY(ss_read_file(from, SS_MAX_CASE_FILE_BYTES, &data, &len, err));
    const int rc = ss_write_atomic(to, data, len, err);
    free(data);
    return rc;
}

static void stamp(char *dst, size_t n, const char *v) { snprintf(dst, n, "%s", v ? v : ""); }

/* Applies an item's class to its ledger entry (creating it for a new finding). */
static int update_ledger(ss_ledger *l, const ss_triage_opts *o, ss_triage_item *it, ss_error *err) {
    ss_ledger_entry *e = ss_ledger_find(l, it->signature);
    if (it->cls == SS_TRIAGE_NEW) {
        char name[256];
        SS_TRY(copy_into_ledger(l, it->found, name, sizeof name, err));
        if (!(e = ss_ledger_add(l))) return ss_fail(err, l->path, "out of memory");
        snprintf(e->signature, sizeof e->signature, "%s", it->signature);
        snprintf(e->kind, sizeof e->kind, "%s", it->kind);
        snprintf(e->target, sizeof e->target, "%s", it->target);
        snprintf(e->schedule, sizeof e->schedule, "%s", it->schedule);
        snprintf(e->reproducer, sizeof e->reproducer, "%s", name);
        stamp(e->first_seen, sizeof e->first_seen, o->date);
        stamp(e->first_commit, sizeof e->first_commit, o->commit);
        snprintf(it->reproducer, sizeof it->reproducer, "%s/%s", l->dir, name);
    }
    if (!e) return 0;
    if (it->cls == SS_TRIAGE_NEW || it->cls == SS_TRIAGE_KNOWN || it->cls == SS_TRIAGE_REGRESSED) {
        stamp(e->last_seen, sizeof e->last_seen, o->date);
        stamp(e->last_commit, sizeof e->last_commit, o->commit);
        if (e->status == SS_LEDGER_FIXED) e->fixed_on[0] = e->fixed_commit[0] = 0;
        e->status = SS_LEDGER_OPEN;
    } else if (it->cls == SS_TRIAGE_FIXED) {
        e->status = SS_LEDGER_FIXED;
        stamp(e->fixed_on, sizeof e->fixed_on, o->date);
        stamp(e->fixed_commit, sizeof e->fixed_commit, o->commit);
    }
    return 0;
}

int ss_triage_run(ss_ledger *l, const ss_triage_opts *o, ss_triage *t, ss_error *err) {
    memset(t, 0, sizeof *t);
    if (o->found_dir && collect_tonight(o->found_dir, t, err)) { ss_triage_free(t); return -1; }
    const size_t hit = t->n;
    for (size_t i = 0; i < hit; i++) {
        ss_triage_item *it = &t->it[i];
        const ss_ledger_entry *e = ss_ledger_find(l, it->signature);
        it->cls = !e ? SS_TRIAGE_NEW : e->status == SS_LEDGER_FIXED ? SS_TRIAGE_REGRESSED : SS_TRIAGE_KNOWN;
        snprintf(it->reproducer, sizeof it->reproducer, "%s", it->found);
        if (e) snprintf(it->detail, sizeof it->detail, "found again tonight (%ld reproducer%s)",
                        it->reproducers_tonight, it->reproducers_tonight == 1 ? "" : "s");
    }
    for (size_t i = 0; i < l->n; i++) {
        const ss_ledger_entry *e = &l->e[i];
        ss_triage_item *it = item_for(t, e->signature);
        if (!it) { ss_triage_free(t); return ss_fail(err, l->path, "out of memory"); }
        if (!it->reproducers_tonight) {
            snprintf(it->kind, sizeof it->kind, "%s", e->kind);
            snprintf(it->target, sizeof it->target, "%s", e->target);
            snprintf(it->schedule, sizeof it->schedule, "%s", e->schedule);
            recheck_entry(o, l, e, it);
        }
        snprintf(it->reproducer, sizeof it->reproducer, "%s/%s", l->dir, e->reproducer);
        snprintf(it->first_seen, sizeof it->first_seen, "%s", e->first_seen);
        snprintf(it->upstream, sizeof it->upstream, "%s", e->upstream);
    }
    for (size_t i = 0; i < t->n; i++) {
        if (o->update && update_ledger(l, o, &t->it[i], err)) { ss_triage_free(t); return -1; }
        t->count[t->it[i].cls]++;
    }
    return 0;
}
