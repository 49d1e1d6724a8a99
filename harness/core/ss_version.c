/* ss_version.c - version numbers and ranges for torch expectations. */
#include <stdio.h>
#include <string.h>
#include "ss_version.h"

#define NPARTS 4

/* Leading "N(.N)*" of s into v; returns the characters read, 0 when none. */
static size_t parse_version(const char *s, long v[NPARTS]) {
    size_t i = 0;
    memset(v, 0, NPARTS * sizeof v[0]);
    for (int k = 0; k < NPARTS; k++) {
        if (s[i] < '0' || s[i] > '9') return k ? i - 1 : 0;   /* "2." reads as 2 */
        long n = 0;
        while (s[i] >= '0' && s[i] <= '9') {
            if (n > 100000000) return 0;
            n = n * 10 + (s[i++] - '0');
        }
        v[k] = n;
        if (s[i] != '.') return i;
        i++;
    }
    return i;
}

static int compare(const long a[NPARTS], const long b[NPARTS]) {
    for (int k = 0; k < NPARTS; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* Parses one clause at *s (spaces allowed around it); *ok 0 when malformed. */
static int clause_holds(const char **s, const long have[NPARTS], int *ok) {
    const char *p = *s;
    while (*p == ' ') p++;
    static const char *const ops[] = {"<=", ">=", "==", "!=", "<", ">"};
    int op = -1;
    for (int i = 0; i < 6 && op < 0; i++)
        if (!strncmp(p, ops[i], strlen(ops[i]))) { op = i; p += strlen(ops[i]); }
    while (*p == ' ') p++;
    long want[NPARTS];
    const size_t n = op < 0 ? 0 : parse_version(p, want);
    p += n;
    while (*p == ' ') p++;
    if (op < 0 || !n || (*p && *p != ',')) { *ok = 0; return 0; }
    *s = *p ? p + 1 : p;
    const int c = compare(have, want);
    switch (op) {
    case 0: return c <= 0;
    case 1: return c >= 0;
    case 2: return c == 0;
    case 3: return c != 0;
    case 4: return c < 0;
    default: return c > 0;
    }
}

static int evaluate(const char *version, const char *range) {
    long have[NPARTS];
    if (!parse_version(version, have) || !*range) return -1;
    int ok = 1, all = 1;
    for (const char *s = range; *s && ok;) all &= clause_holds(&s, have, &ok);
    return ok ? all : -1;
}

int ss_version_range_check(const char *range, char *why, unsigned long why_len) {
    if (evaluate("0", range) >= 0) return 0;
    snprintf(why, why_len, "must be comma-separated clauses OP VERSION, OP one of <, <=, >, >=, ==, != "
             "(e.g. \"<2.15\" or \">=2.0,<2.15\")");
    return -1;
}

int ss_version_in_range(const char *version, const char *range) { return evaluate(version, range); }
