/* test_emu.c - every correct emu:* target agrees with the reference under every schedule. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_check.h"
#include "ss_emu.h"
#include "ss_emu_tile.h"
#include "ss_gen.h"
#include "ss_plan_build.h"
#include "ss_storage.h"
#include "ss_target.h"
#include "ss_test_util.h"

#define NONE 0, 0
#define SOME(x) 1, (x)

static const ss_dtype dtype_of_size[17] = {
    [1] = SS_UINT8, [2] = SS_INT16, [4] = SS_FLOAT32, [8] = SS_FLOAT64, [16] = SS_COMPLEX128,
};

/* Check one op on one target under one schedule; returns the verdict. */
static ss_verdict check_one(ss_check_ctx *ctx, const ss_case *c, const ss_target *t,
                            ss_schedule s, uint64_t seed, char *detail, size_t n) {
    ss_plan plan;
    ss_error err;
    if (ss_plan_build(&c->op, &plan, &err)) fail_msg("case does not validate: %s: %s", err.field, err.msg);
    ss_run_status ref;
    char why[256];
    if (ss_check_prepare(ctx, c, &plan, &ref, why, sizeof why)) fail_msg("prepare: %s", why);
    const ss_run_opts opts = {s, seed, 0};
    ss_check_result res;
    ss_check_target(ctx, &plan, ref, t, &opts, &res);
    if (detail) {
        char diff[256] = "";
        if (res.verdict == SS_MISMATCH) ss_diff_format(&plan, &res.diff, diff, sizeof diff);
        snprintf(detail, n, "%s under %s: %s %s %s", t->name, ss_schedule_name(s),
                 ss_verdict_name(res.verdict), res.why, diff);
    }
    return res.verdict;
}

static ss_case case_of(ss_op op, uint64_t seed) {
    ss_case c;
    ss_case_init(&c);
    c.dtype = dtype_of_size[op.elem_size];
    c.op = op;
    c.fill_seed = seed;
    return c;
}

/* Every non-mutant emu target, every schedule, a few seeds: all agree. */
static void expect_all_agree(ss_check_ctx *ctx, const ss_case *c) {
    for (size_t i = 0; i < ss_target_count(); i++) {
        const ss_target *t = ss_target_at(i);
        if (t->mutant || strcmp(t->engine->name, "emu")) continue;
        for (int s = 0; s < SS_SCHED_COUNT; s++)
            for (uint64_t seed = 1; seed <= (s == SS_SCHED_RANDOM ? 3u : 1u); seed++) {
                char detail[768];
                if (check_one(ctx, c, t, (ss_schedule)s, seed, detail, sizeof detail) != SS_AGREE)
                    fail_msg("%s", detail);
            }
    }
}

