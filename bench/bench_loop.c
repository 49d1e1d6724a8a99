/* bench_loop.c - small-case throughput of the whole differential loop (generate, plan, reference, emu:reinplace, compare) on one core, and of the target's run alone; exports the same cases as JSON lines for the PyTorch peer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>
#include "ss_case.h"
#include "ss_check.h"
#include "ss_gen.h"
#include "ss_plan_build.h"
#include "ss_plugin.h"
#include "ss_storage.h"
#include "ss_target.h"

typedef struct bench_opts {
    uint64_t cases, seed;
    int64_t max_numel;
    const char *target, *schedule, *export_path;
    uint64_t export_cases;
    int check_only;   /* --check-only: the CPU-time line of the batched loop alone (a pair's C side) */
} bench_opts;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds this process has run: on a machine shared with other work,
 * wall time also counts the time others had the core, and not in the same
 * proportion for a short C round as for a long Python one. */
static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void usage(FILE *f) {
    fprintf(f, "usage: bench_loop [--cases N] [--seed S] [--max-numel N] [--target T] [--schedule S] [--plugin SO]\n"
               "                  [--export N FILE]   (write the first N cases as JSON lines and exit)\n"
               "                  [--check-only]      (only the loop without generation, its CPU-time line)\n");
}

static int parse_args(int argc, char **argv, bench_opts *o) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int more = i + 1 < argc;
        if (!strcmp(a, "--cases") && more) o->cases = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--seed") && more) o->seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--max-numel") && more) o->max_numel = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(a, "--target") && more) o->target = argv[++i];
        else if (!strcmp(a, "--schedule") && more) o->schedule = argv[++i];
        else if (!strcmp(a, "--check-only")) o->check_only = 1;
        else if (!strcmp(a, "--plugin") && more) {
            ss_error err;
            if (ss_plugin_load(argv[++i], ss_target_find, &err)) {
                fprintf(stderr, "bench_loop: plugin %s: %s\n", argv[i], err.msg);
                return -1;
            }
        }
        else if (!strcmp(a, "--export") && i + 2 < argc) {
            o->export_cases = strtoull(argv[++i], NULL, 10);
            o->export_path = argv[++i];
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); exit(0); }
        else { usage(stderr); return -1; }
    }
    return o->cases && o->max_numel > 0 ? 0 : -1;
}

/* The small-case distribution: the default generator without its occasional
 * million-element cases, every storage capped at max_numel. */
static void bench_config(const bench_opts *o, ss_gen_config *cfg) {
    ss_gen_config_default(cfg);
    cfg->max_numel = o->max_numel;
    cfg->large_per_mille = 0;
}

/* One case per line: the case format with its layout whitespace folded
 * (strings in a case never hold a raw newline or tab). */
static int export_cases(const bench_opts *o) {
    ss_gen_config cfg;
    bench_config(o, &cfg);
    FILE *f = fopen(o->export_path, "w");
    if (!f) { perror(o->export_path); return 1; }
    ss_case c;
    for (uint64_t i = 0; i < o->export_cases; i++) {
        if (ss_gen_case(&cfg, o->seed, i, &c, NULL) != 0) { fclose(f); return 1; }
        /* The peer cannot decide every internal overlap exactly (torch says
         * "too hard" for some); it reads the reference's verdict instead. */
        ss_plan plan;
        ss_error err;
        if (ss_plan_build_limited(&c.op, 0, &plan, &err) == 0 && plan.internal_overlap) {
            c.meta = cJSON_CreateObject();
            if (c.meta) cJSON_AddBoolToObject(c.meta, "bench_rejected", 1);
        }
        char *text = ss_case_to_json(&c);
        if (!text) { fclose(f); return 1; }
        for (char *p = text; *p; p++) if (*p == '\n' || *p == '\t') *p = ' ';
        fprintf(f, "%s\n", text);
        free(text);
        ss_case_free(&c);
    }
    return fclose(f) != 0;
}

enum { BATCH = 1024, ROUNDS = 3 };

typedef struct phases { double plan, prepare, target; } phases;

/* Checks n cases (plan, fill + reference, target + compare); returns the
 * seconds taken. With `ph`, each phase is timed apart (timer calls included). */
