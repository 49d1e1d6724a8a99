/* ss_cuda_iso.c - cuda runs in a child process that owns the CUDA context, replaced after a sticky error. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ss_cuda.h"
#include "ss_cuda_iso.h"

enum { REQ_PROBE = 1, REQ_EXEC = 2 };

typedef struct iso_req {
    int type;
    int has_src;
    ss_kprog prog;
    size_t in_bytes, in_guard, src_bytes, src_guard;
    size_t src_at, map_bytes;   /* where src's copy starts in the shared region; its size */
} iso_req;

typedef struct iso_resp {
    int status;                 /* ss_run_status, or -1 for "available" answers to a probe */
    int poisoned;
    char why[512];
} iso_resp;

static int enabled = -1;   /* -1: not decided; SSFUZZ_CUDA_IN_PROCESS=1 turns it off */
static pid_t child = -1, owner;   /* the CUDA child, and the process that started it */
static int sock = -1, shm = -1;
static uint8_t *map;
static size_t map_cap;
static long children;

void ss_cuda_iso_set(int on) { enabled = on; }
int ss_cuda_iso_enabled(void) {
    if (enabled < 0) {
        const char *e = getenv("SSFUZZ_CUDA_IN_PROCESS");
        enabled = !(e && !strcmp(e, "1"));
    }
    return enabled;
}
long ss_cuda_iso_children(void) { return children; }

static int io_all(int fd, void *buf, size_t n, int writing) {
    uint8_t *p = buf;
    while (n) {
        const ssize_t k = writing ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static size_t total(size_t bytes, size_t guard) { return bytes + 2 * guard; }

/* The child: answer requests until EOF, or until its context is poisoned. */
static void child_main(int fd, int shm_fd) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    iso_req q;
    while (io_all(fd, &q, sizeof q, 0) == 0) {
        iso_resp r;
        memset(&r, 0, sizeof r);
        if (q.type == REQ_PROBE) {
            const char *u = ss_cuda_unavailable();
            r.status = u ? SS_RUN_UNAVAILABLE : -1;
            snprintf(r.why, sizeof r.why, "%s", u ? u : "");
        } else {
            uint8_t *m = mmap(NULL, q.map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd, 0);
            if (m == MAP_FAILED) {
                r.status = SS_RUN_FAILED;
                snprintf(r.why, sizeof r.why, "CUDA child: cannot map %zu bytes of storage", q.map_bytes);
            } else {
                ss_storage in = {m, q.in_guard, q.in_bytes, total(q.in_bytes, q.in_guard)};
                ss_storage s = {m + q.src_at, q.src_guard, q.src_bytes, total(q.src_bytes, q.src_guard)};
                r.status = ss_cuda_exec(&q.prog, &in, q.has_src ? &s : NULL, r.why, sizeof r.why);
                munmap(m, q.map_bytes);
            }
        }
        r.poisoned = ss_cuda_poisoned() != NULL;
        if (io_all(fd, &r, sizeof r, 1) || r.poisoned) break;
    }
    _exit(0);
}

/* A fork of this process (triage's rechecks, a fuzz probe) must not talk to
 * its parent's child: it forgets it and starts its own. */
static void forget_if_inherited(void) {
    if (child > 0 && owner != getpid()) {
        close(sock);
        child = -1;
        sock = -1;
    }
}

void ss_cuda_iso_stop(void) {
    forget_if_inherited();
    if (child > 0) {
        close(sock);
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    child = -1;
    sock = -1;
}

static int start(char *why, size_t why_len) {
    forget_if_inherited();
    if (child > 0) return 0;
    if (shm < 0 && (shm = memfd_create("ssfuzz-cuda-storages", MFD_CLOEXEC)) < 0) {
        snprintf(why, why_len, "CUDA child: memfd_create: %s", strerror(errno));
        return -1;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        snprintf(why, why_len, "CUDA child: socketpair: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, why_len, "CUDA child: fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        close(sv[0]);
        child_main(sv[1], shm);
    }
    close(sv[1]);
    child = pid;
    owner = getpid();
    sock = sv[0];
    children++;
    return 0;
}

/* Send q, wait for the answer; a dead child is reaped and described. */
static int call(const iso_req *q, iso_resp *r, char *why, size_t why_len) {
    if (start(why, why_len)) return -1;
    if (io_all(sock, (void *)q, sizeof *q, 1) == 0 && io_all(sock, r, sizeof *r, 0) == 0) {
        if (r->poisoned) ss_cuda_iso_stop();   /* it exits by itself; the next call starts another */
        return 0;
    }
    int st = 0;
    close(sock);
    waitpid(child, &st, 0);
    child = -1;
    sock = -1;
    if (WIFSIGNALED(st)) snprintf(why, why_len, "the CUDA child process died: %s", strsignal(WTERMSIG(st)));
    else snprintf(why, why_len, "the CUDA child process exited (status %d) without answering",
                  WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return -1;
}

const char *ss_cuda_iso_unavailable(void) {
    static char reason[512];
    static int available;
    if (available) return NULL;
    iso_req q;
    iso_resp r;
    memset(&q, 0, sizeof q);
    q.type = REQ_PROBE;
    if (call(&q, &r, reason, sizeof reason)) return reason;
    if (r.status < 0) { available = 1; return NULL; }
    snprintf(reason, sizeof reason, "%s", r.why);
    ss_cuda_iso_stop();   /* nothing to run there */
    return reason;
}

static int reserve(size_t bytes, char *why, size_t why_len) {
    if (bytes <= map_cap) return 0;
    if (map) munmap(map, map_cap);
    map = NULL;
    map_cap = 0;
    if (ftruncate(shm, (off_t)bytes) ||
        (map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0)) == MAP_FAILED) {
        map = NULL;
        snprintf(why, why_len, "CUDA child: out of shared memory for %zu bytes of storage", bytes);
        return -1;
    }
    map_cap = bytes;
    return 0;
}

ss_run_status ss_cuda_iso_exec(const ss_kprog *prog, ss_storage *input, ss_storage *src,
                               char *why, size_t why_len) {
    iso_req q;
    memset(&q, 0, sizeof q);
    q.type = REQ_EXEC;
    q.prog = *prog;
    q.has_src = src != NULL;
    q.in_bytes = input->bytes;
    q.in_guard = input->guard;
    q.src_bytes = src ? src->bytes : 0;
    q.src_guard = src ? src->guard : 0;
    q.src_at = (total(q.in_bytes, q.in_guard) + 63) & ~(size_t)63;
    q.map_bytes = q.src_at + total(q.src_bytes, q.src_guard) + 64;
    if (start(why, why_len) || reserve(q.map_bytes, why, why_len)) return SS_RUN_FAILED;
    memcpy(map, input->base, total(q.in_bytes, q.in_guard));
    if (src) memcpy(map + q.src_at, src->base, total(q.src_bytes, q.src_guard));
    iso_resp r;
    if (call(&q, &r, why, why_len)) return SS_RUN_FAILED;
    snprintf(why, why_len, "%s", r.why);
    if (r.status == SS_RUN_OK) {
        memcpy(input->base, map, total(q.in_bytes, q.in_guard));
        if (src) memcpy(src->base, map + q.src_at, total(q.src_bytes, q.src_guard));
    }
    return (ss_run_status)r.status;
}