/* Hand-written aliasing layouts, each at every element size. */
static ss_op hand_case(int which, size_t es) {
    switch (which) {
    case 0:   /* x[1:] = x[:-1], 8 elements */
        return tu_op(es, 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(0, 1, TU_ARR(7)), 0, SOME(1), NONE, 1);
    case 1:   /* x[:-1] = x[1:] */
        return tu_op(es, 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(1, 1, TU_ARR(7)), 0, NONE, SOME(-1), 1);
    case 2:   /* x[0] = x[0].t() on [2, 3, 3] */
        return tu_op(es, 18, tu_contig(0, 3, TU_ARR(2, 3, 3)),
                     tu_view(0, 3, TU_ARR(1, 3, 3), TU_ARR(9, 1, 3)), 0, SOME(0), SOME(1), 1);
    case 3:   /* x[:, 1:] = x[:, :-1] on [4, 5] */
        return tu_op(es, 20, tu_contig(0, 2, TU_ARR(4, 5)), tu_view(0, 2, TU_ARR(4, 4), TU_ARR(5, 1)),
                     1, SOME(1), NONE, 1);
    case 4:   /* x[2:5] = x[2:5] */
        return tu_op(es, 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(2, 1, TU_ARR(3)), 0, SOME(2), SOME(5), 1);
    case 5:   /* x[::2] = x[1::2] (interleaved, no shared element) */
        return tu_op(es, 8, tu_contig(0, 1, TU_ARR(8)), tu_view(1, 1, TU_ARR(4), TU_ARR(2)), 0, NONE, NONE, 2);
    case 6:   /* x[1:4] = x[0].expand(3) */
        return tu_op(es, 8, tu_contig(0, 1, TU_ARR(8)), tu_view(0, 1, TU_ARR(3), TU_ARR(0)), 0, SOME(1), SOME(4), 1);
    case 7:   /* x[4:] = x[:4] (touching, disjoint) */
        return tu_op(es, 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(0, 1, TU_ARR(4)), 0, SOME(4), NONE, 1);
    case 8:   /* input with a stride-0 dim: every target rejects */
        return tu_op(es, 8, tu_view(0, 1, TU_ARR(3), TU_ARR(0)), tu_view(0, 1, TU_ARR(2), TU_ARR(1)), 0, SOME(1), NONE, 1);
    case 9:   /* x[:, 4:] = x[:, :-4] on [64, 64] at offset 4: fast path where aligned */
        return tu_op(es, 4100, tu_contig(4, 2, TU_ARR(64, 64)), tu_view(4, 2, TU_ARR(64, 60), TU_ARR(64, 1)),
                     -1, SOME(4), NONE, 1);
    case 10:  /* x[1:] = x[:-1] on 70000 elements (long overlapping runs) */
        return tu_op(es, 70000, tu_contig(0, 1, TU_ARR(70000)), tu_contig(0, 1, TU_ARR(69999)), 0, SOME(1), NONE, 1);
    case 11:  /* x[:-40] = x[40:] on 5000 (reverse-order hazard, chunked runs) */
        return tu_op(es, 5000, tu_contig(0, 1, TU_ARR(5000)), tu_contig(40, 1, TU_ARR(4960)), 0, NONE, SOME(-40), 1);
    case 12:  /* x[::3] = x[1:][:4] with step, permuted 2-D input */
        return tu_op(es, 12, tu_view(0, 2, TU_ARR(4, 3), TU_ARR(1, 4)), tu_view(1, 2, TU_ARR(2, 3), TU_ARR(1, 4)),
                     0, NONE, NONE, 3);
    case 13:  /* empty slice x[3:3] */
        return tu_op(es, 8, tu_contig(0, 1, TU_ARR(8)), tu_contig(0, 1, TU_ARR(0)), 0, SOME(3), SOME(3), 1);
    case 14:  /* x[0] = x[1].t() on [2, 150, 150]: aliased storage, disjoint, transposed (tiled) */
        return tu_op(es, 45000, tu_contig(0, 3, TU_ARR(2, 150, 150)),
                     tu_view(22500, 3, TU_ARR(1, 150, 150), TU_ARR(22500, 1, 150)), 0, SOME(0), SOME(1), 1);
    case 15:
    case 16: { /* x = y.t() with a separate y at offset 1; 16: x.t() = y (dst side transposed) */
        ss_op op = which == 15
            ? tu_op(es, 19500, tu_contig(0, 2, TU_ARR(130, 150)), tu_view(1, 2, TU_ARR(130, 150), TU_ARR(1, 130)),
                    0, NONE, NONE, 1)
            : tu_op(es, 19500, tu_view(0, 2, TU_ARR(130, 150), TU_ARR(1, 130)), tu_contig(1, 2, TU_ARR(130, 150)),
                    0, NONE, NONE, 1);
        op.src_aliased = 0;
        op.src_storage_numel = 19501;
        return op;
    }
    default: { /* separate, non-contiguous src */
        ss_op op = tu_op(es, 12, tu_contig(0, 2, TU_ARR(3, 4)), tu_view(1, 2, TU_ARR(2, 4), TU_ARR(1, 2)),
                         0, SOME(-2), SOME(99), 1);
        op.src_aliased = 0;
        op.src_storage_numel = 10;
        return op;
    }
    }
}
#define HAND_CASES 18

static void test_hand_cases_all_schedules(void **state) {
    (void)state;
    static const size_t sizes[] = {1, 2, 4, 8, 16};
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    for (int w = 0; w < HAND_CASES; w++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            ss_case c = case_of(hand_case(w, sizes[i]), 7 + (uint64_t)w);
            expect_all_agree(&ctx, &c);
        }
    ss_check_ctx_free(&ctx);
}

