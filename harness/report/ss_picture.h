/* ss_picture.h - a storage drawn as rows of cells: what the slice writes, what src reads, what went wrong.
 *
 * Ownership: ss_picture owns `cell`; free it with ss_picture_free. */
#ifndef SS_PICTURE_H
#define SS_PICTURE_H

#include <stdint.h>
#include <stdio.h>
#include "ss_plan.h"

/* Cell flags; a cell's character is chosen from them in ss_picture_char. */
enum { SS_CELL_INPUT = 1, SS_CELL_WRITE = 2, SS_CELL_READ = 4, SS_CELL_WRONG = 8 };

typedef struct ss_picture {
    int64_t numel;       /* storage elements */
    uint8_t *cell;       /* flags per element */
    int64_t run;         /* cells per group: the innermost run of the view, or a fixed width */
    int64_t per_row;     /* groups per row */
    int64_t first;       /* storage index of the first row's first column (may be negative) */
} ss_picture;

/* Build the picture of the input storage (which = SS_STORAGE_INPUT) or of a
 * separate src storage (SS_STORAGE_SRC). Rows follow the innermost run of the
 * view drawn (input's, or src's for its own storage), packed to fit 80
 * columns. 0 ok, -1 out of memory. */
int ss_picture_build(const ss_plan *plan, int which, ss_picture *p);
void ss_picture_free(ss_picture *p);

/* Mark every element whose bytes differ between expected and actual as wrong.
 * Returns how many were marked. */
int64_t ss_picture_mark_wrong(ss_picture *p, const uint8_t *expected, const uint8_t *actual,
                              size_t elem_size);

/* W slice written, R src read, X both, . input untouched, ' ' outside the input view, ! wrong. */
char ss_picture_char(uint8_t flags);

/* Draw: a per-class count line, then rows labelled with their first storage
 * index. At most max_rows rows (then "... N more rows"); ANSI colour when
 * color is 1. */
void ss_picture_draw(FILE *f, const ss_picture *p, int color, int64_t max_rows);
void ss_picture_legend(FILE *f, int color);

#endif
