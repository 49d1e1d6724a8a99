/* ss_error.c - filling an ss_error. */
#include <stdarg.h>
#include <stdio.h>
#include "ss_error.h"
#include "ss_text.h"

/* Field and message often quote a case file's own text (a key, a value, a
 * path): both are made inert here, so every printer of an error is safe. */
int ss_fail(ss_error *err, const char *field, const char *fmt, ...) {
    if (!err) return -1;
    char raw[sizeof err->msg], f[sizeof err->field];   /* copies: a caller may pass err's own text */
    snprintf(f, sizeof f, "%s", field ? field : "");
    ss_text_inert(f, err->field, sizeof err->field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    ss_text_inert(raw, err->msg, sizeof err->msg);
    return -1;
}
