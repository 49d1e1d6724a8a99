/* ss_gen_opts.h - the command-line options that change generated cases, shared by `fuzz` and `gen`.
 *
 * Every option here changes which case (seed, index) is: a command that
 * regenerates cases (`reproduce:`, meta.found_by, `ssfuzz gen`) must carry
 * all of them, and ss_gen_opts_format writes exactly the non-default ones. */
#ifndef SS_GEN_OPTS_H
#define SS_GEN_OPTS_H

#include <stddef.h>
#include "ss_gen.h"

/* getopt_long codes; callers splice SS_GEN_LONG_OPTIONS into their table. */
enum { SS_GEN_O_NUMEL = 0x1000, SS_GEN_O_BYTES, SS_GEN_O_NDIM, SS_GEN_O_NOSWARM, SS_GEN_O_LARGE,
       SS_GEN_O_PROGRAMS, SS_GEN_O_PSTEPS };
#define SS_GEN_LONG_OPTIONS \
    {"max-numel", required_argument, 0, SS_GEN_O_NUMEL}, \
    {"max-bytes", required_argument, 0, SS_GEN_O_BYTES}, \
    {"max-ndim", required_argument, 0, SS_GEN_O_NDIM}, \
    {"no-swarm", no_argument, 0, SS_GEN_O_NOSWARM}, \
    {"large-per-mille", required_argument, 0, SS_GEN_O_LARGE}, \
    {"programs", no_argument, 0, SS_GEN_O_PROGRAMS}, \
    {"program-steps", required_argument, 0, SS_GEN_O_PSTEPS}

/* Applies option `code` (one of SS_GEN_O_*) with `arg` to cfg; --max-bytes
 * also sets *max_bytes (the plan's byte budget, may be NULL). Returns 1
 * applied, 0 when `code` is not a generation option, -1 after printing
 * "ssfuzz CMD: OPTION: RULE" on stderr. */
int ss_gen_opts_apply(const char *cmd, int code, const char *arg, ss_gen_config *cfg,
                      size_t *max_bytes);

/* " --max-ndim N --max-numel N --max-bytes N --large-per-mille N --no-swarm --programs
 * --program-steps N", each only when it
 * differs from ss_gen_config_default; "" for the defaults. Truncates at n. */
void ss_gen_opts_format(const ss_gen_config *cfg, char *out, size_t n);

#endif
