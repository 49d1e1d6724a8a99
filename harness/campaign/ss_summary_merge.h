/* ss_summary_merge.h - one summary.json shared by every campaign writing into a directory.
 *
 * Campaigns that share an --out directory (one per GPU, `nightly.sh`, a rerun) each add
 * their own entry to `campaigns` under an exclusive lock (DIR/.summary.lock), and the
 * top level is recomputed from all entries: counts summed (cases_per_second too, as the
 * campaigns run side by side), `seconds` the longest, strings such as seeds and targets
 * the comma-separated union, findings merged by (signature, target, schedule). With one
 * campaign the top level is that campaign's own summary. Nothing a campaign wrote is
 * ever lost or overwritten by another. */
#ifndef SS_SUMMARY_MERGE_H
#define SS_SUMMARY_MERGE_H

#include <cjson/cJSON.h>
#include "ss_error.h"

/* Adds `campaign` (consumed, even on failure) to DIR/summary.json, written atomically.
 * An unreadable existing file is kept aside as summary.json.broken. 0, or -1 with err. */
int ss_summary_merge_write(const char *dir, cJSON *campaign, ss_error *err);

/* The same into DIR/NAME; lock_it 0: no lock (a shard's own file, which one process
 * at a time writes: a lock that holds across NFS clients is not assumed). */
int ss_summary_merge_write_as(const char *dir, const char *name, int lock_it, cJSON *campaign, ss_error *err);

/* The top level computed from a `campaigns` array (a new object; NULL out of memory).
 * A campaign's own keys (campaign_id, host, shard, first_case, next_case) stay in it. */
cJSON *ss_summary_totals(const cJSON *campaigns);

#endif
