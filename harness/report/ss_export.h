/* ss_export.h - pieces of the PyTorch reproducer script that `ssfuzz export --torch` prints. */
#ifndef SS_EXPORT_H
#define SS_EXPORT_H

#include <stdio.h>
#include "ss_case.h"
#include "ss_pyexpr.h"

/* Python source that follows the case's constants and programs (DTYPE,
 * INPUT_VIEW, ..., INPUT_BYTES, X_SHAPE, SPELLING, PROGRAMS, one function per spelling). */
extern const char ss_export_torch_body[];

/* How user code writes the in-place update (the torch engine's names), NULL-terminated:
 * setitem, setitem-clone, copy, scatter-copy, scatter-return, clone-scatter, index-put. */
extern const char *const ss_export_spellings[];
int ss_export_spelling_valid(const char *name);

/* One Python function per spelling, each the case's line in that spelling
 * (`x[:, 1:] = x[:, :-1]`, `x[:, 1:].copy_(x[:, :-1])`, ...), the PROGRAMS
 * table of their one-line texts, and finish_scatter_return. */
void ss_export_programs(FILE *f, const ss_case *c, const ss_pyexpr *e);

#endif
