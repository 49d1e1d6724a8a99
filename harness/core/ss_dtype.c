/* ss_dtype.c - dtype names and element sizes (PyTorch's names). */
#include <string.h>
#include "ss_case.h"

static const struct { const char *name; size_t size; } dtypes[SS_DTYPE_COUNT] = {
    [SS_BOOL] = {"bool", 1},         [SS_UINT8] = {"uint8", 1},
    [SS_INT8] = {"int8", 1},         [SS_INT16] = {"int16", 2},
    [SS_INT32] = {"int32", 4},       [SS_INT64] = {"int64", 8},
    [SS_FLOAT16] = {"float16", 2},   [SS_BFLOAT16] = {"bfloat16", 2},
    [SS_FLOAT32] = {"float32", 4},   [SS_FLOAT64] = {"float64", 8},
    [SS_COMPLEX64] = {"complex64", 8}, [SS_COMPLEX128] = {"complex128", 16},
};

const char *ss_dtype_name(ss_dtype t) {
    return (unsigned)t < SS_DTYPE_COUNT ? dtypes[t].name : "?";
}

size_t ss_dtype_size(ss_dtype t) {
    return (unsigned)t < SS_DTYPE_COUNT ? dtypes[t].size : 0;
}

int ss_dtype_from_name(const char *name, ss_dtype *out) {
    for (int i = 0; i < SS_DTYPE_COUNT; i++)
        if (!strcmp(name, dtypes[i].name)) { *out = (ss_dtype)i; return 0; }
    return -1;
}
