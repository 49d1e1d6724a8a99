/* bench_layouts.h - the large-copy layouts shared by bench_copy (CPU) and bench_gpu (GPU),
 * so both benchmarks measure exactly the same cases. float32 throughout. */
#ifndef BENCH_LAYOUTS_H
#define BENCH_LAYOUTS_H

#include <string.h>
#include "ss_plan.h"

#define ES 4

typedef struct layout {
    const char *name;
    const char *what;
    ss_op op;
} layout;

static inline ss_view view2(int64_t offset, int64_t r, int64_t c, int64_t sr, int64_t sc) {
    ss_view v;
    memset(&v, 0, sizeof v);
    v.offset = offset;
    v.ndim = 2;
    v.sizes[0] = r; v.sizes[1] = c;
    v.strides[0] = sr; v.strides[1] = sc;
    return v;
}

/* input: rows x cols, contiguous, filling the storage; the slice takes half. */
static inline ss_op base_op(int64_t rows, int64_t cols) {
    ss_op op;
    memset(&op, 0, sizeof op);
    op.elem_size = ES;
    op.input_storage_numel = rows * cols;
    op.input = view2(0, rows, cols, cols, 1);
    op.has_start = op.has_end = 1;
    op.step = 1;
    return op;
}

static inline int make_layouts(int64_t rows, int64_t cols, layout *L) {
    int n = 0;
    ss_op op = base_op(rows, cols);            /* x[:rows/2] = y: one contiguous block */
    op.dim = 0; op.start = 0; op.end = rows / 2;
    op.src = view2(0, rows / 2, cols, cols, 1);
    op.src_storage_numel = rows / 2 * cols;
    L[n++] = (layout){"contiguous", "x[:R/2] = y, y contiguous", op};

    op = base_op(rows, cols);                  /* x[:, :cols/2] = y: a contiguous run per row */
    op.dim = 1; op.start = 0; op.end = cols / 2;
    op.src = view2(0, rows, cols / 2, cols / 2, 1);
    op.src_storage_numel = rows * cols / 2;
    L[n++] = (layout){"inner-runs", "x[:, :C/2] = y (runs of C/2 elements)", op};

    op = base_op(rows, cols);                  /* x[:, ::2] = y: inner stride 2 */
    op.dim = 1; op.start = 0; op.end = cols; op.step = 2;
    op.src = view2(0, rows, cols / 2, cols / 2, 1);
    op.src_storage_numel = rows * cols / 2;
    L[n++] = (layout){"strided-inner", "x[:, ::2] = y (inner stride 2)", op};

    op = base_op(rows, cols);                  /* x[:rows/2] = y.t(): src read column-wise */
    op.dim = 0; op.start = 0; op.end = rows / 2;
    op.src = view2(0, rows / 2, cols, 1, rows / 2);
    op.src_storage_numel = rows / 2 * cols;
    L[n++] = (layout){"transposed-src", "x[:R/2] = z.t(), z contiguous (C x R/2)", op};

    op = base_op(rows, cols);                  /* x[1:] = x[:-1]: aliased, staged */
    op.dim = 0; op.start = 1; op.end = rows;
    op.src_aliased = 1;
    op.src_storage_numel = op.input_storage_numel;
    op.src = view2(0, rows - 1, cols, cols, 1);
    L[n++] = (layout){"aliased-shift", "x[1:] = x[:-1] (src overlaps the slice)", op};
    return n;
}

#endif
