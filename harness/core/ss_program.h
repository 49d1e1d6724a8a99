/* ss_program.h - programs: short lists of steps over named views of a case's storages
 * (docs/programs.md), their JSON form, and the types of their results.
 *
 * Ownership: an ss_program owns its index lists (ss_step.idx); free it with
 * ss_program_free, copy it with ss_program_copy. An ss_prog_result owns its
 * returned values' bytes and its open elements; free it with
 * ss_prog_result_free. An ss_prog_actual owns nothing: its pointers are the
 * caller's and live as long as the comparison call. */
#ifndef SS_PROGRAM_H
#define SS_PROGRAM_H

#include <stddef.h>
#include <stdint.h>
#include "ss_case.h"
#include "ss_error.h"
#include "ss_plan.h"

struct cJSON;

/* Limits of the format (program-spec v1): hostile input stays small. */
#define SS_PROG_MAX_STEPS 16
#define SS_PROG_MAX_NAMES 32          /* x and src included */
#define SS_PROG_NAME_LEN 15
#define SS_PROG_MAX_RETURNS 8
#define SS_PROG_MAX_INDEX 64          /* entries of one index_put index list */
#define SS_PROG_MAX_CONST 3           /* |value| of add/mul/sub constants */
#define SS_PROG_MAX_FILL 15           /* fill_ takes 0..15 */
/* Largest numel of any view or read a program makes (a stride-0 as_strided
 * could otherwise name 2^40 elements of a one-element storage). */
#define SS_PROG_MAX_NUMEL ((int64_t)1 << 24)
/* Names 0 and 1 exist before step 0. */
enum { SS_NAME_X = 0, SS_NAME_SRC = 1 };

typedef enum ss_step_op {
    SS_STEP_VIEW = 0, SS_STEP_READ, SS_STEP_WRITE, SS_STEP_INPLACE, SS_STEP_INDEX_PUT,
    SS_STEP_RETURN, SS_STEP_OP_COUNT
} ss_step_op;

typedef enum ss_view_kind {
    SS_VK_SLICE = 0, SS_VK_SELECT, SS_VK_PERMUTE, SS_VK_TRANSPOSE, SS_VK_DIAGONAL, SS_VK_UNFOLD,
    SS_VK_AS_STRIDED, SS_VK_DTYPE, SS_VK_REAL, SS_VK_IMAG, SS_VK_COUNT
} ss_view_kind;

typedef enum ss_read_kind {
    SS_RK_CLONE = 0, SS_RK_ADD, SS_RK_MUL, SS_RK_NEG, SS_RK_FLIP, SS_RK_SUM, SS_RK_SLICE_SCATTER,
    SS_RK_COUNT
} ss_read_kind;

typedef enum ss_inplace_kind {
    SS_IK_ADD = 0, SS_IK_SUB, SS_IK_MUL, SS_IK_ZERO, SS_IK_FILL, SS_IK_COPY, SS_IK_COUNT
} ss_inplace_kind;

/* The write spellings (scatter-return is a read of kind slice_scatter). */
typedef enum ss_spelling {
    SS_SP_SETITEM = 0, SS_SP_SETITEM_CLONE, SS_SP_COPY, SS_SP_SCATTER_COPY, SS_SP_CLONE_SCATTER,
    SS_SP_INDEX_PUT, SS_SP_COUNT
} ss_spelling;

/* A start/end bound: absent (a write takes the case's; elsewhere None), null, or an integer. */
enum { SS_BOUND_ABSENT = 0, SS_BOUND_NULL, SS_BOUND_INT };

/* An operand: a name, or an integer constant when name < 0. */
typedef struct ss_operand {
    int name;
    int64_t value;
} ss_operand;

typedef struct ss_step {
    ss_step_op op;
    int kind;            /* ss_view_kind, ss_read_kind, ss_inplace_kind, or the write's ss_spelling */
    int name;            /* the name a view or read defines; -1 otherwise */
    int of;              /* view/read: its source; write/inplace/index_put: "into"; -1 for return */
    /* slice (view, write, slice_scatter), select dim, sum dim, unfold dim */
    int has_dim, has_step;            /* a write may leave them to the case */
    int64_t dim, step;
    int start_state, end_state;       /* SS_BOUND_* */
    int64_t start, end;
    int64_t index;                    /* select */
    int64_t offset;                   /* diagonal, as_strided */
    int64_t d0, d1;                   /* transpose dim0/dim1; diagonal dim1/dim2 */
    int64_t size;                     /* unfold */
    int ndims;                        /* permute dims, flip dims, as_strided sizes */
    int64_t dims[SS_MAX_NDIM];
    int64_t strides[SS_MAX_NDIM];     /* as_strided */
    ss_dtype dtype;                   /* dtype view */
    ss_operand operand;   /* read add/mul value, slice_scatter src, write src, inplace operand,
                             index_put values */
    int has_operand;      /* 0 only for zero_ and the reads without one */
    int accumulate;       /* index_put */
    int nidx, idx_len;    /* index_put: nidx lists of idx_len entries */
    int64_t *idx;         /* nidx * idx_len entries, list by list (owned) */
    int nret;             /* return */
    int ret[SS_PROG_MAX_RETURNS];
} ss_step;

