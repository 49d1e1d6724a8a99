/* ss_wrong_cells.h - listing the storage elements a target got wrong, with expected and actual values. */
#ifndef SS_WRONG_CELLS_H
#define SS_WRONG_CELLS_H

#include <stdio.h>
#include "ss_plan.h"

/* Prints one line per element where `got` differs from `want` (storage
 * `which`: SS_STORAGE_INPUT or SS_STORAGE_SRC), in storage order, at most
 * `max` lines then "... N more":
 *   "    input storage[80] (input index [0, 0, 4, 0]): expected 78.0 (0x54e0), got 74.0 (0x54a0)"
 * value_type is 1 + ss_dtype (0: bits only). Returns the number of wrong elements. */
int64_t ss_wrong_cells_print(FILE *f, const ss_plan *plan, int value_type, int which,
                             const ss_storage *want, const ss_storage *got, int64_t max);

#endif
