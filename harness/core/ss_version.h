/* ss_version.h - version numbers ("2.14.1+cu130", "1.13.0a0") and ranges
 * ("<2.15", ">=2.0,<2.15", "==2.14.1") as a case's expect block uses them for
 * torch targets. Only the leading numeric components count: pre-release and
 * local suffixes are ignored, missing components are 0 (2.15 == 2.15.0). */
#ifndef SS_VERSION_H
#define SS_VERSION_H

/* 0 when `range` is well formed (comma-separated OP VERSION, OP one of
 * <, <=, >, >=, ==, !=), else -1 with the rule broken in why. */
int ss_version_range_check(const char *range, char *why, unsigned long why_len);
/* 1 when `version` lies in `range`, 0 when not, -1 when either is malformed. */
int ss_version_in_range(const char *version, const char *range);

#endif
