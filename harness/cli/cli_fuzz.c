/* cli_fuzz.c - `ssfuzz fuzz`: options, start-up checks, signals, and the final summary. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli_opts.h"
#include "ss_check.h"
#include "ss_cli.h"
#include "ss_files.h"
#include "ss_fuzz.h"
#include "ss_gen_opts.h"
#include "ss_replay.h"
#include "ss_shard.h"
#include "ss_text.h"

static volatile sig_atomic_t stop_flag, stop_signal;
static void on_signal(int sig) { stop_signal = sig; stop_flag = 1; }

static const char about[] =
    "Generates seeded cases (layouts, slice bounds, aliasing src/input pairs), runs the\n"
    "reference and every target on each, and writes each new failure as a minimized\n"
    "JSON reproducer. Without arguments: 60 s on the default targets (cuda:* kernels\n"
    "when a GPU is usable, else emu:* kernels; never mutants). Your kernels: the global\n"
    "--plugin SO.so (-t PLUGIN:KERNEL) and --py-kernel NAME.py (-t NAME:KERNEL, or\n"
    "NAME:KERNEL@cuda; docs/plugins.md).";
static const char exits[] =
    "exit: 0 nothing found, 1 findings, 2 usage or unwritable --out (also when it fills up: the\n"
    "campaign stops and counts the findings it could not write), 3 target unavailable,\n"
    "      130 stopped by Ctrl-C (SIGINT) after writing the summary; SIGTERM (a scheduler's stop\n"
    "      before its time limit or on preemption) ends it as its time limit would: 0 or 1\n";

/* An id no other run shares, on any host: HOST-PID-NANOSECONDS (merge keeps each run once). */
static void campaign_origin(ss_summary *s) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (gethostname(s->host, sizeof s->host - 1)) snprintf(s->host, sizeof s->host, "unknown");
    snprintf(s->campaign_id, sizeof s->campaign_id, "%s-%ld-%lld%09ld", s->host, (long)getpid(),
             (long long)ts.tv_sec, (long)ts.tv_nsec);
}

/* The engine's correct targets as the campaign's, when every one can run here. */
static int engine_defaults(ss_fuzz_config *cfg, const ss_engine *engine) {
    cfg->n_targets = 0;
    for (size_t i = 0; i < ss_target_count(); i++) {
        const ss_target *t = ss_target_at(i);
        if (t->mutant || t->engine != engine) continue;
        if (ss_fuzz_probe_unavailable(t)) {
            cfg->n_targets = 0;
            return -1;
        }
        cfg->targets[cfg->n_targets++] = t;
    }
    return cfg->n_targets ? 0 : -1;
}

/* Default targets: the correct targets of the highest-ranked engine (its
 * default_rank: cuda, then emu) all of whose correct targets can run here. */
static int default_targets(ss_fuzz_config *cfg) {
    int rank = 0;
    for (size_t e = 0; e < ss_engine_count(); e++)
        if (ss_engine_at(e)->default_rank > rank) rank = ss_engine_at(e)->default_rank;
    for (; rank > 0; rank--)   /* engines are asked best first: a probe can fork */
        for (size_t e = 0; e < ss_engine_count(); e++)
            if (ss_engine_at(e)->default_rank == rank && engine_defaults(cfg, ss_engine_at(e)) == 0) return 0;
    return -1;
}

/* The generation options of a campaign, for `reproduce:` and meta.found_by.
 * --large-per-mille is always written: its default depends on the targets
 * (and `ssfuzz gen`, which regenerates from found_by, has none), so leaving
 * out a value that equals the generator's default would change the cases. */
static void fuzz_gen_opts(const ss_gen_config *g, char *out, size_t n) {
    ss_gen_opts_format(g, out, n);   /* writes it only where it differs from the generator's */
    ss_gen_config d;
    ss_gen_config_default(&d);
    if (g->large_per_mille == d.large_per_mille) {
        const size_t u = strlen(out);
        snprintf(out + u, n - u, " --large-per-mille %u", g->large_per_mille);
    }
}

