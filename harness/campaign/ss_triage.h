/* ss_triage.h - tonight's findings against the ledger: new, known, fixed, regressed.
 *
 * Tonight's findings are the reproducers in a report directory (any *.json case whose
 * meta names a signature and a target), grouped by signature. Each is `known` when the
 * ledger has it open, `regressed` when the ledger has it fixed, `new` otherwise. Every
 * ledger entry not hit tonight is rechecked: its reproducer is replayed, in a child
 * process with a time limit, on its own target when tonight's campaign ran that target
 * (or on the `recheck_on` targets when it did not: a kernel replaced by another), under
 * its schedule. Still failing: `known` (open) or `regressed` (fixed); agreeing: `fixed`
 * (open until now) or `closed` (already fixed); not rechecked (target not run tonight,
 * or unavailable here): `unchecked`, with the reason.
 *
 * With `update`, the ledger takes tonight's facts: new entries (reproducer copied beside
 * the ledger), last seen, fixed on, reopened. Ownership: an ss_triage owns its items;
 * free with ss_triage_free. */
#ifndef SS_TRIAGE_H
#define SS_TRIAGE_H

#include <stddef.h>
#include "ss_ledger.h"
#include "ss_target.h"

typedef enum ss_triage_class {
    SS_TRIAGE_NEW = 0, SS_TRIAGE_KNOWN, SS_TRIAGE_FIXED, SS_TRIAGE_REGRESSED, SS_TRIAGE_UNCHECKED,
    SS_TRIAGE_CLOSED, SS_TRIAGE_CLASS_COUNT
} ss_triage_class;

/* "new", "known", "fixed", "regressed", "unchecked", "closed". */
const char *ss_triage_class_name(ss_triage_class c);

typedef struct ss_triage_item {
    ss_triage_class cls;
    char signature[160], kind[32], target[64], schedule[16];
    char found[1024];          /* tonight's reproducer; "" when the campaign did not hit it */
    char reproducer[4400];     /* the ledger's copy (path); tonight's for a new one without update */
    long reproducers_tonight;  /* files of this signature in tonight's directory */
    char first_seen[32], upstream[512];
    char detail[300];          /* the recheck's outcome, or why it was not rechecked */
    char explain[300];         /* its `explain` output, relative to the report; "" when none */
} ss_triage_item;

typedef struct ss_triage {
    ss_triage_item *it;
    size_t n, cap;
    size_t count[SS_TRIAGE_CLASS_COUNT];
} ss_triage;


typedef struct ss_triage_opts {
    const char *found_dir;     /* tonight's reproducers (may be NULL: rechecks only) */
    const ss_target *tonight[SS_MAX_TARGETS];   /* targets the campaign ran */
    size_t n_tonight;          /* 0: unknown, recheck on each entry's own target */
    const ss_target *recheck_on[SS_MAX_TARGETS];
    size_t n_recheck_on;
    const char *date, *commit; /* recorded in the ledger with `update` */
    double recheck_seconds;    /* per recheck (the child is killed after it: still failing) */
    int update;                /* 1: write tonight's facts into the ledger (and copy reproducers) */
} ss_triage_opts;

/* Classifies (and with o->update, updates l in memory and copies reproducers; the
 * caller saves l). 0, or -1 with err (unreadable directory, out of memory, copy failed). */
int ss_triage_run(ss_ledger *l, const ss_triage_opts *o, ss_triage *t, ss_error *err);
void ss_triage_free(ss_triage *t);

#endif
