/* ss_confirm.c - a torch finding's exported script run standalone: confirmed, or why not. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ss_clock.h"
#include "ss_confirm.h"
#include "ss_target.h"
#include "ss_text.h"
#include "ss_torch.h"

#define OUTPUT_MAX ((size_t)1 << 20)
#define TAG "ssfuzz-export: "

static ss_confirm_export_fn exporter;

void ss_confirm_set_exporter(ss_confirm_export_fn fn) { exporter = fn; }

static double confirm_timeout(void) {
    const char *s = getenv("SSFUZZ_CONFIRM_TIMEOUT");
    char *end;
    const double v = s ? strtod(s, &end) : 0;
    return s && *s && !*end && v > 0 && v <= 86400 ? v : 300;
}

/* ---- running a script ---------------------------------------------------- */

static void keep(ss_script_run *r, const char *buf, size_t n) {
    if (r->len + n > OUTPUT_MAX) n = OUTPUT_MAX - r->len;
    if (!n) return;
    char *grown = realloc(r->output, r->len + n + 1);
    if (!grown) return;
    r->output = grown;
    memcpy(r->output + r->len, buf, n);
    r->len += n;
    r->output[r->len] = 0;
}

/* cache: inductor's (and Triton's) cache directory for the script, or NULL for
 * the environment's. */
