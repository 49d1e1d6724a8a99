/* ss_torch.c - the torch engine: its targets, and the Python worker it starts and talks to. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ss_case.h"
#include "ss_clock.h"
#include "ss_files.h"
#include "ss_program_py.h"
#include "ss_text.h"
#include "ss_torch.h"
#include "ss_torch_proto.h"
#include "ss_vec.h"

extern const char ss_torch_worker_py[];   /* harness/engines/ss_torch_worker.py, built in */
extern const char ss_torch_program_py[];  /* harness/engines/ss_torch_program.py, its shared module */

static const char *torch_unavailable(const ss_target *t);
static ss_run_status torch_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                               ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len);

static int torch_large(const ss_target *t);
static int torch_meta_write(cJSON *meta, const ss_target *t, const char *schedule);
static void torch_meta_note(const cJSON *meta, char *note, size_t note_len);
static int torch_runs_programs(const ss_target *t);
static ss_run_status torch_run_program(const ss_target *t, const ss_case *c, const ss_plan *plan,
                                       ss_storage *input, ss_storage *src, const ss_run_opts *opts,
                                       ss_prog_actual *act, char *why, size_t why_len);
static int torch_stages(const ss_target *t, const ss_target **siblings, const char **names,
                        const char **last, int cap);

/* Compiled code runs in parallel chunks whose shape changes with size: many
 * large cases there. A Python worker shared by every torch target: a crash
 * reproducer isolates them all. */
const ss_engine ss_torch_engine = {
    .name = "torch", .kind = "torch", .shared_state = 1, .meta_key = "torch",
    .large_per_mille = torch_large, .version = ss_torch_version,
.meta_write = torch_meta_write,
    .meta_note = torch_meta_note, .runs_programs = torch_runs_programs, .run_program = torch_run_program,
    .stages = torch_stages, .before_fork = ss_torch_shutdown, .shutdown = ss_torch_shutdown,
};

static const char *const forms[] = {"x-input", "storage-input", "two-inputs"};
#define NFORMS 3
/* A program takes x and src as its two inputs (v1: one form). */
static const char *const program_forms[] = {"two-inputs"};

#define T(mode, spelling, sched) \
    {"torch:" mode ":" spelling, &ss_torch_engine, mode ":" spelling, 0, (sched) ? NFORMS : 0, \
     (sched) ? forms : NULL, 1, torch_unavailable, torch_run}
#define P(mode, sched) \
    {"torch:" mode ":program", &ss_torch_engine, mode ":program", 0, (sched) ? 1 : 0, \
     (sched) ? program_forms : NULL, 1, torch_unavailable, torch_run}
#define SPELLINGS(mode, sched)                                                              \
    T(mode, "setitem", sched), T(mode, "setitem-clone", sched), T(mode, "copy", sched),      \
    T(mode, "scatter-copy", sched), T(mode, "scatter-return", sched),                        \
    T(mode, "clone-scatter", sched), T(mode, "index-put", sched), P(mode, sched)
#define NSPELLINGS 8   /* the program spelling last */

/* Mode i is entries [i * NSPELLINGS, (i + 1) * NSPELLINGS). Eager modes have
 * no forms: the tensors eager sees are the same whichever way they are built.
 * compile-* runs inductor, aot-eager-* the aot_eager backend (functionalization,
 * no code generation), dynamo-eager-* the eager backend (dynamo alone). The
 * last four modes are not listed (ss_torch_target_count stops before them):
 * they place a compile-dynamic finding's stage (torch_stages). */
static const char *const modes[] = {
    "eager-cpu", "compile-cpu", "compile-dynamic-cpu", "aot-eager-cpu", "dynamo-eager-cpu",
    "eager-cuda", "compile-cuda", "compile-dynamic-cuda", "aot-eager-cuda", "dynamo-eager-cuda",
    "aot-eager-dynamic-cpu", "dynamo-eager-dynamic-cpu", "aot-eager-dynamic-cuda", "dynamo-eager-dynamic-cuda",
};
#define NMODES (sizeof modes / sizeof modes[0])
#define NLISTED_MODES 10
static const ss_target targets[] = {
    SPELLINGS("eager-cpu", 0), SPELLINGS("compile-cpu", 1), SPELLINGS("compile-dynamic-cpu", 1),
    SPELLINGS("aot-eager-cpu", 1), SPELLINGS("dynamo-eager-cpu", 1),
    SPELLINGS("eager-cuda", 0), SPELLINGS("compile-cuda", 1), SPELLINGS("compile-dynamic-cuda", 1),
    SPELLINGS("aot-eager-cuda", 1), SPELLINGS("dynamo-eager-cuda", 1),
    SPELLINGS("aot-eager-dynamic-cpu", 1), SPELLINGS("dynamo-eager-dynamic-cpu", 1),
    SPELLINGS("aot-eager-dynamic-cuda", 1), SPELLINGS("dynamo-eager-dynamic-cuda", 1),
};
#define NTARGETS (sizeof targets / sizeof targets[0])
_Static_assert(NTARGETS == NMODES * NSPELLINGS, "one target per mode and spelling");