typedef struct ss_program {
    int nsteps;
    ss_step steps[SS_PROG_MAX_STEPS];
    int nnames;                                        /* >= 2: x, src */
    char names[SS_PROG_MAX_NAMES][SS_PROG_NAME_LEN + 1];
    int defined_at[SS_PROG_MAX_NAMES];                 /* the defining step; -1 for x, src */
} ss_program;

/* New program holding x and src only; NULL when out of memory. */
ss_program *ss_program_new(void);
void ss_program_free(ss_program *p);
/* Deep copy; NULL when out of memory (or p NULL). */
ss_program *ss_program_copy(const ss_program *p);
/* Appends a name (must be new and well formed): its index, or -1. */
int ss_program_add_name(ss_program *p, const char *name);
/* Removes step i (renumbering names it defined is the caller's business:
 * ss_program_remove_step drops the step's own name only when no later step
 * uses it, else returns -1 and changes nothing). */
int ss_program_remove_step(ss_program *p, int i);
/* 1 when step s reads or writes name n. */
int ss_step_uses(const ss_step *s, int n);

const char *ss_step_op_name(ss_step_op op);
const char *ss_view_kind_name(int k);
const char *ss_read_kind_name(int k);
const char *ss_inplace_kind_name(int k);
const char *ss_spelling_name(int k);

/* The single write of a case (`op`) as a program: the one translation of the
 * write world into programs. spelling is one of the torch engine's spellings:
 * setitem, setitem-clone, copy, scatter-copy, clone-scatter and index-put
 * become one write step into x from src that takes the case's dim, start,
 * end and step; scatter-return (y = torch.slice_scatter(x, src, ...), x
 * zeroed, y copied back into x) becomes its three steps. NULL for another
 * spelling or out of memory. */
ss_program *ss_program_of_write(const ss_op *op, const char *spelling);

/* The JSON form (ss_program_json.c). Parsing checks structure only: keys,
 * types, integer ranges, names (well formed, defined before use, never
 * redefined), operand kinds; what depends on the case's views (dims, shapes,
 * bounds) is checked by the reference (ss_prog_ref_run). Errors name the
 * field ("program[2].dim") and the rule. */
int ss_program_from_json(const struct cJSON *arr, ss_program **out, ss_error *err);
/* The array, keys in a stable order; parse(emit(p)) == p. NULL on out of memory. */
struct cJSON *ss_program_to_json(const ss_program *p);

/* ---- results ------------------------------------------------------------ */

typedef enum ss_prog_status {
    SS_PROG_OK = 0,       /* ran: the storages and returns hold its meaning */
    SS_PROG_REFUSED,      /* at `step`, PyTorch raises (raises = 1), or writes with no
                             defined result (raises = 0: nothing to compare) */
    SS_PROG_INVALID,      /* not a program for this case: err names the field */
    SS_PROG_FAILED        /* out of memory */
} ss_prog_status;

/* An element left open by a non-accumulating index_put with duplicates: its
 * bytes may hold any of nvals values. */
typedef struct ss_prog_open {
    int storage;          /* SS_STORAGE_INPUT or SS_STORAGE_SRC (ss_compare.h) */
    int64_t byte;         /* its first byte in that storage */
    int size;             /* its bytes (the element size of the written view) */
    int step;             /* the index_put that left it open */
    int nvals;
    uint8_t *vals;        /* nvals * size bytes (owned) */
} ss_prog_open;

/* A returned value as the reference expects it. */
typedef struct ss_prog_value {
    int name;
    int is_view;          /* 1: a view (shares `storage`); 0: a fresh tensor */
    int storage;          /* a view's storage (SS_STORAGE_*); -1 for a fresh tensor */
    ss_dtype dtype;
    ss_view view;         /* a view's geometry in elements of dtype; a fresh tensor's shape
                             (contiguous strides, offset 0) */
    int64_t numel;
    uint8_t *bytes;       /* numel * element bytes, contiguous (owned): the expected values
                             (for open elements, the last value written) */
} ss_prog_value;

