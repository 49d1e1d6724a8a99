/* bench_gpu.c - cuda:reinplace on a GPU: large-copy bandwidth beside cudaMemcpy, and small cases batched into one launch versus one launch per case, each result checked against the reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_gpu.h"
#include "bench_layouts.h"
#include "ss_cuda.h"
#include "ss_gen.h"
#include "ss_plan_build.h"
#include "ss_reference.h"
#include "ss_storage.h"
#include "ss_target.h"

/* float32 for the large copies, as in bench_copy. */

typedef struct bench_opts {
    int64_t mib;          /* large: input storage size */
    int reps, iters;      /* large: best of reps rounds of iters runs each */
    uint64_t cases, seed; /* small: generated cases, campaign seed */
    size_t batch;         /* small: cases per ss_cuda_exec_batch call */
    int64_t max_numel;    /* small: cap on each storage */
} bench_opts;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Storage bytes the GPU may have changed, guard bands included. */
static int same_storage(const ss_storage *a, const ss_storage *b) {
    return a->bytes == b->bytes && a->guard == b->guard &&
           memcmp(a->base, b->base, a->bytes + 2 * a->guard) == 0;
}

static int full_call(const layout *l, const ss_plan *plan, const ss_target *t, double *secs) {
    const size_t in_bytes = (size_t)l->op.input_storage_numel * ES;
    const size_t src_bytes = l->op.src_aliased ? 0 : (size_t)l->op.src_storage_numel * ES;
    ss_storage in = {0}, src = {0}, in_ref = {0}, src_ref = {0};
    char why[256] = "";
    int rc = 1;
    if (ss_storage_reserve(&in, in_bytes, SS_GUARD_DEFAULT) || ss_storage_reserve(&src, src_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve(&in_ref, in_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve(&src_ref, src_bytes, SS_GUARD_DEFAULT)) {
        fprintf(stderr, "bench_gpu: %s: out of host memory\n", l->name);
        goto out;
    }
    /* Distinct values everywhere, so a wrong order or a misplaced element shows. */
    ss_fill_seeded(SS_FLOAT32, 1, 0, ss_storage_data(&in), l->op.input_storage_numel);
    if (src_bytes)
        ss_fill_seeded(SS_FLOAT32, 1, l->op.input_storage_numel, ss_storage_data(&src), l->op.src_storage_numel);
    ss_storage_copy(&in_ref, &in);
    ss_storage_copy(&src_ref, &src);
    if (ss_ref_run(plan, &in_ref, &src_ref, why, sizeof why) != SS_RUN_OK) {
        fprintf(stderr, "bench_gpu: %s: reference: %s\n", l->name, why);
        goto out;
    }
    const double t0 = now_s();
    const ss_run_status st = t->run(t, plan, &in, &src, NULL, why, sizeof why);
    *secs = now_s() - t0;
    if (st != SS_RUN_OK) {
        fprintf(stderr, "bench_gpu: %s: %s: %s\n", l->name, t->name, why);
        goto out;
    }
    if (!same_storage(&in, &in_ref) || !same_storage(&src, &src_ref)) {
        fprintf(stderr, "bench_gpu: %s: %s DISAGREES with the reference\n", l->name, t->name);
        goto out;
    }
    rc = 0;
out:
    ss_storage_free(&in); ss_storage_free(&src);
    ss_storage_free(&in_ref); ss_storage_free(&src_ref);
    return rc;
}

static void describe_prog(const ss_kprog *p, char *buf, size_t len) {
    int vec = 0;
    for (int i = 0; i < p->nlaunch; i++) vec += p->launch[i].vec;
    snprintf(buf, len, "%d%s%s", p->nlaunch, p->staged ? " staged" : "", vec ? " 16B" : "");
}

static int bench_large(const bench_opts *o, const ss_target *t) {
    const int64_t cols = 16384, rows = o->mib * (1 << 20) / (cols * ES);
    if (rows < 4) { fprintf(stderr, "bench_gpu: --mib too small\n"); return 2; }
    layout L[8];
    const int n = make_layouts(rows, cols, L);
    printf("== large copies: float32 input storage %lld MiB (%lld x %lld); GB/s = bytes written / s\n"
           "   cudaMemcpy and launches: device-resident, cudaEvents, best of %d rounds of %d runs\n"
           "   target call: %s once (allocate, upload, launches, download, free), host clock,\n"
           "   result checked bitwise against the reference\n",
           (long long)o->mib, (long long)rows, (long long)cols, o->reps, o->iters, t->name);
    printf("%-15s %9s %12s %20s %-15s %12s  %s\n", "layout", "MiB moved", "cudaMemcpy", "launches (ratio)",
           "launches", "target call", "check");
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const layout *l = &L[i];
        ss_plan plan;
        ss_error err;
        ss_kprog prog;
        char why[256];
        if (ss_plan_build_limited(&l->op, (size_t)4 << 30, &plan, &err) != 0) {
            fprintf(stderr, "bench_gpu: %s: %s: %s\n", l->name, err.field, err.msg);
            rc = 1;
            continue;
        }
        if (ss_kprog_build(SS_KERNEL_REINPLACE, &l->op, SS_GUARD_DEFAULT, SS_GUARD_DEFAULT, &prog, why,
                           sizeof why) != SS_RUN_OK) {
            fprintf(stderr, "bench_gpu: %s: kernel plan: %s\n", l->name, why);
            rc = 1;
            continue;
        }
        const size_t in_bytes = (size_t)l->op.input_storage_numel * ES;
        const size_t src_bytes = l->op.src_aliased ? 0 : (size_t)l->op.src_storage_numel * ES;
        const size_t moved = (size_t)plan.slice_numel * ES;
        ssb_gpu_times g;
        if (ssb_gpu_time_prog(&prog, in_bytes, src_bytes, SS_GUARD_DEFAULT, moved, o->reps, o->iters, &g, why, sizeof why) != 0) {
            fprintf(stderr, "bench_gpu: %s: device timing: %s\n", l->name, why);
            rc = 1;
            continue;
        }
        double call_s = 0;
        const int bad = full_call(l, &plan, t, &call_s);
        rc |= bad;
        const double b = (double)moved, mc = b / g.memcpy_s / 1e9, k = b / g.launches_s / 1e9;
        char desc[48];
        describe_prog(&prog, desc, sizeof desc);
        printf("%-15s %9.0f %7.0f GB/s %7.0f GB/s %5.2fx %-15s %7.1f GB/s  %s  %s\n", l->name, b / (1 << 20), mc,
               k, k / mc, desc, bad ? 0.0 : b / call_s / 1e9, bad ? "FAILED" : "ok", l->what);
        fflush(stdout);
    }
    return rc;
}

/* One small case with three copies of its storages: batched, one launch per
 * case, reference. */
typedef struct small_case {
    ss_case c;
    ss_plan plan;
    ss_kprog prog;
    ss_storage in_b, src_b, in_s, src_s, in_r, src_r;
} small_case;

static void small_free(small_case *s) {
    ss_storage_free(&s->in_b); ss_storage_free(&s->src_b);
    ss_storage_free(&s->in_s); ss_storage_free(&s->src_s);
    ss_storage_free(&s->in_r); ss_storage_free(&s->src_r);
    ss_case_free(&s->c);
}

/* Generate case i into s and run the reference; 1 kept (kernel and reference
 * both run it), 0 not kept (counted in *rejected or *status_disagree). */
static int small_prepare(const ss_gen_config *cfg, uint64_t seed, uint64_t i, small_case *s,
                         uint64_t *rejected, uint64_t *status_disagree) {
    char why[256];
    ss_error err;
    memset(s, 0, sizeof *s);
    ss_case_init(&s->c);
    if (ss_gen_case(cfg, seed, i, &s->c, NULL) != 0 || ss_plan_build(&s->c.op, &s->plan, &err) != 0) {
        fprintf(stderr, "bench_gpu: case %llu: generation or plan failed\n", (unsigned long long)i);
        (*status_disagree)++;
        ss_case_free(&s->c);
        return 0;
    }
    const ss_op *op = &s->c.op;
    const size_t in_bytes = (size_t)op->input_storage_numel * op->elem_size;
    const size_t src_bytes = op->src_aliased ? 0 : (size_t)op->src_storage_numel * op->elem_size;
    if (ss_storage_reserve(&s->in_r, in_bytes, SS_GUARD_DEFAULT) || ss_storage_reserve(&s->src_r, src_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve(&s->in_b, in_bytes, SS_GUARD_DEFAULT) || ss_storage_reserve(&s->src_b, src_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve(&s->in_s, in_bytes, SS_GUARD_DEFAULT) || ss_storage_reserve(&s->src_s, src_bytes, SS_GUARD_DEFAULT)) {
        fprintf(stderr, "bench_gpu: out of host memory\n");
        exit(1);
    }
    ss_fill_case(&s->c, &s->in_r, &s->src_r);
    ss_storage_copy(&s->in_b, &s->in_r); ss_storage_copy(&s->src_b, &s->src_r);
    ss_storage_copy(&s->in_s, &s->in_r); ss_storage_copy(&s->src_s, &s->src_r);
    const ss_run_status ref = ss_ref_run(&s->plan, &s->in_r, &s->src_r, why, sizeof why);
    const ss_run_status k = ss_kprog_build(SS_KERNEL_REINPLACE, op, SS_GUARD_DEFAULT, SS_GUARD_DEFAULT,
                                           &s->prog, why, sizeof why);
    if (k == SS_RUN_OK && ref == SS_RUN_OK) return 1;
    if (k == SS_RUN_REJECTED && ref == SS_RUN_REJECTED) (*rejected)++;
    else {
        fprintf(stderr, "bench_gpu: case %llu: kernel plan %d, reference %d\n", (unsigned long long)i, (int)k, (int)ref);
        (*status_disagree)++;
    }
    small_free(s);
    return 0;
}

/* Warm-up: both entry points once on scratch copies of a case, so that
 * neither timing pays for context creation or kernel loading. */
static int small_warm_up(small_case *s) {
    ss_storage in = {0}, src = {0};
    char why[256] = "";
    int rc = 0;
    if (ss_storage_reserve(&in, s->in_s.bytes, s->in_s.guard) || ss_storage_reserve(&src, s->src_s.bytes, s->src_s.guard)) {
        fprintf(stderr, "bench_gpu: out of host memory\n");
        exit(1);
    }
    ss_storage *srcp = s->c.op.src_aliased ? NULL : &src;
    ss_storage_copy(&in, &s->in_s); ss_storage_copy(&src, &s->src_s);
    const ss_cuda_batch_item item = {&s->prog, &in, srcp};
    if (ss_cuda_exec_batch(&item, 1, why, sizeof why) != SS_RUN_OK) rc = 1;
    ss_storage_copy(&in, &s->in_s); ss_storage_copy(&src, &s->src_s);
    if (!rc && ss_cuda_exec(&s->prog, &in, srcp, why, sizeof why) != SS_RUN_OK) rc = 1;
    if (rc) fprintf(stderr, "bench_gpu: warm-up: %s\n", why);
    ss_storage_free(&in); ss_storage_free(&src);
    return rc;
}

static int bench_small(const bench_opts *o) {
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = o->max_numel;
    cfg.large_per_mille = 0;
    small_case *sc = calloc(o->cases, sizeof *sc);
    ss_cuda_batch_item *items = calloc(o->cases, sizeof *items);
    if (!sc || !items) { fprintf(stderr, "bench_gpu: out of host memory\n"); return 1; }
    uint64_t rejected = 0, status_disagree = 0;
    size_t n = 0;
    for (uint64_t i = 0; i < o->cases; i++)
        if (small_prepare(&cfg, o->seed, i, &sc[n], &rejected, &status_disagree)) {
            small_case *s = &sc[n];
            items[n] = (ss_cuda_batch_item){&s->prog, &s->in_b, s->c.op.src_aliased ? NULL : &s->src_b};
            n++;
        }
    printf("== small cases: %llu generated (seed %llu, storages <= %lld elements, no large cases);\n"
           "   %zu run, %llu rejected by kernel and reference alike, %llu status disagreements\n"
           "   timed: the entry point alone (host staging, upload, launches, download), host clock;\n"
           "   not timed: generation, reference, comparison\n",
           (unsigned long long)o->cases, (unsigned long long)o->seed, (long long)o->max_numel, n,
           (unsigned long long)rejected, (unsigned long long)status_disagree);
    int rc = status_disagree != 0;
    if (n == 0 || small_warm_up(&sc[0]) != 0) { rc = 1; goto out; }

    char why[256] = "";
    double t_batch = 0, t_single = 0;
    size_t launches = 0;
    for (size_t k = 0; k < n; k += o->batch) {
        const size_t m = n - k < o->batch ? n - k : o->batch;
        const double t0 = now_s();
        const ss_run_status st = ss_cuda_exec_batch(items + k, m, why, sizeof why);
        t_batch += now_s() - t0;
        launches++;
        if (st != SS_RUN_OK) { fprintf(stderr, "bench_gpu: ss_cuda_exec_batch: %s\n", why); rc = 1; goto out; }
    }
    const double t1 = now_s();
    for (size_t i = 0; i < n; i++) {
        small_case *s = &sc[i];
        if (ss_cuda_exec(&s->prog, &s->in_s, s->c.op.src_aliased ? NULL : &s->src_s, why, sizeof why) != SS_RUN_OK) {
            fprintf(stderr, "bench_gpu: ss_cuda_exec, case %zu: %s\n", i, why);
            rc = 1;
            goto out;
        }
    }
    t_single = now_s() - t1;
    uint64_t bad_b = 0, bad_s = 0;
    for (size_t i = 0; i < n; i++) {
        const small_case *s = &sc[i];
        const int ok_b = same_storage(&s->in_b, &s->in_r) && same_storage(&s->src_b, &s->src_r);
        const int ok_s = same_storage(&s->in_s, &s->in_r) && same_storage(&s->src_s, &s->src_r);
        if (!ok_b && bad_b++ < 5) fprintf(stderr, "bench_gpu: batched case %zu disagrees with the reference\n", i);
        if (!ok_s && bad_s++ < 5) fprintf(stderr, "bench_gpu: single case %zu disagrees with the reference\n", i);
    }
    const double cps_b = (double)n / t_batch, cps_s = (double)n / t_single;
    printf("%-44s %12.0f cases/s  (%zu calls of <= %zu cases, %.3f s)\n", "batched (ss_cuda_exec_batch)", cps_b,
           launches, o->batch, t_batch);
    printf("%-44s %12.0f cases/s  (%zu calls, %.3f s)\n", "one launch per case (ss_cuda_exec)", cps_s, n, t_single);
    printf("%-44s %12.1fx\n", "ratio batched / one per case", cps_b / cps_s);
    printf("disagreements with the reference (bitwise, guard bands included): batched %llu, one per case %llu\n",
           (unsigned long long)bad_b, (unsigned long long)bad_s);
    rc |= bad_b != 0 || bad_s != 0;
out:
    for (size_t i = 0; i < n; i++) small_free(&sc[i]);
    free(sc);
    free(items);
    return rc;
}

static void usage(FILE *f) {
    fprintf(f, "usage: bench_gpu [--mib N] [--reps N] [--iters N] [--cases N] [--batch N] [--seed S] [--max-numel N]\n"
               "  --mib N        large copies: input storage MiB (default 256; 0 skips them)\n"
               "  --reps/--iters large copies: best of reps rounds of iters runs (default 5, 10)\n"
               "  --cases N      small cases generated (default 10000; 0 skips them)\n"
               "  --batch N      small cases per batched call (default 2000)\n"
               "exit: 0 ok, 1 a run failed or disagreed with the reference, 2 usage, 3 no CUDA device\n");
}

int main(int argc, char **argv) {
    bench_opts o = {256, 5, 10, 10000, 1, 2000, 4096};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int more = i + 1 < argc;
        if (!strcmp(a, "--mib") && more) o.mib = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(a, "--reps") && more) o.reps = atoi(argv[++i]);
        else if (!strcmp(a, "--iters") && more) o.iters = atoi(argv[++i]);
        else if (!strcmp(a, "--cases") && more) o.cases = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--batch") && more) o.batch = (size_t)strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--seed") && more) o.seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--max-numel") && more) o.max_numel = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
        else { usage(stderr); return 2; }
    }
    if (o.mib < 0 || o.reps < 1 || o.iters < 1 || o.batch < 1 || o.max_numel < 1) { usage(stderr); return 2; }
    const ss_target *t = ss_target_find("cuda:reinplace");
    if (!t) { fprintf(stderr, "bench_gpu: no cuda:reinplace target\n"); return 2; }
    const char *why = t->unavailable(t);
    if (why) {
        printf("bench_gpu: skipped: %s\n", why);
        return 3;
    }
    int rc = 0;
    if (o.mib) rc |= bench_large(&o, t);
    if (o.cases) rc |= bench_small(&o);
    return rc;
}
