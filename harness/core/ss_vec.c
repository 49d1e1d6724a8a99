/* ss_vec.c - growable arrays: one overflow-checked "make room for n elements" step. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ss_vec.h"

int ss_grow(void *items, size_t *cap, size_t need, size_t elem_size) {
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap : SS_GROW_FIRST, bytes;
    while (ncap < need) ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
    if (__builtin_mul_overflow(ncap, elem_size, &bytes) &&
        (ncap = need, __builtin_mul_overflow(ncap, elem_size, &bytes))) {
        errno = ENOMEM;
        return -1;
    }
    /* the caller's pointer is read and written as bytes: it may be any T * */
    void *old, *grown;
    memcpy(&old, items, sizeof old);
    if (!(grown = realloc(old, bytes ? bytes : 1))) return -1;
    memcpy(items, &grown, sizeof grown);
    *cap = ncap;
    return 0;
}