/* The aliasing kinds the campaign covered: its first cases regenerated from (seed, index),
 * which is cheap (about 0.6 us a case); jobs split the same index space. */
#define ALIAS_SAMPLE_MAX 1000000u
static void sample_aliasing(const ss_fuzz_config *cfg, ss_summary *s) {
    ss_case c;
    ss_case_init(&c);
    const uint64_t n = s->cases < ALIAS_SAMPLE_MAX ? s->cases : ALIAS_SAMPLE_MAX;
    for (uint64_t i = 0; i < n; i++) {
        ss_alias_kind k;
        if (ss_gen_case(&cfg->gen, cfg->seed, ss_fuzz_case_index(cfg, cfg->first_case + i), &c, &k)) break;
        ss_case_free(&c);   /* a program case owns its program */
        if ((unsigned)k < sizeof s->alias_kinds / sizeof s->alias_kinds[0]) s->alias_kinds[k]++;
        s->alias_sampled++;
    }
}

/* "  sizes (storage elements): <=4Ki 99.7% of cases, 61.0% of time; ...": the
 * classes that got any case, each one's share of the cases and of the time
 * the workers spent. */
static void share(char *out, size_t n, double part, double whole) {
    const double p = whole > 0 ? 100.0 * part / whole : 0.0;
    if (p > 0 && p < 0.1) snprintf(out, n, "<0.1%%");
    else snprintf(out, n, "%.1f%%", p);
}

static void print_sizes(const ss_summary *s, FILE *f) {
    uint64_t cases = 0;
    double secs = 0;
    for (int k = 0; k < SS_SIZE_CLASS_COUNT; k++) { cases += s->size_cases[k]; secs += s->size_seconds[k]; }
    if (!cases) return;
    fprintf(f, "  sizes (storage elements):");
    for (int k = 0, first = 1; k < SS_SIZE_CLASS_COUNT; k++) {
        if (!s->size_cases[k]) continue;
        char pc[16], pt[16];
        share(pc, sizeof pc, (double)s->size_cases[k], (double)cases);
        share(pt, sizeof pt, s->size_seconds[k], secs);
        fprintf(f, "%s %s %s of cases, %s of time", first ? "" : ";", ss_size_class_label(k), pc, pt);
        first = 0;
    }
    fputc('\n', f);
}

