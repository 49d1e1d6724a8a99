/* ss_emu.c - the CPU emulator: the kernel body under forward/reverse/lockstep/warp/random schedules. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "ss_emu.h"
#include "ss_emu_tile.h"

/* Per-thread scratch, grown on demand and kept: no malloc per case. */
typedef struct { uint8_t *p; size_t cap; } scratch;
enum { SCR_TMP, SCR_IDX, SCR_VALS, SCR_GROUPS, SCR_COUNT };
static _Thread_local scratch scr[SCR_COUNT];

/* Large scratch (a staged copy of a large slice) asks for transparent huge
 * pages before its first touch, as storages do (ss_storage.c): a transposed
 * copy into it otherwise takes a TLB miss per row. Advice only. */
static void advise_huge(void *p, size_t n) {
#if defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (n < ((size_t)8 << 20)) return;
    const uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + n) & ~(huge - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p; (void)n;
#endif
}

static void *scratch_grow(scratch *s, size_t bytes);

/* Two per run (most of them for nothing: 0 bytes): the usual answer inline. */
static inline void *scratch_get(int which, size_t bytes) {
    scratch *s = &scr[which];
    if (s->p && s->cap >= bytes) return s->p;
    return scratch_grow(s, bytes);
}

static void *scratch_grow(scratch *s, size_t bytes) {
    if (bytes == 0) bytes = 16;
    if (s->cap < bytes) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < bytes) cap = cap > SIZE_MAX / 2 ? bytes : cap * 2;
        void *p = aligned_alloc(64, (cap + 63) & ~(size_t)63);
        if (!p) return NULL;
        advise_huge(p, cap);
        free(s->p);
        s->p = p;
        s->cap = cap;
    }
    return s->p;
}

void ss_emu_release(void) {
    for (int i = 0; i < SCR_COUNT; i++) { free(scr[i].p); scr[i].p = NULL; scr[i].cap = 0; }
}

/* ---- one run of `len` items with byte strides; E constant after inlining ---- */

static inline void move_items(uint8_t *dp, const uint8_t *sp, int64_t len, int64_t dsb, int64_t ssb,
                              int E, int reverse) {
#define SS_MOVE_LOOP(EC)                                                                   \
    if (!reverse) for (int64_t j = 0; j < len; j++)                                        \
        ss_k_store(dp + j * dsb, EC, ss_k_load(sp + j * ssb, EC));                         \
    else for (int64_t j = len - 1; j >= 0; j--)                                            \
        ss_k_store(dp + j * dsb, EC, ss_k_load(sp + j * ssb, EC));                         \
    return;
    switch (E) {
    case 1: SS_MOVE_LOOP(1)
    case 2: SS_MOVE_LOOP(2)
    case 4: SS_MOVE_LOOP(4)
    case 8: SS_MOVE_LOOP(8)
    default: SS_MOVE_LOOP(16)
    }
#undef SS_MOVE_LOOP
}

/* n bytes between disjoint ranges: up to 64 in two to four overlapping fixed-size
 * moves (most runs of fuzzing's small cases are a few items; a library call
 * costs more than the copy), longer ones through memcpy. */
static inline __attribute__((always_inline)) void copy_disjoint(uint8_t *dp, const uint8_t *sp, size_t n) {
    if (n > 16) {
        if (n > 64) { memcpy(dp, sp, n); return; }
        /* 17 to 64 bytes: two or four 16-byte moves, the last ones overlapping */
        uint8_t x[4][16];
        memcpy(x[0], sp, 16); memcpy(x[1], sp + n - 16, 16);
        if (n > 32) { memcpy(x[2], sp + 16, 16); memcpy(x[3], sp + n - 32, 16); }
        memcpy(dp, x[0], 16); memcpy(dp + n - 16, x[1], 16);
        if (n > 32) { memcpy(dp + 16, x[2], 16); memcpy(dp + n - 32, x[3], 16); }
        return;
    }
    if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, sp, 8); memcpy(&b, sp + n - 8, 8);
        memcpy(dp, &a, 8); memcpy(dp + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, sp, 4); memcpy(&b, sp + n - 4, 4);
        memcpy(dp, &a, 4); memcpy(dp + n - 4, &b, 4);
    } else {
        for (size_t i = 0; i < n; i++) dp[i] = sp[i];
    }
}

