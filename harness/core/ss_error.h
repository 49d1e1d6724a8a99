/* ss_error.h - errors as values: a field name and the rule it breaks. */
#ifndef SS_ERROR_H
#define SS_ERROR_H

typedef struct ss_error {
    char field[96];   /* dotted path, e.g. "input.strides[1]" */
    char msg[256];    /* the rule broken, e.g. "must be >= 0" */
} ss_error;

/* Fills err (when non-NULL) and returns -1, so callers can `return ss_fail(...)`.
 * Field and message are stored inert (ss_text_inert): safe to print as they are. */
int ss_fail(ss_error *err, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Forward a failure unchanged. */
#define SS_TRY(expr) do { if ((expr) != 0) return -1; } while (0)

#endif
