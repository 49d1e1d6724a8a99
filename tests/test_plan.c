/* test_plan.c - normalization against PyTorch's rules, every validation rule, overlap detection. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "ss_plan_build.h"
#include "ss_test_util.h"

#define NONE 0, 0
#define SOME(x) 1, (x)

/* PyTorch: x.slice(dim, start, end, step) on a dim of `size` (torch.narrow /
 * basic indexing rules: negatives add size once, then clamp to [0, size]). */
static const struct {
    int64_t size;
    int hs; int64_t s; int he; int64_t e; int64_t step;
    int64_t start, end, len;
} norm_table[] = {
    {5, NONE, NONE, 1, 0, 5, 5},          /* x[:] */
    {5, SOME(1), NONE, 1, 1, 5, 4},       /* x[1:] */
    {5, NONE, SOME(-1), 1, 0, 4, 4},      /* x[:-1] */
    {5, SOME(-2), NONE, 1, 3, 5, 2},      /* x[-2:] */
    {5, SOME(-1), NONE, 1, 4, 5, 1},      /* x[-1:] */
    {5, SOME(-10), SOME(10), 1, 0, 5, 5}, /* out of range both ways: clamped */
    {5, SOME(7), SOME(9), 1, 5, 5, 0},    /* start past the end: empty */
    {5, SOME(3), SOME(1), 1, 3, 3, 0},    /* end < start: empty */
    {5, NONE, SOME(-6), 1, 0, 0, 0},      /* end before the beginning */
    {5, SOME(0), SOME(5), 7, 0, 5, 1},    /* step > size: one element */
    {5, SOME(1), SOME(5), 2, 1, 5, 2},    /* x[1:5:2] */
    {5, NONE, NONE, 3, 0, 5, 2},          /* x[::3] */
    {5, SOME(-3), SOME(-1), 1, 2, 4, 2},  /* x[-3:-1] */
    {0, NONE, NONE, 1, 0, 0, 0},          /* zero-size dim */
    {0, SOME(1), SOME(2), 1, 0, 0, 0},
    {1, SOME(-1), NONE, 1, 0, 1, 1},
    {5, SOME(INT64_MIN), SOME(INT64_MAX), 1, 0, 5, 5},   /* extreme values do not overflow */
};

static void test_normalize_table(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof norm_table / sizeof norm_table[0]; i++) {
        int dim;
        int64_t s, e, len;
        ss_error err;
        const int64_t sizes[1] = {norm_table[i].size};
        assert_int_equal(ss_normalize_slice(1, 0, norm_table[i].hs, norm_table[i].s, norm_table[i].he,
                                            norm_table[i].e, norm_table[i].step, sizes, &dim, &s, &e,
                                            &len, &err), 0);
        if (s != norm_table[i].start || e != norm_table[i].end || len != norm_table[i].len)
            fail_msg("row %zu: got [%lld, %lld) len %lld", i, (long long)s, (long long)e, (long long)len);
    }
}

static void test_normalize_dim(void **state) {
    (void)state;
    const int64_t sizes[3] = {2, 3, 4};
    int dim;
    int64_t s, e, len;
    ss_error err;
    assert_int_equal(ss_normalize_slice(3, -1, NONE, NONE, 1, sizes, &dim, &s, &e, &len, &err), 0);
    assert_int_equal(dim, 2);
    assert_int_equal(len, 4);
    assert_int_equal(ss_normalize_slice(3, -3, NONE, NONE, 1, sizes, &dim, &s, &e, &len, &err), 0);
    assert_int_equal(dim, 0);
    assert_int_equal(ss_normalize_slice(3, 3, NONE, NONE, 1, sizes, &dim, &s, &e, &len, &err), -1);
    assert_string_equal(err.field, "dim");
    assert_int_equal(ss_normalize_slice(3, -4, NONE, NONE, 1, sizes, &dim, &s, &e, &len, &err), -1);
    assert_int_equal(ss_normalize_slice(3, 0, NONE, NONE, 0, sizes, &dim, &s, &e, &len, &err), -1);
    assert_string_equal(err.field, "step");
    assert_int_equal(ss_normalize_slice(3, 0, NONE, NONE, -1, sizes, &dim, &s, &e, &len, &err), -1);
    assert_int_equal(ss_normalize_slice(0, 0, NONE, NONE, 1, sizes, &dim, &s, &e, &len, &err), -1);
}

