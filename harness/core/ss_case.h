/* ss_case.h - the case model: what a human writes or reads, and its JSON form.
 *
 * Ownership: an ss_case owns values_input, values_src, meta, expect and
 * program; free them all with ss_case_free. Strings returned by ss_case_to_json are malloc'ed
 * and freed by the caller. Every reader assumes hostile input. */
#ifndef SS_CASE_H
#define SS_CASE_H

#include <stdint.h>
#include <stddef.h>
#include "ss_plan.h"
#include "ss_error.h"

struct cJSON;

typedef enum ss_dtype {
    SS_BOOL = 0, SS_UINT8, SS_INT8, SS_INT16, SS_INT32, SS_INT64,
    SS_FLOAT16, SS_BFLOAT16, SS_FLOAT32, SS_FLOAT64, SS_COMPLEX64, SS_COMPLEX128,
    SS_DTYPE_COUNT
} ss_dtype;

const char *ss_dtype_name(ss_dtype t);
int ss_dtype_from_name(const char *name, ss_dtype *out);   /* 0 ok, -1 unknown */
size_t ss_dtype_size(ss_dtype t);

/* Largest case file the reader accepts (bytes). */
#ifndef SS_MAX_CASE_FILE_BYTES
#define SS_MAX_CASE_FILE_BYTES ((size_t)256 << 20)
/* float16 / bfloat16 (t) bits <-> double; ss_double_to_half rounds to
 * nearest-even and returns -1 when the value overflows to infinity. */
double ss_half_to_double(ss_dtype t, uint16_t bits);
int ss_double_to_half(ss_dtype t, double d, uint16_t *out);

#endif

typedef struct ss_case {
    ss_dtype dtype;
    ss_op op;                 /* op.elem_size == ss_dtype_size(dtype) */
    int explicit_values;      /* 1: values_* hold every storage element */
    uint64_t fill_seed;       /* used when explicit_values == 0 */
    int fill_small;           /* 1: the seeded fill gives small integers 0..15 ("small": true) */
    uint8_t *values_input;    /* input_storage_numel * elem_size bytes */
    uint8_t *values_src;      /* src_storage_numel * elem_size bytes; NULL when aliased */
    struct cJSON *meta;       /* free-form object, may be NULL */
    struct cJSON *expect;     /* per-target expectations, may be NULL */
    struct ss_program *program;   /* steps around the write (ss_program.h), NULL: the single write */
} ss_case;

void ss_case_init(ss_case *c);
void ss_case_free(ss_case *c);
/* Deep copy; 0 ok, -1 out of memory. */
int ss_case_copy(ss_case *dst, const ss_case *src);

/* Parse a case. Checks JSON types, known fields, integer ranges, dtype,
 * ranks and value counts; semantic rules are the plan's (ss_plan_build). */
int ss_case_from_json(const char *text, size_t len, ss_case *out, ss_error *err);
int ss_case_load(const char *path, ss_case *out, ss_error *err);

/* Serialize (pretty, stable key order). NULL on out of memory. */
char *ss_case_to_json(const ss_case *c);
/* Write to path atomically: temp file in the same directory, fsync, rename. */
int ss_case_save_atomic(const char *path, const ss_case *c, ss_error *err);

/* Element values <-> JSON in the case's value encoding: numbers where they
 * are exact, hex bit patterns ("0x...", the element's bytes as a little-endian
 * integer) otherwise; complex as [re, im] or a hex string. */
struct cJSON *ss_values_to_json(ss_dtype t, const uint8_t *bytes, int64_t n);
/* The case format's integers, written exactly (raw, not through a double):
 * used by the case writer and the program writer (ss_program_json.c). */
struct cJSON *ss_json_add_int64(struct cJSON *obj, const char *key, int64_t v);
struct cJSON *ss_json_int64_array(const int64_t *v, int n);
int ss_values_from_json(ss_dtype t, const struct cJSON *arr, uint8_t *out, int64_t n,
                        const char *field, ss_error *err);
/* The same from the text of a JSON array ("[...]", len bytes through its
 * ']'), which must already be well formed (ss_json_scan_text checked it):
 * exactly n elements, decoded straight into out, with no per-element memory. */
int ss_values_from_text(ss_dtype t, const char *text, size_t len, uint8_t *out, int64_t n,
                        const char *field, ss_error *err);

#endif
