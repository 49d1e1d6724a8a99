/* bench_copy.c - large-copy bandwidth: the reference and emu:reinplace (forward schedule) on 256 MiB storages, beside memcpy of the same bytes in the same run; the transposed layouts at every element size, rank, step and aliasing, each against the 0.30x memcpy aim (PASS/FAIL); for the first transposed layout also the emulator's launch-order walk (its path before tiling). */
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
#include "bench_transposed.h"

#define AIM 0.30   /* the emulator's transposed copies: at least this fraction of memcpy */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct timing { double memcpy_s, ref_s, emu_s, walk_s; int ok, same; } timing;

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

/* Distinct 8-byte words (every element of every size differs from its
 * neighbours), so a misplaced element changes the hash below. */
static void fill_pattern(uint8_t *p, size_t n, uint64_t salt) {
    for (size_t i = 0; i + 8 <= n; i += 8) {
        const uint64_t w = (salt + i) * 0x9E3779B97F4A7C15ull;
        memcpy(p + i, &w, 8);
    }
}

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 0;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001B3ull + (h >> 29);
    }
    return h;
}

/* The reference and the emulator from one initial state: equal storages? */
static int same_result(const ss_plan *plan, const ss_target *emu, ss_storage *in, ss_storage *src) {
    const ss_run_opts fwd = {SS_SCHED_FORWARD, 0, 0};
    char why[256];
    uint64_t h[2];
    for (int k = 0; k < 2; k++) {
        fill_pattern(ss_storage_data(in), in->bytes, 1);
        fill_pattern(ss_storage_data(src), src->bytes, 1u << 30);
        const ss_run_status st = k ? emu->run(emu, plan, in, src, &fwd, why, sizeof why)
                                   : ss_ref_run(plan, in, src, why, sizeof why);
        if (st != SS_RUN_OK) return 0;
        h[k] = hash_bytes(ss_storage_data(in), in->bytes);
    }
    return h[0] == h[1] && ss_storage_guards_intact(in) && ss_storage_guards_intact(src);
}

static int run_layout(const layout *l, const ss_target *emu, int reps, int walk, timing *out) {
    ss_plan plan;
    ss_error err;
    if (ss_plan_build_limited(&l->op, (size_t)4 << 30, &plan, &err) != 0) {
        fprintf(stderr, "bench_copy: %s: %s: %s\n", l->name, err.field, err.msg);
        return -1;
    }
    const size_t es = l->op.elem_size;
    const size_t in_bytes = (size_t)l->op.input_storage_numel * es;
    const size_t src_bytes = l->op.src_aliased ? 0 : (size_t)l->op.src_storage_numel * es;
    const size_t moved = (size_t)plan.slice_numel * es;
    ss_storage in = {0}, src = {0};
    uint8_t *spare = NULL;   /* memcpy's source when the slice is the whole aliased storage */
    if (ss_storage_reserve(&in, in_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve(&src, src_bytes, SS_GUARD_DEFAULT) ||
        (!src_bytes && moved >= in_bytes && !(spare = malloc(moved)))) {
        fprintf(stderr, "bench_copy: out of memory for %zu bytes\n", in_bytes + src_bytes + moved);
        return -1;
    }
    /* Touch every page first, so no timing includes page faults. */
    memset(ss_storage_data(&in), 1, in_bytes);
    if (src_bytes) memset(ss_storage_data(&src), 2, src_bytes);
    if (spare) memset(spare, 3, moved);
    const uint8_t *from = src_bytes ? ss_storage_data(&src) : spare ? spare : ss_storage_data(&in) + in_bytes - moved;
    char why[256] = "";
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
    out->same = out->ok && same_result(&plan, emu, &in, &src);
    if (out->ok && !out->same) fprintf(stderr, "bench_copy: %s: emu:reinplace differs from the reference\n", l->name);
    free(spare);
    ss_storage_free(&in);
    ss_storage_free(&src);
    return 0;
}

/* One table row; returns the emulator's ratio to memcpy (-1: the layout failed). */
static double row(const layout *l, const ss_target *emu, int reps, int walk, int judge) {
    timing t;
    if (run_layout(l, emu, reps, walk, &t) != 0 || !t.same) return -1;
    ss_plan plan;
    ss_error err;
    ss_plan_build_limited(&l->op, (size_t)4 << 30, &plan, &err);
    const double bytes = (double)plan.slice_numel * (double)l->op.elem_size;
    const double mc = bytes / t.memcpy_s / 1e9, ref = bytes / t.ref_s / 1e9, em = bytes / t.emu_s / 1e9;
    printf("%-15s %9.0f %6.2f GB/s %5.2f GB/s %4.2fx %5.2f GB/s %4.2fx%s  %s\n", l->name, bytes / (1 << 20), mc,
           ref, ref / mc, em, em / mc, !judge ? "" : em / mc >= AIM ? " PASS" : " FAIL", l->what);
    if (walk) {
        const double wk = bytes / t.walk_s / 1e9;
        printf("%-15s emu:reinplace before tiling (launch-order walk) %.2f GB/s %.2fx memcpy -> tiled %.2fx "
               "(%.1fx faster)\n", "", wk, wk / mc, em / mc, t.walk_s / t.emu_s);
    }
    fflush(stdout);
    return em / mc;
}

int main(int argc, char **argv) {
    int64_t mib = 256;
    int reps = 3, only_transposed = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc) mib = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--transposed")) only_transposed = 1;
        else {
            fprintf(stderr, "usage: bench_copy [--mib N (input storage size, 16 to 4096, default 256)] [--reps N]"
                            " [--transposed (those layouts only)]\n");
            return 2;
        }
    }
    if (mib < 16 || mib > 4096 || reps < 1) {
        fprintf(stderr, "bench_copy: --mib must be in [16, 4096] and --reps >= 1\n");
        return 2;
    }
    const ss_target *emu = ss_target_find("emu:reinplace");
    if (!emu) { fprintf(stderr, "bench_copy: no emu:reinplace target\n"); return 2; }
    /* rows x cols float32 = mib MiB; cols 16384 (64 KiB rows). */
    const int64_t cols = 16384, rows = mib * (1 << 20) / (cols * ES);
    layout L[16];
    int n = make_layouts(rows, cols, L);
    printf("bench_copy: input storage %lld MiB, best of %d; GB/s = bytes written / s; ratios to memcpy of the "
           "same bytes in the same run\n", (long long)mib, reps);
    printf("%-15s %9s %10s %16s %16s  %s\n", "layout", "MiB moved", "memcpy", "reference", "emu:reinplace", "case");
    int rc = 0;
    for (int i = 0; i < n && !only_transposed; i++)
        if (row(&L[i], emu, reps, !strcmp(L[i].name, "transposed-src"), 0) < 0) rc = 1;
    n = make_transposed_layouts(mib << 20, L);
    printf("transposed layouts (aim: emu:reinplace >= %.2fx memcpy):\n", AIM);
    int pass = 0;
    double worst = 1e30;
    const char *worst_name = "";
    for (int i = 0; i < n; i++) {
        const double r = row(&L[i], emu, reps, 0, 1);
        if (r < 0) rc = 1;
        if (r >= AIM) pass++;
        if (r < worst) { worst = r; worst_name = L[i].name; }
    }
    printf("transposed layouts: %d of %d at >= %.2fx memcpy (lowest %.2fx, %s): %s\n", pass, n, AIM, worst,
           worst_name, pass == n ? "PASS" : "FAIL");
    return rc;
}
