/* ss_value_fmt.h - one storage element as a person reads it: its value next to its bits. */
#ifndef SS_VALUE_FMT_H
#define SS_VALUE_FMT_H

#include <stddef.h>
#include <stdint.h>
#include "ss_case.h"

/* The element's value the way Python prints it: True/False, decimal
 * integers, the shortest float that reads back to the same bits ("9.0",
 * "0.1", "nan", "-inf", "-0.0"), complex as "(1+2j)". Truncates at n. */
void ss_value_number(ss_dtype t, const uint8_t *bytes, char *out, size_t n);

/* The element's bits as one hex number (its bytes read little-endian). */
void ss_value_bits(const uint8_t *bytes, size_t elem_size, char *out, size_t n);

/* "9.0 (0x41100000)"; just the bits when value_type is 0 (dtype unknown).
 * value_type is 1 + ss_dtype, as ss_diff carries it. */
void ss_value_format(int value_type, const uint8_t *bytes, size_t elem_size, char *out, size_t n);

#endif