size_t ss_torch_target_count(void) { return NLISTED_MODES * NSPELLINGS; }
const ss_target *ss_torch_target_at(size_t i) { return i < NLISTED_MODES * NSPELLINGS ? &targets[i] : NULL; }

/* ---- the worker process ------------------------------------------------ */

typedef struct worker {
    pid_t pid, owner;          /* owner: the process that started it */
    int to_fd, from_fd;
    int tried;                 /* 1: a start was attempted (ok or not) in this process */
    char python[1024];
    char error[512];           /* why no worker could start */
    ss_tp_caps caps;
} worker;

static worker W;
static char python_opt[1024];

void ss_torch_set_python(const char *path) { snprintf(python_opt, sizeof python_opt, "%s", path); }

static double env_seconds(const char *name, double dflt) {
    const char *s = getenv(name);
    char *end;
    const double v = s ? strtod(s, &end) : 0;
    return s && *s && !*end && v > 0 ? v : dflt;
}

static void stop_worker(void) {
    if (W.pid > 0 && W.owner == getpid()) {
        kill(W.pid, SIGKILL);
        waitpid(W.pid, NULL, 0);
    }
    if (W.pid > 0) { close(W.to_fd); close(W.from_fd); }
    W.pid = 0;
}

void ss_torch_shutdown(void) { stop_worker(); }

