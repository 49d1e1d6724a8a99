/* ss_version.c - PEP 440 versions and ranges for torch expectations. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ss_version.h"

/* 10^18 - 1 < 2^63: a component of at most 18 digits never overflows, and
 * post_n + 1 below stays exact. Versions in the wild use 8 (dev dates). */
#define MAX_DIGITS 18
#define QUOTE_MAX 40

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alnum(char c) { return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); }
static int is_sep(char c) { return c == '.' || c == '-' || c == '_'; }
static int is_space(char c) { return c == ' ' || c == '\t'; }

/* "s" with bytes outside printable ASCII as \xNN and at most QUOTE_MAX bytes
 * shown: messages stay one line whatever a case file or a worker holds. */
static void quote(const char *s, size_t len, char *out, size_t n) {
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < len && i < QUOTE_MAX && o + 8 < n; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') o += (size_t)snprintf(out + o, n - o, "\\x%02x", c);
        else out[o++] = (char)c;
    }
    if (len > QUOTE_MAX && o + 5 < n) { memcpy(out + o, "...", 3); o += 3; }
    out[o++] = '"';
    out[o] = 0;
}

typedef struct parser {
    const char *s, *p;   /* the whole string, the next character */
    char *why;
    size_t why_len;
} parser;

__attribute__((format(printf, 2, 3)))
static int fail(parser *ps, const char *fmt, ...) {
    if (!ps->why || !ps->why_len) return -1;
    char q[QUOTE_MAX * 4 + 8], rule[160];
    quote(ps->s, strlen(ps->s), q, sizeof q);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rule, sizeof rule, fmt, ap);
    va_end(ap);
    snprintf(ps->why, ps->why_len, "%s is not a PEP 440 version: %s", q, rule);
    return -1;
}

/* The digits at ps->p into *n; leading zeros do not count toward MAX_DIGITS. */
static int number(parser *ps, uint64_t *n) {
    const char *start = ps->p;
    while (*ps->p == '0') ps->p++;
    const char *sig = ps->p;
    while (is_digit(*ps->p)) ps->p++;
    if (ps->p - sig > MAX_DIGITS) {
        char q[QUOTE_MAX * 4 + 8];
        quote(start, (size_t)(ps->p - start), q, sizeof q);
        return fail(ps, "component %s has more than %d digits", q, MAX_DIGITS);
    }
    uint64_t v = 0;
    for (const char *d = sig; d < ps->p; d++) v = v * 10 + (uint64_t)(*d - '0');
    *n = v;
    return 0;
}

/* Length of w at p, case-insensitive; 0 when p does not start with it. */
static size_t word(const char *p, const char *w) {
    size_t i = 0;
    for (; w[i]; i++)
        if ((p[i] | 0x20) != w[i]) return 0;
    return i;
}

/* An optional separator and one of labels at ps->p: consumed, its index in
 * *which; 0 when none is there (nothing consumed). */
static int label(parser *ps, const char *const *labels, int *which) {
    const size_t sep = is_sep(*ps->p) ? 1 : 0;
    for (int k = 0; labels[k]; k++) {
        const size_t m = word(ps->p + sep, labels[k]);
        if (m) { ps->p += sep + m; *which = k; return 1; }
    }
    return 0;
}

/* A label's number: an optional separator, then digits; none means 0. */
static int label_number(parser *ps, uint64_t *n) {
    if (is_sep(*ps->p) && is_digit(ps->p[1])) ps->p++;
    *n = 0;
    return is_digit(*ps->p) ? number(ps, n) : 0;
}

static int release(parser *ps, ss_version *v) {
    uint64_t first;
    if (number(ps, &first)) return -1;
    if (*ps->p == '!') {
        v->epoch = first;
        ps->p++;
        if (!is_digit(*ps->p)) return fail(ps, "the epoch \"N!\" must be followed by a release number");
        if (number(ps, &first)) return -1;
    }
    v->release[0] = first;
    int n = 1;
    while (*ps->p == '.' && is_digit(ps->p[1])) {
        if (n == SS_VERSION_MAX_PARTS) return fail(ps, "more than %d release components", SS_VERSION_MAX_PARTS);
        ps->p++;
        if (number(ps, &v->release[n++])) return -1;
    }
    while (n > 0 && v->release[n - 1] == 0) n--;   /* 2.15.0 == 2.15; 0.0 == 0 */
    v->n_release = n;
    return 0;
}

/* pre, post and dev suffixes, each optional, in that order. */
static int suffixes(parser *ps, ss_version *v) {
    static const char *const pre[] = {"alpha", "a", "beta", "b", "preview", "pre", "rc", "c", NULL};
    static const int pre_kind[] = {1, 1, 2, 2, 3, 3, 3, 3};
    static const char *const post[] = {"post", "rev", "r", NULL};
    static const char *const dev[] = {"dev", NULL};
    int k;
    if (label(ps, pre, &k)) {
        v->pre = pre_kind[k];
        if (label_number(ps, &v->pre_n)) return -1;
    }
    if (*ps->p == '-' && is_digit(ps->p[1])) {   /* "1.0-1" is 1.0.post1 */
        ps->p++;
        v->has_post = 1;
        if (number(ps, &v->post_n)) return -1;
    } else if (label(ps, post, &k)) {
        v->has_post = 1;
        if (label_number(ps, &v->post_n)) return -1;
    }
    if (label(ps, dev, &k)) {
        v->has_dev = 1;
        if (label_number(ps, &v->dev_n)) return -1;
    }
    return 0;
}

