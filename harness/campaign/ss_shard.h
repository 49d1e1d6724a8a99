/* ss_shard.h - one campaign split over many hosts: shard I of N, from --shard or a Slurm job array.
 *
 * Shard I of N runs the seed's case indices j * N + I (j = 0, 1, ...): N shards
 * sharing a seed split one index space, so a finding's (campaign_seed,
 * case_index) regenerates on one machine (`ssfuzz gen`) and `ssfuzz fuzz --seed S
 * --shard I/N --cases C` reruns a shard exactly. Every shard writes into one
 * --out: reproducers under their one-file-per-bug names (a link that never
 * replaces: two shards finding one bug keep one whole file), and a summary of
 * its own, DIR/summary-shard-I.json, without a lock (one that holds across NFS
 * clients is not assumed; a shard's file has one writer at a time). `ssfuzz
 * merge` folds them into one summary.json. */
#ifndef SS_SHARD_H
#define SS_SHARD_H

#include <stddef.h>
#include <stdint.h>
#include "ss_error.h"

#define SS_SHARD_MAX_COUNT 1048576u   /* far past any job array or CI matrix */

typedef struct ss_shard {
    uint64_t index, count;     /* count 0: not sharded */
    const char *source;        /* "--shard" or "SLURM_ARRAY_TASK_ID" */
} ss_shard;

/* "I/N" with 0 <= I < N <= SS_SHARD_MAX_COUNT, decimal. 0, or -1 with err. */
int ss_shard_parse(const char *text, ss_shard *s, ss_error *err);

/* The shard of a Slurm array task: index (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN)
 * / SLURM_ARRAY_TASK_STEP of SLURM_ARRAY_TASK_COUNT. 1 found, 0 not an array task,
 * -1 with err when the variables do not make a shard (a task list such as 1,5,9). */
int ss_shard_from_env(ss_shard *s, ss_error *err);

/* "summary-shard-I.json". */
void ss_shard_summary_name(uint64_t index, char *out, size_t n);

/* Where a rerun of this campaign goes on (`fuzz --resume`): the largest next_case
 * among the runs with this seed and shard recorded in DIR's summary (the shard's
 * own file; summary.json when not sharded), 0 when there is none. -1 with err
 * when the file exists but cannot be read as a summary. */
int ss_shard_resume_point(const char *dir, uint64_t seed, const ss_shard *s, uint64_t *next, ss_error *err);

#endif
