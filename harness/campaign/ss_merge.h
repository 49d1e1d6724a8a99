/* ss_merge.h - `ssfuzz merge`: shard directories folded into one summary and one reproducer per bug.
 *
 * The inputs are directories campaigns wrote (one shared --out holding
 * summary-shard-I.json files, or one directory per shard such as CI artifacts;
 * searched recursively, dot-files skipped). Into OUT (which may be one of them):
 *
 * - Reproducers: one per bug, by the one-file-per-bug key of ss_report_key
 *   (kind|target|schedule class|overlap class), recomputed from each file's case
 *   and meta; with keep_variants, the file name (which then holds rank and
 *   dtype). The copy kept is the one already in OUT, else a minimized one, else
 *   the smallest (ss_min_numel), else the first in argument and name order. It
 *   is copied under its own name, never replacing a file.
 * - OUT/summary.json: every run recorded in the inputs' summaries (summary.json,
 *   summary-shard-*.json) once (by campaign_id; a run without one by its whole
 *   text, so a summary merged before and merged again adds nothing twice), the
 *   totals recomputed from them (ss_summary_totals), then: unique_findings =
 *   bugs kept, each finding's `reproducer` the kept file in OUT, and `shards`
 *   (count, present, missing shard indices) when the runs were shards.
 *
 * Nothing in an input is changed or removed. Ownership: the caller owns opts;
 * a result holds only counts and text. */
#ifndef SS_MERGE_H
#define SS_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include "ss_error.h"

typedef struct ss_merge_opts {
    const char *const *dirs;
    size_t n_dirs;
    const char *out;           /* created when missing */
    int keep_variants;         /* key reproducers by file name (fuzz --keep-variants) */
} ss_merge_opts;

typedef struct ss_merge_result {
    size_t summaries, runs, duplicate_runs;   /* summary files read; runs kept; runs seen twice */
    size_t unreadable;         /* summary files that could not be read (first: `problem`) */
    size_t cases_read, not_findings;          /* case files read; those without a finding's meta */
    size_t bugs, copied;       /* reproducers kept; of them, copied into OUT */
    uint64_t cases;            /* cases over all runs */
    long hits;
    uint64_t shard_count;      /* 0: the runs were not shards */
    size_t shards_present, shards_missing;
    int mixed_counts;          /* runs of different shard counts (then nothing is called missing) */
    char missing[256];         /* "2, 5" (cut with "..." when long) */
    char problem[512];         /* the first unreadable summary or case copy, for the message */
} ss_merge_result;

/* Merges; 0 (see result for what was incomplete), or -1 with err when OUT
 * cannot be written or memory runs out. */
int ss_merge_run(const ss_merge_opts *o, ss_merge_result *r, ss_error *err);

#endif