/* A contiguous run of `bytes` copied item by item in forward (or reverse)
 * order, E bytes per item, done in bulk. The item loop reads every item before
 * writing it, so where src and dst overlap it is not a memcpy:
 *  - disjoint ranges: memcpy;
 *  - forward with dst below src (reverse: above): each store lands on items
 *    already read, so the loop is a true copy: memmove;
 *  - forward with dst above src at distance D (a multiple of E): item k reads
 *    what item k - D/E stored. Copying D-byte chunks in order reproduces that
 *    exactly, and each chunk's source and destination are disjoint. Reverse
 *    mirrors it. Small D falls back to the item loop. */
static void move_run(uint8_t *dp, const uint8_t *sp, size_t bytes, int E, int reverse) {
    const uintptr_t d = (uintptr_t)dp, s = (uintptr_t)sp;
    if (d == s || bytes == 0) return;
    if (d + bytes <= s || s + bytes <= d) { copy_disjoint(dp, sp, bytes); return; }
    if ((!reverse && d < s) || (reverse && d > s)) { memmove(dp, sp, bytes); return; }
    const size_t dist = d > s ? d - s : s - d;
    if (dist < 64) { move_items(dp, sp, (int64_t)(bytes / (size_t)E), E, E, E, reverse); return; }
    if (!reverse) {
        for (size_t off = 0; off < bytes; off += dist)
            memcpy(dp + off, sp + off, bytes - off < dist ? bytes - off : dist);
    } else {
        for (size_t end = bytes; end > 0;) {
            const size_t start = end > dist ? end - dist : 0;
            memcpy(dp + start, sp + start, end - start);
            end = start;
        }
    }
}

/* The launch seen as runs along its innermost dim: `outer` walks the rest. */
typedef struct {
    ss_klaunch outer;
    int64_t len, ssb, dsb, nruns;
} runs;

static void runs_init(const ss_klaunch *L, runs *r) {
    const int in = L->ndim - 1;
    /* Only what the iterator reads: offsets and the outer dims (copying the
     * whole launch costs more than a small launch's work). */
    r->outer.ndim = in;
    r->outer.src_off = L->src_off;
    r->outer.dst_off = L->dst_off;
    for (int d = 0; d < in; d++) {
        r->outer.sizes[d] = L->sizes[d];
        r->outer.src_strides[d] = L->src_strides[d];
        r->outer.dst_strides[d] = L->dst_strides[d];
    }
    r->len = L->sizes[in];
    r->ssb = L->src_strides[in] * L->elem;
    r->dsb = L->dst_strides[in] * L->elem;
    r->nruns = L->n / r->len;
}

/* COPY, forward or reverse, run by run along the innermost dim, the outer
 * dims walked by an odometer kept here (the launch is not copied); E constant
 * after inlining, so a strided run is a tight load/store loop. */
