/* ss_json_scan.c - strict JSON grammar and number/string rules before cJSON; spans of the values arrays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_json_scan.h"

/* One open container: its kind, the key being read (objects, raw text
 * between the quotes) or the element index (arrays), and the values span
 * it fills when it is one. */
typedef struct frame {
    char kind;                 /* '{' or '[' */
    const char *key;
    size_t klen;
    int64_t index;
    ss_json_span *span;
} frame;

typedef struct scanner {
    const char *s;
    size_t n, i;
    int depth;
    frame *fr;
    ss_json_scan *out;
    int in_values;             /* inside a values span: its decoder judges the numbers */
    ss_error *err;
} scanner;

/* The key path of the value being read, e.g. "values.input[3]". */
static void path_of(const scanner *c, char *buf, size_t cap) {
    size_t u = 0;
    buf[0] = '\0';
    for (int d = 0; d < c->depth && u < cap; d++) {
        const frame *f = &c->fr[d];
        if (f->kind == '[')
            u += (size_t)snprintf(buf + u, cap - u, "[%lld]", (long long)f->index);
        else if (f->key)
            u += (size_t)snprintf(buf + u, cap - u, "%s%.*s", u ? "." : "",
                                  (int)(f->klen < 40 ? f->klen : 40), f->key);
    }
    if (!buf[0]) snprintf(buf, cap, "(json)");
}

void ss_json_where(const char *text, size_t len, size_t at, char *out, size_t n) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < len; i++) {
        if (text[i] == '\n') { line++; col = 1; }
        else col++;
    }
    snprintf(out, n, "line %zu:%zu (byte %zu)", line, col, at);
}

static int fail_at(const scanner *c, const char *rule) {
    char field[sizeof c->err->field], where[80];
    path_of(c, field, sizeof field);
    ss_json_where(c->s, c->n, c->i, where, sizeof where);
    return ss_fail(c->err, field, "%s at %s", rule, where);
}

static int syntax(const scanner *c) {
    char where[80];
    ss_json_where(c->s, c->n, c->i, where, sizeof where);
    return ss_fail(c->err, "(json)", "syntax error at %s", where);
}

static void skip_ws(scanner *c) {
    while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' ||
                           c->s[c->i] == '\r'))
        c->i++;
}

static int hex4(const char *p, unsigned *v) {
    *v = 0;
    for (int k = 0; k < 4; k++) {
        const char h = p[k];
        const int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0) return -1;
        *v = *v << 4 | (unsigned)d;
    }
    return 0;
}

