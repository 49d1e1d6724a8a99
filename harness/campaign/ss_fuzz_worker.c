/* ss_fuzz_worker.c - a campaign's fork-server worker: generates its range of cases, runs
 * them on every target (one by one, or in groups as batches where a target batches),
 * keeps its slot's clock and counts for the parent, hands findings to the finding policy. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "ss_fuzz_int.h"
#include "ss_plan_build.h"
#include "ss_test_hook.h"

/* An engine's slow phase (worker start, first compile) gets its own limit. */
static void engine_clock(void *user, double budget_s) {
    fz_worker_state *w = user;
    STORE(w->slot->budget_ns, (int64_t)(budget_s * 1e9));
    STORE(w->slot->started_ns, now_ns());
}

/* The test hook SSFUZZ_TEST_FAULT=crash:N / hang:N on case N. */
static void maybe_fault(fz_worker_state *w, uint64_t index) {
    if (w->fault && w->fault != 3 && index == w->fault_index) {
        if (w->fault == 1) raise(SIGSEGV);
        for (;;) pause();
    }
}

/* The schedules of t that case `index` (`plan`) runs under: [first, *last]. */
static int schedules_for(const ss_fuzz_config *cfg, const ss_target *t, uint64_t index, const ss_plan *plan,
                         int *first, int *last) {
    if (ss_fuzz_case_schedules(cfg, t, index, first, last)) return -1;
    /* Where every schedule gives one result, the others would rerun the
     * same code on the same storages: one run stands for all. */
    if (*last > *first && ss_target_schedules_agree(t, plan)) *last = *first;
    return 0;
}

/* Runs the prepared case on target ti, schedule by schedule, up to its first finding. */
static void check_on_target(fz_worker_state *w, ss_check_ctx *ctx, const ss_case *c, const ss_plan *plan,
                            ss_run_status ref, uint64_t index, int ti) {
    const ss_target *t = w->cfg->targets[ti];
    int first, last;
    if (schedules_for(w->cfg, t, index, plan, &first, &last)) return;
    for (int s = first; s <= last; s++) {
        const ss_run_opts ro = {s, 1, 0};
        fz_start_run(w, ti, s, 0);
        maybe_fault(w, index);
        ss_check_result res;
        ss_check_target(ctx, plan, ref, t, &ro, &res);
        /* A sticky CUDA error leaves this worker's context unusable: end it with
         * the case in its slot; the parent records the finding and respawns. */
        if (ss_target_poisoned(t)) _exit(FZ_EXIT_POISONED);
        fz_count_run(w, plan, t, &res);
        if (!fz_is_finding(w->cfg, res.verdict)) continue;
        fz_on_finding(w, c, plan, index, ti, &ro, &res);
        break;   /* one finding per target and case: the first failing schedule */
    }
}

/* Runs case `index` on every target; returns its size class. */
static int run_case(fz_worker_state *w, uint64_t index) {
    const ss_fuzz_config *cfg = w->cfg;
    ss_case c;
    ss_plan plan;
    ss_run_status ref;
    char why[256];
    ss_gen_case(&cfg->gen, cfg->seed, index, &c, NULL);
    const int size_class = ss_size_class(&c.op);
    if (ss_plan_build_limited(&c.op, cfg->max_bytes, &plan, NULL) ||
        ss_check_prepare(&w->ctx, &c, &plan, &ref, why, sizeof why)) {
        STORE(w->slot->skipped, w->slot->skipped + 1);
        ss_case_free(&c);   /* a program case owns its program */
        return size_class;
    }
    for (size_t ti = 0; ti < cfg->n_targets; ti++) check_on_target(w, &w->ctx, &c, &plan, ref, index, (int)ti);
    ss_case_free(&c);
    return size_class;
}

static int64_t case_bytes(const ss_case *c) {
    const int64_t n = c->op.input_storage_numel + (c->op.src_aliased ? 0 : c->op.src_storage_numel);
    return n > INT64_MAX / 16 ? INT64_MAX / 16 : n * (int64_t)c->op.elem_size;
}

/* Runs runs[0..n) of the group on target ti as one batch (one case's forms
 * alone make no batch, meta.batch records the other cases: they run one by
 * one, as without batches) and reports each case's first failing run. */