static int run_python(const char *python, const char *const *args, double timeout_s, const char *cache,
                      ss_script_run *r) {
    char triton[2100] = "";
    if (cache) snprintf(triton, sizeof triton, "%s/triton", cache);
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    size_t n = 0;
    while (args[n]) n++;
    const char **argv = calloc(n + 2, sizeof *argv);
    int out[2];
    if (!argv || pipe2(out, O_CLOEXEC)) {
        free(argv);
        snprintf(r->why, sizeof r->why, "cannot start: %s", strerror(errno ? errno : ENOMEM));
        return -1;
    }
    argv[0] = python;
    memcpy(argv + 1, args, n * sizeof *argv);
    const double t0 = ss_now_s();
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);                       /* the script's compile workers die with it */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        const int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
        signal(SIGPIPE, SIG_DFL);
        setenv("TORCHINDUCTOR_COMPILE_THREADS", "1", 0);   /* as the worker: no pool to orphan */
        if (cache) {
            setenv("TORCHINDUCTOR_CACHE_DIR", cache, 1);
            setenv("TRITON_CACHE_DIR", triton, 1);
        }
        execvp(python, (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    free(argv);
    if (pid < 0) {
        close(out[0]);
        snprintf(r->why, sizeof r->why, "fork: %s", strerror(errno));
        return -1;
    }
    setpgid(pid, pid);                       /* either side may win the race */
    const double deadline = t0 + timeout_s;
    char buf[65536];
    for (;;) {
        const double left = deadline - ss_now_s();
        if (left <= 0) { r->timed_out = 1; break; }
        struct pollfd pf = {out[0], POLLIN, 0};
        const int k = poll(&pf, 1, left > 3600 ? 3600000 : (int)(left * 1000) + 1);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) continue;
        const ssize_t got = read(out[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        keep(r, buf, (size_t)got);
    }
    close(out[0]);
    if (r->timed_out) kill(-pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (!r->timed_out) kill(-pid, SIGKILL);  /* anything it left running */
    r->seconds = ss_now_s() - t0;
    if (WIFEXITED(st)) r->exit_code = WEXITSTATUS(st);
    else if (WIFSIGNALED(st) && !r->timed_out) r->signal = WTERMSIG(st);
    if (r->exit_code == 127 && !strstr(r->output ? r->output : "", TAG)) {
        snprintf(r->why, sizeof r->why, "cannot run %.200s (not found or not executable)", python);
        return -1;
    }
    return 0;
}

int ss_script_run_python(const char *python, const char *const *args, double timeout_s, ss_script_run *r) {
    return run_python(python, args, timeout_s, NULL, r);
}

void ss_script_run_free(ss_script_run *r) {
    free(r->output);
    r->output = NULL;
    r->len = 0;
}

/* ---- confirming ---------------------------------------------------------- */

/* A word of meta.torch: [a-z0-9-] only, and it fits (a reproducer is untrusted). */
static int word(const cJSON *o, const char *key, char *out, size_t n, int required) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    out[0] = 0;
    if (!cJSON_IsString(v)) return required ? -1 : 0;
    const char *s = v->valuestring;
    if (!*s || strlen(s) >= n) return -1;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-')) return -1;
    snprintf(out, n, "%s", s);
    return 0;
}

int ss_confirm_spec_from_meta(const cJSON *meta, const char *kind, ss_confirm_spec *spec) {
    memset(spec, 0, sizeof *spec);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(meta, "torch");
    if (!cJSON_IsObject(t) || word(t, "mode", spec->mode, sizeof spec->mode, 1) ||
        word(t, "spelling", spec->spelling, sizeof spec->spelling, 1) || word(t, "form", spec->form, sizeof spec->form, 0))
        return -1;
    const cJSON *sig = cJSON_GetObjectItemCaseSensitive(meta, "signature");
    snprintf(spec->kind, sizeof spec->kind, "%s", kind ? kind : cJSON_IsString(sig) ? sig->valuestring : "mismatch");
    return 0;
}

/* The script's verdict line that decides, by the finding's kind. */
static const char *decisive(const char *kind, const char *out, char *line, size_t n) {
    const char *want = !strcmp(kind, "mismatch") ? ": DIFFER: " : !strcmp(kind, "raised") ? ": RAISED: " : NULL;
    const char *found = NULL, *last = NULL;
    for (const char *p = out; p && *p;) {
        const char *e = strchr(p, '\n');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > strlen(TAG) && !strncmp(p, TAG, strlen(TAG))) {
            char one[2048];
            snprintf(one, sizeof one, "%.*s", (int)(len < sizeof one ? len : sizeof one - 1), p);
            last = p;
            if (!found && (want ? strstr(one, want) != NULL : strstr(one, ": DIFFER: ") || strstr(one, ": RAISED: ")))
                found = p;
        }
        p = e ? e + 1 : NULL;
    }
    const char *pick = found ? found : last;
    line[0] = 0;
    if (pick) {
        const char *e = strchr(pick, '\n');
        const size_t len = e ? (size_t)(e - pick) : strlen(pick);
        char raw[1024];
        snprintf(raw, sizeof raw, "%.*s", (int)(len - strlen(TAG) < sizeof raw ? len - strlen(TAG) : sizeof raw - 1),
                 pick + strlen(TAG));
        ss_text_inert(raw, line, n);
    }
    return found;
}

/* The last line of the output, inert: what a script that failed said last. */
static void last_line(const char *out, char *line, size_t n) {
    char raw[512] = "";
    const char *end = out ? out + strlen(out) : NULL;
    while (end && end > out && end[-1] == '\n') end--;
    if (end && end > out) {
        const char *s = end;
        while (s > out && s[-1] != '\n') s--;
        snprintf(raw, sizeof raw, "%.*s", (int)(end - s), s);
    }
    ss_text_inert(raw, line, n);
}

static void judge(const ss_confirm_spec *spec, const ss_script_run *run, double limit, ss_confirm_result *r) {
    char line[512];
    r->state = SS_CONFIRM_NO;
    r->seconds = run->seconds;
    if (run->timed_out) {
        snprintf(r->value, sizeof r->value, "no: the script timed out after %g s", limit);
        return;
    }
    if (run->signal) {
        snprintf(r->value, sizeof r->value, "no: the script died from signal %d (%s)", run->signal, strsignal(run->signal));
        return;
    }
    const int hit = decisive(spec->kind, run->output, line, sizeof line) != NULL;
    snprintf(r->evidence, sizeof r->evidence, "%s", line);
    if (run->exit_code == 1 && hit) {
        r->state = SS_CONFIRM_YES;
        snprintf(r->value, sizeof r->value, "standalone");
        return;
    }
    if (!line[0]) last_line(run->output, line, sizeof line);
    const char *what = run->exit_code == 0 ? "the script agreed" : run->exit_code == 1 ? "the script found another kind"
                     : run->exit_code == 2 ? "the script errored" : run->exit_code == 3 ? "the script was refused"
                     : "the script failed";
    snprintf(r->value, sizeof r->value, "no: %s (exit %d: %.240s)", what, run->exit_code, line);
}

/* One run of the script with inductor's cache at `cache`, judged into r. The
 * script's exit status (0: it agreed), or -1 when it did not exit: it could
 * not start, timed out or died from a signal. */
static int run_judged(const char *python, const char *script, double limit, const char *cache,
                      const ss_confirm_spec *spec, ss_confirm_result *r) {
    const char *args[] = {script, NULL};
    ss_script_run run;
    int exit_code = -1;
    if (run_python(python, args, limit, cache, &run)) {
        r->state = SS_CONFIRM_NO;
        snprintf(r->value, sizeof r->value, "no: %.300s", run.why);
    } else {
        judge(spec, &run, limit, r);
        if (!run.timed_out && !run.signal) exit_code = run.exit_code;
    }
    ss_script_run_free(&run);
    return exit_code;
}

/* A script that agreed with an empty cache (run_judged gave 0), run again
 * with the worker's: a failure only that cache gives (an entry loaded for
 * inputs it was not compiled for) is the cache's bug, confirmed as such.
 * Eager runs compile nothing and are not rerun. */
static void with_worker_cache(const char *python, const char *script, double limit, const ss_confirm_spec *spec,
                              ss_confirm_result *r) {
    char cache[2048];
    ss_confirm_result again;
    if (!strncmp(spec->mode, "eager", 5) || ss_torch_cache_dir(cache, sizeof cache)) return;
    memset(&again, 0, sizeof again);
    run_judged(python, script, limit, cache, spec, &again);
    if (again.state != SS_CONFIRM_YES) {
        const size_t used = strlen(r->value);
        snprintf(r->value + used, sizeof r->value - used, "; also with the campaign's inductor cache");
        return;
    }
    char safe[200];
    ss_text_inert(cache, safe, sizeof safe);
    again.seconds += r->seconds;
    *r = again;
    snprintf(r->value, sizeof r->value, "standalone with the campaign's inductor cache (%s) only: "
             "the script agrees with an empty one", safe);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void ss_confirm_case(const ss_case *c, const ss_confirm_spec *spec, const char *python, double timeout_s,
                     ss_confirm_result *r) {
    memset(r, 0, sizeof *r);
    const double limit = timeout_s > 0 ? timeout_s : confirm_timeout();
    if (!exporter || !python) {
        r->state = exporter ? SS_CONFIRM_NO : SS_CONFIRM_NOT_TRIED;
        snprintf(r->value, sizeof r->value, "no: %s", exporter ? "no torch python known (the worker never started)"
                                                                : "no exporter registered");
        return;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[1024], script[1100], cache[1100];
    snprintf(dir, sizeof dir, "%s/ssfuzz-confirm-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        r->state = SS_CONFIRM_NO;
        snprintf(r->value, sizeof r->value, "no: cannot make a temporary directory: %s", strerror(errno));
        return;
    }
    snprintf(script, sizeof script, "%s/repro.py", dir);
    snprintf(cache, sizeof cache, "%s/inductor-cache", dir);   /* empty: nothing the campaign compiled */
    ss_error err;
    if (exporter(c, spec, script, &err)) {   /* nothing ran: not a verdict on the finding */
        r->state = SS_CONFIRM_NOT_TRIED;
        snprintf(r->value, sizeof r->value, "not tried: no script: %.100s: %.150s", err.field, err.msg);
    } else if (run_judged(python, script, limit, cache, spec, r) == 0) {   /* agreed */
        with_worker_cache(python, script, limit, spec, r);
    }
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);   /* the script, and the cache it filled */
}

int ss_confirm_set_meta(cJSON *meta, const ss_confirm_result *r) {
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "confirmed");
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "confirmed_by");
    if (!cJSON_AddStringToObject(meta, "confirmed", r->value)) return -1;
    return r->evidence[0] && !cJSON_AddStringToObject(meta, "confirmed_by", r->evidence) ? -1 : 0;
}

