/* ss_compare.h - bitwise comparison of final storages, with a first-difference report. */
#ifndef SS_COMPARE_H
#define SS_COMPARE_H

#include "ss_plan.h"

enum { SS_STORAGE_INPUT = 0, SS_STORAGE_SRC = 1 };

typedef struct ss_diff {
    int64_t count;            /* differing elements over all storages (guards excluded) */
    int guard_corrupt;        /* 1: a guard band of the actual storages changed */
    int storage;              /* SS_STORAGE_INPUT / SS_STORAGE_SRC of the first difference */
    int64_t index;            /* storage element index of the first difference */
    int in_input_view;        /* 1: logical[] holds that element's index in the input view */
    int64_t logical[SS_MAX_NDIM];
    uint8_t expected[16], actual[16];
    size_t elem_size;
    int value_type;           /* 1 + ss_dtype, for values as numbers; 0 unknown: bits only */
    int64_t nan_pairs;        /* of `count`: elements NaN on both sides (quiet bit or payload
                                 changed), see ss_compare_nan_pairs; 0 until it runs */
} ss_diff;

/* Compare expected vs actual storages element by element (memcmp semantics).
 * Returns 1 when they differ (or a guard changed), 0 when identical. */
int ss_compare(const ss_plan *plan, const ss_storage *exp_in, const ss_storage *exp_src,
               const ss_storage *act_in, const ss_storage *act_src, ss_diff *diff);

/* Of the elements ss_compare found different, counts those where expected
 * and actual are both NaN (every differing component, for complex dtypes):
 * a quieted signalling NaN or a changed payload, not a wrong value. Sets
 * diff->nan_pairs; when other differences remain, the first difference
 * recorded becomes the first of those. `dtype` is an ss_dtype; a dtype
 * without NaN leaves nan_pairs 0. Walks the storages: for mismatches only. */
void ss_compare_nan_pairs(const ss_plan *plan, int dtype, const ss_storage *exp_in, const ss_storage *exp_src,
                          const ss_storage *act_in, const ss_storage *act_src, ss_diff *diff);

/* One line: "input storage[5] (input index [1, 1]): expected 9.0 (0x41100000), got
 * 8.0 (0x41000000); 3 elements differ" (bits only when value_type is 0). */
void ss_diff_format(const ss_plan *plan, const ss_diff *diff, char *out, size_t n);

/* The logical index (SS_MAX_NDIM entries) at which view v reaches storage
 * element `index`: 1 and *logical filled, or 0 (untouched) when v does not
 * reach it. Walks the view: for a mismatch's few elements, not for hot loops. */
int ss_view_index_of(const ss_view *v, int64_t index, int64_t *logical);

#endif
