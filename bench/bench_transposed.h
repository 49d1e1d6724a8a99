/* bench_transposed.h - the transposed large-copy layouts of bench_copy: every element size, both
 * sides transposed, steps on either side, rank 3, narrow blocks, aliased storages. */
#ifndef BENCH_TRANSPOSED_H
#define BENCH_TRANSPOSED_H

#include "bench_layouts.h"

static inline ss_view view3(int64_t offset, const int64_t sz[3], const int64_t st[3]) {
    ss_view v = view2(offset, sz[0], sz[1], st[0], st[1]);
    v.ndim = 3;
    v.sizes[2] = sz[2];
    v.strides[2] = st[2];
    return v;
}

/* x: rows x cols of e-byte items, contiguous; x[:rows/2] = z.t(), z a
 * separate contiguous (cols x rows/2) storage. */
static inline ss_op transposed_src_op(int64_t rows, int64_t cols, size_t e) {
    ss_op op = base_op(rows, cols);
    op.elem_size = e;
    op.dim = 0; op.start = 0; op.end = rows / 2;
    op.src = view2(0, rows / 2, cols, 1, rows / 2);
    op.src_storage_numel = rows / 2 * cols;
    return op;
}

/* The transposed layouts for an input storage of `bytes`: up to 16 of them.
 * Rows are 64 KiB where the shape leaves the choice (both sides' strides then
 * powers of two, the worst case for cache sets). */
static inline int make_transposed_layouts(int64_t bytes, layout *L) {
    static const size_t sizes[] = {1, 2, 4, 8, 16};
    static const char *const names[] = {"t-src e1", "t-src e2", "t-src e4", "t-src e8", "t-src e16"};
    int n = 0;
    const int64_t rows = bytes / 65536;
    for (int i = 0; i < 5; i++)                /* x[:R/2] = z.t() at every element size */
        L[n++] = (layout){names[i], "x[:R/2] = z.t(), rows of 64 KiB", transposed_src_op(rows, 65536 / (int64_t)sizes[i], sizes[i])};

    const int64_t C = 65536 / ES, R = rows;    /* float32 from here on */
    ss_op op = base_op(R, C);                  /* dst transposed: x.t()[:C/2] = y */
    op.input = view2(0, C, R, 1, C);
    op.dim = 0; op.start = 0; op.end = C / 2;
    op.src = view2(0, C / 2, R, R, 1);
    op.src_storage_numel = C / 2 * R;
    L[n++] = (layout){"t-dst", "x.t()[:C/2] = y, y contiguous", op};

    op = base_op(R, C);                        /* a step on the dst side: x[:, ::2] = z.t() */
    op.dim = 1; op.start = 0; op.end = C; op.step = 2;
    op.src = view2(0, R, C / 2, 1, R);
    op.src_storage_numel = C / 2 * R;
    L[n++] = (layout){"t-dst-step", "x[:, ::2] = z.t() (dst stride 2)", op};

    op = transposed_src_op(R, C, ES);          /* a step on the src side: x[:R/2] = z[:, ::2].t() */
    op.src = view2(0, R / 2, C, 2, R);
    op.src_storage_numel = C * R;
    L[n++] = (layout){"t-src-step", "x[:R/2] = z[:, ::2].t() (src stride 2)", op};

    {                                          /* rank 3: x[:B/2] = z.transpose(1, 2) */
        const int64_t B = 16, N = 1024, M = bytes / (B * N * ES);
        op = base_op(1, 1);
        op.input_storage_numel = B * N * M;
        op.input = view3(0, (int64_t[3]){B, N, M}, (int64_t[3]){N * M, M, 1});
        op.dim = 0; op.start = 0; op.end = B / 2;
        op.src = view3(0, (int64_t[3]){B / 2, N, M}, (int64_t[3]){N * M, 1, N});
        op.src_storage_numel = B / 2 * N * M;
        L[n++] = (layout){"t-rank3", "x[:B/2] = z.transpose(1, 2), 16 blocks of 1024 x M", op};
    }
    {                                          /* narrow: dst rows of 64 bytes, then src rows of 64 bytes */
        const int64_t r = bytes / (16 * ES);
        L[n++] = (layout){"t-narrow-dst", "x[:R/2] = z.t(), x has 16 columns", transposed_src_op(r, 16, ES)};
        op = transposed_src_op(32, bytes / (32 * ES), ES);
        L[n++] = (layout){"t-narrow-src", "x[:16] = z.t(), z has 16 columns", op};
    }
    op = transposed_src_op(R, C, ES);          /* aliased, disjoint: x[:R/2] = (x's second half as C x R/2).t() */
    op.src_aliased = 1;
    op.src_storage_numel = op.input_storage_numel;
    op.src.offset = R / 2 * C;
    L[n++] = (layout){"t-aliased", "x[:R/2] = x[R/2:].view(C, R/2).t() (one storage, disjoint)", op};

    {                                          /* aliased, overlapping: x[:] = x.t() on a square x (staged) */
        int64_t N = 1;
        while ((N * 2) * (N * 2) * ES <= bytes) N *= 2;
        op = base_op(N, N);
        op.dim = 0; op.start = 0; op.end = N;
        op.src_aliased = 1;
        op.src_storage_numel = op.input_storage_numel;
        op.src = view2(0, N, N, 1, N);
        L[n++] = (layout){"t-overlap", "x[:] = x.t() on a square x (src overlaps the slice)", op};
    }
    return n;
}

#endif