/* Reads exactly n bytes before `deadline` (ss_now_s); 0, or -1 with why. */
static int read_by(int fd, void *buf, size_t n, double deadline, char *why, size_t wn) {
    uint8_t *p = buf;
    while (n) {
        const double left = deadline - ss_now_s();
        if (left <= 0) { snprintf(why, wn, "timeout"); return -1; }
        struct pollfd pf = {fd, POLLIN, 0};
        const int r = poll(&pf, 1, left > 1e6 ? 1000000000 : (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) continue;
        const ssize_t k = read(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) { snprintf(why, wn, "eof"); return -1; }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Writes exactly n bytes before `deadline` on a non-blocking fd: a worker
 * that stops reading cannot hang the harness. 0, or -1 with why. */
static int write_by(int fd, const void *buf, size_t n, double deadline, char *why, size_t wn) {
    const uint8_t *p = buf;
    while (n) {
        const double left = deadline - ss_now_s();
        if (left <= 0) { snprintf(why, wn, "timeout"); return -1; }
        struct pollfd pf = {fd, POLLOUT, 0};
        const int r = poll(&pf, 1, left > 1e6 ? 1000000000 : (int)(left * 1000) + 1);
        if (r < 0 && errno != EINTR) { snprintf(why, wn, "eof"); return -1; }
        if (r <= 0) continue;
        const ssize_t k = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) { snprintf(why, wn, "eof"); return -1; }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int lost_by_timeout;   /* 1: the last loss described was the time limit, not a death */

static int starting;   /* 1 during the handshake: losses are described as start-up failures */

/* Waits up to `seconds` for pid to exit (a worker that closed its pipe is
 * normally exiting); 1 with its status, 0 when it is still running. */
static int reap_within(pid_t pid, double seconds, int *status) {
    const double until = ss_now_s() + seconds;
    for (;;) {
        const pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid) return 1;
        if (r < 0 || ss_now_s() > until) return 0;
        usleep(10000);
    }
}

/* What a worker that stopped answering most likely did, in words. */
static void describe_loss(const char *io, double limit, char *why, size_t n) {
    int st = 0;
    const char *when = starting ? "at start-up" : "while running the case";
    lost_by_timeout = !strcmp(io, "timeout");
    if (lost_by_timeout) {
        snprintf(why, n, "torch worker (%.300s) did not answer within %.0f s %s (%s); worker killed",
                 W.python, limit, when, starting ? "importing torch?" : "a hung compile or kernel?");
        return;
    }
    if (W.pid > 0 && W.owner == getpid() && reap_within(W.pid, 2.0, &st)) {
        W.pid = -W.pid;   /* reaped */
        if (WIFSIGNALED(st))
            snprintf(why, n, "torch worker died from signal %d (%s) %s",
                     WTERMSIG(st), strsignal(WTERMSIG(st)), when);
        else
            snprintf(why, n, "torch worker (%.300s) exited with status %d %s "
                     "(SSFUZZ_TORCH_LOG=FILE keeps its stderr)", W.python, WEXITSTATUS(st), when);
        return;
    }
    snprintf(why, n, "torch worker closed its pipe (%s)", io);
}

static void lose_worker(void) {
    if (W.pid < 0) { close(W.to_fd); close(W.from_fd); W.pid = 0; return; }
    stop_worker();
}

/* Reads one frame header; PROGRESS frames are consumed here (they move the
 * clock). Returns 0 with *h, or -1 with why. */
static int read_header(ss_tp_header *h, double *deadline, double limit, char *why, size_t n) {
    for (;;) {
        uint8_t raw[SS_TP_HEADER_SIZE];
        char io[16];
        if (read_by(W.from_fd, raw, sizeof raw, *deadline, io, sizeof io)) {
            describe_loss(io, limit, why, n);
            return -1;
        }
        if (ss_tp_header_decode(raw, h, why, n)) return -1;
        if (h->type != SS_TP_PROGRESS) return 0;
        uint8_t phase[4];
        if (h->length != 4 || read_by(W.from_fd, phase, 4, *deadline, io, sizeof io)) {
            snprintf(why, n, "bad PROGRESS frame from the torch worker");
            return -1;
        }
        /* A likely compile: not the case's time; its own, longer limit. */
        const double compile_s = env_seconds("SSFUZZ_TORCH_COMPILE_TIMEOUT", 600);
        ss_target_clock(phase[0] ? compile_s : 0);
        *deadline = ss_now_s() + (phase[0] ? compile_s : limit);
    }
}

/* Reads a text payload (ACK, ERROR) of at most cap - 1 bytes. */
static int read_text(const ss_tp_header *h, char *buf, size_t cap, double deadline, char *why, size_t n) {
    char io[16];
    if (h->length >= cap) { snprintf(why, n, "worker sent a %llu-byte text frame", (unsigned long long)h->length); return -1; }
    if (read_by(W.from_fd, buf, (size_t)h->length, deadline, io, sizeof io)) {
        describe_loss(io, 0, why, n);
        return -1;
    }
    buf[h->length] = 0;
    return 0;
}

/* A built-in script as a file python can open (/proc/self/fd/N): `ps` then
 * shows a short command line, and tracebacks name a file. */
static int staged(const char *name, const char *text, int *fd) {
    if (*fd >= 0) return *fd;
    const int f = memfd_create(name, 0);   /* inherited by the exec */
    if (f < 0 || ss_write_full(f, text, strlen(text))) { if (f >= 0) close(f); return -1; }
    return *fd = f;
}

/* Inductor's and Triton's on-disk caches (in the worker's environment): the
 * user's own TORCHINDUCTOR_CACHE_DIR / TRITON_CACHE_DIR win; else
 * $SSFUZZ_INDUCTOR_CACHE; else ssfuzz's own directory under the user's cache
 * directory, shared by every command (fuzz, regress, the nightly), so a later
 * run loads what an earlier one compiled instead of compiling it again. */
static void compile_cache_env(void) {
    char dir[2048], triton[2100];
    const char *given = getenv("SSFUZZ_INDUCTOR_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (given && *given) snprintf(dir, sizeof dir, "%s", given);
    else if (xdg && *xdg == '/') snprintf(dir, sizeof dir, "%s/ssfuzz/inductor", xdg);
    else if (home && *home == '/') snprintf(dir, sizeof dir, "%s/.cache/ssfuzz/inductor", home);
    else return;   /* no cache directory of the user's: inductor's default (under /tmp) */
    snprintf(triton, sizeof triton, "%s/triton", dir);
    setenv("TORCHINDUCTOR_CACHE_DIR", dir, 0);
    setenv("TRITON_CACHE_DIR", triton, 0);
}

/* Starts `python` with the built-in worker and shakes hands. 0, or -1 with why. */
static int start_one(const char *python, char *why, size_t n) {
    static int worker_fd = -1, shared_fd = -1;
    const int sfd = staged("ss_torch_worker.py", ss_torch_worker_py, &worker_fd);
    const int mfd = sfd < 0 ? -1 : staged("ss_torch_program.py", ss_torch_program_py, &shared_fd);
    if (mfd < 0) { snprintf(why, n, "cannot stage the worker script: %s", strerror(errno)); return -1; }
    char script[64], shared[64];
    snprintf(script, sizeof script, "/proc/self/fd/%d", sfd);
    snprintf(shared, sizeof shared, "/proc/self/fd/%d", mfd);
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC)) { snprintf(why, n, "pipe: %s", strerror(errno)); return -1; }
    if (pipe2(from, O_CLOEXEC)) { close(to[0]); close(to[1]); snprintf(why, n, "pipe: %s", strerror(errno)); return -1; }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, n, "fork: %s", strerror(errno));
        close(to[0]); close(to[1]); close(from[0]); close(from[1]);
        return -1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);   /* survives exec: the worker dies with us */
        dup2(to[0], 0);
        dup2(from[1], 1);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_IGN);            /* Ctrl-C is the harness's to handle */
        setenv("TORCHINDUCTOR_COMPILE_THREADS", "1", 0);   /* no compile pool to orphan */
        setenv("PYTHONSAFEPATH", "1", 1);   /* no script or current directory on sys.path (>= 3.11) */
        compile_cache_env();
        execlp(python, python, script, shared, (char *)NULL);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    fcntl(to[1], F_SETFL, fcntl(to[1], F_GETFL) | O_NONBLOCK);   /* writes have a deadline: write_by */
    W = (worker){.pid = pid, .owner = getpid(), .to_fd = to[1], .from_fd = from[0], .tried = 1};
    snprintf(W.python, sizeof W.python, "%s", python);
    const double limit = env_seconds("SSFUZZ_TORCH_START_TIMEOUT", 300);
    ss_target_clock(limit);
    starting = 1;
    double deadline = ss_now_s() + limit;
    uint8_t hello[SS_TP_HEADER_SIZE];
    ss_tp_header_encode(hello, SS_TP_HELLO, 0);
    ss_tp_header h;
    char text[1024];
    int rc = -1;
    signal(SIGPIPE, SIG_IGN);
    char io[16];
    if (write_by(W.to_fd, hello, sizeof hello, deadline, io, sizeof io)) {
        describe_loss(io, limit, why, n);   /* reaps it: an exec failure reads as status 127 */
    } else if (read_header(&h, &deadline, limit, why, n) == 0) {
        if ((h.type == SS_TP_ACK || h.type == SS_TP_ERROR) && read_text(&h, text, sizeof text, deadline, why, n) == 0) {
            if (h.type == SS_TP_ERROR) snprintf(why, n, "%.200s: %.300s", python, text);
            else rc = ss_tp_caps_parse(text, (size_t)h.length, &W.caps, why, n);
        } else if (h.type != SS_TP_ACK && h.type != SS_TP_ERROR) {
            snprintf(why, n, "%s: worker answered HELLO with frame type %u", python, h.type);
        }
    }
    if (rc && strstr(why, "exited with status 127"))
        snprintf(why, n, "cannot run %.300s (not found or not executable)", python);
    ss_target_clock(0);
    starting = 0;
    if (rc) {
        char keep[512];
        snprintf(keep, sizeof keep, "%s", why);
        lose_worker();
        W.tried = 1;
        snprintf(why, n, "%s", keep);
    }
    return rc;
}

