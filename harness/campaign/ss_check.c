/* ss_check.c - one differential check: the reference against one target on one case. */
#include <stdio.h>
#include <string.h>
#include "ss_check.h"
#include "ss_program_ref.h"
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

int ss_verdict_is_finding(ss_verdict v) {
    return v != SS_AGREE && v != SS_REFUSED && v != SS_TARGET_UNAVAILABLE && v != SS_ERROR && v != SS_NAN_PAYLOAD;
}

void ss_check_ctx_init(ss_check_ctx *ctx) { memset(ctx, 0, sizeof *ctx); }

void ss_check_ctx_free(ss_check_ctx *ctx) {
    ss_storage_free(&ctx->ref_in);
    ss_storage_free(&ctx->ref_src);
    ss_storage_free(&ctx->tgt_in);
    ss_storage_free(&ctx->tgt_src);
    ss_storage_free(&ctx->init_in);
    ss_storage_free(&ctx->init_src);
    ss_prog_result_free(&ctx->prog_ref);
}

/* A program case's reference (see ss_check_prepare). */
static int prepare_program(ss_check_ctx *ctx, const ss_case *c, const ss_plan *plan, ss_run_status *ref_status,
                           char *why, size_t why_len) {
    ss_prog_result *r = &ctx->prog_ref;
    ss_prog_result_free(r);
    switch (ss_prog_ref_run(c, plan, &ctx->ref_in, &ctx->ref_src, r)) {
    case SS_PROG_OK: *ref_status = SS_RUN_OK; return 0;
    case SS_PROG_REFUSED:
        if (r->raises) { *ref_status = SS_RUN_REFUSED; return 0; }
        snprintf(why, why_len, "program[%d] has no defined result (%s): nothing to compare", r->step, r->why);
        return -1;
    case SS_PROG_INVALID:
        snprintf(why, why_len, "%s: %s", r->err.field, r->err.msg);
        return -1;
    default:
        snprintf(why, why_len, "out of memory running the program's reference");
        return -1;
    }
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
    /* Only the initial storages get their bands set (below): the reference's
     * and the target's are copies of them, bands included, before use. All
     * six reserved inline where their blocks hold them (every case but the
     * few that grow one). */
    if (ss_storage_reserve_bare(&ctx->init_in, in_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve_bare(&ctx->init_src, src_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve_bare(&ctx->ref_in, in_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve_bare(&ctx->ref_src, src_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve_bare(&ctx->tgt_in, in_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve_bare(&ctx->tgt_src, src_bytes, SS_GUARD_DEFAULT)) {
        snprintf(why, why_len, "out of memory for %zu bytes of storage", in_bytes + src_bytes);
        return -1;
    }
    ss_storage_set_guards(&ctx->init_in);
    ss_storage_set_guards(&ctx->init_src);
    ctx->init_refill = ss_fill_spec_of(c, &ctx->fill);
    if (ctx->init_refill) ss_fill_spec_run(&ctx->fill, &ctx->init_in, &ctx->init_src);
    else ss_fill_case(c, &ctx->init_in, &ctx->init_src);
    ctx->init_ready = 1;
    ctx->dtype = (int)c->dtype;
    ctx->program = c->program;
    ctx->c = c;
    ss_storage_copy(&ctx->ref_in, &ctx->init_in);
    ss_storage_copy(&ctx->ref_src, &ctx->init_src);
    if (c->program) return prepare_program(ctx, c, plan, ref_status, why, why_len);
    *ref_status = ss_ref_run(plan, &ctx->ref_in, &ctx->ref_src, why, why_len);
    return *ref_status == SS_RUN_FAILED ? -1 : 0;
}

void ss_check_initial(ss_check_ctx *ctx) {
    if (ctx->init_ready) return;
    ss_storage_set_guards(&ctx->init_in);
    ss_storage_set_guards(&ctx->init_src);
    ss_fill_spec_run(&ctx->fill, &ctx->init_in, &ctx->init_src);
    ctx->init_ready = 1;
}

static void swap_storage(ss_storage *a, ss_storage *b) {
    const ss_storage t = *a;
    *a = *b;
    *b = t;
}

/* Puts the initial storages into ctx->tgt_*. The first run after the
 * prepare takes init's blocks themselves (a swap: one copy of the storages
 * fewer per check) where they can be refilled from the seed and its judge
 * will not read them (it compares a refusal against them when the
 * reference refused); later runs copy them, refilled once. */
static void give_initial(ss_check_ctx *ctx, ss_run_status ref_status) {
    if (ctx->init_ready && ctx->init_refill && ref_status != SS_RUN_REJECTED) {
        swap_storage(&ctx->tgt_in, &ctx->init_in);
        swap_storage(&ctx->tgt_src, &ctx->init_src);
        ctx->init_ready = 0;
        return;
    }
    ss_check_initial(ctx);
    ss_storage_copy(&ctx->tgt_in, &ctx->init_in);
    ss_storage_copy(&ctx->tgt_src, &ctx->init_src);
}

int ss_check_runs_programs(const ss_target *t) {
    /* Kernel engines take one slice write (a plan); programs need an engine
     * that runs Python, and there only the targets that take programs. */
    return t->engine->runs_programs && t->engine->run_program && t->engine->runs_programs(t);
}

void ss_check_describe(const ss_plan *plan, const ss_check_result *res, char *out, size_t n) {
    if ((res->verdict == SS_MISMATCH || res->verdict == SS_GUARD_WRITE || res->verdict == SS_NAN_PAYLOAD) &&
        !res->program)
        ss_diff_format(plan, &res->diff, out, n);
    else
        snprintf(out, n, "%s", res->why);
}

/* A worker's or plugin's words: untrusted, made inert once for every printer. */
static void make_inert(ss_check_result *res) {
    if (!res->why[0]) return;
    char said[sizeof res->why];
    memcpy(said, res->why, sizeof said);
    said[sizeof said - 1] = '\0';
    ss_text_inert(said, res->why, sizeof res->why);
}

/* A verdict that is not a comparison (the target did not run the case through). */
static int unrun_verdict(ss_run_status st, ss_check_result *res) {
    switch (st) {
    case SS_RUN_UNAVAILABLE: res->verdict = SS_TARGET_UNAVAILABLE; return 1;
    case SS_RUN_FAILED: res->verdict = SS_TARGET_FAILED; return 1;
    case SS_RUN_REFUSED: res->verdict = SS_REFUSED; return 1;
    case SS_RUN_RAISED: res->verdict = SS_RAISED; return 1;
    case SS_RUN_ERROR: res->verdict = SS_ERROR; return 1;
    case SS_RUN_TIMEOUT: res->verdict = SS_TARGET_TIMEOUT; return 1;
    default: return 0;
    }
}

/* A program case's run on a program target (status st, returned values in
 * act) judged: storages, returned values and their aliasing against the
 * program's reference. */
static void judge_program(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref_status, ss_run_status st,
                          ss_prog_actual *act, ss_storage *tin, ss_storage *tsrc, ss_check_result *res) {
    make_inert(res);
    if (unrun_verdict(st, res)) return;
    if (st == SS_RUN_REJECTED) { res->verdict = SS_REJECTED_BY_TARGET; return; }
    res->verdict = st == SS_RUN_FLAKY ? SS_FLAKY : SS_AGREE;
    /* The reference refuses (PyTorch raises) and the target ran the program:
     * the reference has no answer to hold it to. */
    if (ref_status != SS_RUN_OK) return;
    act->in = tin;
    act->src = tsrc;
    ss_prog_diff d;
    if (!ss_prog_compare(ctx->c, &ctx->prog_ref, &ctx->ref_in, &ctx->ref_src, act, &d)) return;
    ss_check_initial(ctx);
    ss_prog_ref_blame(ctx->c, plan, &ctx->init_in, &ctx->init_src, &d);
    char text[512 + sizeof res->why];
    ss_prog_diff_format(ctx->program, &d, text, 512);
    if (res->why[0])   /* the worker's note on the returned values' aliasing */
        snprintf(text + strlen(text), sizeof text - strlen(text), "; worker: %s", res->why);
    const size_t len = strnlen(text, sizeof res->why - 1);
    memcpy(res->why, text, len);
    res->why[len] = '\0';
    res->diff.count = d.count;
    res->diff.guard_corrupt = d.guard_corrupt;
    res->diff.value_type = ctx->value_type;
    res->verdict = d.guard_corrupt ? SS_GUARD_WRITE : SS_MISMATCH;
}

/* A single write's run (status st, final storages tin, tsrc) judged
 * against the prepared reference. */
static void judge_write(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref_status, ss_run_status st,
                        ss_storage *tin, ss_storage *tsrc, ss_check_result *res) {
    make_inert(res);
    const int compared = (st == SS_RUN_OK || st == SS_RUN_FLAKY || st == SS_RUN_REJECTED) &&
                         (st == SS_RUN_REJECTED) == (ref_status == SS_RUN_REJECTED);
    if (!compared) memset(&res->diff, 0, sizeof res->diff);
    if (unrun_verdict(st, res)) return;
    switch (st) {
    default: return;
    case SS_RUN_REJECTED:
        if (ref_status != SS_RUN_REJECTED) { res->verdict = SS_REJECTED_BY_TARGET; return; }
        /* Both refused: agreement, provided the target left everything as it was. */
        ss_check_initial(ctx);
        ss_compare(plan, &ctx->init_in, &ctx->init_src, tin, tsrc, &res->diff);
        break;
    case SS_RUN_OK: case SS_RUN_FLAKY:
        if (ref_status == SS_RUN_REJECTED) { res->verdict = SS_ACCEPTED_INVALID; return; }
        if (ss_compare(plan, &ctx->ref_in, &ctx->ref_src, tin, tsrc, &res->diff))
            ss_compare_nan_pairs(plan, ctx->dtype, &ctx->ref_in, &ctx->ref_src, tin, tsrc, &res->diff);
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

/* Starts a check of t: res cleared, the run options with the case's dtype. 0, or 1 when the
 * case is a program and t does not run programs (res says so: done). Inline: once a check. */
static inline __attribute__((always_inline)) int begin(ss_check_ctx *ctx, ss_run_status ref_status,
                                                       const ss_target *t, const ss_run_opts *opts,
                                                       ss_run_opts *o, ss_check_result *res) {
    if (ctx->program && !ss_check_runs_programs(t)) {
        memset(res, 0, sizeof *res);
        res->verdict = SS_TARGET_UNAVAILABLE;
        res->ref_status = ref_status;
        res->program = 1;
        snprintf(res->why, sizeof res->why, "%s", SS_CHECK_NOT_APPLICABLE);
        return 1;
    }
    /* Everything zero but the reason text, which only needs its terminator;
     * the diff is zeroed by ss_compare, or where it is not called. */
    res->verdict = SS_AGREE;
    res->ref_status = ref_status;
    res->why[0] = '\0';
    res->program = ctx->program != NULL;
    if (ctx->program) memset(&res->diff, 0, sizeof res->diff);
    *o = (ss_run_opts){SS_SCHED_FORWARD, 1, 0};
    if (opts) *o = *opts;
    o->dtype = ctx->dtype;
    return 0;
}

void ss_check_target(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref_status,
                     const ss_target *t, const ss_run_opts *opts, ss_check_result *res) {
    ss_run_opts o;
    if (begin(ctx, ref_status, t, opts, &o, res)) return;
    give_initial(ctx, ref_status);
    if (ctx->program) {
        ss_prog_actual act;
        memset(&act, 0, sizeof act);
        const ss_run_status st = t->engine->run_program(t, ctx->c, plan, &ctx->tgt_in, &ctx->tgt_src, &o, &act,
                                                        res->why, sizeof res->why);
        judge_program(ctx, plan, ref_status, st, &act, &ctx->tgt_in, &ctx->tgt_src, res);
        return;
    }
    const ss_run_status st = t->run(t, plan, &ctx->tgt_in, &ctx->tgt_src, &o, res->why, sizeof res->why);
    judge_write(ctx, plan, ref_status, st, &ctx->tgt_in, &ctx->tgt_src, res);
}

/* Target storages of a batch's runs, one pair per run: a case may run in
 * one batch under several schedules. Per process, grown to the largest. */
static ss_storage batch_in[SS_CHECK_MAX_BATCH], batch_src[SS_CHECK_MAX_BATCH];

void ss_check_batch(ss_check_ctx *const *ctxs, const ss_plan *const *plans, const ss_run_status *refs,
                    const ss_run_opts *opts, size_t n, const ss_target *t, ss_check_result *res) {
    ss_batch_item items[SS_CHECK_MAX_BATCH];
    ss_prog_actual acts[SS_CHECK_MAX_BATCH];
    size_t at[SS_CHECK_MAX_BATCH], k = 0;
    if (n > SS_CHECK_MAX_BATCH) n = SS_CHECK_MAX_BATCH;   /* callers never pass more */
    for (size_t i = 0; i < n; i++) {
        ss_run_opts o;
        ss_check_ctx *ctx = ctxs[i];
        if (begin(ctx, refs[i], t, &opts[i], &o, &res[i])) continue;
        ss_check_initial(ctx);
        if (ss_storage_reserve(&batch_in[k], ctx->init_in.bytes, SS_GUARD_DEFAULT) ||
            ss_storage_reserve(&batch_src[k], ctx->init_src.bytes, SS_GUARD_DEFAULT)) {
            res[i].verdict = SS_ERROR;   /* counted, never a finding: this process ran out of memory */
            snprintf(res[i].why, sizeof res[i].why, "out of memory for a batch's storages");
            continue;
        }
        ss_storage_copy(&batch_in[k], &ctx->init_in);
        ss_storage_copy(&batch_src[k], &ctx->init_src);
        memset(&acts[k], 0, sizeof acts[k]);
        items[k] = (ss_batch_item){ctx->c, plans[i], &batch_in[k], &batch_src[k], o,
                                   ctx->program ? &acts[k] : NULL, SS_RUN_OK, res[i].why, sizeof res[i].why};
        at[k++] = i;
    }
    if (k > 1 && ss_target_batch_limit(t) > 1) {
        t->engine->run_batch(t, items, k);
    } else {
        for (size_t j = 0; j < k; j++) {
            ss_batch_item *it = &items[j];
            it->status = it->act ? t->engine->run_program(t, it->c, it->plan, it->input, it->src, &it->opts, it->act,
                                                          it->why, it->why_len)
                                 : t->run(t, it->plan, it->input, it->src, &it->opts, it->why, it->why_len);
        }
    }
    for (size_t j = 0; j < k; j++) {
        const size_t i = at[j];
        if (items[j].act)
            judge_program(ctxs[i], plans[i], refs[i], items[j].status, items[j].act, &batch_in[j], &batch_src[j], &res[i]);
        else
            judge_write(ctxs[i], plans[i], refs[i], items[j].status, &batch_in[j], &batch_src[j], &res[i]);
    }
}

/* t's sibling s rerun on the prepared case under t's schedule: 1 wrong (a
 * finding's verdict), 0 right, -1 no answer (why in r). */
static int rerun_on(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref_status, const ss_target *t,
                    const ss_target *s, const ss_run_opts *opts, ss_check_result *r) {
    ss_run_opts o = {0, 1, 0};
    if (opts) o = *opts;
    const char *sched = ss_target_schedule(t, opts ? opts->schedule : 0);
    o.schedule = sched ? ss_target_schedule_index(s, sched) : 0;
    if (o.schedule < 0) o.schedule = 0;
    ss_check_target(ctx, plan, ref_status, s, &o, r);
    if (r->verdict == SS_AGREE || r->verdict == SS_FLAKY) return 0;
    return r->verdict == SS_MISMATCH || r->verdict == SS_GUARD_WRITE || r->verdict == SS_RAISED ||
                   r->verdict == SS_ACCEPTED_INVALID || r->verdict == SS_REJECTED_BY_TARGET
               ? 1 : -1;
}

const char *ss_check_stage(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref_status,
                           const ss_target *t, const ss_run_opts *opts, char *detail, size_t n) {
    const ss_target *sib[4], *base;
    const char *names[4], *last = NULL, *base_name = NULL;
    const int k = t->engine->stages ? t->engine->stages(t, sib, names, &last, 4) : 0;
    ss_check_result r;
    size_t used = 0;
    detail[0] = '\0';
    base = t->engine->baseline ? t->engine->baseline(t, &base_name) : NULL;
    if (base && rerun_on(ctx, plan, ref_status, t, base, opts, &r) == 1) {   /* right or silent: the stages decide */
        snprintf(detail, n, "%s %s too: wrong before any compile", base->name, ss_verdict_name(r.verdict));
        return base_name;
    }
    for (int i = 0; i < k; i++) {
        const int wrong = rerun_on(ctx, plan, ref_status, t, sib[i], opts, &r);
        if (used < n)
            used += (size_t)snprintf(detail + used, n - used, "%s%s %s", i ? ", " : "", sib[i]->name,
                                     wrong == 0 ? "agrees" : ss_verdict_name(r.verdict));
        if (wrong == 1) return names[i];
        if (wrong < 0) {
            if (used < n) snprintf(detail + used, n - used, " (%.120s): stage unknown", r.why);
            return NULL;
        }
    }
    return k ? last : NULL;
}
