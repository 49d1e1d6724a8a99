/* ss_gen_opts.c - printing back the options that change generated cases (harness/cli/cli_opts.h parses them). */
#include <stdio.h>
#include <string.h>
#include "ss_gen_opts.h"

void ss_gen_opts_format(const ss_gen_config *cfg, char *out, size_t n) {
    ss_gen_config d;
    ss_gen_config_default(&d);
    size_t used = 0;
    if (!n) return;
    out[0] = 0;
#define ADD(...) do { if (used < n) used += (size_t)snprintf(out + used, n - used, __VA_ARGS__); } while (0)
    if (cfg->max_ndim != d.max_ndim) ADD(" --max-ndim %d", cfg->max_ndim);
    if (cfg->max_numel != d.max_numel) ADD(" --max-numel %lld", (long long)cfg->max_numel);
    if (cfg->max_bytes != d.max_bytes) ADD(" --max-bytes %zu", cfg->max_bytes);
    if (cfg->large_per_mille != d.large_per_mille) ADD(" --large-per-mille %u", cfg->large_per_mille);
    if (cfg->swarm != d.swarm) ADD(" --no-swarm");
    if (cfg->programs) ADD(" --programs");
    if (cfg->program_steps != d.program_steps) ADD(" --program-steps %d", cfg->program_steps);
#undef ADD
}