static void run_batch(fz_worker_state *w, fz_group *g, int ti, const fz_run *runs, size_t n) {
    const ss_fuzz_config *cfg = w->cfg;
    const ss_target *t = cfg->targets[ti];
    ss_check_ctx *ctxs[SS_CHECK_MAX_BATCH];
    const ss_plan *plans[SS_CHECK_MAX_BATCH];
    ss_run_status refs[SS_CHECK_MAX_BATCH];
    ss_run_opts opts[SS_CHECK_MAX_BATCH];
    ss_check_result res[SS_CHECK_MAX_BATCH];
    for (size_t r = 0; r < n; r++) {
        ctxs[r] = &g->ctx[runs[r].j];
        plans[r] = &g->m[runs[r].j].plan;
        refs[r] = g->m[runs[r].j].ref;
        opts[r] = (ss_run_opts){runs[r].s, 1, 0};
    }
    const int one_case = runs[0].j == runs[n - 1].j;
    STORE(w->slot->cur_index, g->m[runs[0].j].local);
    fz_start_run(w, ti, runs[0].s, (int64_t)(cfg->case_timeout * 1e9) * (int64_t)n);
    for (size_t r = 0; r < n; r++) maybe_fault(w, g->m[runs[r].j].index);
    for (size_t r = 0; one_case && r < n; r++) ss_check_target(ctxs[r], plans[r], refs[r], t, &opts[r], &res[r]);
    if (!one_case) ss_check_batch(ctxs, plans, refs, opts, n, t, res);
    if (ss_target_poisoned(t)) _exit(FZ_EXIT_POISONED);
    if (!one_case) {
        STORE(w->slot->batches, w->slot->batches + 1);
        STORE(w->slot->batched_cases, w->slot->batched_cases + n);
    }
    for (size_t r = 0; r < n; r++) {
        fz_member *m = &g->m[runs[r].j];
        fz_count_run(w, &m->plan, t, &res[r]);
        if (m->found || !fz_is_finding(cfg, res[r].verdict)) continue;
        m->found = 1;   /* runs are in schedule order: this is the case's first failing one */
        STORE(w->slot->cur_index, m->local);
        STORE(w->slot->sched, runs[r].s);
        if (one_case) fz_on_finding(w, &m->c, &m->plan, m->index, ti, &opts[r], &res[r]);
        else fz_batched_finding(w, g, ti, runs, n, r, &opts[r], &res[r]);
    }
}

/* The group's cases on a batching target ti: every case under every
 * schedule it runs, in batches of at most SS_CHECK_MAX_BATCH runs (a case
 * never split across two). */
static void check_group_on_target(fz_worker_state *w, fz_group *g, int ti) {
    const ss_target *t = w->cfg->targets[ti];
    fz_run runs[SS_CHECK_MAX_BATCH];
    size_t n = 0;
    for (size_t j = 0; j < g->n; j++) g->m[j].found = 0;
    for (size_t j = 0; j < g->n; j++) {
        int first, last;
        if (schedules_for(w->cfg, t, g->m[j].index, &g->m[j].plan, &first, &last)) return;
        if (n && n + (size_t)(last - first + 1) > SS_CHECK_MAX_BATCH) {
            run_batch(w, g, ti, runs, n);
            n = 0;
        }
        for (int s = first; s <= last && n < SS_CHECK_MAX_BATCH; s++) runs[n++] = (fz_run){j, s};
    }
    if (n) run_batch(w, g, ti, runs, n);
}

static void free_group(fz_group *g) {
    for (size_t j = 0; j < g->n; j++) ss_case_free(&g->m[j].c);
    g->n = 0;
}

/* Runs a group of cases from local case *next (below end, at most k, at
 * most FZ_GROUP_BYTES unless one case alone is larger) on every
 * target: batching targets run the group as batches, the others case by
 * case. *next moves past every case it ran or skipped. */
static void run_group(fz_worker_state *w, uint64_t *next, uint64_t end, int k) {
    const ss_fuzz_config *cfg = w->cfg;
    fz_group *g = w->group;
    int64_t bytes = 0;
    const int64_t t0 = now_ns();
    uint64_t skipped_here = 0;
    int skipped_class[SS_CHECK_MAX_BATCH];
    char why[256];
    g->n = 0;
    while (*next < end && g->n < (size_t)k && !LOAD(w->slot->stop)) {
        fz_member *m = &g->m[g->n];
        const uint64_t index = ss_fuzz_case_index(cfg, *next);
        ss_gen_case(&cfg->gen, cfg->seed, index, &m->c, NULL);
        if (g->n && bytes + case_bytes(&m->c) > FZ_GROUP_BYTES) { ss_case_free(&m->c); break; }
        ++*next;
        STORE(w->slot->cur_index, *next - 1);
        m->index = index;
        m->local = *next - 1;
        m->size_class = ss_size_class(&m->c.op);
        if (ss_plan_build_limited(&m->c.op, cfg->max_bytes, &m->plan, NULL) ||
            ss_check_prepare(&g->ctx[g->n], &m->c, &m->plan, &m->ref, why, sizeof why)) {
            STORE(w->slot->skipped, w->slot->skipped + 1);
            if (skipped_here < SS_CHECK_MAX_BATCH) skipped_class[skipped_here++] = m->size_class;
            ss_case_free(&m->c);
            continue;
        }
        bytes += case_bytes(&m->c);
        g->n++;
    }
    for (size_t ti = 0; ti < cfg->n_targets; ti++) {
        if (ss_target_batch_limit(cfg->targets[ti]) > 1) { check_group_on_target(w, g, (int)ti); continue; }
        for (size_t j = 0; j < g->n; j++) {
            STORE(w->slot->cur_index, g->m[j].local);
            check_on_target(w, &g->ctx[j], &g->m[j].c, &g->m[j].plan, g->m[j].ref, g->m[j].index, (int)ti);
        }
    }
    /* The group's time, shared evenly by its cases. */
    const uint64_t ran = g->n + skipped_here;
    const int64_t each = ran ? (now_ns() - t0) / (int64_t)ran : 0;
    for (size_t j = 0; j < g->n + skipped_here; j++) {
        const int c = j < g->n ? g->m[j].size_class : skipped_class[j - g->n];
        STORE(w->slot->size_ns[c], w->slot->size_ns[c] + each);
        STORE(w->slot->size_cases[c], w->slot->size_cases[c] + 1);
    }
    STORE(w->slot->done, w->slot->done + ran);
    free_group(g);
}