/* A few thousand generated cases (all aliasing kinds, all dtypes). */
static void test_generated_cases(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = 1 << 14;
    cfg.large_per_mille = 0;
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    int rejected = 0;
    for (uint64_t i = 0; i < 3000; i++) {
        ss_case c;
        ss_case_init(&c);
        assert_int_equal(ss_gen_case(&cfg, 42, i, &c, NULL), 0);
        ss_plan plan;
        ss_error err;
        assert_int_equal(ss_plan_build(&c.op, &plan, &err), 0);
        rejected += plan.internal_overlap;
        expect_all_agree(&ctx, &c);
        ss_case_free(&c);
    }
    assert_true(rejected > 0);   /* the invalid kind is exercised too */
    ss_check_ctx_free(&ctx);
}

/* A storage's whole block (bands included) as a copy to compare later. */
static uint8_t *block_copy(const ss_storage *s) {
    const size_t n = s->bytes + 2 * s->guard;
    uint8_t *p = malloc(n ? n : 1);
    assert_non_null(p);
    memcpy(p, s->base, n);
    return p;
}

/* The initial storages a target's check takes (ss_check_target swaps them
 * into tgt_*) come back byte for byte from ss_check_initial, for seeded,
 * small and explicit fills and every dtype; a second target then gets them
 * too (its verdict is the first one's). */
static void test_initial_storages_refilled(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = 1 << 12;
    cfg.large_per_mille = 0;
    const ss_target *t = ss_target_find("emu:reinplace");
    assert_non_null(t);
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    for (uint64_t i = 0; i < 600; i++) {
        ss_case c;
        ss_case_init(&c);
        assert_int_equal(ss_gen_case(&cfg, 5, i, &c, NULL), 0);
        if (i % 3 == 1) c.fill_small = 1;
        if (i % 3 == 2) {   /* explicit values (owned by the case): bytes counting up */
            const size_t es = c.op.elem_size, n_in = (size_t)c.op.input_storage_numel * es,
                         n_src = c.op.src_aliased ? 0 : (size_t)c.op.src_storage_numel * es;
            c.explicit_values = 1;
            c.values_input = malloc(n_in ? n_in : 1);
            assert_non_null(c.values_input);
            for (size_t k = 0; k < n_in; k++) c.values_input[k] = (uint8_t)(k * 7 + i);
            if (!c.op.src_aliased) {
                c.values_src = malloc(n_src ? n_src : 1);
                assert_non_null(c.values_src);
                for (size_t k = 0; k < n_src; k++) c.values_src[k] = (uint8_t)(k * 5 + i);
            }
        }
        ss_plan plan;
        ss_error err;
        assert_int_equal(ss_plan_build(&c.op, &plan, &err), 0);
        ss_run_status ref;
        char why[256];
        assert_int_equal(ss_check_prepare(&ctx, &c, &plan, &ref, why, sizeof why), 0);
        uint8_t *in0 = block_copy(&ctx.init_in), *src0 = block_copy(&ctx.init_src);
        const ss_run_opts opts = {SS_SCHED_FORWARD, 1, 0};
        ss_check_result r1, r2;
        ss_check_target(&ctx, &plan, ref, t, &opts, &r1);
        ss_check_initial(&ctx);
        assert_memory_equal(ctx.init_in.base, in0, ctx.init_in.bytes + 2 * ctx.init_in.guard);
        assert_memory_equal(ctx.init_src.base, src0, ctx.init_src.bytes + 2 * ctx.init_src.guard);
        ss_check_target(&ctx, &plan, ref, t, &opts, &r2);
        assert_int_equal(r1.verdict, r2.verdict);
        free(in0);
        free(src0);
        ss_case_free(&c);
    }
    ss_check_ctx_free(&ctx);
}

/* A handful of large generated cases (up to 4M elements): bulk paths and chunking. */
static void test_generated_large_cases(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.large_per_mille = 1000;
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    for (uint64_t i = 0; i < 6; i++) {
        ss_case c;
        ss_case_init(&c);
        assert_int_equal(ss_gen_case(&cfg, 9, i, &c, NULL), 0);
        expect_all_agree(&ctx, &c);
        ss_case_free(&c);
    }
    ss_check_ctx_free(&ctx);
}

/* The small-tensor-looks-fine effect: one wave hides the missing staging. */
static void test_unchecked_alias_lockstep_vs_forward(void **state) {
    (void)state;
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    ss_case c = case_of(hand_case(0, 4), 1);
    const ss_target *t = ss_target_find("emu:mut-alias-unchecked");
    assert_non_null(t);
    assert_int_equal(check_one(&ctx, &c, t, SS_SCHED_LOCKSTEP, 1, NULL, 0), SS_AGREE);
    assert_int_equal(check_one(&ctx, &c, t, SS_SCHED_FORWARD, 1, NULL, 0), SS_MISMATCH);
    ss_check_ctx_free(&ctx);
}

