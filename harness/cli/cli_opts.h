/* cli_opts.h - each subcommand's options as one table that drives both their parsing and `--help` (git's parse-options). */
#ifndef CLI_OPTS_H
#define CLI_OPTS_H

#include <stdint.h>
#include <stdio.h>
#include "ss_error.h"
#include "ss_plan.h"
#include "ss_program.h"

typedef enum {
    CLI_FLAG,   /* no value: *(int *)dest = val */
    CLI_STR,    /* *(const char **)dest = the value */
    CLI_UINT,   /* an unsigned integer of `size` bytes in [min, max], overflow-checked */
    CLI_SECS,   /* *(double *)dest: seconds in (0, max], or [min, max] when min > 0 */
    CLI_CALL,   /* call(dest, value, err): 0, or -1 with err->msg (empty: it printed its own line) */
} cli_kind;

typedef struct cli_opt {
    char short_name;    /* 'o' for -o; 0 when none */
    const char *name;   /* the long name without "--"; NULL ends a table */
    const char *arg;    /* the value's name in --help; NULL for a flag (CLI_FLAG, or a CLI_CALL without value) */
    const char *help;   /* one line, wrapped by --help */
    cli_kind kind;
    void *dest;
    unsigned size;      /* CLI_UINT: sizeof *dest, 8 (uint64_t, int64_t, size_t) or 4 (int, unsigned) */
    uint64_t min, max;  /* CLI_UINT, CLI_SECS: the range */
    int (*call)(void *dest, const char *arg, ss_error *err);
    int val;            /* CLI_FLAG: the value stored */
    int seen;           /* set by cli_parse when the option is given */
} cli_opt;

/* Table rows; a row is one option, its help and where its value goes. */
#define CLI_OPT_FLAG(s, n, d, h) {s, n, NULL, h, CLI_FLAG, d, 0, 0, 0, NULL, 1, 0}
#define CLI_OPT_SET(s, n, d, v, h) {s, n, NULL, h, CLI_FLAG, d, 0, 0, 0, NULL, v, 0}
#define CLI_OPT_STR(s, n, a, d, h) {s, n, a, h, CLI_STR, d, 0, 0, 0, NULL, 0, 0}
#define CLI_OPT_UINT(s, n, a, d, lo, hi, h) {s, n, a, h, CLI_UINT, d, sizeof *(d), lo, hi, NULL, 0, 0}
#define CLI_OPT_SECS(s, n, a, d, lo, hi, h) {s, n, a, h, CLI_SECS, d, 0, lo, hi, NULL, 0, 0}
#define CLI_OPT_CALL(s, n, a, d, f, h) {s, n, a, h, CLI_CALL, d, 0, 0, 0, f, 0, 0}
#define CLI_OPT_END {0, NULL, NULL, NULL, CLI_FLAG, NULL, 0, 0, 0, NULL, 0, 0}

typedef struct cli_cmd {
    const char *name;    /* "fuzz" */
    const char *usage;   /* the synopsis after "usage: ssfuzz NAME " (lines after a \n are indented) */
    const char *about;   /* what it does, before the options; NULL when none */
    const char *exits;   /* its exit codes, after the options */
    cli_opt *opts;       /* ends with CLI_OPT_END */
    const char *words;   /* what its other words are, for "give CASE": "CASE", "CASE|DIR..." */
    int min_words, max_words;
} cli_cmd;

/* Parses argv[1..*argc-1]: options anywhere until "--" (as getopt_long does, but
 * no abbreviations), the other words, in order, moved to argv[1..] and counted in
 * *argc as 1 + the words (min_words to max_words of them). Returns -1 to go on,
 * else the exit code to return: SS_EXIT_OK after printing --help, SS_EXIT_USAGE
 * after one line on stderr ("ssfuzz CMD: OPTION: RULE"). */
int cli_parse(const cli_cmd *c, int *argc, char **argv);

/* The usage, about, every option of the table (and --help) and the exit codes. */
void cli_usage(const cli_cmd *c, FILE *f);

/* The option lines alone, as --help prints them (`ssfuzz help` prints the global ones). */
void cli_print_opts(const cli_opt *opts, FILE *f);

/* 1 when option `name` was given to the last cli_parse of this table. */
int cli_seen(const cli_opt *opts, const char *name);

/* Takes the global options (`--NAME VALUE` or `--NAME=VALUE` of `globals`, any
 * place before "--") out of argv; each one's call gets its value, NULL when it is
 * missing or empty. Returns 0, or -1 when a call failed (it printed why). */
int cli_take_globals(const cli_opt *globals, int *argc, char **argv);

/* The options that change generated cases, shared by `fuzz` and `gen` (ss_gen_opts.h
 * prints them back): rows of a table over the ss_gen_config *g. */
#define CLI_GEN_OPTS(g) \
    CLI_OPT_UINT(0, "max-numel", "N", &(g)->max_numel, 1, (uint64_t)SS_MAX_NUMEL, \
                 "largest storage numel a generated case may have (default 4194304; fuzz: 4096 when a " \
                 "Python kernel is fuzzed on the CPU)"), \
    CLI_OPT_UINT(0, "max-bytes", "N", &(g)->max_bytes, 1, (uint64_t)1 << 44, \
                 "byte budget of one case's storages (default 1 GiB)"), \
    CLI_OPT_UINT(0, "max-ndim", "N", &(g)->max_ndim, 1, SS_MAX_NDIM, "largest rank generated (default 6)"), \
    CLI_OPT_UINT(0, "large-per-mille", "N", &(g)->large_per_mille, 0, 1000, \
                 "share of cases over 2^20 elements, per 1000 (gen: default 3; fuzz: 250 when a cuda:* or " \
                 "torch compile target or NAME:KERNEL@cuda is fuzzed, size pays there; 0 when only emu:* " \
                 "or Python CPU targets are; else 3)"), \
    CLI_OPT_SET(0, "no-swarm", &(g)->swarm, 0, "keep every generator feature on in every epoch"), \
    CLI_OPT_FLAG(0, "programs", &(g)->programs, \
                 "give each generated case a program of 1 to --program-steps steps around the write " \
                 "(docs/programs.md; fuzz: implied when a program target is fuzzed)"), \
    CLI_OPT_UINT(0, "program-steps", "N", &(g)->program_steps, 1, SS_PROG_MAX_STEPS, \
                 "most steps of a generated program (default 4)")

/* --target and --schedule of a replay (ss_replay_opts *o): the rows replay and explain share. */
int cli_replay_target(void *o, const char *name, ss_error *err);
int cli_replay_schedule(void *o, const char *name, ss_error *err);
#define CLI_REPLAY_OPTS(o) \
    CLI_OPT_CALL('t', "target", "T", o, cli_replay_target, \
                 "run target T (repeatable; default: the case's meta.target under its meta.schedule, then " \
                 "every available non-mutant)"), \
    CLI_OPT_CALL(0, "schedule", "S", o, cli_replay_schedule, \
                 "schedule: forward, reverse, lockstep, warp, random (emulators), x-input, storage-input, " \
                 "two-inputs (torch compile targets), or all (default: meta.schedule for meta.target, else all)"), \
    CLI_OPT_UINT(0, "seed", "N", &(o)->seed, 0, UINT64_MAX, "seed of the random schedule (default 1)"), \
    CLI_OPT_UINT(0, "max-bytes", "N", &(o)->max_bytes, 0, UINT64_MAX, \
                 "byte budget of one case's storages (default 1 GiB)")

#endif