static double check_cases(ss_check_ctx *ctx, const ss_case *cases, uint64_t n, const ss_target *t,
                          const ss_run_opts *ropts, phases *ph) {
    char why[256];
    ss_plan plan;
    ss_error err;
    const double t0 = now_s();
    for (uint64_t i = 0; i < n; i++) {
        ss_run_status ref;
        ss_check_result res;
        const double a = ph ? now_s() : 0;
        if (ss_plan_build_limited(&cases[i].op, ctx->max_bytes, &plan, &err) != 0) continue;
        const double b = ph ? now_s() : 0;
        if (ss_check_prepare(ctx, &cases[i], &plan, &ref, why, sizeof why) != 0) continue;
        const double c = ph ? now_s() : 0;
        ss_check_target(ctx, &plan, ref, t, ropts, &res);
        if (ph) {
            const double d = now_s();
            ph->plan += b - a;
            ph->prepare += c - b;
            ph->target += d - c;
        }
    }
    return now_s() - t0;
}

/* The figure the PyTorch peer's ratio is taken against (bench/peer_torch.py reads this line). */
static void print_cpu_line(double cpu, uint64_t n) {
    printf("c loop without generation, batches of %d, CPU time: best of %d: %.3f s, %.0f cases/s\n", BATCH, ROUNDS,
           cpu, cpu > 0 ? (double)n / cpu : 0.0);
}

