/* ss_pyworker.c - a Python worker process: start, handshake, PROBE, RUN/RESULT with a rerun after a loss. */
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
#include <sys/wait.h>
#include <unistd.h>
#include "ss_clock.h"
#include "ss_files.h"
#include "ss_pyworker.h"
#include "ss_target.h"
#include "ss_text.h"
#include "ss_torch_modes.h"
#include "ss_vec.h"

extern const char ss_torch_worker_py[];     /* harness/engines/ss_torch_worker.py, built in */
extern const char ss_torch_program_py[];    /* harness/engines/ss_torch_program.py, its shared module */
extern const char ss_pykernel_worker_py[];  /* harness/engines/ss_pykernel_worker.py, the Python-kernel engine's */

static char python_opt[1024];

void ss_pyworker_set_python(const char *path) { snprintf(python_opt, sizeof python_opt, "%s", path); }

double ss_pyworker_env_seconds(const char *name, double dflt) {
    const char *s = getenv(name);
    char *end;
    const double v = s ? strtod(s, &end) : 0;
    return s && *s && !*end && v > 0 ? v : dflt;
}

void ss_pyworker_stop(ss_pyworker *w) {
    if (w->pid > 0 && w->owner == getpid()) {
        kill(w->pid, SIGKILL);
        waitpid(w->pid, NULL, 0);
    }
    if (w->pid > 0) { close(w->to_fd); close(w->from_fd); }
    w->pid = 0;
}

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
static void describe_loss(ss_pyworker *w, const char *io, double limit, char *why, size_t n) {
    int st = 0;
    const char *when = w->starting ? "at start-up" : "while running the case";
    w->lost_by_timeout = !strcmp(io, "timeout");
    if (w->lost_by_timeout) {
        snprintf(why, n, "%s (%.300s) did not answer within %.0f s %s (%s); worker killed", w->label,
                 w->python, limit, when, w->starting ? "importing torch?" : "a hung compile or kernel?");
        return;
    }
    if (w->pid > 0 && w->owner == getpid() && reap_within(w->pid, 2.0, &st)) {
        w->pid = -w->pid;   /* reaped */
        if (WIFSIGNALED(st))
            snprintf(why, n, "%s died from signal %d (%s) %s", w->label,
                     WTERMSIG(st), strsignal(WTERMSIG(st)), when);
        else
            snprintf(why, n, "%s (%.300s) exited with status %d %s "
                     "(SSFUZZ_TORCH_LOG=FILE keeps its stderr)", w->label, w->python, WEXITSTATUS(st), when);
        return;
    }
    snprintf(why, n, "%s closed its pipe (%s)", w->label, io);
}

static void lose_worker(ss_pyworker *w) {
    if (w->pid < 0) { close(w->to_fd); close(w->from_fd); w->pid = 0; return; }
    ss_pyworker_stop(w);
}

/* Reads one frame header; PROGRESS frames are consumed here (they move the
 * clock). Returns 0 with *h, or -1 with why. */
static int read_header(ss_pyworker *w, ss_tp_header *h, double *deadline, double limit, char *why, size_t n) {
    for (;;) {
        uint8_t raw[SS_TP_HEADER_SIZE];
        char io[16];
        if (read_by(w->from_fd, raw, sizeof raw, *deadline, io, sizeof io)) {
            describe_loss(w, io, limit, why, n);
            return -1;
        }
        if (ss_tp_header_decode(raw, h, why, n)) return -1;
        if (h->type != SS_TP_PROGRESS) return 0;
        uint8_t phase[4];
        if (h->length != 4 || read_by(w->from_fd, phase, 4, *deadline, io, sizeof io)) {
            snprintf(why, n, "bad PROGRESS frame from the %s", w->label);
            return -1;
        }
        /* A likely compile: not the case's time; its own, longer limit. */
        const double compile_s = ss_pyworker_env_seconds("SSFUZZ_TORCH_COMPILE_TIMEOUT", 600);
        ss_target_clock(phase[0] ? compile_s : 0);
        *deadline = ss_now_s() + (phase[0] ? compile_s : limit);
    }
}

