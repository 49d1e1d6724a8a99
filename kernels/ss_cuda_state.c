/* ss_cuda_state.c - the CUDA engine's per-process state: poisoning by sticky errors, and the fake engine switch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_cuda.h"

static char poisoned[320];
static int fake_read, fake_on;
static long fake_fault_at, fake_runs;

const char *ss_cuda_poisoned(void) { return poisoned[0] ? poisoned : NULL; }

void ss_cuda_poison(const char *why) {
    if (!poisoned[0])
        snprintf(poisoned, sizeof poisoned, "CUDA context poisoned by an earlier run (%s); "
                 "only a new process can use the device again", why);
}

int ss_cuda_fake_configure(const char *spec) {
    fake_read = 1;
    fake_on = 0;
    fake_fault_at = fake_runs = 0;
    poisoned[0] = 0;
    if (!spec || !*spec || !strcmp(spec, "0")) return 0;
    if (!strcmp(spec, "1")) { fake_on = 1; return 0; }
    char *end;
    if (strncmp(spec, "fault:", 6)) return -1;
    const long n = strtol(spec + 6, &end, 10);
    if (*end || n < 1) return -1;
    fake_on = 1;
    fake_fault_at = n;
    return 0;
}

int ss_cuda_fake_active(void) {
    if (!fake_read && ss_cuda_fake_configure(getenv("SSFUZZ_FAKE_CUDA")))
        fprintf(stderr, "ssfuzz: SSFUZZ_FAKE_CUDA: expected 1 or fault:N; the fake engine stays off\n");
    return fake_on;
}

int ss_cuda_fake_count_run(void) { return ++fake_runs == fake_fault_at; }