/* "+" then letters and digits in runs separated by '.', '-' or '_'. */
static int local(parser *ps, ss_version *v) {
    if (*ps->p != '+') return 0;
    ps->p++;
    v->has_local = 1;
    for (;;) {
        if (!is_alnum(*ps->p))
            return fail(ps, "the local label after '+' must be letters and digits separated by '.', '-' or '_'");
        while (is_alnum(*ps->p)) ps->p++;
        if (!is_sep(*ps->p)) return 0;
        ps->p++;
    }
}

int ss_version_parse(const char *s, ss_version *v, char *why, size_t why_len) {
    parser ps = {s, s, why, why_len};
    memset(v, 0, sizeof *v);
    if (!is_digit(*s))
        return fail(&ps, "must start with a release number like 2.15.0%s",
                    (*s | 0x20) == 'v' ? " (a leading \"v\" is not accepted)" : "");
    if (release(&ps, v)) return -1;
    const char *after_release = ps.p;
    if (suffixes(&ps, v) || local(&ps, v)) return -1;
    if (*ps.p) {   /* shown from the release on: "2.15-custom" read "-c" as rc before failing */
        char rest[QUOTE_MAX * 4 + 8], done[QUOTE_MAX * 4 + 8];
        quote(after_release, strlen(after_release), rest, sizeof rest);
        quote(s, (size_t)(after_release - s), done, sizeof done);
        return fail(&ps, "unexpected %s after %s (suffixes: aN, bN, rcN, .postN, .devN, +local)", rest, done);
    }
    return 0;
}

static int cmp_u64(uint64_t a, uint64_t b) { return (a > b) - (a < b); }

/* Where the pre-release places a version among its release's: a dev release
 * with no pre or post (X.devN) first, then X.aN..X.rcN, then X and its posts. */
static int pre_rank(const ss_version *v) {
    if (v->pre) return 1;
    return v->has_dev && !v->has_post ? 0 : 2;
}

int ss_version_compare(const ss_version *a, const ss_version *b) {
    int c = cmp_u64(a->epoch, b->epoch);
    const int n = a->n_release > b->n_release ? a->n_release : b->n_release;
    for (int i = 0; !c && i < n; i++)
        c = cmp_u64(i < a->n_release ? a->release[i] : 0, i < b->n_release ? b->release[i] : 0);
    if (!c) c = pre_rank(a) - pre_rank(b);
    if (!c && pre_rank(a) == 1) c = a->pre != b->pre ? a->pre - b->pre : cmp_u64(a->pre_n, b->pre_n);
    /* no post sorts before any post; no dev sorts after any dev */
    if (!c) c = cmp_u64(a->has_post ? a->post_n + 1 : 0, b->has_post ? b->post_n + 1 : 0);
    if (!c) c = (b->has_dev - a->has_dev);
    if (!c && a->has_dev) c = cmp_u64(a->dev_n, b->dev_n);
    return c;
}

__attribute__((format(printf, 4, 5)))
static int range_fail(const char *range, char *why, size_t why_len, const char *fmt, ...) {
    if (!why || !why_len) return -1;
    char q[QUOTE_MAX * 4 + 8], rule[200];
    quote(range, strlen(range), q, sizeof q);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rule, sizeof rule, fmt, ap);
    va_end(ap);
    snprintf(why, why_len, "%s is not a version range: %s", q, rule);
    return -1;
}

/* 1 / 0 as `have` lies in range or not (have NULL: 1 for any well-formed
 * range), -1 with why when the range is malformed. */
static int evaluate(const ss_version *have, const char *range, char *why, size_t why_len) {
    static const char *const ops[] = {"<=", ">=", "==", "!=", "<", ">"};
    int all = 1;
    for (const char *s = range;;) {
        const char *end = strchr(s, ',');
        if (!end) end = s + strlen(s);
        const char *a = s, *b = end;
        while (a < b && is_space(*a)) a++;
        while (b > a && is_space(b[-1])) b--;
        if (a == b)
            return range_fail(range, why, why_len, "%s", s == range && !*end ? "empty (write e.g. \"<2.15\" or \">=2.0,<2.15\")"
                                                  : s == range ? "empty clause before ','" : "empty clause after ','");
        char q[QUOTE_MAX * 4 + 8];
        quote(a, (size_t)(b - a), q, sizeof q);
        int op = -1;
        for (int i = 0; i < 6 && op < 0; i++)
            if (!strncmp(a, ops[i], strlen(ops[i]))) { op = i; a += strlen(ops[i]); }
        if (op < 0)
            return range_fail(range, why, why_len, "clause %s must start with <, <=, >, >=, == or !=", q);
        while (a < b && is_space(*a)) a++;
        if (a == b) return range_fail(range, why, why_len, "clause %s has no version after %s", q, ops[op]);
        char text[128], inner[256];
        if ((size_t)(b - a) >= sizeof text)
            return range_fail(range, why, why_len, "clause %s: version longer than %zu characters", q, sizeof text - 1);
        memcpy(text, a, (size_t)(b - a));
        text[b - a] = 0;
        ss_version want;
        if (ss_version_parse(text, &want, inner, sizeof inner)) return range_fail(range, why, why_len, "%s", inner);
        if (want.has_local)
            return range_fail(range, why, why_len, "clause %s: a local label (+...) is ignored in ordering, "
                              "so a range may not name one", q);
        if (have) {
            const int c = ss_version_compare(have, &want);
            const int holds[] = {c <= 0, c >= 0, c == 0, c != 0, c < 0, c > 0};
            all &= holds[op];
        }
        if (!*end) return all;
        s = end + 1;
    }
}

int ss_version_range_check(const char *range, char *why, unsigned long why_len) {
    return evaluate(NULL, range, why, why_len) < 0 ? -1 : 0;
}

int ss_version_in_range(const char *version, const char *range) {
    ss_version v;
    if (ss_version_parse(version, &v, NULL, 0)) return -1;
    return evaluate(&v, range, NULL, 0);
}