/* Confirms the case file at path as spec says and records it there. */
static void confirm_file(const char *path, ss_case *c, const ss_confirm_spec *spec, ss_confirm_result *r) {
    const double limit = confirm_timeout();
    ss_target_clock(limit + 30);   /* not the case's time: the script has its own limit */
    ss_confirm_case(c, spec, ss_torch_known_python(), limit, r);
    ss_target_clock(0);
    ss_error err;
    if (r->state != SS_CONFIRM_NOT_TRIED && (!c->meta || ss_confirm_set_meta(c->meta, r) || ss_case_save_atomic(path, c, &err)))
        snprintf(r->evidence + strlen(r->evidence), sizeof r->evidence - strlen(r->evidence), " (not recorded in %s)", path);
}

void ss_confirm_finding(const char *path, char *line, size_t line_len) {
    const char *off = getenv("SSFUZZ_CONFIRM");
    if ((off && !strcmp(off, "0")) || !exporter) return;
    ss_case c;
    ss_confirm_spec spec;
    ss_confirm_result r;
    ss_case_init(&c);
    if (ss_case_load(path, &c, NULL) == 0 && ss_confirm_spec_from_meta(c.meta, NULL, &spec) == 0) {
        confirm_file(path, &c, &spec, &r);
        const size_t used = strlen(line);
        if (r.state == SS_CONFIRM_YES)
            snprintf(line + used, line_len - used, "; confirmed %s (%.1f s)", r.value, r.seconds);
        else if (r.state == SS_CONFIRM_NO)
            snprintf(line + used, line_len - used, "; not confirmed: %s", r.value + 4);
        else if (r.value[0])
            snprintf(line + used, line_len - used, "; %s", r.value);
    }
    ss_case_free(&c);
}

