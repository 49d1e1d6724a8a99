/* ss_pyexpr.h - a case as the one line of Python a maintainer would paste (`x[:, 1:] = x[:, :-1]`).
 *
 * The input storage is named `x` and viewed as a contiguous tensor of shape
 * x_shape; a separate src storage is `y` (shape y_shape). The input view and
 * src are spelled as indexing of those (integers, slices, then .t(),
 * .transpose(a, b) or .permute(...)); src is tried relative to the input view
 * first (`x[0].t()`), then to `x`. Only a view no indexing reaches (stride 0,
 * empty dims, layouts no shape of the storage explains) is spelled with
 * torch.as_strided on the 1-D storage, and `exact` is then 0.
 *
 * Shape and names: meta.python {"x": NAME, "shape": [..], "y": NAME,
 * "src_shape": [..]} (written by python/ssfuzz_case.py) when they fit the
 * storage; else the first candidate shape that spells both views: the input
 * view's own sizes when it covers its storage, a stack of copies of it, the
 * shape its strides imply, then 1-D.
 *
 * Subscripts: trailing whole dims are left out (`x[1:]`, `x[1, 0]`) unless
 * the subscript starts with a whole dim (`x[:, 1:]`, `state[:, :-3, :]`). The written slice keeps the
 * case's own start/end (None is left out, -3 stays -3); a src slice over the
 * same elements copies that spelling (`x[0:1] = x[0:1].transpose(1, 2)`);
 * other slices leave out a start of 0 and an end at the size; in src an end
 * counts from the back when the start is left out (`x[:-1]`, but `x[:4][4:6]`). */
#ifndef SS_PYEXPR_H
#define SS_PYEXPR_H

#include "ss_case.h"

#define SS_PYEXPR_LEN 2048

typedef struct ss_pyexpr {
    char x[32], y[32];                 /* names of the input and the separate src storage */
    int x_ndim, y_ndim;
    int64_t x_shape[SS_MAX_NDIM], y_shape[SS_MAX_NDIM];
    char target[SS_PYEXPR_LEN];        /* the input view: "x", "x[0]" */
    char lhs[SS_PYEXPR_LEN];           /* the written slice: "x[:, 1:]" */
    char rhs[SS_PYEXPR_LEN];           /* src: "x[:, :-1]", "x[0].t()", "y" */
    char line[2 * SS_PYEXPR_LEN + 4];  /* "lhs = rhs" */
    int exact;                         /* 1: no torch.as_strided needed */
} ss_pyexpr;

/* Derive the expression of a case whose plan builds. 0, or -1 when the case
 * does not plan (nothing to express). */
int ss_pyexpr_derive(const ss_case *c, ss_pyexpr *e);
/* The same with the input storage named xname (a valid identifier the caller
 * chose, e.g. "base" when x names a parameter), not meta.python's name. */
int ss_pyexpr_derive_named(const ss_case *c, const char *xname, ss_pyexpr *e);
/* The line with the input view and src as two tensors of their own, `x` and
 * `src` (form user-two-inputs: two graph inputs): target "x", lhs the written
 * slice of x alone ("x[:, :1]", "x[:]" for the whole view), rhs "src". 0, or
 * -1 when the case does not plan. */
int ss_pyexpr_two_inputs(const ss_case *c, ss_pyexpr *e);

#endif
