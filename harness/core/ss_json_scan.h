/* ss_json_scan.h - a strict JSON scanner run before cJSON: RFC 8259 grammar, the number and string rules cJSON does not enforce, and where the values arrays lie.
 *
 * The scanner reads the whole text once and allocates only its nesting stack.
 * It refuses what cJSON would accept but JSON does not (01, 1., 00, -, a
 * "\u0000" escape, lone surrogate escapes), integer literals beyond 2^53 in
 * magnitude (a double would round them; inside the values arrays the
 * element decoder judges by dtype), number tokens longer than cJSON's
 * 63 characters, and nesting deeper than CJSON_NESTING_LIMIT. Errors name the
 * field (the key path, e.g. "input.sizes[1]") and the rule, with line:column and byte.
 *
 * It also records the spans of the top-level values.input and values.src
 * arrays, so that cJSON never sees their elements (80 bytes each as cJSON
 * nodes): ss_json_skeleton copies the text with each span replaced by "[]". */
#ifndef SS_JSON_SCAN_H
#define SS_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include "ss_error.h"

typedef struct ss_json_span {
    int present;       /* 1: the array was found (its first occurrence) */
    size_t start;      /* byte offset of its '[' */
    size_t len;        /* bytes through its ']' */
    int64_t count;     /* its elements */
} ss_json_span;

typedef struct ss_json_scan {
    ss_json_span values_input, values_src;
} ss_json_scan;

/* 0 when text[0..len) is one JSON value, surrounded by whitespace only, that
 * keeps the rules above; -1 with err otherwise ("(memory)" when the nesting
 * stack cannot be allocated). */
int ss_json_scan_text(const char *text, size_t len, ss_json_scan *out, ss_error *err);

/* "line L:C (byte N)" for byte offset `at` of text: lines and columns count
 * from 1, columns in bytes (what an editor's status bar shows for ASCII). */
void ss_json_where(const char *text, size_t len, size_t at, char *out, size_t n);

/* A NUL-terminated copy of text with the recorded spans replaced by "[]"
 * (malloc'ed; the caller frees it). NULL when out of memory. */
char *ss_json_skeleton(const char *text, size_t len, const ss_json_scan *s, size_t *out_len);

#endif