void ss_confirm_tally(ss_summary *sum, const char *path) {
    ss_case c;
    ss_case_init(&c);
    if (ss_case_load(path, &c, NULL) == 0) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(c.meta, "confirmed");
        if (cJSON_IsString(v)) {
            if (!strncmp(v->valuestring, "standalone", 10)) sum->confirmed++;
            else sum->unconfirmed++;
        }
    }
    ss_case_free(&c);
}

ss_confirm_state ss_confirm_replayed(const char *path, const ss_target *t, const char *schedule, const char *kind,
                                     FILE *out) {
    cJSON *m = cJSON_CreateObject();
    ss_confirm_spec spec;
    const int torch = m && ss_target_meta_write(m, t, schedule) == 0 && ss_confirm_spec_from_meta(m, kind, &spec) == 0;
    cJSON_Delete(m);
    if (!torch) return SS_CONFIRM_NOT_TRIED;   /* meta.torch is what an exported script needs */
    ss_case c;
    ss_confirm_result res;
    ss_case_init(&c);
    if (ss_case_load(path, &c, NULL) || (!c.meta && !(c.meta = cJSON_CreateObject()))) {
        ss_case_free(&c);
        return SS_CONFIRM_NOT_TRIED;
    }
    confirm_file(path, &c, &spec, &res);
    ss_case_free(&c);
    fprintf(out, "confirm %s on %s%s%s: %s%s%s (%.1f s)\n", path, t->name, schedule ? " " : "", schedule ? schedule : "",
            res.value, res.evidence[0] ? "; " : "", res.evidence, res.seconds);
    return res.state;
}
