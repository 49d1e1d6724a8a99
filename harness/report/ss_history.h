/* ss_history.h - one line per night in a JSON Lines file, and the last nights read back.
 *
 * Each line: date, commit, torch version, cases, seconds, cases/s, unique findings by
 * class (new, known, fixed, regressed, unchecked), the aliasing kinds the campaign
 * covered, the exit code and verdict. Lines are appended with one write (O_APPEND), so
 * concurrent nights never interleave; lines that do not parse are skipped on reading. */
#ifndef SS_HISTORY_H
#define SS_HISTORY_H

#include <stddef.h>
#include "ss_triage_out.h"

typedef struct ss_history_row {
    char date[32], commit[48];
    double cases, cases_per_second;
    long n_new, n_known, n_fixed, n_regressed;
    int alias_kinds, exit_code;
} ss_history_row;

int ss_history_append(const char *path, const ss_night *n, const ss_triage *t, ss_error *err);
/* The last `max` rows (oldest first), malloc'ed into *rows. A missing file is no rows. */
int ss_history_read(const char *path, size_t max, ss_history_row **rows, size_t *n, ss_error *err);

#endif
