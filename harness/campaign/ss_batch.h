/* ss_batch.h - the batch of a failure only its batch shows: recorded in the
 * reproducer's meta.batch by the campaign, read back by replay.
 *
 * meta.batch = {"size": N, "position": P, "schedules": [names], "cases":
 * [the other N - 1 cases, in batch order, each a case object without meta]}:
 * the reproducer's own case goes at position P, and the batch ran every case
 * under each schedule in turn (case-major). A campaign that rotated
 * schedules (one per case) adds "case_schedules": [N names, in batch order,
 * the one each case ran]. Nothing else is needed: each case fills its own
 * storages from its own fields. */
#ifndef SS_BATCH_H
#define SS_BATCH_H

#include <stddef.h>
#include "ss_case.h"
#include "ss_check.h"
#include "ss_error.h"

/* Adds meta.batch to c for the batch[0..n) in which c is batch[pos], run
 * under schedules[0..ns) (ns 0: an unscheduled target), or, where
 * case_schedules is not NULL, batch[i] under case_schedules[i] alone. 0, or
 * -1 out of memory (c unchanged). */
int ss_batch_record(ss_case *c, const ss_case *const *batch, size_t n, size_t pos, const char *const *schedules,
                    size_t ns, const char *const *case_schedules);

/* The batch c records. */
typedef struct ss_batch_spec {
    size_t n_others, pos;              /* the others, and where c goes among them */
    size_t n_schedules;
    char schedules[8][32];             /* schedule names, in the order each case ran them */
    int rotated;                       /* 1: case i of the batch ran case_schedules[i] alone */
    char case_schedules[SS_CHECK_MAX_BATCH][32];
} ss_batch_spec;
/* 0 when c records no batch; 1 with others[0..spec->n_others) (each to be
 * freed with ss_case_free) and spec; -1 with err naming the field
 * (meta.batch.size, meta.batch.cases[3].input, ...) and the rule it breaks.
 * At most cap others. */
int ss_batch_load(const ss_case *c, ss_case *others, size_t cap, ss_batch_spec *spec, ss_error *err);

/* Runs c (prepared in ctx: plan, reference status ref) on t under ro inside
 * the batch its meta.batch records, as the campaign ran it; res is c's own
 * run's verdict and *batch_size the batch's case count. 0, or -1 with err
 * (no batch recorded, or one that does not load: the field and rule). */
int ss_batch_check(ss_check_ctx *ctx, const ss_plan *plan, ss_run_status ref, const ss_case *c, const ss_target *t,
                   const ss_run_opts *ro, ss_check_result *res, size_t *batch_size, ss_error *err);

#endif
