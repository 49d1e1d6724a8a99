/* ss_isolate.h - one differential check in a forked child under a time limit, so a
 * target that dies from a signal or hangs becomes a `crash` or `timeout` verdict. */
#ifndef SS_ISOLATE_H
#define SS_ISOLATE_H

#include "ss_check.h"

/* Like ss_check_target, but t runs in a child process: its final storages come
 * back into ctx->tgt_* and its verdict into res. A child killed by a signal gives
 * SS_TARGET_FAILED ("crash", the signal named in res->why); one still running
 * after timeout_s seconds is killed and gives SS_TARGET_TIMEOUT. Returns -1 (res
 * says why, verdict SS_TARGET_UNAVAILABLE) when no child can be started.
 * Test hook: SSFUZZ_TEST_FAULT=crash or =hang makes the child crash or hang. */
int ss_isolated_check(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref_status,
                      const ss_target *t, const ss_run_opts *opts, double timeout_s,
                      ss_check_result *res);

#endif
