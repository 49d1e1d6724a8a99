/* ss_pykernel_scan.c - a Python kernel module's kernel names, read from its source without running it. */
#include <stdio.h>
#include <string.h>
#include "ss_pykernel.h"

/* The module is scanned as Python tokens only as far as needed: comments,
 * string literals (any prefix, single or triple quoted; a backslash always
 * takes the next character, which is right for raw strings too) and bracket
 * depth. A top-level assignment is a line at column 0, outside any bracket
 * or string, that starts with the name; the last one wins, as in Python. */
typedef struct scan {
    const char *s;
    size_t n, i;
    int line;
} scan;

static int name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static void next_char(scan *p) {
    if (p->s[p->i] == '\n') p->line++;
    p->i++;
}

/* Skips the string literal whose quote is at p->i; -1 when it does not end. */
static int skip_string(scan *p) {
    const char q = p->s[p->i];
    const int triple = p->i + 2 < p->n && p->s[p->i + 1] == q && p->s[p->i + 2] == q;
    for (int k = 0; k < (triple ? 3 : 1); k++) next_char(p);
    while (p->i < p->n) {
        const char c = p->s[p->i];
        if (c == '\\') {
            next_char(p);
            if (p->i < p->n) next_char(p);
            continue;
        }
        if (c == '\n' && !triple) return -1;
        if (c == q && (!triple || (p->i + 2 < p->n && p->s[p->i + 1] == q && p->s[p->i + 2] == q))) {
            for (int k = 0; k < (triple ? 3 : 1); k++) next_char(p);
            return 0;
        }
        next_char(p);
    }
    return -1;
}

/* Skips blanks, comments, newlines and line continuations. */
static void skip_space(scan *p) {
    while (p->i < p->n) {
        const char c = p->s[p->i];
        if (c == '#') {
            while (p->i < p->n && p->s[p->i] != '\n') next_char(p);
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\\') {
            next_char(p);
        } else {
            return;
        }
    }
}

/* Skips one dict value: everything up to a ',' or '}' outside brackets. */
static int skip_value(scan *p, char *why, size_t n) {
    int depth = 0;
    while (p->i < p->n) {
        const char c = p->s[p->i];
        if (c == '\'' || c == '"') {
            if (skip_string(p)) { snprintf(why, n, "line %d: a string does not end", p->line); return -1; }
            continue;
        }
        if (c == '#') { skip_space(p); continue; }
        if (depth == 0 && (c == ',' || c == '}')) return 0;
        if (c == '(' || c == '[' || c == '{') depth++;
        if (c == ')' || c == ']' || c == '}') depth--;
        next_char(p);
    }
    snprintf(why, n, "SSFUZZ_KERNELS: the dict does not end");
    return -1;
}

/* Parses the dict literal at p->i ('{'): its keys into names. */
static int parse_dict(scan *p, char names[][SS_PYKERNEL_NAME_MAX + 1], int cap, int *count, char *why, size_t n) {
    *count = 0;
    next_char(p);   /* '{' */
    for (;;) {
        skip_space(p);
        if (p->i >= p->n) break;
        if (p->s[p->i] == '}') {
            if (*count == 0) { snprintf(why, n, "line %d: SSFUZZ_KERNELS declares no kernel", p->line); return -1; }
            return 0;
        }
        const char q = p->s[p->i];
        const size_t start = p->i + 1;
        size_t end = start;
        while (end < p->n && (name_char(p->s[end]) || p->s[end] == '.' || p->s[end] == '-')) end++;
        if ((q != '\'' && q != '"') || end >= p->n || p->s[end] != q || end == start ||
            end - start > SS_PYKERNEL_NAME_MAX) {
            snprintf(why, n, "line %d: SSFUZZ_KERNELS: each key must be a plain string literal of 1-%d of "
                     "[A-Za-z0-9_.-] (ssfuzz reads the names without running the module)", p->line,
                     SS_PYKERNEL_NAME_MAX);
            return -1;
        }
        if (*count == cap) {
            snprintf(why, n, "line %d: SSFUZZ_KERNELS: more than %d kernels", p->line, cap);
            return -1;
        }
        char *name = names[*count];
        memcpy(name, p->s + start, end - start);
        name[end - start] = '\0';
        for (int k = 0; k < *count; k++)
            if (!strcmp(names[k], name)) {
                snprintf(why, n, "line %d: SSFUZZ_KERNELS: kernel \"%s\" twice", p->line, name);
                return -1;
            }
        ++*count;
        p->i = end + 1;
        skip_space(p);
        if (p->i >= p->n || p->s[p->i] != ':') {
            snprintf(why, n, "line %d: SSFUZZ_KERNELS: expected ':' after \"%s\"", p->line, name);
            return -1;
        }
        next_char(p);
        if (skip_value(p, why, n)) return -1;
        if (p->s[p->i] == ',') next_char(p);
    }
    snprintf(why, n, "SSFUZZ_KERNELS: the dict does not end");
    return -1;
}

int ss_pykernel_scan(const char *text, size_t len, char names[][SS_PYKERNEL_NAME_MAX + 1], int cap, int *count,
                     char *why, size_t n) {
    static const char key[] = "SSFUZZ_KERNELS";
    const size_t klen = sizeof key - 1;
    scan p = {text, len, 0, 1};
    int depth = 0, found = 0, at_line_start = 1;
    *count = 0;
    if (memchr(text, '\0', len)) { snprintf(why, n, "not a Python source: it holds a NUL byte"); return -1; }
    while (p.i < p.n) {
        const char c = p.s[p.i];
        if (at_line_start && depth == 0 && p.n - p.i > klen && !memcmp(p.s + p.i, key, klen) &&
            !name_char(p.s[p.i + klen])) {
            scan q = p;
            q.i += klen;
            while (q.i < q.n && (q.s[q.i] == ' ' || q.s[q.i] == '\t')) q.i++;
            if (q.i < q.n && q.s[q.i] == ':')   /* an annotation: SSFUZZ_KERNELS: dict = {...} */
                while (q.i < q.n && q.s[q.i] != '\n' && q.s[q.i] != '=') q.i++;
            if (q.i + 1 < q.n && q.s[q.i] == '=' && q.s[q.i + 1] != '=') {
                q.i++;
                skip_space(&q);
                if (q.i >= q.n || q.s[q.i] != '{') {
                    snprintf(why, n, "line %d: SSFUZZ_KERNELS must be a dict literal {\"name\": function, ...} "
                             "(ssfuzz reads the names without running the module)", p.line);
                    return -1;
                }
                if (parse_dict(&q, names, cap, count, why, n)) return -1;
                found = 1;
                p = q;   /* at the closing '}' */
                next_char(&p);
                at_line_start = 0;
                continue;
            }
        }
        at_line_start = 0;
        if (c == '\'' || c == '"') {
            if (skip_string(&p)) { snprintf(why, n, "line %d: a string does not end", p.line); return -1; }
            continue;
        }
        if (c == '#') {
            while (p.i < p.n && p.s[p.i] != '\n') next_char(&p);
            continue;
        }
        if (c == '(' || c == '[' || c == '{') depth++;
        if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
        if (c == '\\' && p.i + 1 < p.n && p.s[p.i + 1] == '\n') {   /* a continued line is not a new one */
            next_char(&p);
            next_char(&p);
            continue;
        }
        at_line_start = c == '\n';
        next_char(&p);
    }
    if (!found) {
        snprintf(why, n, "no top-level SSFUZZ_KERNELS = {\"name\": function, ...} (a dict literal naming the "
                 "module's kernels)");
        return -1;
    }
    return 0;
}