int main(int argc, char **argv) {
    bench_opts o = {200000, 1, 4096, "emu:reinplace", "forward", NULL, 0, 0};
    if (parse_args(argc, argv, &o) != 0) { usage(stderr); return 2; }
    if (o.export_path) return export_cases(&o);

    const ss_target *t = ss_target_find(o.target);
    ss_schedule sched;
    if (!t || t->unavailable(t) || ss_schedule_from_name(o.schedule, &sched) != 0) {
        fprintf(stderr, "bench_loop: target %s or schedule %s unusable here\n", o.target, o.schedule);
        return 2;
    }
    ss_gen_config cfg;
    bench_config(&o, &cfg);
    const ss_run_opts ropts = {sched, o.seed, 0};
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    uint64_t agree = 0, invalid = 0, skipped = 0, findings = 0, elems = 0;
    char why[256];
    ss_case c;
    ss_plan plan;
    ss_error err;
    const double t0 = now_s();
    for (uint64_t i = 0; i < (o.check_only ? 0 : o.cases); i++) {
        if (ss_gen_case(&cfg, o.seed, i, &c, NULL) != 0) { fprintf(stderr, "out of memory\n"); return 1; }
        ss_run_status ref;
        ss_check_result res;
        if (ss_plan_build_limited(&c.op, ctx.max_bytes, &plan, &err) != 0) invalid++;
        else if (ss_check_prepare(&ctx, &c, &plan, &ref, why, sizeof why) != 0) skipped++;
        else {
            ss_check_target(&ctx, &plan, ref, t, &ropts, &res);
            if (res.verdict == SS_AGREE) agree++; else findings++;
            elems += (uint64_t)plan.op.input_storage_numel;
        }
        ss_case_free(&c);
    }
    const double secs = now_s() - t0;
    /* The same work without generation, as the PyTorch peer (which reads
     * pre-generated cases) does it. Two ways, side by side:
     *  - all n_pre cases generated first and held (how this bench measured
     *    before): each case is then a cache miss when its turn comes, which
     *    the campaign, checking a case right after generating it, never pays;
     *  - in batches of BATCH cases generated just before they are checked
     *    (the campaign's situation), generation timed apart. */
    const uint64_t n_pre = o.cases < 100000 ? o.cases : 100000;
    ss_case *pre = calloc(n_pre ? n_pre : 1, sizeof *pre), *bat = calloc(BATCH, sizeof *bat);
    if (!pre || !bat) { fprintf(stderr, "out of memory\n"); return 1; }
    for (uint64_t i = 0; i < n_pre; i++)
        if (ss_gen_case(&cfg, o.seed, i, &pre[i], NULL) != 0) { fprintf(stderr, "out of memory\n"); return 1; }
    /* Best of ROUNDS, the two ways interleaved: this machine's speed drifts
     * between seconds, not within a round. */
    double secs_held = 1e30, secs_batched = 1e30, secs_gen = 1e30, cpu_batched = 1e30;
    phases ph = {0};
    for (int round = 0; round <= ROUNDS; round++) {   /* the last round: every phase timed */
        const int timed = round == ROUNDS;
        if (!timed) {
            const double h = check_cases(&ctx, pre, n_pre, t, &ropts, NULL);
            if (h < secs_held) secs_held = h;
        }
        double g = 0, chk = 0, cpu = 0;
        for (uint64_t b = 0; b < n_pre; b += BATCH) {
            const uint64_t n = n_pre - b < BATCH ? n_pre - b : BATCH;
            const double g0 = now_s();
            for (uint64_t i = 0; i < n; i++)
                if (ss_gen_case(&cfg, o.seed, b + i, &bat[i], NULL) != 0) { fprintf(stderr, "out of memory\n"); return 1; }
            g += now_s() - g0;
            const double c0 = cpu_s();
            chk += check_cases(&ctx, bat, n, t, &ropts, timed ? &ph : NULL);
            cpu += cpu_s() - c0;
            for (uint64_t i = 0; i < n; i++) ss_case_free(&bat[i]);
        }
        if (!timed && chk < secs_batched) secs_batched = chk;
        if (!timed && cpu < cpu_batched) cpu_batched = cpu;
        if (!timed && g < secs_gen) secs_gen = g;
    }
    free(bat);
    if (o.check_only) {
        for (uint64_t i = 0; i < n_pre; i++) ss_case_free(&pre[i]);
        free(pre);
        ss_check_ctx_free(&ctx);
        print_cpu_line(cpu_batched, n_pre);
        return 0;
    }
    /* The target's run alone (no reference, no compare): what a plugin call
     * costs beside a built-in target on the same cases. Storages are reset
     * from the initial fill outside the timed call. */
    double secs_run = 0;
    uint64_t n_run = 0;
    for (uint64_t i = 0; i < n_pre; i++) {
        ss_run_status ref;
        if (ss_plan_build_limited(&pre[i].op, ctx.max_bytes, &plan, &err) != 0 ||
            ss_check_prepare(&ctx, &pre[i], &plan, &ref, why, sizeof why) != 0 || ref != SS_RUN_OK)
            continue;
        ss_run_opts ro = ropts;
        ro.dtype = ctx.dtype;
        ss_check_initial(&ctx);
        ss_storage_copy(&ctx.tgt_in, &ctx.init_in);
        ss_storage_copy(&ctx.tgt_src, &ctx.init_src);
        const double r0 = now_s();
        (void)t->run(t, &plan, &ctx.tgt_in, &ctx.tgt_src, &ro, why, sizeof why);
        secs_run += now_s() - r0;
        n_run++;
    }
    for (uint64_t i = 0; i < n_pre; i++) ss_case_free(&pre[i]);
    free(pre);
    printf("c loop: %llu cases (%s, %s, seed %llu, max numel %lld, mean storage %.0f elements): "
           "%.3f s, %.0f cases/s (%llu agree, %llu findings, %llu invalid, %llu skipped)\n",
           (unsigned long long)o.cases, t->name, o.schedule, (unsigned long long)o.seed,
           (long long)o.max_numel, o.cases ? (double)elems / (double)o.cases : 0.0, secs,
           secs > 0 ? (double)o.cases / secs : 0.0, (unsigned long long)agree,
           (unsigned long long)findings, (unsigned long long)invalid, (unsigned long long)skipped);
    const double per = n_pre ? 1e9 / (double)n_pre : 0;
    printf("c loop without generation, %llu cases generated in batches of %d: best of %d: %.3f s, %.0f cases/s "
           "(generation apart: %.3f s, %.0f ns a case)\n", (unsigned long long)n_pre, BATCH, ROUNDS, secs_batched,
           secs_batched > 0 ? (double)n_pre / secs_batched : 0.0, secs_gen, secs_gen * per);
    print_cpu_line(cpu_batched, n_pre);
    printf("c loop without generation, the %llu cases all held in memory first (this bench before): best of %d: "
           "%.3f s, %.0f cases/s\n", (unsigned long long)n_pre, ROUNDS, secs_held, secs_held > 0 ? (double)n_pre / secs_held : 0.0);
    const double ns_check = 1e9 * (ph.plan + ph.prepare + ph.target) / (double)(n_pre ? n_pre : 1);
    printf("per case (ns, timers included): generate %.0f, plan %.0f, prepare (fill + reference) %.0f, "
           "target + compare %.0f; generation is %.0f%% of the loop with it\n",
           secs_gen * per, ph.plan * per, ph.prepare * per, ph.target * per,
           100.0 * secs_gen * per / (secs_gen * per + ns_check));
    printf("target run alone: %llu valid cases: %.3f s, %.0f ns per run\n", (unsigned long long)n_run,
           secs_run, n_run ? 1e9 * secs_run / (double)n_run : 0.0);
    ss_check_ctx_free(&ctx);
    return findings ? 1 : 0;
}