/* x (shape [3, 4], contiguous) with x[1:] <- x[:-1]. */
static ss_op shift_op(void) {
    return tu_op(4, 12, tu_contig(0, 2, TU_ARR(3, 4)), tu_contig(0, 2, TU_ARR(2, 4)), 0, SOME(1), NONE, 1);
}

static void expect_invalid(ss_op op, const char *field) {
    ss_plan p;
    ss_error err = {{0}, {0}};
    if (ss_plan_build(&op, &p, &err) == 0) fail_msg("accepted; expected an error on %s", field);
    if (strcmp(err.field, field)) fail_msg("error on '%s' (%s), expected on '%s'", err.field, err.msg, field);
    assert_true(err.msg[0] != 0);
}

static void test_valid_shift_plan(void **state) {
    (void)state;
    ss_op op = shift_op();
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    assert_int_equal(p.dim, 0);
    assert_int_equal(p.start, 1);
    assert_int_equal(p.end, 3);
    assert_int_equal(p.slice_len, 2);
    assert_int_equal(p.slice.offset, 4);
    assert_int_equal(p.slice.sizes[0], 2);
    assert_int_equal(p.slice_numel, 8);
    assert_int_equal(p.input_numel, 12);
    assert_false(p.internal_overlap);
    assert_int_equal(ss_plan_overlap(&p), SS_OVL_PARTIAL);
}

static void test_validation_rules(void **state) {
    (void)state;
    ss_op op;
    op = shift_op(); op.input.offset = -1; expect_invalid(op, "input.offset");
    op = shift_op(); op.input.sizes[1] = -4; expect_invalid(op, "input.sizes[1]");
    op = shift_op(); op.input.strides[0] = -4; expect_invalid(op, "input.strides[0]");
    op = shift_op(); op.input.offset = 1; expect_invalid(op, "input");               /* past the end */
    op = shift_op(); op.src.offset = 5; expect_invalid(op, "src");
    op = shift_op(); op.src.sizes[0] = 3; expect_invalid(op, "src.sizes[0]");       /* no broadcasting */
    op = shift_op(); op.src.sizes[1] = 1; expect_invalid(op, "src.sizes[1]");
    op = shift_op(); op.src.ndim = 1; op.src.sizes[0] = 8; op.src.strides[0] = 1; expect_invalid(op, "src.sizes");
    op = shift_op(); op.step = 0; expect_invalid(op, "step");
    op = shift_op(); op.dim = 2; expect_invalid(op, "dim");
    op = shift_op(); op.input.ndim = SS_MAX_NDIM + 1; expect_invalid(op, "input");
    op = shift_op(); op.elem_size = 3; expect_invalid(op, "dtype");
    op = shift_op(); op.input_storage_numel = -1; expect_invalid(op, "storage.numel");
    op = shift_op(); op.input_storage_numel = SS_MAX_NUMEL + 1; expect_invalid(op, "storage.numel");
    op = shift_op(); op.src_storage_numel = 13; expect_invalid(op, "src.storage");
    op = shift_op(); op.src_aliased = 0; op.src_storage_numel = -5; expect_invalid(op, "src_storage.numel");
    op = shift_op(); op.input_storage_numel = op.src_storage_numel = (int64_t)1 << 30;
    expect_invalid(op, "storage.numel");                                             /* over the byte budget */
}

/* A program's src is an operand of its steps: any shape inside its storage
 * (a row of x[3], a diagonal, rows of a permuted x), never the slice's rule;
 * the overlap class still answers for it, whatever its rank. */
static void test_program_src_is_an_operand(void **state) {
    (void)state;
    ss_op op = shift_op();
    op.src.ndim = 1; op.src.offset = 4; op.src.sizes[0] = 4; op.src.strides[0] = 1;   /* x[1] */
    expect_invalid(op, "src.sizes");                       /* a single write: the slice's rank */
    op.src_is_operand = 1;
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    assert_int_equal(p.slice_numel, 8);                    /* the slice's count, not src's */
    assert_int_equal(ss_plan_overlap(&p), SS_OVL_PARTIAL);
    op.src.sizes[0] = 0;                                   /* an empty operand meets nothing */
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    assert_int_equal(ss_plan_overlap(&p), SS_OVL_DISJOINT);
    op.src.offset = 9; op.src.sizes[0] = 4;                /* still a view of its storage */
    expect_invalid(op, "src");
    op = shift_op(); op.src_is_operand = 1; op.src.sizes[0] = 4;   /* 16 elements of 12 */
    expect_invalid(op, "src");
    op.src.sizes[0] = 1; op.src.strides[0] = -1;
    expect_invalid(op, "src.strides[0]");
}