static void print_summary(const ss_fuzz_config *cfg, const ss_summary *s, int summary_written, FILE *f) {
    fprintf(f, "fuzz: %llu cases in %.1f s (%.0f cases/s), %ld unique finding%s (%ld hit%s) in %zu "
               "signature%s; stopped by %s\n",
            (unsigned long long)s->cases, s->seconds, s->seconds > 0 ? (double)s->cases / s->seconds : 0.0,
            ss_summary_unique(s), ss_summary_unique(s) == 1 ? "" : "s", ss_summary_hits(s),
            ss_summary_hits(s) == 1 ? "" : "s", s->n, s->n == 1 ? "" : "s", s->stopped_by);
    print_sizes(s, f);
    for (size_t i = 0; i < s->n; i++) {
        const ss_summary_sig *g = &s->sigs[i];
        fprintf(f, "  %-24s %-30s %-9s %6ld hit%s, %ld new reproducer%s%s%s\n", g->kind, g->target,
                g->schedule, g->hits, g->hits == 1 ? " " : "s", g->reproducers,
                g->reproducers == 1 ? "" : "s", g->first_file[0] ? ": " : "", g->first_file);
    }
    if (s->batch > 1)
        fprintf(f, "  batches of up to %d cases on compiled targets: %llu batch%s, %.1f runs each (schedules: %s; "
                   "--batch, --schedule)\n",
                s->batch, (unsigned long long)s->batches, s->batches == 1 ? "" : "es",
                s->batches ? (double)s->batched_cases / (double)s->batches : 0.0, s->schedule ? s->schedule : "all");
    if (s->skipped) fprintf(f, "  %ld generated case%s skipped (byte budget)\n", s->skipped, s->skipped == 1 ? "" : "s");
    if (s->refused)
        fprintf(f, "  %ld run%s refused by the target (it raised its own overlap/safety error: %s)\n",
                s->refused, s->refused == 1 ? "" : "s",
                cfg->refusal_is_finding ? "counted as findings" : "not findings; --refusal-is-finding to keep them");
    if (s->errors)
        fprintf(f, "  %ld run%s raised an error of the case or engine (not findings; first: %s)\n", s->errors,
                s->errors == 1 ? "" : "s", s->error_example);
    if (s->nan_payload)
        fprintf(f, "  %ld run%s differed only in NaNs' bits (%s; first: %s)\n", s->nan_payload,
                s->nan_payload == 1 ? "" : "s",
                cfg->nan_payload_is_finding ? "counted as findings" : "not findings; --nan-payload-is-finding to keep them",
                s->nan_example);
    fprintf(f, "reproduce: ssfuzz fuzz --seed %llu", (unsigned long long)s->seed);
    if (cfg->shard_count) fprintf(f, " --shard %llu/%llu", (unsigned long long)cfg->shard_index,
                                  (unsigned long long)cfg->shard_count);
    if (cfg->first_case) fprintf(f, " --first-case %llu", (unsigned long long)cfg->first_case);
    fprintf(f, " --cases %llu", (unsigned long long)s->cases);
    for (size_t i = 0; i < cfg->n_targets; i++) {
        const char *path = ss_target_loaded_from(cfg->targets[i]);
        char word[4 * 4096 + 8];   /* quoted for the shell; any realpath fits */
        const char *opt = cfg->targets[i]->engine->load_option;
        if (path) fprintf(f, " %s %s", opt ? opt : "--plugin", ss_shell_word(path, word, sizeof word) >= 0 ? word : "PATH");
        fprintf(f, " --target %s", cfg->targets[i]->name);
    }
    char gen[200];
    fuzz_gen_opts(&cfg->gen, gen, sizeof gen);
    const char *sched = !cfg->all_schedules ? cfg->schedule : cfg->rotate == SS_ROTATE_NEVER ? "all"
                        : cfg->rotate == SS_ROTATE_ALWAYS ? "rotate" : NULL;   /* NULL: the default */
    fprintf(f, "%s%s%s%s%s", sched ? " --schedule " : "", sched ? sched : "", gen,
            cfg->refusal_is_finding ? " --refusal-is-finding" : "",
            cfg->nan_payload_is_finding ? " --nan-payload-is-finding" : "");
    if (cfg->batch) fprintf(f, " --batch %d", cfg->batch);
    fputc('\n', f);
    char name[64] = "summary.json";
    if (cfg->shard_count) ss_shard_summary_name(cfg->shard_index, name, sizeof name);
    if (summary_written) fprintf(f, "summary: %s/%s\n", cfg->out, name);
}

/* The shard (--shard, else a Slurm array task's) and the seed every shard shares. */
static int resolve_shard(ss_fuzz_config *cfg, const char *opt, int have_seed, ss_shard *sh) {
    ss_error err;
    memset(sh, 0, sizeof *sh);
    int r = 0;
    if (opt && strcmp(opt, "none")) r = ss_shard_parse(opt, sh, &err) ? -1 : 1;
    else if (!opt) r = ss_shard_from_env(sh, &err);
    if (r < 0) { fprintf(stderr, "ssfuzz fuzz: %s: %s\n", err.field, err.msg); return -1; }
    if (r == 0 || have_seed) return 0;
    /* Shards of one campaign must share its seed: a time-based one would differ per task. */
    const char *job = getenv("SLURM_ARRAY_JOB_ID");
    if (!opt && job && ss_parse_u64("SLURM_ARRAY_JOB_ID", job, &cfg->seed, &err) == 0) return 0;
    fprintf(stderr, "ssfuzz fuzz: --shard: needs --seed: every shard of a campaign runs one seed\n");
    return -1;
}

/* --target T: a repeated one runs once. */
static int add_target(void *cfg, const char *name, ss_error *err) {
    ss_fuzz_config *c = cfg;
    return ss_target_set_add(c->targets, &c->n_targets, name, "--target", err);
}