static inline __attribute__((always_inline)) void copy_runs(const ss_klaunch *L, const uint8_t *src, uint8_t *dst,
                                                            int reverse, int E) {
    const int in = L->ndim - 1;
    const int64_t len = L->sizes[in], ssb = L->src_strides[in] * E, dsb = L->dst_strides[in] * E;
    const int bulk = ssb == E && dsb == E;
    int64_t idx[SS_MAX_NDIM], so = L->src_off, dof = L->dst_off, nruns = 1;
    for (int d = 0; d < in; d++) {   /* the first run (forward) or the last (reverse) */
        nruns *= L->sizes[d];
        idx[d] = reverse ? L->sizes[d] - 1 : 0;
        if (reverse) {
            so += idx[d] * L->src_strides[d];
            dof += idx[d] * L->dst_strides[d];
        }
    }
    /* The outer dim that steps every run (o < 0: one run) kept in locals;
     * the dims outside it step only when it wraps. */
    const int o = in - 1;
    const int64_t on = o >= 0 ? L->sizes[o] : 1, os = o >= 0 ? L->src_strides[o] : 0,
                  od = o >= 0 ? L->dst_strides[o] : 0;
    int64_t oi = o >= 0 ? idx[o] : 0;
    for (int64_t k = 0;;) {
        uint8_t *dp = dst + dof * E;
        const uint8_t *sp = src + so * E;
        if (bulk) {
            const size_t bytes = (size_t)(len * E);
            const uintptr_t d = (uintptr_t)dp, s = (uintptr_t)sp;
            if (d + bytes <= s || s + bytes <= d) copy_disjoint(dp, sp, bytes);   /* move_run's first case, inline */
            else move_run(dp, sp, bytes, E, reverse);
        } else if (!reverse) {   /* four items at a time, each loaded then stored, in order */
            int64_t j = 0;
            for (; j + 4 <= len; j += 4) {
                ss_k_store(dp + j * dsb, E, ss_k_load(sp + j * ssb, E));
                ss_k_store(dp + (j + 1) * dsb, E, ss_k_load(sp + (j + 1) * ssb, E));
                ss_k_store(dp + (j + 2) * dsb, E, ss_k_load(sp + (j + 2) * ssb, E));
                ss_k_store(dp + (j + 3) * dsb, E, ss_k_load(sp + (j + 3) * ssb, E));
            }
            for (; j < len; j++) ss_k_store(dp + j * dsb, E, ss_k_load(sp + j * ssb, E));
        } else
            for (int64_t j = len - 1; j >= 0; j--) ss_k_store(dp + j * dsb, E, ss_k_load(sp + j * ssb, E));
        if (++k == nruns) return;
        /* the next run, as ss_kiter_next/prev would step: dim o, then the
         * dims outside it where o wraps */
        if (!reverse) {
            so += os;
            dof += od;
            if (++oi < on) continue;
            so -= on * os;
            dof -= on * od;
            oi = 0;
        } else {
            so -= os;
            dof -= od;
            if (--oi >= 0) continue;
            oi = on - 1;
            so += on * os;
            dof += on * od;
        }
        for (int d = o - 1; d >= 0; d--) {
            if (!reverse) {
                so += L->src_strides[d];
                dof += L->dst_strides[d];
                if (++idx[d] < L->sizes[d]) break;
                so -= L->sizes[d] * L->src_strides[d];
                dof -= L->sizes[d] * L->dst_strides[d];
                idx[d] = 0;
            } else {
                so -= L->src_strides[d];
                dof -= L->dst_strides[d];
                if (--idx[d] >= 0) break;
                idx[d] = L->sizes[d] - 1;
                so += L->sizes[d] * L->src_strides[d];
                dof += L->sizes[d] * L->dst_strides[d];
            }
        }
    }
}

static void copy_sequential(const ss_klaunch *L, const uint8_t *src, uint8_t *dst, int reverse) {
    switch (L->elem) {
    case 1: copy_runs(L, src, dst, reverse, 1); break;
    case 2: copy_runs(L, src, dst, reverse, 2); break;
    case 4: copy_runs(L, src, dst, reverse, 4); break;
    case 8: copy_runs(L, src, dst, reverse, 8); break;
    default: copy_runs(L, src, dst, reverse, 16); break;
    }
}

/* The dim an order-free COPY launch (L->indep) walks innermost: one
 * contiguous in both views (each run then one block move), else the
 * longest (fewer runs, each with copy_runs' fixed cost: a launch of two or
 * more dims has runs of ten items on average in fuzzing's cases). -1: the
 * launch's own innermost dim is that dim already. */
static int best_inner(const ss_klaunch *L) {
    const int in = L->ndim - 1;
    if (L->src_strides[in] == 1 && L->dst_strides[in] == 1) return -1;
    int best = in;
    for (int d = 0; d < in; d++) {
        if (L->src_strides[d] == 1 && L->dst_strides[d] == 1) return d;
        if (L->sizes[d] > L->sizes[best]) best = d;
    }
    return best == in ? -1 : best;
}

/* An order-free COPY launch: no store reaches a load or another store, so
 * any order of its items gives the forward result (as the tiled path
 * relies on too); walked with best_inner's dim innermost. */