/* --python, $SSFUZZ_PYTHON, else each python3 on PATH until one imports torch.
 * On PATH only absolute directories count: an empty or relative entry names
 * the current directory, and a python3 there (say, beside a downloaded
 * reproducer) must never become the worker. A bare --python name is looked
 * up here by the same rule (execlp would take the empty entries); a relative
 * path is the user's own choice. A worker's words are untrusted: W.error is
 * inert. */
static int start_worker(void) {
    if (W.pid > 0 && W.owner != getpid()) {   /* inherited across fork: not ours */
        close(W.to_fd);
        close(W.from_fd);
        W.pid = 0;
        W.tried = 0;
    }
    if (W.pid > 0) return 0;
    if (W.tried && W.error[0]) return -1;
    char why[512] = "";
    const char *chosen = python_opt[0] ? python_opt : getenv("SSFUZZ_PYTHON");
    const int named = chosen && *chosen;
    if (named && strchr(chosen, '/')) {
        if (start_one(chosen, why, sizeof why) == 0) return 0;
        ss_text_inert(why, W.error, sizeof W.error);
        return -1;
    }
    const char *name = named ? chosen : "python3", *path = getenv("PATH");
    char dirs[4096], tried[8][1024], first_why[512] = "";
    int ntried = 0;
    const int cut = snprintf(dirs, sizeof dirs, "%s", path && *path ? path : "/usr/local/bin:/usr/bin:/bin") >=
                    (int)sizeof dirs;
    for (char *d = dirs, *next; d; d = next) {
        char cand[1024], real[PATH_MAX];
        if ((next = strchr(d, ':'))) *next++ = '\0';
        else if (cut) break;   /* the last entry of a PATH longer than dirs: cut, another directory */
        const int len = d[0] == '/' ? snprintf(cand, sizeof cand, "%s/%s", d, name) : -1;
        if (len < 0 || (size_t)len >= sizeof cand) continue;   /* relative, or a cut path: another file */
        if (access(cand, X_OK) || !realpath(cand, real)) continue;
        int dup = 0;
        for (int i = 0; i < ntried; i++) dup |= !strcmp(tried[i], real);
        if (dup || ntried == 8) continue;
        snprintf(tried[ntried++], sizeof tried[0], "%.1000s", real);
        if (start_one(cand, why, sizeof why) == 0) return 0;
        if (named) {   /* the one the user named: its own failure is the answer */
            ss_text_inert(why, W.error, sizeof W.error);
            return -1;
        }
        if (!first_why[0]) snprintf(first_why, sizeof first_why, "%s", why);
    }
    char shown[256];
    ss_text_inert(name, shown, sizeof shown);
    if (named)
        snprintf(W.error, sizeof W.error, "cannot run %s (not found in PATH's absolute directories)", shown);
    else
        snprintf(W.error, sizeof W.error, "%s", ntried ? "no python3 on PATH imports torch (set --python or "
                 "SSFUZZ_PYTHON; make torch-env builds one)" : "no python3 on PATH");
    W.tried = 1;
    return -1;
}

