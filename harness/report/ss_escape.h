/* ss_escape.h - text made safe for the documents ssfuzz writes: one escaper for
 * XML and HTML (JUnit, the nightly page), one sanitizer for JSON and XML strings. */
#ifndef SS_ESCAPE_H
#define SS_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Write s escaped for XML 1.0 and HTML5 text and attribute values (&<>"' as
 * entities, tab/newline/CR as character references; other control characters,
 * U+FFFE/U+FFFF and invalid UTF-8 become U+FFFD, so the document is always
 * well formed). */
void ss_xml_escape(FILE *f, const char *s);
/* Copy s into out (at most n bytes, NUL-terminated) with invalid UTF-8 and
 * control characters other than tab replaced by '?': safe for any JSON or XML. */
void ss_text_sanitize(const char *s, char *out, size_t n);

#endif