/* A view past its storage: the error names the last element reached and the numel needed. */
static void test_past_the_end_names_numel(void **state) {
    (void)state;
    ss_op op = shift_op();
    op.input.offset = 1;   /* last element: 1 + 2*4 + 3*1 = 12, the storage has 12 */
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), -1);
    assert_string_equal(err.field, "input");
    assert_non_null(strstr(err.msg, "view reaches element 12 (offset 1 + extent 11"));
    assert_non_null(strstr(err.msg, "its storage has 12 elements: numel must be >= 13"));
}

static void test_overflow_is_rejected(void **state) {
    (void)state;
    ss_op op = shift_op();
    /* sizes whose product overflows int64 */
    for (int d = 0; d < 4; d++) { op.input.sizes[d] = (int64_t)1 << 40; op.input.strides[d] = 1; }
    op.input.ndim = 4;
    expect_invalid(op, "input.sizes");
    /* offset + extent past 2^63 */
    op = shift_op();
    op.input.strides[0] = (int64_t)1 << 62;
    op.input.offset = (int64_t)1 << 62;
    expect_invalid(op, "input.sizes");
    op = shift_op();
    op.input.offset = INT64_MAX;
    expect_invalid(op, "input");
    /* an empty view may sit anywhere (PyTorch allows any offset for 0 elements) */
    op = tu_op(4, 4, tu_view(100, 1, TU_ARR(0), TU_ARR(1)), tu_view(0, 1, TU_ARR(0), TU_ARR(1)), 0, NONE, NONE, 1);
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    assert_int_equal(p.slice_numel, 0);
}

static int overlaps(int ndim, const int64_t *sizes, const int64_t *strides) {
    ss_view v = tu_view(0, ndim, sizes, strides);
    return ss_view_has_internal_overlap(&v);
}

static void test_internal_overlap(void **state) {
    (void)state;
    assert_true(overlaps(2, TU_ARR(2, 2), TU_ARR(1, 1)));
    assert_true(overlaps(1, TU_ARR(3), TU_ARR(0)));            /* expanded */
    assert_true(overlaps(2, TU_ARR(2, 3), TU_ARR(2, 1)));       /* 0 1 2 | 2 3 4 */
    assert_true(overlaps(2, TU_ARR(3, 3), TU_ARR(2, 1)));
    assert_true(overlaps(3, TU_ARR(2, 2, 3), TU_ARR(5, 0, 1)));
    assert_false(overlaps(1, TU_ARR(1), TU_ARR(0)));           /* size 1: stride irrelevant */
    assert_false(overlaps(2, TU_ARR(0, 5), TU_ARR(0, 0)));      /* empty */
    assert_false(overlaps(2, TU_ARR(2, 3), TU_ARR(3, 1)));      /* contiguous */
    assert_false(overlaps(2, TU_ARR(3, 2), TU_ARR(1, 3)));      /* transposed */
    assert_false(overlaps(2, TU_ARR(3, 2), TU_ARR(2, 3)));      /* 0 2 4 | 3 5 7: not nested, disjoint */
    assert_false(overlaps(3, TU_ARR(2, 2, 2), TU_ARR(4, 2, 1)));
    assert_false(overlaps(2, TU_ARR(2, 2), TU_ARR(2, 1 + 2)));  /* 0 3 | 2 5 */
    /* the plan marks such an input, without refusing the case */
    ss_op op = tu_op(4, 3, tu_view(0, 2, TU_ARR(2, 2), TU_ARR(1, 1)), tu_view(0, 2, TU_ARR(1, 2), TU_ARR(1, 1)),
                     0, SOME(1), NONE, 1);
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    assert_true(p.internal_overlap);
}

static ss_overlap overlap_of(ss_op op) {
    ss_plan p;
    ss_error err;
    assert_int_equal(ss_plan_build(&op, &p, &err), 0);
    return ss_plan_overlap(&p);
}