const char *ss_torch_version(const char **why) {
    if (start_worker()) { if (why) *why = W.error; return NULL; }
    return W.caps.torch;
}

const char *ss_torch_known_version(void) { return W.caps.torch[0] ? W.caps.torch : NULL; }
const char *ss_torch_known_python(void) { return W.caps.torch[0] && W.python[0] ? W.python : NULL; }

/* ---- targets ----------------------------------------------------------- */

static int mode_of(const ss_target *t) { return (int)((size_t)(t - targets) / NSPELLINGS); }

static const char *spelling_of(const ss_target *t) { return strchr(t->kernel, ':') + 1; }

static int torch_runs_programs(const ss_target *t) { return (size_t)(t - targets) % NSPELLINGS == NSPELLINGS - 1; }

/* torch.compile's backend for a mode: 0 inductor, 1 aot_eager, 2 eager (dynamo
 * alone); -1 for an eager mode. */
static int backend_of(int mode) {
    const char *m = modes[mode];
    return !strncmp(m, "eager", 5) ? -1 : !strncmp(m, "aot-eager", 9) ? 1 : !strncmp(m, "dynamo-eager", 12) ? 2 : 0;
}
static const char *const backend_names[3] = {"inductor", "aot_eager", "eager"};

static int compiled(const ss_target *t) { return backend_of(mode_of(t)) >= 0; }

static int mode_index(const char *name) {
    for (size_t m = 0; m < NMODES; m++)
        if (!strcmp(modes[m], name)) return (int)m;
    return -1;
}

/* compile-SUFFIX: dynamo-eager-SUFFIX blames dynamo, aot-eager-SUFFIX
 * functionalization ("aot"); both right: inductor. aot-eager-SUFFIX:
 * dynamo-eager-SUFFIX blames dynamo; right: aot. SUFFIX keeps the device and
 * dynamic shapes, so a compile-dynamic finding reruns with dynamic shapes. */
static int torch_stages(const ss_target *t, const ss_target **siblings, const char **names,
                        const char **last, int cap) {
    const char *mode = modes[mode_of(t)], *suffix;
    const int b = backend_of(mode_of(t));
    if (b < 0 || b == 2 || cap < 2) return 0;
    suffix = mode + (b == 0 ? strlen("compile") : strlen("aot-eager"));
    const size_t spelling = (size_t)(t - targets) % NSPELLINGS;
    char name[48];
    int n = 0;
    static const char *const stage_modes[2] = {"dynamo-eager", "aot-eager"}, *const stage_names[2] = {"dynamo", "aot"};
    for (int k = 0; k < (b == 0 ? 2 : 1); k++) {
        snprintf(name, sizeof name, "%s%s", stage_modes[k], suffix);
        const int m = mode_index(name);
        if (m < 0) return 0;
        siblings[n] = &targets[(size_t)m * NSPELLINGS + spelling];
        names[n++] = stage_names[k];
    }
    *last = b == 0 ? "inductor" : "aot";
    return n;
}

static int torch_large(const ss_target *t) { return compiled(t) ? 250 : -1; }

/* meta.torch of a finding: what a maintainer asks first. */
static int torch_meta_write(cJSON *meta, const ss_target *t, const char *schedule) {
    const char *mode = modes[mode_of(t)], *version = ss_torch_known_version(), *python = ss_torch_known_python();
    cJSON *o = cJSON_AddObjectToObject(meta, "torch");
    const int ok = o && cJSON_AddStringToObject(o, "version", version ? version : "unknown") &&
                   cJSON_AddStringToObject(o, "mode", mode) && cJSON_AddStringToObject(o, "spelling", spelling_of(t)) &&
                   cJSON_AddStringToObject(o, "device", strstr(mode, "cuda") ? "cuda" : "cpu") &&
                   cJSON_AddBoolToObject(o, "compiled", compiled(t)) &&
                   (!schedule || cJSON_AddStringToObject(o, "form", schedule)) &&
                   (!python || cJSON_AddStringToObject(o, "python", python));
    return ok ? 0 : -1;
}

/* A reproducer replayed on another torch than the one that found it: say so
 * (the file's own python is never run, and its words are shown inert: a case
 * file is untrusted). */