/* A string at c->i (its opening quote). For a key, key and klen get its raw text. */
static int scan_string(scanner *c, int is_key, const char **key, size_t *klen) {
    const size_t open = ++c->i;
    for (;;) {
        if (c->i >= c->n) return syntax(c);
        const unsigned char ch = (unsigned char)c->s[c->i];
        if (ch == '"') break;
        if (ch < 0x20) return syntax(c);
        if (ch != '\\') { c->i++; continue; }
        if (c->i + 1 >= c->n) { c->i = c->n; return syntax(c); }
        const char e = c->s[c->i + 1];
        if (strchr("\"\\/bfnrt", e) && e) { c->i += 2; continue; }
        unsigned v, lo;
        if (e != 'u' || c->i + 6 > c->n || hex4(c->s + c->i + 2, &v)) return syntax(c);
        if (v == 0) {
            if (is_key) { *key = c->s + open; *klen = c->i + 6 - open; }
            return fail_at(c, is_key ? "key holds \\u0000 (NUL), refused in strings"
                                     : "string holds \\u0000 (NUL), refused in strings");
        }
        if (v >= 0xDC00 && v <= 0xDFFF) return fail_at(c, "lone low surrogate escape \\uDC00-\\uDFFF");
        if (v >= 0xD800 && v <= 0xDBFF) {
            if (c->i + 12 > c->n || c->s[c->i + 6] != '\\' || c->s[c->i + 7] != 'u' ||
                hex4(c->s + c->i + 8, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                return fail_at(c, "high surrogate escape not followed by a low one");
            c->i += 6;
        }
        c->i += 6;
    }
    if (is_key) { *key = c->s + open; *klen = c->i - open; }
    c->i++;
    return 0;
}

/* A malformed number: the token as written (number characters only) and why. */
static int bad_number(const scanner *c, size_t start, const char *why) {
    size_t e = start;
    while (e < c->n && e - start < 24 && strchr("0123456789+-.eE", c->s[e]) && c->s[e]) e++;
    char rule[128];
    snprintf(rule, sizeof rule, "\"%.*s\" is not a JSON number (%s)", (int)(e - start), c->s + start, why);
    return fail_at(c, rule);
}

/* A number at c->i: JSON's grammar exactly, at most 63 characters (cJSON
 * reads no more), and an integer literal within [-2^53, 2^53]. */
static int scan_number(scanner *c) {
    const size_t start = c->i;
    const char *s = c->s;
    size_t i = c->i;
    int integral = 1;
    char rule[160];
    if (i < c->n && s[i] == '-') i++;
    const size_t digits = i;
    if (i < c->n && s[i] == '0') {
        i++;
        if (i < c->n && s[i] >= '0' && s[i] <= '9') { c->i = i; goto bad_zero; }
    } else if (i < c->n && s[i] >= '1' && s[i] <= '9') {
        while (i < c->n && s[i] >= '0' && s[i] <= '9') i++;
    } else {
        c->i = i;
        return fail_at(c, "'-' must be followed by digits (not a JSON number)");
    }
    const size_t int_end = i;
    if (i < c->n && s[i] == '.') {
        integral = 0;
        if (++i >= c->n || s[i] < '0' || s[i] > '9') { c->i = i; goto bad_frac; }
        while (i < c->n && s[i] >= '0' && s[i] <= '9') i++;
    }
    if (i < c->n && (s[i] == 'e' || s[i] == 'E')) {
        integral = 0;
        if (++i < c->n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= c->n || s[i] < '0' || s[i] > '9') { c->i = i; goto bad_exp; }
        while (i < c->n && s[i] >= '0' && s[i] <= '9') i++;
    }
    c->i = i;
    if (i - start > 63) return fail_at(c, "number longer than 63 characters (cJSON's limit)");
    if (integral && !c->in_values) {
        static const char two53[] = "9007199254740992";
        const size_t nd = int_end - digits;
        if (nd > 16 || (nd == 16 && memcmp(s + digits, two53, 16) > 0)) {
            snprintf(rule, sizeof rule, "integer %.*s is beyond 2^53 in magnitude (a double cannot "
                     "hold it exactly)", (int)(i - start), s + start);
            return fail_at(c, rule);
        }
    }
    return 0;
bad_zero:
    return bad_number(c, start, "leading zero");
bad_frac:
    return bad_number(c, start, "'.' must be followed by digits");
bad_exp:
    return bad_number(c, start, "an exponent needs digits");
}

static int scan_literal(scanner *c) {
    static const char *const lits[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++) {
        const size_t l = strlen(lits[k]);
        if (c->n - c->i >= l && !memcmp(c->s + c->i, lits[k], l)) { c->i += l; return 0; }
    }
    return syntax(c);
}

/* The span a new array at this point fills: values.input / values.src at the
 * top level, first occurrence only. */
static ss_json_span *span_here(const scanner *c) {
    if (c->depth != 2 || c->fr[0].kind != '{' || c->fr[1].kind != '{') return NULL;
    if (c->fr[0].klen != 6 || memcmp(c->fr[0].key, "values", 6)) return NULL;
    ss_json_span *sp = NULL;
    if (c->fr[1].klen == 5 && !memcmp(c->fr[1].key, "input", 5)) sp = &c->out->values_input;
    if (c->fr[1].klen == 3 && !memcmp(c->fr[1].key, "src", 3)) sp = &c->out->values_src;
    return sp && !sp->present ? sp : NULL;
}

/* After '{' or ',' in an object: a key and its colon. */
static int scan_key(scanner *c) {
    skip_ws(c);
    if (c->i >= c->n || c->s[c->i] != '"') return syntax(c);
    frame *f = &c->fr[c->depth - 1];
    SS_TRY(scan_string(c, 1, &f->key, &f->klen));
    skip_ws(c);
    if (c->i >= c->n || c->s[c->i] != ':') return syntax(c);
    c->i++;
    return 0;
}

static int push(scanner *c, char kind) {
    if (c->depth >= CJSON_NESTING_LIMIT) {
        char where[80];
        ss_json_where(c->s, c->n, c->i, where, sizeof where);
        return ss_fail(c->err, "(json)", "nesting deeper than %d at %s", CJSON_NESTING_LIMIT, where);
    }
    frame *f = &c->fr[c->depth];
    ss_json_span *sp = kind == '[' ? span_here(c) : NULL;
    *f = (frame){kind, NULL, 0, 0, sp};
    if (sp) { sp->start = c->i; c->in_values = 1; }
    c->depth++;
    c->i++;
    return 0;
}

/* Closes the top container at c->i (its bracket); fills its span. */
static void pop(scanner *c, int empty) {
    frame *f = &c->fr[--c->depth];
    c->i++;
    if (f->span) {
        c->in_values = 0;
        f->span->present = 1;
        f->span->len = c->i - f->span->start;
        f->span->count = empty ? 0 : f->index + 1;
    }
}

static int scan_value_tree(scanner *c) {
    for (;;) {
        skip_ws(c);   /* a value */
        if (c->i >= c->n) return syntax(c);
        const char ch = c->s[c->i];
        if (ch == '{' || ch == '[') {
            SS_TRY(push(c, ch));
            skip_ws(c);
            if (c->i < c->n && c->s[c->i] == (ch == '{' ? '}' : ']')) pop(c, 1);
            else if (ch == '{') { SS_TRY(scan_key(c)); continue; }
            else continue;
        } else if (ch == '"') {
            SS_TRY(scan_string(c, 0, NULL, NULL));
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            SS_TRY(scan_number(c));
        } else {
            SS_TRY(scan_literal(c));
        }
        for (;;) {   /* after a value: a separator, or close containers */
            if (c->depth == 0) return 0;
            skip_ws(c);
            if (c->i >= c->n) return syntax(c);
            frame *f = &c->fr[c->depth - 1];
            const char sep = c->s[c->i];
            if (sep == ',') {
                c->i++;
                if (f->kind == '{') SS_TRY(scan_key(c));
                else f->index++;
                break;
            }
            if (sep != (f->kind == '{' ? '}' : ']')) return syntax(c);
            pop(c, 0);
        }
    }
}

int ss_json_scan_text(const char *text, size_t len, ss_json_scan *out, ss_error *err) {
    memset(out, 0, sizeof *out);
    scanner c = {text, len, 0, 0, malloc(sizeof(frame) * CJSON_NESTING_LIMIT), out, 0, err};
    if (!c.fr) return ss_fail(err, "(memory)", "out of memory for the JSON scanner");
    int rc = scan_value_tree(&c);
    if (rc == 0) {
        skip_ws(&c);
        if (c.i != len) rc = syntax(&c);
    }
    free(c.fr);
    return rc;
}

char *ss_json_skeleton(const char *text, size_t len, const ss_json_scan *s, size_t *out_len) {
    const ss_json_span *sp[2] = {&s->values_input, &s->values_src};
    if (sp[0]->present && sp[1]->present && sp[1]->start < sp[0]->start) {
        sp[0] = &s->values_src;
        sp[1] = &s->values_input;
    }
    size_t n = len;
    for (int k = 0; k < 2; k++)
        if (sp[k]->present) n -= sp[k]->len - 2;
    char *o = malloc(n + 1);
    if (!o) return NULL;
    size_t from = 0, u = 0;
    for (int k = 0; k < 2; k++) {
        if (!sp[k]->present) continue;
        memcpy(o + u, text + from, sp[k]->start - from);
        u += sp[k]->start - from;
        o[u++] = '[';
        o[u++] = ']';
        from = sp[k]->start + sp[k]->len;
    }
    memcpy(o + u, text + from, len - from);
    u += len - from;
    o[u] = '\0';
    *out_len = u;
    return o;
}