static void test_overlap_classes(void **state) {
    (void)state;
    const ss_view x10 = tu_contig(0, 1, TU_ARR(10));
    /* x[1:] <- x[:-1] */
    assert_int_equal(overlap_of(tu_op(4, 10, x10, tu_contig(0, 1, TU_ARR(9)), 0, SOME(1), NONE, 1)), SS_OVL_PARTIAL);
    /* x[2:5] <- x[2:5] */
    assert_int_equal(overlap_of(tu_op(4, 10, x10, tu_contig(2, 1, TU_ARR(3)), 0, SOME(2), SOME(5), 1)), SS_OVL_SAME_VIEW);
    /* x[0:5] <- x[5:10]: src is inside input but outside the slice */
    assert_int_equal(overlap_of(tu_op(4, 10, x10, tu_contig(5, 1, TU_ARR(5)), 0, SOME(0), SOME(5), 1)), SS_OVL_OUTSIDE_SLICE);
    /* input is x[0:5], src lives at 6..7: no shared element */
    assert_int_equal(overlap_of(tu_op(4, 10, tu_contig(0, 1, TU_ARR(5)), tu_contig(6, 1, TU_ARR(2)), 0, SOME(0), SOME(2), 1)),
                     SS_OVL_DISJOINT);
    /* interleaved: x[0::2] <- x[1::2] has intersecting byte ranges but no shared element */
    assert_int_equal(overlap_of(tu_op(4, 10, x10, tu_view(1, 1, TU_ARR(5), TU_ARR(2)), 0, NONE, NONE, 2)),
                     SS_OVL_OUTSIDE_SLICE);
    /* even elements (an input with internal overlap) and odd ones: no shared
     * element, and too many candidates for the plan's search, which then
     * falls back on the views' runs */
    const ss_view even = tu_view(0, 4, TU_ARR(6, 6, 6, 6), TU_ARR(2, 4, 6, 8));
    assert_int_equal(overlap_of(tu_op(1, 128, even, tu_view(1, 4, TU_ARR(6, 6, 6, 6), TU_ARR(2, 4, 6, 8)), 0, NONE,
                                      NONE, 1)), SS_OVL_DISJOINT);
    assert_int_equal(overlap_of(tu_op(1, 128, even, tu_view(2, 4, TU_ARR(6, 6, 6, 6), TU_ARR(2, 4, 6, 8)), 0, NONE,
                                      NONE, 1)), SS_OVL_PARTIAL);
    ss_op sep = tu_op(4, 10, x10, tu_contig(0, 1, TU_ARR(9)), 0, SOME(1), NONE, 1);
    sep.src_aliased = 0;
    sep.src_storage_numel = 9;
    assert_int_equal(overlap_of(sep), SS_OVL_SEPARATE);
}

/* ---- the overlap class against brute force ---- */

/* Marks every storage element of v (all < n) in set[]. */
static void mark_view(const ss_view *v, uint8_t *set, int64_t n) {
    memset(set, 0, (size_t)n);
    const int64_t numel = ss_view_numel(v);
    int64_t idx[SS_MAX_NDIM] = {0};
    for (int64_t k = 0; k < numel; k++) {
        int64_t off = v->offset;
        for (int d = 0; d < v->ndim; d++) off += idx[d] * v->strides[d];
        assert_true(off >= 0 && off < n);
        set[off] = 1;
        for (int d = v->ndim - 1; d >= 0 && ++idx[d] == v->sizes[d]; d--) idx[d] = 0;
    }
}

static int sets_meet(const uint8_t *a, const uint8_t *b, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (a[i] && b[i]) return 1;
    return 0;
}

/* The class by definition, from the element sets of the plan's views. */
static ss_overlap brute_overlap(const ss_plan *p) {
    enum { N = 128 };
    uint8_t in[N], sl[N], src[N];
    if (!p->op.src_aliased) return SS_OVL_SEPARATE;
    if (p->slice_numel == 0) return SS_OVL_DISJOINT;
    const ss_view *a = &p->slice, *b = &p->op.src;
    int same = a->ndim == b->ndim && a->offset == b->offset;
    for (int d = 0; same && d < a->ndim; d++)
        same = a->sizes[d] == b->sizes[d] && (a->sizes[d] == 1 || a->strides[d] == b->strides[d]);
    if (same) return SS_OVL_SAME_VIEW;
    assert_true(p->op.input_storage_numel <= N);
    mark_view(&p->op.input, in, N);
    mark_view(a, sl, N);
    mark_view(b, src, N);
    if (sets_meet(sl, src, N)) return SS_OVL_PARTIAL;
    return sets_meet(in, src, N) ? SS_OVL_OUTSIDE_SLICE : SS_OVL_DISJOINT;
}

