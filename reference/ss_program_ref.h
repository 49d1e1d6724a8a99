/* ss_program_ref.h - the reference meaning of a program (docs/programs.md): every
 * step reads all its operands before it writes (the snapshot rule), PyTorch's
 * refusals are refusals, duplicate index_put writes leave allowed sets. */
#ifndef SS_PROGRAM_REF_H
#define SS_PROGRAM_REF_H

#include "ss_program.h"

/* Runs c->program on the case's storages (filled with its initial contents;
 * `src` ignored when aliased), leaving their final contents there, and fills
 * res (init'ed here; free with ss_prog_result_free): the returned values,
 * the open elements, or a refusal (the step and PyTorch's rule), or an
 * invalid program (the field and the rule). On a refusal or an invalid
 * program the storages hold what the steps before it did. plan is the
 * case's validated plan: a write step takes the case's dim/start/end/step
 * for those it leaves out. Returns res->status. */
ss_prog_status ss_prog_ref_run(const ss_case *c, const ss_plan *plan, ss_storage *in,
                               ss_storage *src, ss_prog_result *res);

/* The same, also recording in res->watch_last_step the last step that
 * wrote any byte of [lo, hi) of storage `storage` (SS_STORAGE_*). */
ss_prog_status ss_prog_ref_run_watch(const ss_case *c, const ss_plan *plan, ss_storage *in,
                                     ss_storage *src, int storage, int64_t lo, int64_t hi,
                                     ss_prog_result *res);

/* Checks the program against the case without running it (no storages):
 * geometry, shapes, dtypes and PyTorch's refusals that do not depend on
 * values. res as for ss_prog_ref_run (no returned bytes). */
ss_prog_status ss_prog_ref_check(const ss_case *c, const ss_plan *plan, ss_prog_result *res);

/* The first step whose result is wrong, for a difference d that
 * ss_prog_compare found (init_in/init_src: the initial storages; they are
 * not changed). The rule (docs/programs.md, "Which step is wrong"): a wrong
 * storage element or element of a returned view: the last step of the
 * reference that writes it; a wrong returned read: the step that computes
 * it; a wrong alias fact, count, dtype or shape: the step that defines the
 * returned name (the return step for x and src). -1 when no step writes the
 * element (a write where the program writes nothing). Sets d->step too. */
int ss_prog_ref_blame(const ss_case *c, const ss_plan *plan, const ss_storage *init_in,
                      const ss_storage *init_src, ss_prog_diff *d);

/* The views and shapes of every name after a check: for printers and the
 * generator. Fills names[0..nnames) (views: storage and geometry; reads:
 * shape); 0, or -1 when the program is not valid for the case (res->err). */
typedef struct ss_prog_name_info {
    int defined;          /* 0: the check stopped before the step that defines it */
    int is_view;
    int storage;
    ss_dtype dtype;
    ss_view v;
} ss_prog_name_info;
int ss_prog_ref_names(const ss_case *c, const ss_plan *plan, ss_prog_name_info *names,
                      ss_prog_result *res);

#endif
