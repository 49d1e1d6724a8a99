/* ss_check.c - one differential check: the reference against one target on one case. */
#include <stdio.h>
#include <string.h>
#include "ss_check.h"
#include "ss_reference.h"
#include "ss_storage.h"
#include "ss_text.h"

const char *ss_verdict_name(ss_verdict v) {
    switch (v) {
    case SS_AGREE: return "agree";
    case SS_MISMATCH: return "mismatch";
    case SS_GUARD_WRITE: return "guard-band write";
    case SS_REJECTED_BY_TARGET: return "rejected-by-target-only";
    case SS_ACCEPTED_INVALID: return "accepted-invalid";
    case SS_TARGET_UNAVAILABLE: return "unavailable";
    case SS_TARGET_FAILED: return "crash";
    case SS_TARGET_TIMEOUT: return "timeout";
    case SS_REFUSED: return "refused";
    case SS_RAISED: return "raised";
    case SS_ERROR: return "error";
    case SS_NAN_PAYLOAD: return "nan-payload";
    case SS_FLAKY: return "flaky";
    }
    return "?";
}

void ss_check_ctx_init(ss_check_ctx *ctx) { memset(ctx, 0, sizeof *ctx); }

void ss_check_ctx_free(ss_check_ctx *ctx) {
    ss_storage_free(&ctx->ref_in);
    ss_storage_free(&ctx->ref_src);
    ss_storage_free(&ctx->tgt_in);
    ss_storage_free(&ctx->tgt_src);
    ss_storage_free(&ctx->init_in);
    ss_storage_free(&ctx->init_src);
}

int ss_check_prepare(ss_check_ctx *ctx, const ss_case *c, const ss_plan *plan,
                     ss_run_status *ref_status, char *why, size_t why_len) {
    const size_t es = plan->op.elem_size;
    ctx->value_type = 1 + (int)c->dtype;
    const size_t in_bytes = (size_t)plan->op.input_storage_numel * es;
    const size_t src_bytes = plan->op.src_aliased ? 0 : (size_t)plan->op.src_storage_numel * es;
    const size_t budget = ctx->max_bytes ? ctx->max_bytes : SS_DEFAULT_MAX_BYTES;
    if (in_bytes + src_bytes > budget) {
        snprintf(why, why_len, "storages need %zu bytes, above the byte budget of %zu (--max-bytes)",
                 in_bytes + src_bytes, budget);
        return -1;
    }
    ss_storage *all_in[] = {&ctx->init_in, &ctx->ref_in, &ctx->tgt_in};
    ss_storage *all_src[] = {&ctx->init_src, &ctx->ref_src, &ctx->tgt_src};
    for (int i = 0; i < 3; i++) {
        if (ss_storage_reserve(all_in[i], in_bytes, SS_GUARD_DEFAULT) ||
            ss_storage_reserve(all_src[i], src_bytes, SS_GUARD_DEFAULT)) {
            snprintf(why, why_len, "out of memory for %zu bytes of storage", in_bytes + src_bytes);
            return -1;
        }
    }
    ss_fill_case(c, &ctx->init_in, &ctx->init_src);
    ctx->dtype = (int)c->dtype;
    ctx->program = c->program;
    ss_storage_copy(&ctx->ref_in, &ctx->init_in);
    ss_storage_copy(&ctx->ref_src, &ctx->init_src);
    *ref_status = ss_ref_run(plan, &ctx->ref_in, &ctx->ref_src, why, why_len);
    return *ref_status == SS_RUN_FAILED ? -1 : 0;
}

int ss_check_runs_programs(const ss_target *t) {
    /* Kernel engines take one slice write (a plan); programs need an engine
     * that runs Python. Until the torch engine's descriptor says it runs them,
     * no engine does. */
    (void)t;
    return 0;
}

void ss_check_target(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref_status,
                     const ss_target *t, const ss_run_opts *opts, ss_check_result *res) {
    if (ctx->program && !ss_check_runs_programs(t)) {
        memset(res, 0, sizeof *res);
        res->verdict = SS_TARGET_UNAVAILABLE;
        res->ref_status = ref_status;
        snprintf(res->why, sizeof res->why, "%s", SS_CHECK_NOT_APPLICABLE);
        return;
    }
    /* Everything zero but the reason text, which only needs its terminator;
     * the diff is zeroed by ss_compare, or below where it is not called. */
    res->verdict = SS_AGREE;
    res->ref_status = ref_status;
    res->why[0] = '\0';
    ss_storage_copy(&ctx->tgt_in, &ctx->init_in);
    ss_storage_copy(&ctx->tgt_src, &ctx->init_src);
    ss_run_opts o = {SS_SCHED_FORWARD, 1, 0};
    if (opts) o = *opts;
    o.dtype = ctx->dtype;
    const ss_run_status st = t->run(t, plan, &ctx->tgt_in, &ctx->tgt_src, &o, res->why, sizeof res->why);
    if (res->why[0]) {   /* a worker's or plugin's words: untrusted, made inert once for every printer */
        char said[sizeof res->why];
        memcpy(said, res->why, sizeof said);
        said[sizeof said - 1] = '\0';
        ss_text_inert(said, res->why, sizeof res->why);
    }
    const int compared = (st == SS_RUN_OK || st == SS_RUN_FLAKY || st == SS_RUN_REJECTED) &&
                         (st == SS_RUN_REJECTED) == (ref_status == SS_RUN_REJECTED);
    if (!compared) memset(&res->diff, 0, sizeof res->diff);
    switch (st) {
    case SS_RUN_UNAVAILABLE: res->verdict = SS_TARGET_UNAVAILABLE; return;
    case SS_RUN_FAILED: res->verdict = SS_TARGET_FAILED; return;
    case SS_RUN_REFUSED: res->verdict = SS_REFUSED; return;
    case SS_RUN_RAISED: res->verdict = SS_RAISED; return;
    case SS_RUN_ERROR: res->verdict = SS_ERROR; return;
    case SS_RUN_TIMEOUT: res->verdict = SS_TARGET_TIMEOUT; return;
    case SS_RUN_REJECTED:
        if (ref_status != SS_RUN_REJECTED) { res->verdict = SS_REJECTED_BY_TARGET; return; }
        /* Both refused: agreement, provided the target left everything as it was. */
        ss_compare(plan, &ctx->init_in, &ctx->init_src, &ctx->tgt_in, &ctx->tgt_src, &res->diff);
        break;
    case SS_RUN_OK: case SS_RUN_FLAKY:
        if (ref_status == SS_RUN_REJECTED) { res->verdict = SS_ACCEPTED_INVALID; return; }
        if (ss_compare(plan, &ctx->ref_in, &ctx->ref_src, &ctx->tgt_in, &ctx->tgt_src, &res->diff))
            ss_compare_nan_pairs(plan, ctx->dtype, &ctx->ref_in, &ctx->ref_src, &ctx->tgt_in, &ctx->tgt_src,
                                 &res->diff);
        break;
    }
    res->diff.value_type = ctx->value_type;
    const int only_nans = res->diff.count && res->diff.nan_pairs == res->diff.count &&
                          !ctx->nan_payload_is_finding;
    res->verdict = res->diff.guard_corrupt ? SS_GUARD_WRITE
                 : only_nans ? SS_NAN_PAYLOAD
                 : res->diff.count ? SS_MISMATCH
                 : st == SS_RUN_FLAKY ? SS_FLAKY : SS_AGREE;
}
