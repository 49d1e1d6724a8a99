/* ss_error.c - filling an ss_error. */
#include <stdarg.h>
#include <stdio.h>
#include "ss_error.h"

int ss_fail(ss_error *err, const char *field, const char *fmt, ...) {
    if (!err) return -1;
    snprintf(err->field, sizeof err->field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}
