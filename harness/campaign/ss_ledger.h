/* ss_ledger.h - the findings ledger kept in the repository (known/ledger.json).
 *
 * One entry per finding signature "KIND|TARGET|SCHEDULE" (the schedule empty for
 * unscheduled targets), the same signature `fuzz` counts and its summary lists. An
 * entry keeps its reproducer (a file beside the ledger), when it was first and last
 * seen (UTC date and commit), a status (open, fixed), when it was fixed, and two
 * fields people edit: `upstream` (a link to the report) and `note`. Fields the
 * ledger does not know are kept as they are on save.
 *
 * Ownership: an ss_ledger owns its entries and their `extra` objects; free with
 * ss_ledger_free. */
#ifndef SS_LEDGER_H
#define SS_LEDGER_H

#include <stddef.h>
#include "ss_error.h"

struct cJSON;

typedef enum ss_ledger_status { SS_LEDGER_OPEN = 0, SS_LEDGER_FIXED } ss_ledger_status;

typedef struct ss_ledger_entry {
    char signature[160];
    char kind[32], target[64], schedule[16];
    char reproducer[256];      /* file name inside the ledger's directory */
    char first_seen[32], first_commit[48], last_seen[32], last_commit[48];
    char fixed_on[32], fixed_commit[48];
    char upstream[512], note[512];
    ss_ledger_status status;
    struct cJSON *extra;       /* the entry as read (unknown fields survive a save); may be NULL */
} ss_ledger_entry;

typedef struct ss_ledger {
    char path[4096];           /* the ledger file */
    char dir[4096];            /* its directory: reproducers live here */
    ss_ledger_entry *e;
    size_t n, cap;
} ss_ledger;

/* "KIND|TARGET|SCHEDULE". */
void ss_ledger_signature(const char *kind, const char *target, const char *schedule,
                         char *out, size_t n);
const char *ss_ledger_status_name(ss_ledger_status s);

/* Reads the ledger; a missing file is an empty ledger. -1 with err when the
 * file is unreadable or not a ledger (never silently empty). */
int ss_ledger_load(const char *path, ss_ledger *l, ss_error *err);
/* Writes it atomically, entries sorted by signature. */
int ss_ledger_save(const ss_ledger *l, ss_error *err);
ss_ledger_entry *ss_ledger_find(ss_ledger *l, const char *signature);
/* A new zeroed entry (status open); NULL out of memory. Invalidates entry pointers. */
ss_ledger_entry *ss_ledger_add(ss_ledger *l);
void ss_ledger_free(ss_ledger *l);

#endif
