/* ss_escape.h - text made safe for the documents ssfuzz writes: one escaper for
 * XML and HTML (JUnit, the nightly page), one sanitizer for JSON and XML strings. */
#ifndef SS_ESCAPE_H
#define SS_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Write s escaped for XML 1.0 and HTML5 text and attribute values (&<>"' as
 * entities, tab/newline/CR as character references; other control characters
 * (C0, DEL, C1), bidirectional overrides, U+FFFE/U+FFFF and invalid UTF-8
 * become U+FFFD, so the document is always well formed and shows what it says). */
void ss_xml_escape(FILE *f, const char *s);
/* Write s as one word of a command line in such a document: quoted for a
 * POSIX shell (ss_shell_quote), then escaped as ss_xml_escape does. */
void ss_xml_escape_word(FILE *f, const char *s);
/* Copy s into out (at most n bytes, NUL-terminated) with invalid UTF-8 and
 * the characters ss_text_shown refuses (but tab) replaced by '?': safe for any
 * JSON or XML, and for a terminal that shows it. */
void ss_text_sanitize(const char *s, char *out, size_t n);

#endif
