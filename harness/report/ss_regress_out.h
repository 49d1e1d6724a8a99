/* ss_regress_out.h - regress results as records, and their JUnit XML and SARIF 2.1.0 forms.
 *
 * Ownership: an ss_check_list owns its records and their strings; free it with
 * ss_check_list_free. Writers build the whole document in memory and write it
 * with ss_write_atomic, so a reader never sees half a report. */
#ifndef SS_REGRESS_OUT_H
#define SS_REGRESS_OUT_H

#include <stdio.h>
#include "ss_compare.h"
#include "ss_error.h"

struct cJSON;

typedef enum ss_check_status {
    SS_CHECK_HELD = 0,       /* the expectation holds */
    SS_CHECK_FAILED,         /* it does not: a regression */
    SS_CHECK_SKIPPED,        /* not run (mutant not named, target unavailable) */
    SS_CHECK_ERROR           /* the case itself is invalid */
} ss_check_status;

/* One (case, target) check. target is "(case)" for a case that could not be
 * read or planned, "reference" for the case's own `reject` expectation. */
typedef struct ss_check_record {
    char *case_path;
    char *target;
    char *schedule;          /* the run shown, may be NULL */
    ss_check_status status;
    double seconds;
    char signature[32];      /* observed: a verdict name, "missed-expected-failure", "invalid-case" */
    char *message;           /* one line */
    int has_diff;            /* diff below describes the first differing element */
    ss_diff diff;
    int ndim;                /* input view rank, to print diff.logical */
} ss_check_record;

typedef struct ss_check_list {
    ss_check_record *r;
    size_t n, cap;
} ss_check_list;

/* Append a record (strings copied; diff may be NULL). 0 ok, -1 out of memory. */
int ss_check_list_add(ss_check_list *l, const char *case_path, const char *target,
                      const char *schedule, ss_check_status st, double seconds,
                      const char *signature, const char *message, const ss_diff *diff, int ndim);
void ss_check_list_free(ss_check_list *l);

/* "input[5] (logical [1, 1]): expected 0x.., got 0x..; 3 elements differ" parts. */
void ss_diff_hex(const uint8_t *bytes, size_t elem_size, char *out, size_t n);
void ss_diff_logical(const ss_diff *d, int ndim, char *out, size_t n);

int ss_junit_write(const char *path, const ss_check_list *l, double total_seconds, ss_error *err);
int ss_sarif_write(const char *path, const ss_check_list *l, ss_error *err);
/* The SARIF document ss_sarif_write writes (l may be NULL: no results), for callers
 * that add results of their own (triage); NULL out of memory. */
struct cJSON *ss_sarif_document(const ss_check_list *l);
/* result.locations: one physical location, the file at `path` as a relative URI
 * reference (RFC 3986 unreserved and '/' kept, the rest %XX), line 1. */
void ss_sarif_add_location(struct cJSON *result, const char *path);

#endif