/* Order-dependent launches (a mutant that never stages) under each schedule:
 * one wave is always right, warp groups and random groups are not, and the
 * random schedule is a function of its seed. */
static void test_dependent_launch_schedules(void **state) {
    (void)state;
    const ss_target *t = ss_target_find("emu:mut-alias-unchecked");
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    for (int w = 0; w < 3; w++) {
        ss_op op = w == 0 ? tu_op(4, 1000, tu_contig(0, 1, TU_ARR(1000)), tu_contig(0, 1, TU_ARR(999)), 0, 1, 1, 0, 0, 1)
                 : w == 1 ? tu_op(2, 4000, tu_contig(0, 2, TU_ARR(40, 100)), tu_view(0, 2, TU_ARR(40, 97), TU_ARR(100, 1)), 1, 1, 3, 0, 0, 1)
                 : tu_op(8, 3000, tu_contig(0, 2, TU_ARR(100, 30)), tu_view(30, 2, TU_ARR(99, 30), TU_ARR(30, 1)), 0, 0, 0, 1, -1, 1);
        ss_case c = case_of(op, 5);
        char detail[768];
        if (check_one(&ctx, &c, t, SS_SCHED_LOCKSTEP, 1, detail, sizeof detail) != SS_AGREE) fail_msg("%s", detail);
        const int fw = check_one(&ctx, &c, t, SS_SCHED_FORWARD, 1, NULL, 0) == SS_MISMATCH;
        const int rv = check_one(&ctx, &c, t, SS_SCHED_REVERSE, 1, NULL, 0) == SS_MISMATCH;
        assert_true(fw != rv);   /* exactly one direction reads stored items */
        assert_int_equal(check_one(&ctx, &c, t, SS_SCHED_WARP, 1, NULL, 0), fw ? SS_MISMATCH : SS_AGREE);
        int random_mismatch = 0;
        for (uint64_t seed = 1; seed <= 4; seed++) {
            random_mismatch += check_one(&ctx, &c, t, SS_SCHED_RANDOM, seed, NULL, 0) == SS_MISMATCH;
            const ss_storage *got = &ctx.tgt_in;
            uint8_t first[8 * 4000];
            memcpy(first, ss_storage_data(got), got->bytes);
            check_one(&ctx, &c, t, SS_SCHED_RANDOM, seed, NULL, 0);
            assert_memory_equal(first, ss_storage_data(got), got->bytes);
        }
        assert_true(random_mismatch > 0);
    }
    ss_check_ctx_free(&ctx);
}

/* The bulk forward copy must equal the item-by-item forward loop, overlap included. */
static void test_forward_bulk_matches_item_loop(void **state) {
    (void)state;
    for (int64_t shift = 1; shift <= 40; shift += 3)
        for (int rev = 0; rev < 2; rev++) {
            enum { N = 300 };
            uint32_t a[N], b[N];
            for (int i = 0; i < N; i++) a[i] = b[i] = (uint32_t)i * 2654435761u;
            ss_op op = tu_op(4, N, tu_contig(0, 1, TU_ARR(N)), tu_contig(rev ? shift : 0, 1, TU_ARR(N - shift)),
                             0, !rev, shift, rev, -shift, 1);
            ss_kprog p;
            char why[128];
            assert_int_equal(ss_kprog_build(SS_KERNEL_MUT_ALIAS_UNCHECKED, &op, 0, 0, &p, why, sizeof why), SS_RUN_OK);
            uint8_t *bufs[SS_KB_COUNT] = {(uint8_t *)a, (uint8_t *)a, NULL, NULL};
            const ss_run_opts fw = {rev ? SS_SCHED_REVERSE : SS_SCHED_FORWARD, 0, 0};
            assert_int_equal(ss_emu_exec(&p, bufs, &fw), 0);
            const int64_t d = rev ? 0 : shift, s = rev ? shift : 0, n = N - shift;
            if (!rev) for (int64_t i = 0; i < n; i++) b[d + i] = b[s + i];
            else for (int64_t i = n - 1; i >= 0; i--) b[d + i] = b[s + i];
            assert_memory_equal(a, b, sizeof a);
        }
}

/* The tiled transposed copy equals the item loop, byte for byte over the
 * whole buffer: every element size, both orientations, partial tiles, an
 * unaligned first row, outer dims, and one block large enough to stream. */