static void torch_meta_note(const cJSON *meta, char *note, size_t note_len) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(meta, "torch");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, "version"), *py = cJSON_GetObjectItemCaseSensitive(t, "python");
    const char *running = ss_torch_known_version();
    note[0] = 0;
    if (!running || !cJSON_IsString(v) || !strcmp(v->valuestring, running)) return;
    char version[48], python[208];
    ss_text_inert(v->valuestring, version, sizeof version);
    ss_text_inert(cJSON_IsString(py) ? py->valuestring : "", python, sizeof python);
    snprintf(note, note_len, "found with torch %s%s%s%s, replayed on torch %s (--python chooses)", version,
             python[0] ? " (" : "", python, python[0] ? ")" : "", running);
}

/* Whether torch.compile really compiles on the CPU (cuda 0) or CUDA (1) with
 * this python: asked of the worker once per python and process (a PROBE
 * compiles a one-line program); "" when it does, else why not. */
static struct { char python[1024]; int asked[2][3]; char why[2][3][400]; } probes;

static const char *compile_probe(int cuda, int backend) {
    if (strcmp(probes.python, W.python)) {
        memset(&probes, 0, sizeof probes);
        snprintf(probes.python, sizeof probes.python, "%s", W.python);
    }
    char *why = probes.why[cuda][backend];
    if (probes.asked[cuda][backend]) return why;
    char device[32];
    snprintf(device, sizeof device, "%s:%s", cuda ? "cuda" : "cpu", backend_names[backend]);
    const double limit = env_seconds("SSFUZZ_TORCH_TIMEOUT", 300);
    double deadline = ss_now_s() + limit;
    uint8_t hdr[SS_TP_HEADER_SIZE];
    ss_tp_header_encode(hdr, SS_TP_PROBE, strlen(device));
    char io[16], text[400], lost[400] = "";
    ss_tp_header h;
    if (write_by(W.to_fd, hdr, sizeof hdr, deadline, io, sizeof io) ||
        write_by(W.to_fd, device, strlen(device), deadline, io, sizeof io)) {
        describe_loss(io, limit, lost, sizeof lost);
    } else if (read_header(&h, &deadline, limit, lost, sizeof lost) == 0) {
        if (h.type != SS_TP_ACK) snprintf(lost, sizeof lost, "torch worker answered PROBE with frame type %u", h.type);
        else if (read_text(&h, text, sizeof text, deadline, lost, sizeof lost) == 0) {
            snprintf(why, sizeof probes.why[0][0], "%s", text);
            probes.asked[cuda][backend] = 1;
            return why;
        }
    }
    ss_target_clock(0);
    lose_worker();
    snprintf(why, sizeof probes.why[0][0], "the torch.compile probe failed: %.360s", lost);
    probes.asked[cuda][backend] = 1;
    return why;
}

static const char *torch_unavailable(const ss_target *t) {
    static char why[600];
    if (start_worker()) return W.error;
    const char *mode = modes[mode_of(t)];
    const int cuda = strstr(mode, "cuda") != NULL, backend = backend_of(mode_of(t)), compile = backend >= 0;
    const char *r = cuda && W.caps.cuda[0] ? W.caps.cuda : compile && W.caps.compile[0] ? W.caps.compile : "";
    if (!r[0] && compile) r = compile_probe(cuda, backend);
    if (!r[0]) return NULL;
    snprintf(why, sizeof why, "%s (python: %.300s)", r, W.python);
    return why;
}

/* A program case's part of a RUN (its Python source, returned count), and
 * where an OK result's returned values land (ss_torch_proto.h). */
typedef struct prog_io {
    const char *source;
    size_t source_len;
    uint32_t nret;
    ss_prog_actual *act;
} prog_io;

/* The returned values' bytes of the last program result (act points into it). */
static uint8_t *returns_buf;
static size_t returns_cap;
static uint8_t *prog_part;
static size_t prog_part_cap;

/* Reads an OK program result's returned values (returns_len bytes) and checks
 * them; 0, or -1 with why (a lost stream). */
static int read_returns(uint64_t returns_len, double deadline, ss_prog_actual *act, double limit, char *why,
                        size_t why_len) {
    char io[16];
    if (SS_GROW(returns_buf, returns_cap, (size_t)returns_len)) {
        snprintf(why, why_len, "out of memory for %llu bytes of returned values", (unsigned long long)returns_len);
        return -1;
    }
    if (read_by(W.from_fd, returns_buf, (size_t)returns_len, deadline, io, sizeof io)) {
        describe_loss(io, limit, why, why_len);
        return -1;
    }
    char bad[200];
    if (ss_tp_returns_decode(returns_buf, returns_len, act, bad, sizeof bad)) {
        snprintf(why, why_len, "torch worker's RESULT: %s", bad);
        return -1;
    }
    return 0;
}

/* One RUN/RESULT exchange. *lost: 0, or 1 when the worker was lost (died,
 * broke the protocol, or timed out: *timed_out) and is gone now. */