typedef struct ss_prog_result {
    ss_prog_status status;
    int step;             /* refused, invalid: the step (-1: not a step's fault) */
    int raises;           /* refused: see ss_prog_status */
    char why[256];        /* refused: PyTorch's rule */
    ss_error err;         /* invalid: the field and the rule */
    /* -1 when every value the program computes is exact in any evaluation
     * order (small integers, no -0.0, no NaN/inf read as a float); else the
     * first step where that fails and why. Generators keep only exact
     * programs; a hand-written inexact one still runs. */
    int inexact_step;
    char inexact[160];
    int nret;
    ss_prog_value ret[SS_PROG_MAX_RETURNS];
    int nopen;            /* sorted by (storage, byte); never overlapping */
    ss_prog_open *open;
    /* Watching (ss_prog_ref_run_watch): the last step that wrote a byte of the
     * watched range; -1 none. */
    int watch_last_step;
} ss_prog_result;

void ss_prog_result_init(ss_prog_result *r);
void ss_prog_result_free(ss_prog_result *r);

/* What a target reports of one run of a program. */
typedef struct ss_prog_actual_value {
    ss_dtype dtype;
    int ndim;
    int64_t sizes[SS_MAX_NDIM];
    const uint8_t *bytes;   /* contiguous, nbytes */
    size_t nbytes;
    int shares;             /* bit 0: shares x's storage; bit 1: src's storage */
} ss_prog_actual_value;

typedef struct ss_prog_actual {
    const ss_storage *in, *src;   /* final storages (src ignored when aliased) */
    int nret;
    ss_prog_actual_value ret[SS_PROG_MAX_RETURNS];
} ss_prog_actual;

typedef enum ss_prog_diff_kind {
    SS_PD_NONE = 0,
    SS_PD_STORAGE,        /* a storage element differs */
    SS_PD_GUARD,          /* a guard band changed */
    SS_PD_RET_COUNT,      /* the number of returned values */
    SS_PD_RET_DTYPE,
    SS_PD_RET_SHAPE,
    SS_PD_RET_VALUE,      /* an element of a returned value */
    SS_PD_RET_ALIAS       /* a returned value shares storage it must not, or the reverse */
} ss_prog_diff_kind;

/* The first difference (storages first, then returned values in order). */
typedef struct ss_prog_diff {
    ss_prog_diff_kind kind;
    int64_t count;            /* differing elements over storages and values */
    int guard_corrupt;        /* 1: a guard band of the actual storages changed */
    int storage;              /* SS_PD_STORAGE: SS_STORAGE_* */
    int ret;                  /* SS_PD_RET_*: the returned value's position */
    int name;                 /* its name (-1 for storages) */
    int64_t index;            /* storage element, or flat index in the returned value */
    int ndim;
    int64_t logical[SS_MAX_NDIM];  /* the returned value's index; for a storage, x's index
                                      when x reaches the element (ndim 0 otherwise) */
    ss_dtype dtype;
    size_t elem_size;
    uint8_t expected[16], actual[16];
    int nallowed;             /* > 1: expected is one of that many allowed values */
    int expect_shares, actual_shares;   /* SS_PD_RET_ALIAS; also count/dtype/shape */
    int step;                 /* the first step whose result is wrong (ss_prog_ref_blame); -1 */
} ss_prog_diff;

/* ss_program_cmp.c: 1 when the actual result differs from the reference's
 * (ref ran: SS_PROG_OK; ref_in/ref_src its final storages); 0 when every
 * storage byte, returned value and alias fact agrees (an open element
 * accepts any of its values). */
int ss_prog_compare(const ss_case *c, const ss_prog_result *ref, const ss_storage *ref_in,
                    const ss_storage *ref_src, const ss_prog_actual *act, ss_prog_diff *d);
/* One line: "returned value 1 (y)[0, 2]: expected 3, got 0; 4 elements differ"
 * or "returned value 0 (r) shares x's storage but must be a fresh tensor". */
void ss_prog_diff_format(const ss_program *p, const ss_prog_diff *d, char *out, size_t n);
/* 1 when `actual` may be bytes [byte, byte+n) of storage `storage` (n <= 16):
 * the expected bytes, except where an open element accepts any of its values. */
int ss_prog_bytes_allowed(const ss_prog_result *ref, int storage, int64_t byte, size_t n,
                          const uint8_t *expected, const uint8_t *actual);

#endif