static void tiled_vs_items(int E, int64_t outer, int64_t na, int64_t nb, int dst_transposed,
                           int64_t src_off, int64_t dst_off) {
    ss_klaunch L;
    memset(&L, 0, sizeof L);
    L.kind = SS_KL_COPY;
    L.indep = 1;
    L.elem = E;
    L.ndim = outer > 1 ? 3 : 2;
    const int o = L.ndim - 2;   /* dims o, o+1: the transposed pair (rows, cols of dst) */
    L.sizes[o] = na; L.sizes[o + 1] = nb;
    /* dst row-major (or column-major when dst_transposed), src the other way */
    L.dst_strides[o] = dst_transposed ? 1 : nb; L.dst_strides[o + 1] = dst_transposed ? na : 1;
    L.src_strides[o] = dst_transposed ? nb : 1; L.src_strides[o + 1] = dst_transposed ? 1 : na;
    if (o) { L.sizes[0] = outer; L.dst_strides[0] = na * nb + 7; L.src_strides[0] = na * nb + 3; }
    L.n = outer * na * nb;
    L.src_off = src_off;
    L.dst_off = dst_off;
    const size_t items = (size_t)(outer * (na * nb + 7) + 8);
    uint8_t *src = malloc(items * (size_t)E), *got = malloc(items * (size_t)E), *want = malloc(items * (size_t)E);
    assert_non_null(src); assert_non_null(got); assert_non_null(want);
    for (size_t i = 0; i < items * (size_t)E; i++) {
        src[i] = (uint8_t)(i * 2654435761u >> 13);
        got[i] = want[i] = (uint8_t)(i * 40503u >> 7);
    }
    ss_kiter it;
    ss_kiter_seek(&L, &it, 0);
    for (int64_t k = 0; k < L.n; k++, ss_kiter_next(&L, &it))
        memcpy(want + it.dof * E, src + it.so * E, (size_t)E);
    assert_int_equal(ss_emu_copy_transposed(&L, src, got), 1);
    if (memcmp(got, want, items * (size_t)E))
        fail_msg("tiled copy differs: E %d, %lld x %lld x %lld, dst_transposed %d, offsets %lld/%lld", E,
                 (long long)outer, (long long)na, (long long)nb, dst_transposed, (long long)src_off,
                 (long long)dst_off);
    free(src); free(got); free(want);
}

static void test_transposed_tiles_match_item_loop(void **state) {
    (void)state;
    static const int elems[] = {1, 2, 4, 8, 16};
    static const int64_t shapes[][2] = {{150, 130}, {64, 300}, {257, 64}};
    for (size_t e = 0; e < 5; e++)
        for (size_t sh = 0; sh < 3; sh++)
            for (int tr = 0; tr < 2; tr++)
                for (int64_t off = 0; off < 3; off++)
                    tiled_vs_items(elems[e], off == 2 ? 3 : 1, shapes[sh][0], shapes[sh][1], tr, off, 2 * off + 1);
    tiled_vs_items(4, 1, 4100, 4097, 0, 0, 1);   /* 64 MiB: stores bypass the cache */
    /* Not this shape: both sides contiguous along the same dim, or too small. */
    ss_klaunch L;
    memset(&L, 0, sizeof L);
    L.kind = SS_KL_COPY; L.indep = 1; L.elem = 4; L.ndim = 2; L.n = 200 * 200;
    L.sizes[0] = L.sizes[1] = 200;
    L.src_strides[0] = L.dst_strides[0] = 200; L.src_strides[1] = L.dst_strides[1] = 1;
    assert_int_equal(ss_emu_copy_transposed(&L, NULL, NULL), 0);
    L.src_strides[0] = 1; L.src_strides[1] = 200; L.indep = 0;   /* transposed but order matters */
    assert_int_equal(ss_emu_copy_transposed(&L, NULL, NULL), 0);
    L.indep = 1; L.sizes[0] = L.sizes[1] = 20; L.n = 400;      /* transposed but small */
    assert_int_equal(ss_emu_copy_transposed(&L, NULL, NULL), 0);
}

/* The item loop's result for launch L (dst starts as `dst`). */
static void item_loop(const ss_klaunch *L, const uint8_t *src, uint8_t *dst) {
    ss_kiter it;
    ss_kiter_seek(L, &it, 0);
    for (int64_t k = 0; k < L->n; k++, ss_kiter_next(L, &it))
        memcpy(dst + it.dof * L->elem, src + it.so * L->elem, (size_t)L->elem);
}