static void copy_any_order(const ss_klaunch *L, const uint8_t *src, uint8_t *dst) {
    const int in = L->ndim - 1, b = in > 0 ? best_inner(L) : -1;
    if (b < 0) { copy_sequential(L, src, dst, 0); return; }
    ss_klaunch R;   /* what copy_runs reads: L with dims b and in swapped */
    R.elem = L->elem;
    R.ndim = L->ndim;
    R.n = L->n;
    R.src_off = L->src_off;
    R.dst_off = L->dst_off;
    for (int d = 0; d <= in; d++) {
        const int from = d == b ? in : d == in ? b : d;
        R.sizes[d] = L->sizes[from];
        R.src_strides[d] = L->src_strides[from];
        R.dst_strides[d] = L->dst_strides[from];
    }
    copy_sequential(&R, src, dst, 0);
}

/* COPY in one wave: every load into `vals`, then every store. */
static void copy_lockstep(const ss_klaunch *L, const uint8_t *src, uint8_t *dst, uint8_t *vals) {
    runs r;
    runs_init(L, &r);
    const int E = L->elem;
    const int64_t rb = r.len * E;
    ss_kiter it;
    ss_kiter_seek(&r.outer, &it, 0);
    for (int64_t k = 0; k < r.nruns; k++, ss_kiter_next(&r.outer, &it)) {
        if (r.ssb == E) memcpy(vals + k * rb, src + it.so * E, (size_t)rb);
        else move_items(vals + k * rb, src + it.so * E, r.len, E, r.ssb, E, 0);
    }
    ss_kiter_seek(&r.outer, &it, 0);
    for (int64_t k = 0; k < r.nruns; k++, ss_kiter_next(&r.outer, &it)) {
        if (r.dsb == E) memcpy(dst + it.dof * E, vals + k * rb, (size_t)rb);
        else move_items(dst + it.dof * E, vals + k * rb, r.len, r.dsb, E, E, 0);
    }
}

/* Any launch kind, items [a, a + g) in lockstep, item by item through the body. */
static void body_group(const ss_klaunch *L, const uint8_t *src, uint8_t *dst, const int64_t *idx,
                       int64_t a, int64_t g, ss_kval *vals) {
    ss_kiter it;
    ss_kiter_seek(L, &it, a);
    const ss_kiter start = it;
    for (int64_t j = 0; j < g; j++) {
        vals[j] = ss_k_load_step(L->kind, L->elem, src, it.so);
        if (j + 1 < g) ss_kiter_next(L, &it);
    }
    it = start;
    for (int64_t j = 0; j < g; j++) {
        ss_k_store_step(L->kind, L->elem, dst, idx, a + j, it.dof, vals[j]);
        if (j + 1 < g) ss_kiter_next(L, &it);
    }
}

/* Any launch kind, one item at a time, forward or reverse; E constant after inlining. */
static inline void body_items(const ss_klaunch *L, const uint8_t *src, uint8_t *dst,
                              const int64_t *idx, int reverse, int E) {
    ss_kiter it;
    ss_kiter_seek(L, &it, reverse ? L->n - 1 : 0);
    for (int64_t k = 0; k < L->n; k++) {
        const int64_t i = reverse ? L->n - 1 - k : k;
        ss_k_store_step(L->kind, E, dst, idx, i, it.dof, ss_k_load_step(L->kind, E, src, it.so));
        if (k + 1 < L->n) {
            if (reverse) ss_kiter_prev(L, &it);
            else ss_kiter_next(L, &it);
        }
    }
}

static void body_sequential(const ss_klaunch *L, const uint8_t *src, uint8_t *dst,
                            const int64_t *idx, int reverse) {
    switch (L->elem) {
    case 1: body_items(L, src, dst, idx, reverse, 1); break;
    case 2: body_items(L, src, dst, idx, reverse, 2); break;
    case 4: body_items(L, src, dst, idx, reverse, 4); break;
    case 8: body_items(L, src, dst, idx, reverse, 8); break;
    default: body_items(L, src, dst, idx, reverse, 16); break;
    }
}

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define SS_RANDOM_MAX_GROUP 1024

