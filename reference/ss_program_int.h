/* ss_program_int.h - what the program reference's files share: a run's state, names' values, geometry and element helpers. */
#ifndef SS_PROGRAM_INT_H
#define SS_PROGRAM_INT_H

#include "ss_program.h"
#include "ss_program_ref.h"

/* A name's value: a view of a storage, or a fresh tensor (a read) that owns
 * its contiguous bytes. Geometry is in elements of dtype. */
typedef struct pval {
    int is_view;
    int storage;          /* views: 0 input, 1 the separate src storage */
    ss_dtype dtype;
    ss_view v;
    int64_t numel;
    uint8_t *bytes;       /* reads: numel elements, contiguous (owned) */
} pval;

typedef struct prun {
    const ss_case *c;
    const ss_plan *plan;
    const ss_program *p;
    int exec;                     /* 0: geometry and rules only (no storages) */
    uint8_t *st[2];
    int64_t st_bytes[2];
    pval val[SS_PROG_MAX_NAMES];
    ss_prog_result *res;
    int step;                     /* the step running */
    int watch_storage;            /* -1: no watch */
    int64_t watch_lo, watch_hi;
    int open_cap;
    int nsorted;                  /* res->open[0..nsorted) is sorted (see ss_program_ref.c) */
    int defined[SS_PROG_MAX_NAMES];
} prun;

/* ---- ss_program_geom.c: views and PyTorch's overlap rules ---- */

/* The view a view step makes of `of` (0), or -1 with res->err set (INVALID). */
int ss_pg_view(prun *r, const ss_step *s, const pval *of, pval *out);
/* The slice of `of` a write or slice_scatter names (the case's op fills what
 * a write leaves out); -1 with the error set. */
int ss_pg_slice(prun *r, const ss_step *s, const pval *of, int use_case_defaults, pval *out);
/* A fresh tensor's contiguous geometry. */
void ss_pg_contiguous(ss_view *v, int ndim, const int64_t *sizes);
/* PyTorch's is_non_overlapping_and_dense and has_internal_overlap (YES only
 * for a stride-0 dim of size > 1). */
int ss_pg_dense(const ss_view *v);
int ss_pg_torch_internal_overlap(const ss_view *v);
/* PyTorch's get_overlap_status of two tensors: */
enum { SS_OVL_NO = 0, SS_OVL_FULL, SS_OVL_PARTIAL_, SS_OVL_TOO_HARD };
int ss_pg_overlap_status(const pval *a, const pval *b);
/* 1 when both have one shape. */
int ss_pg_same_shape(const pval *a, const pval *b);
/* "[2, 3]" */
void ss_pg_shape_str(const ss_view *v, char *out, size_t n);
/* Sets the INVALID status with field "program[step].key" (key may be NULL). */
int ss_pg_invalid(prun *r, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Sets the REFUSED status at the running step. */
int ss_pg_refuse(prun *r, int raises, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Element offsets of a view in logical (row-major) order: the odometer. */
typedef struct ss_pg_iter {
    const ss_view *v;
    int64_t idx[SS_MAX_NDIM];
    int64_t off;
} ss_pg_iter;
void ss_pg_iter_start(ss_pg_iter *it, const ss_view *v);
void ss_pg_iter_next(ss_pg_iter *it);

/* ---- ss_program_ref.c: storages through views ---- */

/* v's elements in logical order into out (contiguous); -1 (INVALID) when one
 * is an element a duplicate index_put left open. */
int ss_pr_gather(prun *r, const pval *v, uint8_t *out);
/* Writes vals (contiguous, v's logical order) through view v; where v maps
 * several indices to one element (may_dup), the element keeps the last value
 * and, when they differ, is left open with all of them. */
int ss_pr_scatter(prun *r, const pval *v, const uint8_t *vals, int may_dup);
/* malloc of n elements of t (at least 1 byte); NULL sets FAILED. */
uint8_t *ss_pr_alloc(prun *r, ss_dtype t, int64_t n);
int ss_pr_oom(prun *r);   /* sets FAILED, returns -1 */
/* After a step: closed open-element records out, new ones sorted in. */
void ss_pr_settle_open(prun *r);
/* Writes n values at element offsets (elements of t in storage) in order;
 * repeated offsets accumulate (acc) or keep the last value, left open when
 * the values differ. */
int ss_pr_scatter_offsets(prun *r, int storage, ss_dtype t, const int64_t *offs, const uint8_t *vals,
                          int64_t n, int acc);
/* ss_program_steps.c: write, inplace, index_put, return (and view) steps. */
int ss_pr_steps_run(prun *r, const ss_step *s);

/* ---- ss_program_read.c: the read step ---- */
int ss_pr_read(prun *r, const ss_step *s);

/* ---- ss_program_elem.c: element arithmetic in the dtype ---- */

typedef enum { SS_EL_ADD, SS_EL_SUB, SS_EL_MUL, SS_EL_NEG } ss_el_op;
/* out = a OP b (b NULL: the constant k), in dtype t, wrapping for integers. */
void ss_el_binary(prun *r, ss_dtype t, ss_el_op op, const uint8_t *a, const uint8_t *b, int64_t k,
                  uint8_t *out);
/* out = the sum of n elements (stride `stride` bytes apart), from +0. */
void ss_el_sum(prun *r, ss_dtype t, const uint8_t *a, int64_t n, int64_t stride, uint8_t *out);
/* The constant k as an element of t (bool: k != 0). */
void ss_el_const(ss_dtype t, int64_t k, uint8_t *out);
/* Marks the run inexact (first step only) when a float element moved by a
 * step is NaN, infinite or subnormal. */
void ss_el_check_moved(prun *r, ss_dtype t, const uint8_t *a, int64_t n);
int ss_el_is_float(ss_dtype t);
void ss_el_inexact(prun *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