/* Tiled equals the item loop for a launch over `ndim` dims, byte for byte. */
static void tiled_launch_vs_items(const ss_klaunch *L, size_t items, const char *what) {
    const size_t bytes = items * (size_t)L->elem;
    uint8_t *src = malloc(bytes), *got = malloc(bytes), *want = malloc(bytes);
    assert_non_null(src); assert_non_null(got); assert_non_null(want);
    for (size_t i = 0; i < bytes; i++) {
        src[i] = (uint8_t)(i * 2654435761u >> 13);
        got[i] = want[i] = (uint8_t)(i * 40503u >> 7);
    }
    item_loop(L, src, want);
    assert_int_equal(ss_emu_copy_transposed(L, src, got), 1);
    if (memcmp(got, want, bytes)) fail_msg("tiled copy differs: %s", what);
    free(src); free(got); free(want);
}

/* Steps on either side (a stepped dst has no whole lines; a step of 2 on
 * src is gathered a register at a time), the transposed pair outside the
 * innermost dims, and a block only a few items wide. */
static void test_transposed_tiles_steps_and_dims(void **state) {
    (void)state;
    char what[160];
    for (int E = 1; E <= 16; E *= 2)
        for (int64_t ds = 1; ds <= 3; ds++)
            for (int64_t ss = 1; ss <= 3; ss++)
                for (int64_t off = 0; off < 2; off++) {
                    ss_klaunch L;
                    memset(&L, 0, sizeof L);
                    L.kind = SS_KL_COPY; L.indep = 1; L.elem = E; L.ndim = 2;
                    const int64_t na = 150 + off, nb = 131;
                    L.sizes[0] = na; L.sizes[1] = nb; L.n = na * nb;
                    L.dst_strides[0] = nb * ds + 5; L.dst_strides[1] = ds;   /* dst along dim 1, step ds */
                    L.src_strides[0] = ss; L.src_strides[1] = na * ss + 3;   /* src along dim 0, step ss */
                    L.dst_off = off; L.src_off = 2 * off + 1;
                    snprintf(what, sizeof what, "E %d, dst step %lld, src step %lld, offset %lld", E, (long long)ds,
                             (long long)ss, (long long)off);
                    tiled_launch_vs_items(&L, (size_t)(na * (nb * ds + 5) + na * ss * nb + 64), what);
                }
    /* Rank 3, the pair in dims 0 and 2 around an outer dim 1; then the pair
     * in dims 2 and 0 (dst along dim 0). */
    for (int swap = 0; swap < 2; swap++) {
        ss_klaunch L;
        memset(&L, 0, sizeof L);
        L.kind = SS_KL_COPY; L.indep = 1; L.elem = 4; L.ndim = 3;
        L.sizes[0] = 70; L.sizes[1] = 3; L.sizes[2] = 90; L.n = 70 * 3 * 90;
        const int64_t dst_st[3] = {90, 70 * 90, 1}, src_st[3] = {1, 70 * 90, 70};
        for (int d = 0; d < 3; d++) {
            L.dst_strides[d] = swap ? src_st[d] : dst_st[d];
            L.src_strides[d] = swap ? dst_st[d] : src_st[d];
        }
        snprintf(what, sizeof what, "rank 3, pair in dims 0 and 2, swap %d", swap);
        tiled_launch_vs_items(&L, 70 * 3 * 90, what);
    }
    /* A block 16 items wide: dst rows of one line each, one after another,
     * off the line boundary (no narrow block peeled off). */
    ss_klaunch L;
    memset(&L, 0, sizeof L);
    L.kind = SS_KL_COPY; L.indep = 1; L.elem = 4; L.ndim = 2;
    L.sizes[0] = 4000; L.sizes[1] = 16; L.n = 4000 * 16;
    L.dst_strides[0] = 16; L.dst_strides[1] = 1; L.src_strides[0] = 1; L.src_strides[1] = 4000;
    L.dst_off = 3;
    tiled_launch_vs_items(&L, 4000 * 16 + 3, "narrow block");
}

/* ss_target_schedules_agree is exact where it says yes: on generated cases,
 * for every emu target (mutants too), each schedule leaves the storages
 * byte for byte as the forward one does; and it says no where order matters. */