/* Consecutive groups of random sizes 1..1024, run in a random order: blocks
 * of a grid retiring in any order, each one a wave. */
static int body_random(const ss_klaunch *L, const uint8_t *src, uint8_t *dst, const int64_t *idx,
                       uint64_t seed) {
    uint64_t rng = seed;
    int64_t m = 0;
    for (int64_t a = 0; a < L->n; m++) a += 1 + (int64_t)(splitmix64(&rng) % SS_RANDOM_MAX_GROUP);
    int64_t (*grp)[2] = scratch_get(SCR_GROUPS, (size_t)m * sizeof *grp);
    if (!grp) return -1;
    rng = seed;
    for (int64_t i = 0, a = 0; i < m; i++) {   /* the same draws again, now kept */
        const int64_t g = 1 + (int64_t)(splitmix64(&rng) % SS_RANDOM_MAX_GROUP);
        grp[i][0] = a;
        grp[i][1] = g < L->n - a ? g : L->n - a;
        a += g;
    }
    for (int64_t i = m - 1; i > 0; i--) {      /* Fisher-Yates over the group order */
        const int64_t j = (int64_t)(splitmix64(&rng) % (uint64_t)(i + 1));
        const int64_t a = grp[i][0], g = grp[i][1];
        grp[i][0] = grp[j][0]; grp[i][1] = grp[j][1];
        grp[j][0] = a; grp[j][1] = g;
    }
    ss_kval vals[SS_RANDOM_MAX_GROUP];
    for (int64_t i = 0; i < m; i++) body_group(L, src, dst, idx, grp[i][0], grp[i][1], vals);
    return 0;
}

static int run_launch(const ss_klaunch *L, uint8_t *const bufs[SS_KB_COUNT], ss_schedule sched,
                      uint64_t seed) {
    if (L->n == 0) return 0;
    const uint8_t *src = bufs[L->src_buf];
    uint8_t *dst = bufs[L->dst_buf];
    const int64_t *idx = (const int64_t *)bufs[SS_KB_IDX];
    const int copy = L->kind == SS_KL_COPY;
    /* No store of this launch reaches a load or another store: every order
     * gives the forward result, so take the fastest. */
    if (L->indep) {
        sched = SS_SCHED_FORWARD;
        if (copy && ss_emu_tile_worth(L) && ss_emu_copy_transposed(L, src, dst)) return 0;
        if (copy) { copy_any_order(L, src, dst); return 0; }
    }
    switch (sched) {
    case SS_SCHED_FORWARD:
    case SS_SCHED_REVERSE:
        if (copy) copy_sequential(L, src, dst, sched == SS_SCHED_REVERSE);
        else body_sequential(L, src, dst, idx, sched == SS_SCHED_REVERSE);
        return 0;
    case SS_SCHED_LOCKSTEP: {
        const size_t item = copy ? (size_t)L->elem : sizeof(ss_kval);
        void *vals = scratch_get(SCR_VALS, (size_t)L->n * item);
        if (!vals) return -1;
        if (copy) copy_lockstep(L, src, dst, vals);
        else body_group(L, src, dst, idx, 0, L->n, vals);
        return 0;
    }
    case SS_SCHED_WARP: {
        ss_kval vals[32];
        for (int64_t a = 0; a < L->n; a += 32)
            body_group(L, src, dst, idx, a, L->n - a < 32 ? L->n - a : 32, vals);
        return 0;
    }
    default:
        return body_random(L, src, dst, idx, seed);
    }
}

int ss_emu_exec(const ss_kprog *prog, uint8_t *const bufs[SS_KB_COUNT], const ss_run_opts *opts) {
    /* The seed of launch i's random groupings (only the random schedules use one). */
    const int random = opts->schedule != SS_SCHED_FORWARD && opts->schedule != SS_SCHED_REVERSE &&
                       opts->schedule != SS_SCHED_LOCKSTEP && opts->schedule != SS_SCHED_WARP;
    for (int i = 0; i < prog->nlaunch; i++) {
        uint64_t s = opts->seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(i + 1));
        if (run_launch(&prog->launch[i], bufs, opts->schedule, random ? splitmix64(&s) : 0)) return -1;
    }
    return 0;
}