void fz_worker_main(const ss_fuzz_config *cfg, fz_slot *slot, int cmd_fd, int res_fd) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGINT, SIG_IGN);    /* the parent decides when to stop */
    signal(SIGTERM, SIG_IGN);
    signal(SIGPIPE, SIG_DFL);
    fz_worker_state *w = calloc(1, sizeof *w);
    if (!w) _exit(3);
    w->cfg = cfg;
    w->slot = slot;
    w->res_fd = res_fd;
    ss_check_ctx_init(&w->ctx);
    ss_check_ctx_init(&w->mctx);
    w->ctx.max_bytes = w->mctx.max_bytes = cfg->max_bytes;
    w->ctx.nan_payload_is_finding = w->mctx.nan_payload_is_finding = cfg->nan_payload_is_finding;
    ss_target_set_clock_hook(engine_clock, w);
    ss_engines_enter_worker();  /* e.g. this worker is the CUDA process; it ends when poisoned */
    const char *fault = ss_test_hook("SSFUZZ_TEST_FAULT");
    if (fault && (!strncmp(fault, "crash:", 6) || !strncmp(fault, "hang:", 5) || !strncmp(fault, "full:", 5))) {
        w->fault = fault[0] == 'c' ? 1 : fault[0] == 'h' ? 2 : 3;
        w->fault_index = strtoull(strchr(fault, ':') + 1, NULL, 10);
    }
    const int group = ss_fuzz_group_limit(cfg);
    if (group > 1 && !(w->group = calloc(1, sizeof *w->group))) _exit(3);
    for (int j = 0; w->group && j < SS_CHECK_MAX_BATCH; j++) {
        w->group->ctx[j].max_bytes = cfg->max_bytes;
        w->group->ctx[j].nan_payload_is_finding = cfg->nan_payload_is_finding;
    }
    /* Groups start small and double up to `group`: the first answers (and a
     * bug every case shows) come after a small compile, not a full one. */
    int ramp = group > 2 ? 2 : group;
    fz_cmd cmd;
    while (fz_io_full(cmd_fd, &cmd, sizeof cmd, 0) == 0 && cmd.count) {
        for (uint64_t i = cmd.first; group > 1 && i < cmd.first + cmd.count && !LOAD(slot->stop);) {
            STORE(slot->phase, 1);
            run_group(w, &i, cmd.first + cmd.count, ramp);
            ramp = ramp * 2 < group ? ramp * 2 : group;
            STORE(slot->phase, 0);
            STORE(slot->started_ns, 0);
        }
        for (uint64_t i = cmd.first; group == 1 && i < cmd.first + cmd.count && !LOAD(slot->stop); i++) {
            STORE(slot->cur_index, i);
            STORE(slot->phase, 1);
            const int64_t t0 = now_ns();
            const int k = run_case(w, ss_fuzz_case_index(cfg, i));
            STORE(slot->size_ns[k], slot->size_ns[k] + (now_ns() - t0));
            STORE(slot->size_cases[k], slot->size_cases[k] + 1);
            STORE(slot->phase, 0);
            STORE(slot->started_ns, 0);
            STORE(slot->done, slot->done + 1);
        }
        fz_msg m;
        memset(&m, 0, sizeof m);
        m.type = MSG_DONE;
        if (fz_io_full(res_fd, &m, sizeof m, 1)) break;
    }
    ss_check_ctx_free(&w->ctx);
    ss_check_ctx_free(&w->mctx);
    for (size_t j = 0; w->group && j < SS_CHECK_MAX_BATCH; j++) ss_check_ctx_free(&w->group->ctx[j]);
    free(w->group);
    ss_engines_shutdown();
    free(w);
    _exit(0);
}