static ss_run_status run_once(const ss_target *t, const ss_plan *plan, ss_storage *input, ss_storage *src,
                              int form, ss_dtype dt, const prog_io *prog, int *lost, int *timed_out, char *why,
                              size_t why_len) {
    const ss_op *op = &plan->op;
    const size_t head_len = ss_tp_run_head_size(op);
    const size_t prog_len = prog ? ss_tp_run_program_size(prog->source_len) : 0;
    const uint64_t in_bytes = input->bytes, src_bytes = op->src_aliased ? 0 : src->bytes;
    uint8_t hdr[SS_TP_HEADER_SIZE], head[SS_TP_RUN_HEAD_MAX];
    const int nf = t->scheduled;
    const char *const *fs = t->schedules;
    *lost = *timed_out = 0;
    ss_tp_run_head_encode(head, modes[mode_of(t)], spelling_of(t), form >= 0 && form < nf ? fs[form] : "",
                          ss_dtype_name(dt), op);
    if (prog) ss_tp_run_program_encode(head, prog_part, prog->source, prog->source_len, prog->nret);
    ss_tp_header_encode(hdr, SS_TP_RUN, head_len + prog_len + in_bytes + src_bytes);
    const double limit = env_seconds("SSFUZZ_TORCH_TIMEOUT", 300);
    double deadline = ss_now_s() + limit;
    ss_tp_header h;
    uint8_t res_head[8];
    ss_tp_result res;
    char io[16];
    lost_by_timeout = 0;
    if (write_by(W.to_fd, hdr, sizeof hdr, deadline, io, sizeof io) ||
        write_by(W.to_fd, head, head_len, deadline, io, sizeof io) ||
        write_by(W.to_fd, prog_part, prog_len, deadline, io, sizeof io) ||
        write_by(W.to_fd, ss_storage_data(input), in_bytes, deadline, io, sizeof io) ||
        write_by(W.to_fd, ss_storage_data(src), src_bytes, deadline, io, sizeof io)) {
        describe_loss(io, limit, why, why_len);
    } else if (read_header(&h, &deadline, limit, why, why_len) == 0) {
        if (h.type != SS_TP_RESULT) {
            snprintf(why, why_len, "torch worker answered RUN with frame type %u", h.type);
        } else if (read_by(W.from_fd, res_head, 8, deadline, io, sizeof io)) {
            describe_loss(io, limit, why, why_len);
        } else if ((prog ? ss_tp_result_decode_program : ss_tp_result_decode)(res_head, h.length, in_bytes + src_bytes,
                                                                              &res, why, why_len) == 0) {
            char msg[SS_TP_MAX_MESSAGE + 1];
            if (read_by(W.from_fd, msg, res.message_len, deadline, io, sizeof io) ||
                (res.status == SS_TP_OK &&
                 (read_by(W.from_fd, ss_storage_data(input), in_bytes, deadline, io, sizeof io) ||
                  read_by(W.from_fd, ss_storage_data(src), src_bytes, deadline, io, sizeof io)))) {
                describe_loss(io, limit, why, why_len);
            } else if (res.status != SS_TP_OK || !prog ||
                       read_returns(res.returns_len, deadline, prog->act, limit, why, why_len) == 0) {
                msg[res.message_len] = 0;
                snprintf(why, why_len, "%s", msg);
                if (res.replace) lose_worker();   /* it ends itself: a CUDA error may be sticky */
                switch (res.status) {
                case SS_TP_OK: return SS_RUN_OK;
                case SS_TP_REFUSED: return SS_RUN_REFUSED;
                case SS_TP_RAISED: return SS_RUN_RAISED;
                case SS_TP_UNSUPPORTED: return SS_RUN_UNAVAILABLE;
                default: return SS_RUN_ERROR;   /* PyTorch's or the worker's own error */
                }
            }
        }
    }
    *lost = 1;
    *timed_out = lost_by_timeout;
    ss_target_clock(0);
    lose_worker();   /* the stream is out of step or the worker is gone: start afresh */
    return lost_by_timeout ? SS_RUN_TIMEOUT : SS_RUN_FAILED;
}

/* The case's initial bytes, kept for a rerun in a fresh worker. */
static uint8_t *kept;
static size_t kept_cap;

/* Runs the case (a program case when prog) in the worker; a lost worker's
 * case is rerun once in a fresh one. */
