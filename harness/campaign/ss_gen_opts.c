/* ss_gen_opts.c - parsing and printing the options that change generated cases. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "ss_gen_opts.h"
#include "ss_program.h"
#include "ss_replay.h"

int ss_gen_opts_apply(const char *cmd, int code, const char *arg, ss_gen_config *cfg,
                      size_t *max_bytes) {
    uint64_t v;
    ss_error err;
    const char *opt = code == SS_GEN_O_NUMEL ? "--max-numel" : code == SS_GEN_O_BYTES ? "--max-bytes"
                      : code == SS_GEN_O_NDIM ? "--max-ndim" : code == SS_GEN_O_LARGE ? "--large-per-mille" : NULL;
    if (code == SS_GEN_O_NOSWARM) { cfg->swarm = 0; return 1; }
    if (code == SS_GEN_O_PROGRAMS) { cfg->programs = 1; return 1; }
    if (code == SS_GEN_O_PSTEPS) opt = "--program-steps";
    if (!opt) return 0;
    if (ss_parse_u64(opt, arg, &v, &err)) {
        fprintf(stderr, "ssfuzz %s: %s: %s\n", cmd, err.field, err.msg);
        return -1;
    }
    switch (code) {
    case SS_GEN_O_LARGE:
        if (v > 1000) {
            fprintf(stderr, "ssfuzz %s: %s: must be in [0, 1000]\n", cmd, opt);
            return -1;
        }
        cfg->large_per_mille = (unsigned)v;
        return 1;
    case SS_GEN_O_PSTEPS:
        if (v < 1 || v > SS_PROG_MAX_STEPS) {
            fprintf(stderr, "ssfuzz %s: %s: must be in [1, %d]\n", cmd, opt, SS_PROG_MAX_STEPS);
            return -1;
        }
        cfg->program_steps = (int)v;
        return 1;
    case SS_GEN_O_NUMEL:
        if (v < 1 || v > (uint64_t)SS_MAX_NUMEL) break;
        cfg->max_numel = (int64_t)v;
        return 1;
    case SS_GEN_O_BYTES:
        if (v < 1 || v > ((uint64_t)1 << 44)) break;
        cfg->max_bytes = (size_t)v;
        if (max_bytes) *max_bytes = (size_t)v;
        return 1;
    default:
        if (v < 1 || v > SS_MAX_NDIM) break;
        cfg->max_ndim = (int)v;
        return 1;
    }
    if (code == SS_GEN_O_NDIM) fprintf(stderr, "ssfuzz %s: %s: must be in [1, %d]\n", cmd, opt, SS_MAX_NDIM);
    else fprintf(stderr, "ssfuzz %s: %s: must be in [1, 2^%d]\n", cmd, opt, code == SS_GEN_O_NUMEL ? 40 : 44);
    return -1;
}

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
