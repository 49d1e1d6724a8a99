/* ss_triage_out.h - a night's triage as verdict.json, JUnit XML and SARIF, and its exit code.
 *
 * verdict.json is the machine-readable outcome scripts act on (no parsing of human
 * output): the exit code and its reason, the regress and campaign facts, and one list
 * per class (new, known, fixed, regressed, unchecked, closed). In JUnit every finding is
 * a testcase of the suite "ssfuzz findings": new, known and regressed ones fail (with
 * type = the class), fixed and closed ones pass, unchecked ones are skipped. In SARIF
 * every open finding is a result added to the regress run, with partialFingerprints
 * {"ssfuzzFinding/v1": SIGNATURE}: the same bug keeps its fingerprint night after night,
 * so a dashboard shows one alert that stays open, and closes when the bug is fixed. */
#ifndef SS_TRIAGE_OUT_H
#define SS_TRIAGE_OUT_H

#include "ss_triage.h"

/* One night's facts beside the triage (history, verdict, HTML). */
typedef struct ss_night {
    char date[32], commit[48], torch[48];
    double cases, seconds, cases_per_second;
    char aliasing[256];        /* aliasing kinds the campaign covered, comma-separated */
    int alias_kinds, alias_kinds_total;
    int regress_rc, fuzz_rc;   /* -1: not run */
    int exit_code;             /* set by ss_night_verdict */
    const char *verdict;
} ss_night;

/* Reads cases, seconds, rate and aliasing kinds from DIR/summary.json (absent: zeros). */
void ss_night_read_summary(const char *dir, ss_night *n);
/* Exit code: 1 when anything is new or regressed or regress failed, else 2 when regress
 * or the campaign could not run, else 0 (only known findings, or none). */
void ss_night_verdict(ss_night *n, const ss_triage *t);

/* Each writes atomically. 0, or -1 with err. */
int ss_triage_write_verdict(const char *path, const ss_night *n, const ss_triage *t, ss_error *err);
int ss_triage_write_junit(const char *path, const ss_triage *t, ss_error *err);
/* Adds the findings to the SARIF in `base` (a regress SARIF file; NULL: a new one). */
int ss_triage_write_sarif(const char *path, const char *base, const ss_triage *t, ss_error *err);

/* "mismatch-emu_mut-x-1d-u8-partial-1234abcd" from the item's reproducer path. */
void ss_triage_item_stem(const ss_triage_item *it, char *out, size_t n);

#endif
