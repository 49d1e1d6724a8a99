/* ss_program_py.h - a program as Python source, spelled as a PyTorch user writes it (the lines of program-spec v1).
 *
 * One printer for every place a program is shown: explain prints its lines,
 * export embeds the function, the torch worker execs it. */
#ifndef SS_PROGRAM_PY_H
#define SS_PROGRAM_PY_H

#include <stdio.h>
#include "ss_case.h"
#include "ss_plan.h"
#include "ss_program.h"

#define SS_PROGRAM_PY_LINE 1024

/* Step i of c->program as one line of Python (no indent, no newline), e.g.
 * "a = x[:, 1:3]", "x.add_(r)", "y = torch.slice_scatter(x, src, 0, 1, None, 1)".
 * plan: c's validated plan (a write takes the case's dim/start/end/step where
 * it gives none; the index-put spelling along a negative dim needs the
 * view's rank, which the reference's check gives). Truncates at n. */
void ss_program_py_step(const ss_case *c, const ss_plan *plan, int i, char *out, size_t n);

/* The index-put spelling of a slice write, self-contained (no helper to define):
 * "V.index_put_((torch.arange(V.shape[0]).view(-1, 1), torch.arange(V.shape[1])[1:3]), R)",
 * index tensors for the dims up to d (0 <= d < V's rank) as the torch worker builds them,
 * the slice's on d (start/end as a Python slice takes them). Truncates at n. */
void ss_program_py_index_put(char *out, size_t n, const char *v, int64_t d, int has_start, int64_t start, int has_end,
                             int64_t end, int64_t step, const char *r);

/* The whole function: "def program(x, src):", a line per step (indented by
 * four spaces), and "return (...)" ("return ()" without a return step). */
void ss_program_py_function(FILE *f, const ss_case *c, const ss_plan *plan);

/* The step lines alone, each after `indent`, ending with the return line. */
void ss_program_py_lines(FILE *f, const ss_case *c, const ss_plan *plan, const char *indent);

#endif