/* Every src layout (offset, strides; sizes are the slice's) against one input
 * and slice; returns how many plans it compared. */
static long check_src_layouts(ss_op op, int64_t max_off, int64_t max_stride) {
    ss_plan p;
    ss_error err;
    op.src.offset = 0;
    ss_plan_build(&op, &p, &err);   /* fails (src has the input's sizes) after the slice is set */
    const ss_view slice = p.slice;
    const int nd = slice.ndim;
    long compared = 0;
    int64_t st[2] = {0, 0};
    for (int64_t off = 0; off <= max_off; off++)
        for (st[0] = 0; st[0] <= max_stride; st[0]++)
            for (st[1] = 0; st[1] <= (nd > 1 ? max_stride : 0); st[1]++) {
                op.src = tu_view(off, nd, slice.sizes, st);
                if (ss_plan_build(&op, &p, &err) != 0) continue;
                assert_int_equal(ss_plan_overlap(&p), brute_overlap(&p));
                assert_int_equal(ss_plan_overlap_unsolved(&p), ss_plan_overlap(&p));
                compared++;
            }
    return compared;
}

/* Exhaustive over small 1-D and 2-D layouts: the plan's search for a shared
 * element, and the ways it falls back on (the arithmetic test of runs, the
 * bitmap for views with many runs), must each give the class exactly. */
static void test_overlap_exhaustive(void **state) {
    (void)state;
    long compared = 0;
    ss_view in;
    for (int64_t off = 0; off <= 3; off++)             /* 1-D inputs */
        for (int64_t n = 1; n <= 7; n++)
            for (int64_t st = 0; st <= 4; st++) {
                in = tu_view(off, 1, TU_ARR(n), TU_ARR(st));
                for (int64_t start = 0; start <= 2; start++)
                    for (int64_t step = 1; step <= 3; step++)
                        compared += check_src_layouts(tu_op(1, 48, in, in, 0, SOME(start), NONE, step), 6, 6);
            }
    for (int64_t off = 0; off <= 2; off += 2)          /* 2-D inputs */
        for (int64_t n0 = 1; n0 <= 5; n0++)
            for (int64_t n1 = 1; n1 <= 3; n1++)
                for (int64_t s0 = 0; s0 <= 5; s0++)
                    for (int64_t s1 = 0; s1 <= 3; s1++) {
                        in = tu_view(off, 2, TU_ARR(n0, n1), TU_ARR(s0, s1));
                        for (int64_t dim = 0; dim < 2; dim++)
                            for (int64_t start = 0; start <= 1; start++)
                                for (int64_t step = 1; step <= 2; step++)
                                    compared += check_src_layouts(
                                        tu_op(1, 64, in, in, dim, SOME(start), NONE, step), 3, 4);
                    }
    print_message("%ld plans compared\n", compared);
    assert_true(compared > 100000);
}

/* Random layouts of up to 4 dims (repeated, zero and interleaving strides,
 * wide dims): the class, searched and by the fallbacks, against brute force. */
static int64_t draw(uint64_t *rng, int64_t n) {
    *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
    return (int64_t)((*rng >> 33) % (uint64_t)n);
}

static void test_overlap_random_dims(void **state) {
    (void)state;
    uint64_t rng = 11;
    long compared = 0, by_class[5] = {0};
    for (int iter = 0; iter < 200000; iter++) {
        const int nd = 1 + (int)draw(&rng, 4), wide = iter % 8 == 0;
        int64_t sz[4], st[4], sst[4];
        for (int d = 0; d < nd; d++) {
            sz[d] = 1 + draw(&rng, wide ? 12 : 5);
            st[d] = draw(&rng, iter % 3 ? 9 : 3);
        }
        const int64_t off = draw(&rng, 24), dim = draw(&rng, nd), start = draw(&rng, 3), step = 1 + draw(&rng, 2);
        ss_op op = tu_op(1, 128, tu_view(off, nd, sz, st), tu_view(0, 1, TU_ARR(1), TU_ARR(1)), dim, SOME(start),
                         NONE, step);
        ss_plan p;
        ss_error err;
        ss_plan_build(&op, &p, &err);   /* fails on src's sizes once the slice is set */
        if (p.slice.ndim != nd) continue;
        for (int d = 0; d < nd; d++) {
            const int64_t pick = draw(&rng, 4), which = draw(&rng, nd), other = draw(&rng, iter % 3 ? 11 : 3);
            sst[d] = pick == 0 ? st[which] : other;
        }
        const int64_t near = p.slice.offset + draw(&rng, 5) - 2, far = draw(&rng, 40);
        op.src = tu_view(iter % 5 == 0 ? near : far, nd, p.slice.sizes, sst);
        if (op.src.offset < 0 || ss_plan_build(&op, &p, &err) != 0) continue;
        assert_int_equal(ss_plan_overlap(&p), brute_overlap(&p));
        assert_int_equal(ss_plan_overlap_unsolved(&p), ss_plan_overlap(&p));
        by_class[ss_plan_overlap(&p)]++;
        compared++;
    }
    print_message("%ld plans compared (disjoint %ld, same view %ld, partial %ld, outside the slice %ld)\n",
                  compared, by_class[SS_OVL_DISJOINT], by_class[SS_OVL_SAME_VIEW], by_class[SS_OVL_PARTIAL],
                  by_class[SS_OVL_OUTSIDE_SLICE]);
    assert_true(compared > 20000 && by_class[SS_OVL_DISJOINT] && by_class[SS_OVL_PARTIAL] &&
                by_class[SS_OVL_OUTSIDE_SLICE]);
}

