/* ss_result_json.h - machine-readable results of `replay --json` and `regress --json`.
 *
 * Both print one JSON document on stdout: {"format": "ssfuzz-replay" or
 * "ssfuzz-regress", "version": 1, per-case results, "summary": counts}.
 * Ownership: each function returns a new cJSON tree the caller deletes
 * (NULL when out of memory). */
#ifndef SS_RESULT_JSON_H
#define SS_RESULT_JSON_H

#include <cjson/cJSON.h>
#include "ss_regress_out.h"
#include "ss_replay.h"

/* One replayed case: {"case", "result": agree|finding|invalid|unavailable, "exit",
 * "error" (invalid), "dtype", "overlap", "note", "runs": [{"target", "schedule",
 * "verdict", "finding", "seconds", "detail"}]}. */
cJSON *ss_replay_case_json(const ss_replay_ctx *rc, const char *path, const ss_replay_case_result *r);

/* Every regress check: {"format", "version", "checks": [{"case", "target",
 * "schedule", "status": held|failed|skipped|error, "signature", "message",
 * "seconds"}], "summary": {"cases", "held", "failed", "skipped", "invalid", "seconds"}}. */
cJSON *ss_regress_json(const ss_check_list *l, size_t n_cases, size_t n_invalid, double seconds);

#endif