static void test_schedules_agree_is_exact(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = 1 << 12;
    cfg.large_per_mille = 0;
    ss_check_ctx ctx;
    ss_check_ctx_init(&ctx);
    static uint8_t fwd_in[1 << 16], fwd_src[1 << 16];
    int agreed = 0, not_agreed = 0;
    for (uint64_t i = 0; i < 1500; i++) {
        ss_case c;
        ss_case_init(&c);
        assert_int_equal(ss_gen_case(&cfg, 11, i, &c, NULL), 0);
        ss_plan plan;
        ss_error err;
        ss_run_status ref;
        char why[256];
        if (ss_plan_build(&c.op, &plan, &err) || ss_check_prepare(&ctx, &c, &plan, &ref, why, sizeof why) ||
            ctx.tgt_in.bytes + 2 * ctx.tgt_in.guard > sizeof fwd_in ||
            ctx.tgt_src.bytes + 2 * ctx.tgt_src.guard > sizeof fwd_src) {
            ss_case_free(&c);
            continue;
        }
        for (size_t k = 0; k < ss_target_count(); k++) {
            const ss_target *t = ss_target_at(k);
            if (strcmp(t->engine->name, "emu")) continue;
            if (!ss_target_schedules_agree(t, &plan)) { not_agreed++; continue; }
            agreed++;
            for (int s = 0; s < SS_SCHED_COUNT; s++) {
                const ss_run_opts o = {s, 7, 0};
                ss_check_result res;
                ss_check_target(&ctx, &plan, ref, t, &o, &res);
                const size_t nin = ctx.tgt_in.bytes + 2 * ctx.tgt_in.guard;
                const size_t nsrc = ctx.tgt_src.bytes + 2 * ctx.tgt_src.guard;
                if (s == 0) {
                    memcpy(fwd_in, ctx.tgt_in.base, nin);
                    memcpy(fwd_src, ctx.tgt_src.base, nsrc);
                } else if (memcmp(fwd_in, ctx.tgt_in.base, nin) || memcmp(fwd_src, ctx.tgt_src.base, nsrc)) {
                    fail_msg("case %llu on %s: schedule %s differs from forward, yet said to agree",
                             (unsigned long long)i, t->name, ss_schedule_name((ss_schedule)s));
                }
            }
        }
        ss_case_free(&c);
    }
    assert_true(agreed > 1000 && not_agreed > 100);
    /* an order-dependent launch: the unchecked mutant on x[1:] = x[:-1] */
    ss_case c = case_of(hand_case(0, 4), 1);
    ss_plan plan;
    ss_error err;
    assert_int_equal(ss_plan_build(&c.op, &plan, &err), 0);
    assert_int_equal(ss_target_schedules_agree(ss_target_find("emu:mut-alias-unchecked"), &plan), 0);
    assert_int_equal(ss_target_schedules_agree(ss_target_find("emu:reinplace"), &plan), 1);   /* staged */
    assert_int_equal(ss_target_schedules_agree(ss_target_find("cuda:reinplace"), &plan), 0);   /* not the emulator */
    ss_check_ctx_free(&ctx);
}

/* A run with the program planned by hand (ss_kprog_build, ss_emu_exec) on
 * fresh copies of the case's storages: ss_emu_run's answer without any
 * program kept from ss_emu_schedules_agree. */
static ss_run_status run_planned_by_hand(ss_kernel_id k, const ss_op *op, ss_storage *in, ss_storage *src) {
    ss_kprog prog;
    char why[256];
    const ss_run_status st = ss_kprog_build(k, op, in->guard, op->src_aliased ? in->guard : src->guard, &prog,
                                            why, sizeof why);
    if (st != SS_RUN_OK) return st;
    uint8_t *bufs[SS_KB_COUNT];
    bufs[SS_KB_INPUT] = ss_storage_data(in);
    bufs[SS_KB_SRC] = op->src_aliased ? bufs[SS_KB_INPUT] : ss_storage_data(src);
    bufs[SS_KB_TMP] = malloc((size_t)prog.tmp_bytes + 16);
    bufs[SS_KB_IDX] = malloc((size_t)prog.idx_bytes + 16);
    assert_non_null(bufs[SS_KB_TMP]);
    assert_non_null(bufs[SS_KB_IDX]);
    const ss_run_opts fwd = {SS_SCHED_FORWARD, 0, 0};
    assert_int_equal(ss_emu_exec(&prog, bufs, &fwd), 0);
    free(bufs[SS_KB_TMP]);
    free(bufs[SS_KB_IDX]);
    return st;
}