/* 1-D runs far apart with large strides (gcd and lcm arithmetic, products
 * beyond 64 bits): the class against a pairwise comparison of elements. */
static void test_overlap_large_strides(void **state) {
    (void)state;
    uint64_t rng = 7;
    for (int iter = 0; iter < 20000; iter++) {
        int64_t r[8];
        for (int k = 0; k < 8; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            r[k] = (int64_t)(rng >> 33);
        }
        /* strides with shared factors, offsets near one another or not; every
         * fourth case has strides near 2^35, whose lcm needs 128 bits */
        const int huge = iter % 4 == 0;
        const int64_t f = 1 + r[0] % 97;
        const int64_t s = huge ? ((int64_t)1 << 35) / f + r[1] % 1000 : f * (1 + r[1] % 5000);
        const int64_t t = (huge ? ((int64_t)1 << 35) / f - r[2] % 1000 : f * (1 + r[2] % 5000)) + (iter & 1);
        const int64_t n = 1 + r[3] % (huge ? 7 : 40);
        const int64_t a = (r[5] % 2000) * (iter % 3 ? 1 : 123457) + (huge ? (int64_t)1 << 38 : 0);
        /* half the huge cases meet by construction: b + j*t == a + i*s */
        const int64_t b = huge && r[7] % 2 ? a + (r[6] % (2 * n)) * s - (r[5] % n) * t
                        : a + (r[6] % 4001 - 2000) * (iter % 5 ? f : 1) + n * s * (r[7] % 2);
        if (b < 0) continue;
        const ss_view x = tu_view(a, 1, TU_ARR(n * 2), TU_ARR(s));
        const ss_view y = tu_view(b, 1, TU_ARR(n), TU_ARR(t));   /* the size of x[::2] */
        ss_op op = tu_op(1, ((int64_t)1 << 40) - 1, x, y, 0, NONE, NONE, 2);
        ss_plan p;
        ss_error err;
        assert_int_equal(ss_plan_build_limited(&op, (size_t)1 << 41, &p, &err), 0);
        int meet_slice = 0, meet_input = 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < 2 * n; i++)
                if (a + i * s == b + j * t) { meet_input = 1; meet_slice |= i % 2 == 0; }
        const ss_overlap want = p.slice.offset == b && (n == 1 || 2 * s == t) ? SS_OVL_SAME_VIEW
                              : meet_slice ? SS_OVL_PARTIAL
                              : meet_input ? SS_OVL_OUTSIDE_SLICE : SS_OVL_DISJOINT;
        assert_int_equal(ss_plan_overlap(&p), want);
        assert_int_equal(ss_plan_overlap_unsolved(&p), want);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalize_table),
        cmocka_unit_test(test_normalize_dim),
        cmocka_unit_test(test_valid_shift_plan),
        cmocka_unit_test(test_validation_rules),
        cmocka_unit_test(test_program_src_is_an_operand),
        cmocka_unit_test(test_overflow_is_rejected),
        cmocka_unit_test(test_internal_overlap),
        cmocka_unit_test(test_past_the_end_names_numel),
        cmocka_unit_test(test_overlap_classes),
        cmocka_unit_test(test_overlap_exhaustive),
        cmocka_unit_test(test_overlap_large_strides),
        cmocka_unit_test(test_overlap_random_dims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
