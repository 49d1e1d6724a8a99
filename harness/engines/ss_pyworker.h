/* ss_pyworker.h - one Python worker process (harness/engines/ss_torch_worker.py,
 * built into the binary): its start with its own environment, the handshake,
 * PROBE questions, and one RUN/RESULT exchange with a lost worker's case rerun
 * once in a fresh one. The torch engine owns one worker, the Python-kernel
 * engine one per device (the CPU one interprets Triton): each an ss_pyworker,
 * all speaking the frames of ss_torch_proto.h and sharing this code path, so a
 * worker's death, hang or broken frame reads the same whichever engine ran it.
 *
 * A worker is started on first use and owned by the process that started it:
 * a forked child that inherits one starts its own. The interpreter is the
 * global --python (ss_pyworker_set_python), else $SSFUZZ_PYTHON, else the
 * first python3 on PATH's absolute directories that imports torch. Limits:
 * SSFUZZ_TORCH_START_TIMEOUT (handshake), SSFUZZ_TORCH_TIMEOUT (an answer),
 * SSFUZZ_TORCH_COMPILE_TIMEOUT (a run the worker says is compiling). */
#ifndef SS_PYWORKER_H
#define SS_PYWORKER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "ss_plan.h"
#include "ss_program.h"
#include "ss_torch_proto.h"

typedef struct ss_pyworker {
    const char *label;          /* how messages name it: "torch worker" */
    void (*child_env)(void);    /* in the child before exec: the worker's own environment */
    pid_t pid, owner;           /* owner: the process that started it; pid < 0: reaped */
    int to_fd, from_fd;
    int tried;                  /* 1: a start was attempted (ok or not) in this process */
    int starting;               /* 1 during the handshake: losses are start-up failures */
    int lost_by_timeout;        /* 1: the last loss described was the time limit */
    char python[1024];
    char error[512];            /* why no worker could start (inert) */
    ss_tp_caps caps;
} ss_pyworker;

#define SS_PYWORKER_INIT(label_, env_) {.label = (label_), .child_env = (env_), .to_fd = -1, .from_fd = -1}

void ss_pyworker_set_python(const char *path);
/* Seconds from the environment variable `name`, else dflt. */
double ss_pyworker_env_seconds(const char *name, double dflt);

/* 0 when w runs (started now if needed); -1 with the reason in w->error. */
int ss_pyworker_start(ss_pyworker *w);
/* Kills and reaps a worker this process owns; forgets an inherited one. */
void ss_pyworker_stop(ss_pyworker *w);

/* A PROBE with `payload` (len bytes), answered by ACK text (at most cap - 1
 * bytes, into answer): 0; or -1 with why, the worker lost and stopped. w
 * must run. */
int ss_pyworker_ask(ss_pyworker *w, const char *payload, size_t len, char *answer, size_t cap, char *why,
                    size_t n);

/* One case for a worker: the RUN head and its variable part (a program's
 * source, a Python kernel's module), then the storage regions, which an OK
 * RESULT overwrites in place; a program case (act) also gets its returned
 * values (act points into memory kept until the next run). */
typedef struct ss_pyw_run {
    const uint8_t *head, *part;
    size_t head_len, part_len;
    uint8_t *data[2];
    uint64_t len[2];
    ss_prog_actual *act;
} ss_pyw_run;

/* Runs r on a running w. A worker lost (died, broke the protocol) is
 * replaced and the case rerun once with its initial bytes: a loss again is
 * the first loss's status (SS_RUN_FAILED: a crash), agreement then is
 * SS_RUN_FLAKY; a hang is SS_RUN_TIMEOUT at once (it costs its whole limit).
 * RESULT statuses map to OK, REFUSED, RAISED, UNAVAILABLE (unsupported) and
 * ERROR; why holds the worker's message (untrusted). */
ss_run_status ss_pyworker_run(ss_pyworker *w, const ss_pyw_run *r, char *why, size_t why_len);

/* Runs n (at most SS_TP_MAX_BATCH) cases of one compiled target as one
 * BATCH: the worker compiles one function for them all (ss_torch_proto.h).
 * st[i] and whys + i * why_len are case i's status and message, as
 * ss_pyworker_run gives them; program cases' returned values each live in
 * memory of their own until the next batch. Cases a lost worker left
 * unanswered run alone in a fresh worker; unless one of them fails alone
 * too (a crash or a hang: the loss is its), the one the batch was lost on
 * is SS_RUN_FLAKY when it runs alone, its message saying so. */
void ss_pyworker_run_batch(ss_pyworker *w, const ss_pyw_run *runs, size_t n, ss_run_status *st, char *whys,
                           size_t why_len);

#endif