/* ss_emu_run reuses the program ss_emu_schedules_agree planned last only for
 * the same kernel, guards and op: after a question about another case, another
 * kernel, or the same op struct changed in place, it plans its own. Each run
 * is held to one planned by hand, byte for byte. */
static void test_planned_program_follows_the_op(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.max_numel = 1 << 10;
    cfg.large_per_mille = 0;
    ss_storage in = {0}, src = {0}, in2 = {0}, src2 = {0};
    ss_op prev;
    memset(&prev, 0, sizeof prev);
    int reused = 0, changed_in_place = 0;
    for (uint64_t i = 0; i < 900; i++) {
        ss_case c;
        ss_case_init(&c);
        assert_int_equal(ss_gen_case(&cfg, 23, i, &c, NULL), 0);
        const ss_kernel_id k = (ss_kernel_id)(i % SS_KERNEL_COUNT);
        const size_t es = c.op.elem_size;
        const size_t n_in = (size_t)c.op.input_storage_numel * es;
        const size_t n_src = c.op.src_aliased ? 0 : (size_t)c.op.src_storage_numel * es;
        assert_int_equal(ss_storage_reserve(&in, n_in, SS_GUARD_DEFAULT), 0);
        assert_int_equal(ss_storage_reserve(&src, n_src, SS_GUARD_DEFAULT), 0);
        assert_int_equal(ss_storage_reserve(&in2, n_in, SS_GUARD_DEFAULT), 0);
        assert_int_equal(ss_storage_reserve(&src2, n_src, SS_GUARD_DEFAULT), 0);
        switch (i % 4) {   /* what was asked just before the run */
        case 0: (void)ss_emu_schedules_agree(k, &c.op, SS_GUARD_DEFAULT); reused++; break;
        case 1: (void)ss_emu_schedules_agree((ss_kernel_id)((k + 1) % SS_KERNEL_COUNT), &c.op, SS_GUARD_DEFAULT); break;
        case 2: (void)ss_emu_schedules_agree(k, &prev, SS_GUARD_DEFAULT); break;
        default:   /* asked about this op struct, which then changes: another slice */
            (void)ss_emu_schedules_agree(k, &c.op, SS_GUARD_DEFAULT);
            if (c.op.has_start && c.op.start > 0) { c.op.start--; changed_in_place++; }
            else if (c.op.step > 1) { c.op.step--; changed_in_place++; }
            break;
        }
        ss_fill_case(&c, &in, &src);
        ss_fill_case(&c, &in2, &src2);
        char why[256];
        const ss_run_opts fwd = {SS_SCHED_FORWARD, 0, 0};
        const ss_run_status got = ss_emu_run(k, &c.op, &in, c.op.src_aliased ? NULL : &src, &fwd, why, sizeof why);
        const ss_run_status want = run_planned_by_hand(k, &c.op, &in2, &src2);
        if (got != want) fail_msg("case %llu kernel %d: status %d, by hand %d", (unsigned long long)i, (int)k, got, want);
        assert_memory_equal(in.base, in2.base, n_in + 2 * SS_GUARD_DEFAULT);
        if (n_src) assert_memory_equal(src.base, src2.base, n_src + 2 * SS_GUARD_DEFAULT);
        prev = c.op;
        ss_case_free(&c);
    }
    assert_true(reused > 200 && changed_in_place > 20);
    ss_storage_free(&in);
    ss_storage_free(&src);
    ss_storage_free(&in2);
    ss_storage_free(&src2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_cases_all_schedules),
        cmocka_unit_test(test_unchecked_alias_lockstep_vs_forward),
        cmocka_unit_test(test_forward_bulk_matches_item_loop),
        cmocka_unit_test(test_transposed_tiles_match_item_loop),
        cmocka_unit_test(test_transposed_tiles_steps_and_dims),
        cmocka_unit_test(test_schedules_agree_is_exact),
        cmocka_unit_test(test_planned_program_follows_the_op),
        cmocka_unit_test(test_dependent_launch_schedules),
        cmocka_unit_test(test_generated_cases),
        cmocka_unit_test(test_initial_storages_refilled),
        cmocka_unit_test(test_generated_large_cases),
    };
    const int rc = cmocka_run_group_tests(tests, NULL, NULL);
    ss_emu_release();
    return rc;
}