/* Reads a text payload (ACK, ERROR) of at most cap - 1 bytes. */
static int read_text(ss_pyworker *w, const ss_tp_header *h, char *buf, size_t cap, double deadline, char *why,
                     size_t n) {
    char io[16];
    if (h->length >= cap) { snprintf(why, n, "worker sent a %llu-byte text frame", (unsigned long long)h->length); return -1; }
    if (read_by(w->from_fd, buf, (size_t)h->length, deadline, io, sizeof io)) {
        describe_loss(w, io, 0, why, n);
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

/* Starts `python` with the built-in worker and shakes hands. 0, or -1 with why.
 * Its command line: WORKER SHARED MODES_JSON PYKERNEL (ss_torch_worker.py). */
static int start_one(ss_pyworker *w, const char *python, char *why, size_t n) {
    static const struct { const char *name, *text; } parts[] = {
        {"ss_torch_worker.py", ss_torch_worker_py},
        {"ss_torch_program.py", ss_torch_program_py},
        {"ss_pykernel_worker.py", ss_pykernel_worker_py},
    };
    static int fds[] = {-1, -1, -1};
    char path[3][32];
    for (int i = 0; i < 3; i++) {
        if (staged(parts[i].name, parts[i].text, &fds[i]) < 0) {
            snprintf(why, n, "cannot stage the worker script %s: %s", parts[i].name, strerror(errno));
            return -1;
        }
        snprintf(path[i], sizeof path[i], "/proc/self/fd/%d", fds[i]);
    }
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
        setenv("PYTHONSAFEPATH", "1", 1);   /* no script or current directory on sys.path (>= 3.11) */
        if (w->child_env) w->child_env();
        execlp(python, python, path[0], path[1], ss_torch_modes_json(), path[2], (char *)NULL);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    fcntl(to[1], F_SETFL, fcntl(to[1], F_GETFL) | O_NONBLOCK);   /* writes have a deadline: write_by */
    w->pid = pid;
    w->owner = getpid();
    w->to_fd = to[1];
    w->from_fd = from[0];
    w->tried = 1;
    w->lost_by_timeout = 0;
    w->error[0] = '\0';
    memset(&w->caps, 0, sizeof w->caps);
    snprintf(w->python, sizeof w->python, "%s", python);
    const double limit = ss_pyworker_env_seconds("SSFUZZ_TORCH_START_TIMEOUT", 300);
    ss_target_clock(limit);
    w->starting = 1;
    double deadline = ss_now_s() + limit;
    uint8_t hello[SS_TP_HEADER_SIZE];
    ss_tp_header_encode(hello, SS_TP_HELLO, 0);
    ss_tp_header h;
    char text[1024];
    int rc = -1;
    signal(SIGPIPE, SIG_IGN);
    char io[16];
    if (write_by(w->to_fd, hello, sizeof hello, deadline, io, sizeof io)) {
        describe_loss(w, io, limit, why, n);   /* reaps it: an exec failure reads as status 127 */
    } else if (read_header(w, &h, &deadline, limit, why, n) == 0) {
        if ((h.type == SS_TP_ACK || h.type == SS_TP_ERROR) && read_text(w, &h, text, sizeof text, deadline, why, n) == 0) {
            if (h.type == SS_TP_ERROR) snprintf(why, n, "%.200s: %.300s", python, text);
            else rc = ss_tp_caps_parse(text, (size_t)h.length, &w->caps, why, n);
        } else if (h.type != SS_TP_ACK && h.type != SS_TP_ERROR) {
            snprintf(why, n, "%s: worker answered HELLO with frame type %u", python, h.type);
        }
    }
    if (rc && strstr(why, "exited with status 127"))
        snprintf(why, n, "cannot run %.300s (not found or not executable)", python);
    ss_target_clock(0);
    w->starting = 0;
    if (rc) {
        char keep[512];
        snprintf(keep, sizeof keep, "%s", why);
        lose_worker(w);
        w->tried = 1;
        snprintf(why, n, "%s", keep);
    }
    return rc;
}

/* --python, $SSFUZZ_PYTHON, else each python3 on PATH until one imports torch.
 * On PATH only absolute directories count: an empty or relative entry names
 * the current directory, and a python3 there (say, beside a downloaded
 * reproducer) must never become the worker. A bare --python name is looked
 * up here by the same rule (execlp would take the empty entries); a relative
 * path is the user's own choice. A worker's words are untrusted: w->error is
 * inert. */
int ss_pyworker_start(ss_pyworker *w) {
    if (w->pid > 0 && w->owner != getpid()) {   /* inherited across fork: not ours */
        close(w->to_fd);
        close(w->from_fd);
        w->pid = 0;
        w->tried = 0;
    }
    if (w->pid > 0) return 0;
    if (w->tried && w->error[0]) return -1;
    char why[512] = "";
    const char *chosen = python_opt[0] ? python_opt : getenv("SSFUZZ_PYTHON");
    const int named = chosen && *chosen;
    if (named && strchr(chosen, '/')) {
        if (start_one(w, chosen, why, sizeof why) == 0) return 0;
        ss_text_inert(why, w->error, sizeof w->error);
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
        if (start_one(w, cand, why, sizeof why) == 0) return 0;
        if (named) {   /* the one the user named: its own failure is the answer */
            ss_text_inert(why, w->error, sizeof w->error);
            return -1;
        }
        if (!first_why[0]) snprintf(first_why, sizeof first_why, "%s", why);
    }
    char shown[256];
    ss_text_inert(name, shown, sizeof shown);
    if (named)
        snprintf(w->error, sizeof w->error, "cannot run %s (not found in PATH's absolute directories)", shown);
    else
        snprintf(w->error, sizeof w->error, "%s", ntried ? "no python3 on PATH imports torch (set --python or "
                 "SSFUZZ_PYTHON; make torch-env builds one)" : "no python3 on PATH");
    w->tried = 1;
    return -1;
}

int ss_pyworker_ask(ss_pyworker *w, const char *payload, size_t len, char *answer, size_t cap, char *why,
                    size_t n) {
    const double limit = ss_pyworker_env_seconds("SSFUZZ_TORCH_TIMEOUT", 300);
    double deadline = ss_now_s() + limit;
    uint8_t hdr[SS_TP_HEADER_SIZE];
    ss_tp_header_encode(hdr, SS_TP_PROBE, len);
    char io[16];
    ss_tp_header h;
    why[0] = '\0';
    if (write_by(w->to_fd, hdr, sizeof hdr, deadline, io, sizeof io) ||
        write_by(w->to_fd, payload, len, deadline, io, sizeof io)) {
        describe_loss(w, io, limit, why, n);
    } else if (read_header(w, &h, &deadline, limit, why, n) == 0) {
        if (h.type != SS_TP_ACK) snprintf(why, n, "%s answered PROBE with frame type %u", w->label, h.type);
        else if (read_text(w, &h, answer, cap, deadline, why, n) == 0) return 0;
    }
    ss_target_clock(0);
    lose_worker(w);
    return -1;
}

/* The returned values' bytes of the last program result (act points into
 * it); a batch's results each have their own (batch_returns). */
typedef struct returns_mem { uint8_t *buf; size_t cap; } returns_mem;
static returns_mem single_returns, batch_returns[SS_TP_MAX_BATCH];

/* Reads an OK program result's returned values (returns_len bytes) into mem
 * and checks them; 0, or -1 with why (a lost stream). */
static int read_returns(ss_pyworker *w, uint64_t returns_len, double deadline, ss_prog_actual *act,
                        returns_mem *mem, double limit, char *why, size_t why_len) {
    char io[16];
    if (SS_GROW(mem->buf, mem->cap, (size_t)returns_len)) {
        snprintf(why, why_len, "out of memory for %llu bytes of returned values", (unsigned long long)returns_len);
        return -1;
    }
    if (read_by(w->from_fd, mem->buf, (size_t)returns_len, deadline, io, sizeof io)) {
        describe_loss(w, io, limit, why, why_len);
        return -1;
    }
    char bad[200];
    if (ss_tp_returns_decode(mem->buf, returns_len, act, bad, sizeof bad)) {
        snprintf(why, why_len, "%s's RESULT: %s", w->label, bad);
        return -1;
    }
    return 0;
}

static double answer_limit(void) { return ss_pyworker_env_seconds("SSFUZZ_TORCH_TIMEOUT", 300); }

/* Writes r's RUN frame; 0, or -1 with why (the worker lost). */
static int send_run(ss_pyworker *w, const ss_pyw_run *r, double deadline, char *why, size_t why_len) {
    uint8_t hdr[SS_TP_HEADER_SIZE];
    char io[16];
    ss_tp_header_encode(hdr, SS_TP_RUN, r->head_len + r->part_len + r->len[0] + r->len[1]);
    if (write_by(w->to_fd, hdr, sizeof hdr, deadline, io, sizeof io) ||
        write_by(w->to_fd, r->head, r->head_len, deadline, io, sizeof io) ||
        write_by(w->to_fd, r->part, r->part_len, deadline, io, sizeof io) ||
        write_by(w->to_fd, r->data[0], r->len[0], deadline, io, sizeof io) ||
        write_by(w->to_fd, r->data[1], r->len[1], deadline, io, sizeof io)) {
        describe_loss(w, io, answer_limit(), why, why_len);
        return -1;
    }
    return 0;
}

/* Reads the RESULT of r (a program's returned values into mem). *lost: 0,
 * or 1 when the worker was lost (died, broke the protocol, or timed out:
 * *timed_out) and is gone now; a RESULT with the REPLACE bit also leaves
 * the worker gone, with *lost 0. */
static ss_run_status read_result(ss_pyworker *w, const ss_pyw_run *r, returns_mem *mem, int *lost, int *timed_out,
                                 char *why, size_t why_len) {
    const uint64_t data_bytes = r->len[0] + r->len[1];
    const double limit = answer_limit();
    double deadline = ss_now_s() + limit;
    ss_tp_header h;
    uint8_t res_head[8];
    ss_tp_result res;
    char io[16];
    *lost = *timed_out = 0;
    if (read_header(w, &h, &deadline, limit, why, why_len) == 0) {
        if (h.type != SS_TP_RESULT) {
            snprintf(why, why_len, "%s answered RUN with frame type %u", w->label, h.type);
        } else if (read_by(w->from_fd, res_head, 8, deadline, io, sizeof io)) {
            describe_loss(w, io, limit, why, why_len);
        } else if ((r->act ? ss_tp_result_decode_program : ss_tp_result_decode)(res_head, h.length, data_bytes,
                                                                                 &res, why, why_len) == 0) {
            char msg[SS_TP_MAX_MESSAGE + 1];
            if (read_by(w->from_fd, msg, res.message_len, deadline, io, sizeof io) ||
                (res.status == SS_TP_OK &&
                 (read_by(w->from_fd, r->data[0], r->len[0], deadline, io, sizeof io) ||
                  read_by(w->from_fd, r->data[1], r->len[1], deadline, io, sizeof io)))) {
                describe_loss(w, io, limit, why, why_len);
            } else if (res.status != SS_TP_OK || !r->act ||
                       read_returns(w, res.returns_len, deadline, r->act, mem, limit, why, why_len) == 0) {
                msg[res.message_len] = 0;
                snprintf(why, why_len, "%s", msg);
                if (res.replace) lose_worker(w);   /* it ends itself: a CUDA error may be sticky */
                switch (res.status) {
                case SS_TP_OK: return SS_RUN_OK;
                case SS_TP_REFUSED: return SS_RUN_REFUSED;
                case SS_TP_RAISED: return SS_RUN_RAISED;
                case SS_TP_UNSUPPORTED: return SS_RUN_UNAVAILABLE;
                default: return SS_RUN_ERROR;   /* the engine's or the worker's own error */
                }
            }
        }
    }
    *lost = 1;
    *timed_out = w->lost_by_timeout;
    ss_target_clock(0);
    lose_worker(w);   /* the stream is out of step or the worker is gone: start afresh */
    return w->lost_by_timeout ? SS_RUN_TIMEOUT : SS_RUN_FAILED;
}

/* One RUN/RESULT exchange (see read_result for *lost). */
static ss_run_status run_once(ss_pyworker *w, const ss_pyw_run *r, returns_mem *mem, int *lost, int *timed_out,
                              char *why, size_t why_len) {
    w->lost_by_timeout = 0;
    if (send_run(w, r, ss_now_s() + answer_limit(), why, why_len) == 0)
        return read_result(w, r, mem, lost, timed_out, why, why_len);
    *lost = 1;
    *timed_out = w->lost_by_timeout;
    ss_target_clock(0);
    lose_worker(w);
    return w->lost_by_timeout ? SS_RUN_TIMEOUT : SS_RUN_FAILED;
}

/* The case's initial bytes, kept for a rerun in a fresh worker. */
static uint8_t *kept;
static size_t kept_cap;

/* ss_pyworker_run, a program's returned values into mem. */
static ss_run_status run_alone(ss_pyworker *w, const ss_pyw_run *r, returns_mem *mem, char *why, size_t why_len) {
    const uint64_t total = r->len[0] + r->len[1];
    if (total < r->len[0] || total > SIZE_MAX || SS_GROW(kept, kept_cap, (size_t)total)) {
        snprintf(why, why_len, "out of memory keeping the case's %llu bytes", (unsigned long long)total);
        return SS_RUN_FAILED;
    }
    if (r->len[0]) memcpy(kept, r->data[0], r->len[0]);
    if (r->len[1]) memcpy(kept + r->len[0], r->data[1], r->len[1]);
    int lost, timed_out;
    const ss_run_status st = run_once(w, r, mem, &lost, &timed_out, why, why_len);
    if (!lost || timed_out) return st;   /* a hang costs its whole limit: not rerun */
    /* The worker died or broke the protocol: rerun the case once in a fresh
     * worker before blaming it; a crash that does not recur is flaky. */
    char first[400];
    snprintf(first, sizeof first, "%s", why);
    if (r->len[0]) memcpy(r->data[0], kept, r->len[0]);
    if (r->len[1]) memcpy(r->data[1], kept + r->len[0], r->len[1]);
    if (ss_pyworker_start(w)) {
        snprintf(why, why_len, "%.300s; no fresh worker to rerun it: %.300s", first, w->error);
        return SS_RUN_FAILED;
    }
    char again[400];
    const ss_run_status st2 = run_once(w, r, mem, &lost, &timed_out, again, sizeof again);
    if (lost) {
        snprintf(why, why_len, "%.300s; again in a fresh worker: %.300s", first, again);
        return st2;
    }
    snprintf(why, why_len, "flaky: %.300s; a fresh worker ran it%s%.300s", first, again[0] ? ": " : "", again);
    return st2 == SS_RUN_OK ? SS_RUN_FLAKY : st2;
}

ss_run_status ss_pyworker_run(ss_pyworker *w, const ss_pyw_run *r, char *why, size_t why_len) {
    return run_alone(w, r, &single_returns, why, why_len);
}

/* The batch's initial bytes, kept to rerun unanswered cases alone. */
static uint8_t *batch_kept;
static size_t batch_kept_cap;

void ss_pyworker_run_batch(ss_pyworker *w, const ss_pyw_run *runs, size_t n, ss_run_status *st, char *whys,
                           size_t why_len) {
    if (n > SS_TP_MAX_BATCH) n = SS_TP_MAX_BATCH;   /* callers never pass more; the rest unrun */
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += runs[i].len[0] + runs[i].len[1];
    size_t done = 0, lost_at = n;
    char loss[400] = "";
    if (total > SIZE_MAX / 2 || SS_GROW(batch_kept, batch_kept_cap, (size_t)total)) {
        snprintf(loss, sizeof loss, "out of memory keeping the batch's %llu bytes", (unsigned long long)total);
    } else {
        for (size_t i = 0, at = 0; i < n; at += runs[i].len[0] + runs[i].len[1], i++) {
            if (runs[i].len[0]) memcpy(batch_kept + at, runs[i].data[0], runs[i].len[0]);
            if (runs[i].len[1]) memcpy(batch_kept + at + runs[i].len[0], runs[i].data[1], runs[i].len[1]);
        }
        uint8_t hdr[SS_TP_HEADER_SIZE], count[8] = {0};
        char io[16];
        const double deadline = ss_now_s() + answer_limit();
        for (int b = 0; b < 4; b++) count[b] = (uint8_t)(n >> (8 * b));
        ss_tp_header_encode(hdr, SS_TP_BATCH, sizeof count);
        w->lost_by_timeout = 0;
        int sent = write_by(w->to_fd, hdr, sizeof hdr, deadline, io, sizeof io) == 0 &&
                   write_by(w->to_fd, count, sizeof count, deadline, io, sizeof io) == 0;
        if (!sent) describe_loss(w, io, answer_limit(), loss, sizeof loss);
        for (size_t i = 0; sent && i < n; i++) sent = send_run(w, &runs[i], deadline, loss, sizeof loss) == 0;
        if (!sent) { ss_target_clock(0); lose_worker(w); }
        /* Answers in order; a loss, or a RESULT that ends the worker, ends the batch. */
        while (sent && done < n) {
            int lost, timed_out;
            char *why = whys + done * why_len;
            st[done] = read_result(w, &runs[done], &batch_returns[done], &lost, &timed_out, why, why_len);
            if (lost) { snprintf(loss, sizeof loss, "%s", why); break; }
            ss_target_clock(0);   /* each answer read has the per-run limit from here */
            done++;
            if (w->pid <= 0) break;   /* REPLACE: the worker ended itself after this result */
        }
        if (done < n && loss[0]) lost_at = done;
    }
    /* The unanswered cases run alone, from their initial bytes, in a fresh
     * worker. The worker answers only once the whole batch ran, so a loss
     * (died, hung, broke the protocol) names no case: when one of them
     * fails alone too (a crash, a hang), it explains the loss; when none
     * does, the case the batch was lost on is flaky, saying so: the batch
     * did what no case alone does. */
    size_t at = 0;
    int explained = 0;
    for (size_t i = 0; i < done; i++) at += runs[i].len[0] + runs[i].len[1];
    for (size_t i = done; i < n; at += runs[i].len[0] + runs[i].len[1], i++) {
        char *why = whys + i * why_len;
        if (runs[i].len[0]) memcpy(runs[i].data[0], batch_kept + at, runs[i].len[0]);
        if (runs[i].len[1]) memcpy(runs[i].data[1], batch_kept + at + runs[i].len[0], runs[i].len[1]);
        if (ss_pyworker_start(w)) {
            snprintf(why, why_len, "%.200s; no fresh worker to run it alone: %.200s", loss, w->error);
            st[i] = SS_RUN_FAILED;
            continue;
        }
        st[i] = run_alone(w, &runs[i], &batch_returns[i], why, why_len);
        if (st[i] == SS_RUN_FAILED || st[i] == SS_RUN_TIMEOUT || st[i] == SS_RUN_FLAKY) explained = 1;
    }
    if (lost_at < n && !explained && st[lost_at] == SS_RUN_OK) {
        char *why = whys + lost_at * why_len, alone[256];
        snprintf(alone, sizeof alone, "%.255s", why);
        snprintf(why, why_len, "flaky: lost in a batch of %zu: %.300s; alone in a fresh worker it ran%s%.200s", n,
                 loss, alone[0] ? ": " : "", alone);
        st[lost_at] = SS_RUN_FLAKY;
    }
}
