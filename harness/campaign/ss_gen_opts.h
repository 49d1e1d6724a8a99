/* ss_gen_opts.h - the command-line options that change generated cases, shared by `fuzz` and `gen`
 * (parsed by the rows of CLI_GEN_OPTS, harness/cli/cli_opts.h).
 *
 * Every option here changes which case (seed, index) is: a command that
 * regenerates cases (`reproduce:`, meta.found_by, `ssfuzz gen`) must carry
 * all of them, and ss_gen_opts_format writes exactly the non-default ones. */
#ifndef SS_GEN_OPTS_H
#define SS_GEN_OPTS_H

#include <stddef.h>
#include "ss_gen.h"

/* " --max-ndim N --max-numel N --max-bytes N --large-per-mille N --no-swarm --programs
 * --program-steps N", each only when it
 * differs from ss_gen_config_default; "" for the defaults. Truncates at n. */
void ss_gen_opts_format(const ss_gen_config *cfg, char *out, size_t n);

#endif