static ss_run_status run_case(const ss_target *t, const ss_plan *plan, ss_storage *input, ss_storage *src,
                              const ss_run_opts *opts, const prog_io *prog, char *why, size_t why_len) {
    const char *r = torch_unavailable(t);
    if (r) { snprintf(why, why_len, "%s", r); return SS_RUN_UNAVAILABLE; }
    const ss_op *op = &plan->op;
    const int form = t->scheduled && opts ? opts->schedule : 0;
    const size_t in_bytes = input->bytes, src_bytes = op->src_aliased ? 0 : src->bytes;
    const ss_dtype dt = opts ? (ss_dtype)opts->dtype : SS_UINT8;
    if (ss_tp_run_head_size(op) > SS_TP_RUN_HEAD_MAX) {   /* a validated plan never has more than SS_MAX_NDIM dims */
        snprintf(why, why_len, "view rank beyond %d", SS_MAX_NDIM);
        return SS_RUN_FAILED;
    }
    if (ss_dtype_size(dt) != op->elem_size) {
        snprintf(why, why_len, "dtype %s does not match the element size %zu", ss_dtype_name(dt), op->elem_size);
        return SS_RUN_FAILED;
    }
    if (in_bytes + src_bytes < in_bytes || SS_GROW(kept, kept_cap, in_bytes + src_bytes)) {
        snprintf(why, why_len, "out of memory keeping the case's %zu bytes", in_bytes + src_bytes);
        return SS_RUN_FAILED;
    }
    memcpy(kept, ss_storage_data(input), in_bytes);
    if (src_bytes) memcpy(kept + in_bytes, ss_storage_data(src), src_bytes);
    int lost, timed_out;
    const ss_run_status st = run_once(t, plan, input, src, form, dt, prog, &lost, &timed_out, why, why_len);
    if (!lost || timed_out) return st;   /* a hang costs its whole limit: not rerun */
    /* The worker died or broke the protocol: rerun the case once in a fresh
     * worker before blaming it; a crash that does not recur is flaky. */
    char first[400];
    snprintf(first, sizeof first, "%s", why);
    memcpy(ss_storage_data(input), kept, in_bytes);
    if (src_bytes) memcpy(ss_storage_data(src), kept + in_bytes, src_bytes);
    if (start_worker()) {
        snprintf(why, why_len, "%.300s; no fresh worker to rerun it: %.300s", first, W.error);
        return SS_RUN_FAILED;
    }
    char again[400];
    const ss_run_status st2 = run_once(t, plan, input, src, form, dt, prog, &lost, &timed_out, again, sizeof again);
    if (lost) {
        snprintf(why, why_len, "%.300s; again in a fresh worker: %.300s", first, again);
        return st2;
    }
    snprintf(why, why_len, "flaky: %.300s; a fresh worker ran it%s%.300s", first, again[0] ? ": " : "", again);
    return st2 == SS_RUN_OK ? SS_RUN_FLAKY : st2;
}

static ss_run_status torch_run(const ss_target *t, const ss_plan *plan, ss_storage *input,
                               ss_storage *src, const ss_run_opts *opts, char *why, size_t why_len) {
    if (torch_runs_programs(t)) {
        snprintf(why, why_len, "not applicable: torch:%s:program runs program cases (--programs)", modes[mode_of(t)]);
        return SS_RUN_UNAVAILABLE;
    }
    if (plan->internal_overlap) {
        /* Writing through such a view has no defined result in PyTorch either:
         * every target rejects it; it is not sent. */
        snprintf(why, why_len, "input view has internal overlap: not sent to torch");
        return SS_RUN_REJECTED;
    }
    return run_case(t, plan, input, src, opts, NULL, why, why_len);
}

/* The program as the worker runs it: `def program(x, src):` from the one
 * printer (ss_program_py.h), the views x and src built by the worker. */
static ss_run_status torch_run_program(const ss_target *t, const ss_case *c, const ss_plan *plan,
                                       ss_storage *input, ss_storage *src, const ss_run_opts *opts,
                                       ss_prog_actual *act, char *why, size_t why_len) {
    act->nret = 0;
    if (!c->program) {
        snprintf(why, why_len, "the case has no program");
        return SS_RUN_UNAVAILABLE;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) { snprintf(why, why_len, "out of memory printing the program"); return SS_RUN_FAILED; }
    ss_program_py_function(f, c, plan);
    if (fclose(f) || !text) { free(text); snprintf(why, why_len, "out of memory printing the program"); return SS_RUN_FAILED; }
    const ss_program *p = c->program;
    const prog_io io = {text, len, p->nsteps && p->steps[p->nsteps - 1].op == SS_STEP_RETURN ?
                                   (uint32_t)p->steps[p->nsteps - 1].nret : 0, act};
    ss_run_status st;
    if (len > SS_TP_MAX_SOURCE) {
        snprintf(why, why_len, "the program's Python source of %zu bytes is above %d", len, SS_TP_MAX_SOURCE);
        st = SS_RUN_FAILED;
    } else if (SS_GROW(prog_part, prog_part_cap, ss_tp_run_program_size(len))) {
        snprintf(why, why_len, "out of memory for the program's source");
        st = SS_RUN_FAILED;
    } else {
        st = run_case(t, plan, input, src, opts, &io, why, why_len);
    }
    if (st != SS_RUN_OK && st != SS_RUN_FLAKY) act->nret = 0;
    free(text);
    return st;
}
