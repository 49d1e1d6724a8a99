/* ss_vec.h - growable arrays: one overflow-checked "make room for n elements" step. */
#ifndef SS_VEC_H
#define SS_VEC_H

#include <stddef.h>

/* The capacity an empty array gets on its first growth. */
#define SS_GROW_FIRST 16

/* Makes the array at *items (a pointer to its first element; NULL while empty)
 * hold at least `need` elements of elem_size bytes. When *cap is smaller, the
 * capacity doubles (from SS_GROW_FIRST) until it is not; a doubling past what
 * size_t can count takes exactly `need`. 0, or -1 (errno ENOMEM; need *
 * elem_size beyond size_t is refused before any allocation) with *items and
 * *cap untouched, the old array still valid and owned by the caller.
 * `items` is the address of the caller's pointer (any object pointer type). */
int ss_grow(void *items, size_t *cap, size_t need, size_t elem_size);

/* ss_grow for an array `p` (an lvalue of type T *) with capacity `cap` (size_t):
 * `if (SS_GROW(l->items, l->cap, l->n + 1)) return -1;` */
#define SS_GROW(p, cap, need) ss_grow(&(p), &(cap), (need), sizeof *(p))

#endif