/* The program ss_emu_schedules_agree built last on this thread, for the run
 * that follows it: a campaign asks whether a case's schedules agree and then
 * runs the case on the same op, and planning it twice cost a sixth of a
 * check. Keyed by all ss_kprog_build reads: the kernel, both guard widths,
 * and the op's fields and used dims (same_op). Only a program that was built
 * (SS_RUN_OK) is kept, so a refusal's `why` is always made fresh. */
static _Thread_local struct {
    int valid;
    ss_kernel_id k;
    size_t guard_in, guard_src;
    ss_op op;
    ss_kprog prog;
} planned;

static int same_view(const ss_view *a, const ss_view *b) {
    if (a->offset != b->offset || a->ndim != b->ndim || a->ndim < 0 || a->ndim > SS_MAX_NDIM) return 0;
    const size_t n = sizeof(int64_t) * (size_t)a->ndim;
    return !memcmp(a->sizes, b->sizes, n) && !memcmp(a->strides, b->strides, n);
}

/* Field by field: the dims past a view's rank hold whatever the plan left
 * there, which no reader looks at (and a memcmp would). */
static int same_op(const ss_op *a, const ss_op *b) {
    return a->elem_size == b->elem_size && a->input_storage_numel == b->input_storage_numel &&
           a->src_aliased == b->src_aliased && a->src_storage_numel == b->src_storage_numel &&
           a->dim == b->dim && a->has_start == b->has_start && a->has_end == b->has_end &&
           a->start == b->start && a->end == b->end && a->step == b->step &&
           same_view(&a->input, &b->input) && same_view(&a->src, &b->src);
}

int ss_emu_schedules_agree(ss_kernel_id k, const ss_op *op, size_t guard) {
    char why[8];
    planned.valid = 0;
    if (ss_kprog_build(k, op, guard, guard, &planned.prog, why, sizeof why) != SS_RUN_OK) return 1;
    planned.valid = 1;
    planned.k = k;
    planned.guard_in = planned.guard_src = guard;
    planned.op = *op;   /* whole: same_op reads only what is set */
    for (int i = 0; i < planned.prog.nlaunch; i++)
        if (!planned.prog.launch[i].indep) return 0;
    return 1;
}

/* The program planned for exactly this run, if ss_emu_schedules_agree left one. */
static const ss_kprog *already_planned(ss_kernel_id k, const ss_op *op, size_t guard_in, size_t guard_src) {
    return planned.valid && planned.k == k && planned.guard_in == guard_in && planned.guard_src == guard_src &&
           same_op(&planned.op, op) ? &planned.prog : NULL;
}

ss_run_status ss_emu_run(ss_kernel_id k, const ss_op *op, ss_storage *input, ss_storage *src,
                         const ss_run_opts *opts, char *why, size_t why_len) {
    ss_kprog prog;
    const int aliased = op->src_aliased;
    if (!aliased && !src) {
        snprintf(why, why_len, "emulator: no src storage for a separate src");
        return SS_RUN_FAILED;
    }
    const size_t guard_src = aliased ? input->guard : src->guard;
    const ss_kprog *p = already_planned(k, op, input->guard, guard_src);
    if (!p) {
        const ss_run_status st = ss_kprog_build(k, op, input->guard, guard_src, &prog, why, why_len);
        if (st != SS_RUN_OK) return st;
        p = &prog;
    }
    uint8_t *bufs[SS_KB_COUNT];
    bufs[SS_KB_INPUT] = ss_storage_data(input);
    bufs[SS_KB_SRC] = aliased ? bufs[SS_KB_INPUT] : ss_storage_data(src);
    bufs[SS_KB_TMP] = scratch_get(SCR_TMP, (size_t)p->tmp_bytes);
    bufs[SS_KB_IDX] = scratch_get(SCR_IDX, (size_t)p->idx_bytes);
    if (!bufs[SS_KB_TMP] || !bufs[SS_KB_IDX] || ss_emu_exec(p, bufs, opts)) {
        snprintf(why, why_len, "emulator: out of memory for temporaries");
        return SS_RUN_FAILED;
    }
    return SS_RUN_OK;
}
