/* ss_version.h - PEP 440 versions ("2.14.1+cu130", "2.15.0a0+git1a2b3c",
 * "2.16.0.dev20250101", "1!2.0.post1") and ranges (">=2.0,<2.15",
 * "==2.14.1") as a case's expect block uses them for torch targets.
 *
 * Ordering is PEP 440's: epoch (N!), then the release (any number of
 * components, trailing zeros insignificant: 2.15 == 2.15.0), then
 *   X.devN < X.aN.devM < X.aN < X.aN.postM < X.bN < X.rcN < X < X.postN.devM < X.postN
 * so a nightly "2.15.0.dev20250101" or "2.15.0a0+git..." is below 2.15: a
 * range "<2.15" contains it, ">=2.15" does not (write ">=2.15.dev0" to take in
 * a release's pre-releases and nightlies). PEP 440's spellings are accepted,
 * case-insensitive: alpha/beta/c/pre/preview for a/b/rc, rev/r and "-N" for
 * post, an optional '.', '-' or '_' before each suffix and its number, a
 * missing number meaning 0 ("2.15rc" == "2.15rc0"). A local label ("+cu130")
 * is checked but ignored in ordering; a range's versions may not carry one.
 * Not accepted: a leading "v", whitespace inside a version, a component of
 * more than 18 digits (no overflow), more than SS_VERSION_MAX_PARTS release
 * components. Every refusal is one line naming the string and the rule. */
#ifndef SS_VERSION_H
#define SS_VERSION_H

#include <stddef.h>
#include <stdint.h>

#define SS_VERSION_MAX_PARTS 16

typedef struct ss_version {
    uint64_t epoch;
    uint64_t release[SS_VERSION_MAX_PARTS];
    int n_release;      /* trailing zeros dropped: 2.15.0 holds {2, 15} */
    int pre;            /* 0 none, 1 a, 2 b, 3 rc */
    uint64_t pre_n;
    int has_post, has_dev, has_local;
    uint64_t post_n, dev_n;
} ss_version;

/* 0 with *v filled when s is a whole PEP 440 version, else -1 with why
 * ("\"v2.15\" is not a PEP 440 version: ..."). */
int ss_version_parse(const char *s, ss_version *v, char *why, size_t why_len);
/* <0, 0, >0 as a sorts before, with or after b (local labels ignored). */
int ss_version_compare(const ss_version *a, const ss_version *b);

/* 0 when `range` is well formed (comma-separated OP VERSION clauses, OP one
 * of <, <=, >, >=, ==, !=; no empty clause, no trailing comma), else -1 with
 * the rule broken in why ("\"<2.15,\" is not a version range: empty clause
 * after ','"). */
int ss_version_range_check(const char *range, char *why, unsigned long why_len);
/* 1 when `version` lies in `range`, 0 when not, -1 when either is malformed
 * (ss_version_parse and ss_version_range_check say why). */
int ss_version_in_range(const char *version, const char *range);

#endif
