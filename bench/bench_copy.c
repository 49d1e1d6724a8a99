/* bench_copy.c - large-copy bandwidth: the reference and emu:reinplace (forward schedule) on 256 MiB storages, beside memcpy of the same bytes in the same run; for the transposed layout also the emulator's launch-order walk (its path before tiling). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ss_emu.h"
#include "ss_kernel_params.h"
#include "ss_plan_build.h"
#include "ss_reference.h"
#include "ss_storage.h"
#include "ss_target.h"
#include "bench_layouts.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct timing { double memcpy_s, ref_s, emu_s, walk_s; int ok; } timing;

/* emu:reinplace's program with every launch marked order-dependent: the
 * emulator then walks each launch in its forward order, run by run, as it did
 * before order-free transposed copies were tiled. */
static int run_walk(const ss_plan *plan, ss_storage *in, ss_storage *src) {
    ss_kprog prog;
    char why[256];
    if (ss_kprog_build(SS_KERNEL_REINPLACE, &plan->op, in->guard, src->guard, &prog, why, sizeof why) != SS_RUN_OK)
        return -1;
    for (int i = 0; i < prog.nlaunch; i++) prog.launch[i].indep = 0;
    static uint8_t *tmp;   /* the staging buffer, kept across repetitions */
    static size_t tmp_cap;
    if ((size_t)prog.tmp_bytes > tmp_cap) {
        free(tmp);
        tmp_cap = (size_t)prog.tmp_bytes;
        tmp = malloc(tmp_cap);
        if (!tmp) { tmp_cap = 0; return -1; }
    }
    uint8_t *bufs[SS_KB_COUNT] = {ss_storage_data(in), plan->op.src_aliased ? ss_storage_data(in) : ss_storage_data(src),
                                  tmp, NULL};
    const ss_run_opts fwd = {SS_SCHED_FORWARD, 0, 0};
    return ss_emu_exec(&prog, bufs, &fwd);
}

static int run_layout(const layout *l, const ss_target *emu, int reps, int walk, timing *out) {
    ss_plan plan;
    ss_error err;
    if (ss_plan_build_limited(&l->op, (size_t)4 << 30, &plan, &err) != 0) {
        fprintf(stderr, "bench_copy: %s: %s: %s\n", l->name, err.field, err.msg);
        return -1;
    }
    const size_t in_bytes = (size_t)l->op.input_storage_numel * ES;
    const size_t src_bytes = l->op.src_aliased ? 0 : (size_t)l->op.src_storage_numel * ES;
    const size_t moved = (size_t)plan.slice_numel * ES;
    ss_storage in = {0}, src = {0};
    if (ss_storage_reserve(&in, in_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve(&src, src_bytes, SS_GUARD_DEFAULT)) {
        fprintf(stderr, "bench_copy: out of memory for %zu bytes\n", in_bytes + src_bytes);
        return -1;
    }
    /* Touch every page first, so no timing includes page faults. */
    memset(ss_storage_data(&in), 1, in_bytes);
    if (src_bytes) memset(ss_storage_data(&src), 2, src_bytes);
    const uint8_t *from = src_bytes ? ss_storage_data(&src) : ss_storage_data(&in) + in_bytes - moved;
    char why[256];
    const ss_run_opts fwd = {SS_SCHED_FORWARD, 0, 0};
    out->memcpy_s = out->ref_s = out->emu_s = out->walk_s = 1e30;
    out->ok = 1;
    for (int r = 0; r < reps; r++) {           /* best of reps, interleaved */
        double t0 = now_s();
        memmove(ss_storage_data(&in), from, moved);
        double t1 = now_s();
        if (t1 - t0 < out->memcpy_s) out->memcpy_s = t1 - t0;
        if (ss_ref_run(&plan, &in, &src, why, sizeof why) != SS_RUN_OK) out->ok = 0;
        double t2 = now_s();
        if (t2 - t1 < out->ref_s) out->ref_s = t2 - t1;
        if (emu->run(emu, &plan, &in, &src, &fwd, why, sizeof why) != SS_RUN_OK) out->ok = 0;
        double t3 = now_s();
        if (t3 - t2 < out->emu_s) out->emu_s = t3 - t2;
        if (!walk) continue;
        if (run_walk(&plan, &in, &src) != 0) out->ok = 0;
        double t4 = now_s();
        if (t4 - t3 < out->walk_s) out->walk_s = t4 - t3;
    }
    if (!out->ok) fprintf(stderr, "bench_copy: %s: a run failed: %s\n", l->name, why);
    ss_storage_free(&in);
    ss_storage_free(&src);
    return 0;
}

int main(int argc, char **argv) {
    int64_t mib = 256;
    int reps = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc) mib = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_copy [--mib N (input storage size, default 256)] [--reps N]\n");
            return 2;
        }
    }
    if (mib < 1 || reps < 1) { fprintf(stderr, "bench_copy: --mib and --reps must be >= 1\n"); return 2; }
    const ss_target *emu = ss_target_find("emu:reinplace");
    if (!emu) { fprintf(stderr, "bench_copy: no emu:reinplace target\n"); return 2; }
    /* rows x cols float32 = mib MiB; cols 16384 (64 KiB rows). */
    const int64_t cols = 16384, rows = mib * (1 << 20) / (cols * ES);
    if (rows < 4) { fprintf(stderr, "bench_copy: --mib too small\n"); return 2; }
    layout L[8];
    const int n = make_layouts(rows, cols, L);
    printf("bench_copy: float32 input storage %lld MiB (%lld x %lld), best of %d; GB/s = bytes written / s\n",
           (long long)mib, (long long)rows, (long long)cols, reps);
    printf("%-15s %9s %10s %16s %16s  %s\n", "layout", "MiB moved", "memcpy", "reference", "emu:reinplace", "case");
    int rc = 0;
    for (int i = 0; i < n; i++) {
        timing t;
        const int walk = !strcmp(L[i].name, "transposed-src");
        if (run_layout(&L[i], emu, reps, walk, &t) != 0 || !t.ok) { rc = 1; continue; }
        ss_plan plan;
        ss_error err;
        ss_plan_build_limited(&L[i].op, (size_t)4 << 30, &plan, &err);
        const double bytes = (double)plan.slice_numel * ES;
        const double mc = bytes / t.memcpy_s / 1e9, ref = bytes / t.ref_s / 1e9, em = bytes / t.emu_s / 1e9;
        printf("%-15s %9.0f %6.2f GB/s %5.2f GB/s %4.2fx %5.2f GB/s %4.2fx  %s\n", L[i].name,
               bytes / (1 << 20), mc, ref, ref / mc, em, em / mc, L[i].what);
        if (walk) {
            const double wk = bytes / t.walk_s / 1e9;
            printf("%-15s emu:reinplace before tiling (launch-order walk) %.2f GB/s %.2fx memcpy -> tiled %.2fx "
                   "(%.1fx faster; aim >= 0.30x memcpy)\n", "", wk, wk / mc, em / mc, t.walk_s / t.emu_s);
        }
    }
    return rc;
}
