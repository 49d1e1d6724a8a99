/* ss_export_py.h - Python literals for exported scripts (internal to the exporter):
 * tuples, views, bytes, comments and string literals that untrusted text cannot leave. */
#ifndef SS_EXPORT_PY_H
#define SS_EXPORT_PY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "ss_case.h"

/* "(2, 3)", "(4,)", "()". */
void ss_export_py_tuple(FILE *f, const int64_t *v, int n);
/* NAME = dict(size=..., stride=..., storage_offset=...) and a newline. */
void ss_export_py_view(FILE *f, const char *name, const ss_view *v);
/* NAME = bytes.fromhex("""...""") and a newline, 32 bytes a line. */
void ss_export_py_bytes(FILE *f, const char *name, const uint8_t *data, size_t n);
/* bytes.fromhex(...) alone: one line up to 32 bytes, else 32 bytes a line. */
void ss_export_py_hex(FILE *f, const uint8_t *data, size_t n);
/* "# LABEL TEXT" with TEXT sanitized to one printable line. */
void ss_export_py_comment(FILE *f, const char *label, const char *text);
/* '''TEXT''' with every quote and backslash escaped (newlines kept). */
void ss_export_py_long_string(FILE *f, const char *s);
/* 'TEXT' on one line: quotes, backslashes and anything not printable ASCII as escapes. */
void ss_export_py_string(FILE *f, const char *s);
/* The script's first lines: the shebang, what it reproduces (label), and the case's
 * meta (title, upstream, found_by, target, schedule, signature) as comments. */
void ss_export_py_head(FILE *f, const ss_case *c, const char *label);
/* The imports both scripts use, then the case's dtype, element size, both
 * views and whether src aliases the input, as Python constants. */
void ss_export_py_case_views(FILE *f, const ss_case *c);
/* An embedded .py body (ss_export.h) as the script's text: all of it but its leading docstring,
 * which describes the file in the tree, not the script. */
void ss_export_py_body(FILE *f, const char *source);
/* What both kinds of script share, after their case's constants: the torch engine's modes
 * (MODES, ALL_MODES, BACKENDS, STAGES from ss_torch_modes.h), then ss_export_common.py. */
void ss_export_py_common(FILE *f);
/* torch's name of a dtype ("float32"). */
const char *ss_export_torch_dtype(ss_dtype t);

#endif
