/* ss_expect.h - a case's `expect` block: which targets must agree, which must fail, and how.
 *
 *   "expect": {"agree": "*" | ["*", "emu:mut-step-ignored", ...],
 *              "fail": {"emu:mut-alias-unchecked": "mismatch",
 *                       "torch:compile-cpu:setitem-clone": {"signature": "mismatch",
 *                                                           "torch": ">=2.0,<2.15"}, ...},
 *              "reject": true}
 *
 * Every non-mutant target must agree with the reference (or reject alike)
 * unless `fail` names it; a mutant is checked only where `agree` or `fail`
 * names it. A `fail` entry holds when its signature (an ss_verdict_name, or
 * "any") shows up under at least one schedule. `reject`: the reference itself
 * must reject the case (input view with internal overlap).
 *
 * A `fail` entry with a "torch" range (ss_version.h) expects the failure only
 * while the running torch's version is in the range, and agreement outside
 * it: a nightly on a new release then tells "fixed upstream" (agrees inside
 * the range) from "regressed upstream" (fails outside it). Versions order as
 * PEP 440 does (ss_version.h). A running torch whose version is unknown or not
 * a PEP 440 version leaves such an entry unjudged (SS_EXPECT_UNJUDGED), never
 * silently expected to fail. torch:* targets run only when a case's expect
 * names them or --target does. */
#ifndef SS_EXPECT_H
#define SS_EXPECT_H

#include "ss_check.h"
#include "ss_error.h"
#include "ss_replay.h"
#include "ss_target.h"

struct cJSON;

#define SS_EXPECT_MAX 64

typedef enum ss_expect_kind {
    SS_EXPECT_SKIP = 0,     /* a mutant the case does not name: not run */
    SS_EXPECT_AGREE,
    SS_EXPECT_FAIL,
    SS_EXPECT_UNJUDGED      /* a torch range, but the running version cannot be placed in it */
} ss_expect_kind;

typedef struct ss_expect_entry {
    const ss_target *target;
    ss_expect_kind kind;
    char signature[32];     /* SS_EXPECT_FAIL: a verdict name or "any" */
    char torch_range[64];   /* "" or the torch versions where the failure is expected */
} ss_expect_entry;

typedef struct ss_expect {
    int reject;
    size_t n;
    ss_expect_entry e[SS_EXPECT_MAX];
} ss_expect;

/* Parse (NULL block: defaults). -1 with err naming the field on anything
 * unknown: a misspelt target must not silently weaken the suite. */
int ss_expect_parse(const struct cJSON *block, ss_expect *out, ss_error *err);
/* What the case expects of t; *signature is set for SS_EXPECT_FAIL (and for
 * an entry whose torch range excludes the running torch, which expects
 * agreement). SS_EXPECT_UNJUDGED: t's entry has a torch range and the running
 * version is unknown or malformed; ss_expect_unjudged_why says which. */
ss_expect_kind ss_expect_of(const ss_expect *x, const ss_target *t, const char **signature);
/* One line for SS_EXPECT_UNJUDGED: the version, the rule it breaks, the range. */
void ss_expect_unjudged_why(const ss_expect *x, const ss_target *t, char *buf, size_t n);
/* 1 when the case's expect names t (agree or fail). */
int ss_expect_names(const ss_expect *x, const ss_target *t);
/* " (torch 2.15.0; fails only in <2.15)" for an entry with a range, else "". */
void ss_expect_range_note(const ss_expect *x, const ss_target *t, char *buf, size_t n);

/* The verdict of a target over its runs (one per schedule), against what was expected. */
typedef struct ss_expect_outcome {
    int held;
    double seconds;             /* all runs together */
    const ss_replay_run *shown; /* the run the message describes (may be NULL) */
    char signature[32];         /* what was observed: a verdict name, or "missed-expected-failure" */
    char message[1024];         /* one line */
} ss_expect_outcome;

void ss_expect_judge(ss_expect_kind kind, const char *signature, const ss_plan *plan,
                     const ss_replay_run *runs, size_t n, ss_expect_outcome *out);

#endif