static int set_schedule(void *cfg, const char *s, ss_error *err) {
    ss_fuzz_config *c = cfg;
    if (!strcmp(s, "all")) { c->all_schedules = 1; c->rotate = SS_ROTATE_NEVER; }
    else if (!strcmp(s, "rotate")) { c->all_schedules = 1; c->rotate = SS_ROTATE_ALWAYS; }
    else if (ss_schedule_known(s)) { c->all_schedules = 0; c->schedule = s; }
    else return ss_fail(err, "--schedule", "unknown schedule '%s' (%s)", s, ss_schedule_list());
    return 0;
}

int ss_cmd_fuzz(int argc, char **argv) {
    ss_fuzz_config cfg;
    memset(&cfg, 0, sizeof cfg);
    ss_gen_config_default(&cfg.gen);
    cfg.jobs = 1;
    cfg.all_schedules = 1;
    cfg.rotate = SS_ROTATE_BATCHING;
    cfg.case_timeout = 10;
    cfg.minimize_seconds = 20;
    const char *out = "reports", *shard_opt = NULL;
    int quiet = 0, resume = 0;
    ss_error err;
    cli_opt opts[] = {
        CLI_OPT_CALL('t', "target", "T", &cfg, add_target, "target to fuzz (repeatable; `ssfuzz targets` lists them)"),
        CLI_OPT_UINT(0, "seed", "N", &cfg.seed, 0, UINT64_MAX, "campaign seed (default: time-based, printed)"),
        CLI_OPT_SECS(0, "time", "SECONDS", &cfg.seconds, 0, 10000000, "stop after this long (default 60 unless --cases is given)"),
        CLI_OPT_UINT(0, "cases", "N", &cfg.cases, 1, UINT64_MAX, "stop after N cases"),
        CLI_OPT_UINT('j', "jobs", "N", &cfg.jobs, 1, 256, "worker processes sharing the output directory (default 1)"),
        CLI_OPT_STR('o', "out", "DIR", &out, "reproducer directory (default reports/; created, must be writable)"),
        CLI_OPT_CALL(0, "schedule", "S", &cfg, set_schedule,
                     "one schedule (emu: forward, reverse, lockstep, warp, random; torch compile targets: x-input, "
                     "storage-input, two-inputs); all: every case under every schedule; rotate: each case under "
                     "one, by its index. Default: all, but rotate on compiled targets (each run a compile)"),
        CLI_OPT_FLAG(0, "refusal-is-finding", &cfg.refusal_is_finding,
                     "a target refusing a case (PyTorch's overlap error) is a finding"),
        CLI_OPT_FLAG(0, "nan-payload-is-finding", &cfg.nan_payload_is_finding,
                     "storages differing only in NaNs' bits (a quieted signalling NaN, a changed payload) are a "
                     "mismatch, not counted apart"),
        CLI_GEN_OPTS(&cfg.gen),
        CLI_OPT_UINT(0, "batch", "K", &cfg.batch, 1, SS_CHECK_MAX_BATCH,
                     "cases run together on a compiled torch target: one compile for K cases, each on its own "
                     "storages (default 32; fewer when their storages pass 512 MiB; 1: one compile per case)"),
        CLI_OPT_SECS(0, "case-timeout", "S", &cfg.case_timeout, 0, 10000000,
                     "per-run time limit before a `timeout` finding (default 10)"),
        CLI_OPT_SECS(0, "minimize-time", "S", &cfg.minimize_seconds, 0, 10000000, "budget per minimization (default 20)"),
        CLI_OPT_FLAG(0, "keep-variants", &cfg.keep_variants,
                     "write one reproducer per shape (rank, dtype) of a bug; by default one per bug (kind, target, "
                     "schedule, overlap class), the rest are hits"),
        CLI_OPT_STR(0, "shard", "I/N", &shard_opt,
                    "run shard I of N of the seed's cases (indices j*N+I; needs --seed); default from "
                    "SLURM_ARRAY_TASK_ID/_COUNT/_MIN/_STEP (seed: SLURM_ARRAY_JOB_ID unless --seed); `none` "
                    "ignores them. Summary: OUT/summary-shard-I.json"),
        CLI_OPT_UINT(0, "first-case", "N", &cfg.first_case, 0, UINT64_MAX, "start at the campaign's (the shard's) N-th case"),
        CLI_OPT_FLAG(0, "resume", &resume, "go on where this seed's (and shard's) last run in OUT stopped"),
        CLI_OPT_FLAG('q', "quiet", &quiet, "no progress line"),
        CLI_OPT_END};
    const cli_cmd cmd = {"fuzz", "[--target T]... [--time SECONDS | --cases N] [options]", about, exits, opts, "", 0, 0};
    const int pr = cli_parse(&cmd, &argc, argv);
    if (pr >= 0) return pr;
    cfg.max_bytes = cfg.gen.max_bytes;   /* the plan's budget is the generator's */
    int have_seed = cli_seen(opts, "seed");
    const int have_large = cli_seen(opts, "large-per-mille"), have_numel = cli_seen(opts, "max-numel");
    if (!cfg.seconds && !cfg.cases) cfg.seconds = 60;
    if (resume && cli_seen(opts, "first-case")) {
        fprintf(stderr, "ssfuzz fuzz: --resume and --first-case: give one (--resume finds the first case)\n");
        return SS_EXIT_USAGE;
    }
    ss_shard shard;
    if (resolve_shard(&cfg, shard_opt, have_seed, &shard)) return SS_EXIT_USAGE;
    if (shard.count) have_seed = 1;
    cfg.shard_index = shard.index;
    cfg.shard_count = shard.count;
    if (!have_seed) cfg.seed = ((uint64_t)time(NULL) * 1000003u) ^ (uint64_t)getpid();
    if (ss_ensure_writable_dir(out, &err)) {
        fprintf(stderr, "ssfuzz fuzz: --out %s is not a writable directory: %s\n", out, err.msg);
        return SS_EXIT_USAGE;
    }
    if (resume && ss_shard_resume_point(out, cfg.seed, &shard, &cfg.first_case, &err)) {
        fprintf(stderr, "ssfuzz fuzz: --resume: %s: %s\n", err.field, err.msg);
        return SS_EXIT_USAGE;
    }
    if (cfg.n_targets == 0 && default_targets(&cfg)) {
        fprintf(stderr, "ssfuzz fuzz: no default target can run here\n");
        return SS_EXIT_TARGET;
    }
    /* Each target's engine says what share of large cases it wants (many where
     * size changes the code path, none where it never does): the largest share
     * asked for wins; when none asks for any, 0 if every target said so, else
     * the generator's default. */
    int most = -1, all_none = cfg.n_targets > 0;
    for (size_t i = 0; i < cfg.n_targets; i++) {
        const int want = ss_target_large_per_mille(cfg.targets[i]);
        if (want > most) most = want;
        all_none &= want == 0;
    }
    if (!have_large) cfg.gen.large_per_mille = most > 0 ? (unsigned)most : all_none ? 0 : cfg.gen.large_per_mille;
    /* An engine may cap the cases' size too (an interpreted kernel): the smallest cap wins. */
    for (size_t i = 0; i < cfg.n_targets && !have_numel; i++) {
        const int64_t cap = ss_target_max_numel(cfg.targets[i]);
        if (cap > 0 && cap < cfg.gen.max_numel) cfg.gen.max_numel = cap;
    }
    /* A program target runs program cases only: naming one asks for programs. */
    int programs_auto = 0;
    for (size_t i = 0; i < cfg.n_targets && !cfg.gen.programs; i++)
        if (ss_check_runs_programs(cfg.targets[i])) cfg.gen.programs = programs_auto = 1;
    for (size_t i = 0; i < cfg.n_targets; i++) {
        int first, last;
        if (ss_fuzz_schedules(&cfg, cfg.targets[i], &first, &last)) {
            fprintf(stderr, "ssfuzz fuzz: --schedule: target %s has no schedule '%s'\n",
                    cfg.targets[i]->name, cfg.schedule);
            return SS_EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < cfg.n_targets; i++) {
        const char *why = ss_fuzz_probe_unavailable(cfg.targets[i]);
        if (why) {
            char shown[1024];   /* an engine's words (a torch worker's, a plugin's): shown inert */
            ss_text_inert(why, shown, sizeof shown);
            fprintf(stderr, "ssfuzz fuzz: target %s is unavailable: %s\n", cfg.targets[i]->name, shown);
            return SS_EXIT_TARGET;
        }
    }
    cfg.out = out;
    cfg.progress = !quiet && isatty(2);
    cfg.stop = &stop_flag;
    char found_by[160], gen[128];
    fuzz_gen_opts(&cfg.gen, gen, sizeof gen);
    snprintf(found_by, sizeof found_by, "ssfuzz fuzz --seed %llu%s", (unsigned long long)cfg.seed, gen);
    if (shard.count)
        snprintf(found_by + strlen(found_by), sizeof found_by - strlen(found_by), " --shard %llu/%llu",
                 (unsigned long long)shard.index, (unsigned long long)shard.count);
    cfg.found_by = found_by;

    ss_summary sum;
    memset(&sum, 0, sizeof sum);
    sum.schedule = ss_fuzz_schedule_mode(&cfg);
    sum.shard_index = shard.index;
    sum.shard_count = shard.count;
    sum.first_case = cfg.first_case;
    campaign_origin(&sum);
    for (size_t i = 0, n = 0; i < cfg.n_targets; i++)
        n += (size_t)snprintf(sum.targets + n, n < sizeof sum.targets ? sizeof sum.targets - n : 0,
                              "%s%s", i ? "," : "", cfg.targets[i]->name);
    char limit[96] = "";
    if (cfg.seconds) snprintf(limit, sizeof limit, "time limit %g s", cfg.seconds);
    if (cfg.cases)
        snprintf(limit + strlen(limit), sizeof limit - strlen(limit), "%scase limit %llu",
                 cfg.seconds ? ", " : "", (unsigned long long)cfg.cases);
    char where[128] = "";
    if (shard.count)
        snprintf(where, sizeof where, ", shard %llu/%llu (%s)", (unsigned long long)shard.index,
                 (unsigned long long)shard.count, shard.source);
    if (cfg.first_case)
        snprintf(where + strlen(where), sizeof where - strlen(where), ", from case %llu%s",
                 (unsigned long long)cfg.first_case, resume ? " (--resume)" : "");
    fprintf(stderr, "fuzz: seed %llu%s, %zu target%s (%s), %s%s, out %s\n", (unsigned long long)cfg.seed, where,
            cfg.n_targets, cfg.n_targets == 1 ? "" : "s", sum.targets, limit,
            programs_auto ? ", programs (a program target: --programs implied)" : cfg.gen.programs ? ", programs" : "",
            out);

    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    stop_flag = stop_signal = 0;
    const int rc = ss_fuzz_run(&cfg, &sum);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);

    /* SIGTERM is how a scheduler (Slurm, CI, systemd) stops a job before its time
     * limit or on preemption: the campaign ends as at its time limit. */
    if (stop_signal == SIGTERM) { sum.stopped_by = "SIGTERM"; stop_signal = 0; }
    sample_aliasing(&cfg, &sum);
    const int summary_failed = ss_summary_write(out, &sum, &err) != 0;
    print_summary(&cfg, &sum, !summary_failed, stdout);
    if (summary_failed)
        fprintf(stderr, "ssfuzz fuzz: cannot write the summary: %s: %s\n", err.field, err.msg);
    const long hits = ss_summary_hits(&sum), lost = sum.unwritten;
    if (lost)
        fprintf(stderr, "ssfuzz fuzz: %ld finding%s could not be written to %s (full or unwritable): "
                "their cases are in the summary's counts only; rerun with --out elsewhere\n",
                lost, lost == 1 ? "" : "s", out);
    ss_summary_free(&sum);
    if (rc) return SS_EXIT_TARGET;
    if (lost || summary_failed) return SS_EXIT_USAGE;
    if (stop_signal) return 128 + stop_signal;   /* the shell's convention: Ctrl-C is 130 */
    return hits ? SS_EXIT_FINDING : SS_EXIT_OK;
}
