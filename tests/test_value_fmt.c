/* test_value_fmt.c - element values as Python prints them, next to their bits, for every dtype; the mismatch line uses them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "ss_compare.h"
#include "ss_value_fmt.h"

/* bits: the element's bytes as a little-endian integer (low half for 16-byte elements). */
static void check(ss_dtype t, uint64_t lo, uint64_t hi, const char *want) {
    uint8_t b[16] = {0};
    for (int i = 0; i < 8; i++) { b[i] = (uint8_t)(lo >> (8 * i)); b[8 + i] = (uint8_t)(hi >> (8 * i)); }
    char got[200];
    ss_value_format(1 + (int)t, b, ss_dtype_size(t), got, sizeof got);
    if (strcmp(got, want)) fail_msg("%s: got '%s', want '%s'", ss_dtype_name(t), got, want);
}

static void test_every_dtype(void **state) {
    (void)state;
    check(SS_FLOAT32, 0x41100000, 0, "9.0 (0x41100000)");
    check(SS_FLOAT32, 0x3dcccccd, 0, "0.1 (0x3dcccccd)");
    check(SS_FLOAT32, 0x7fc00001, 0, "nan (0x7fc00001)");
    check(SS_FLOAT32, 0x80000000, 0, "-0.0 (0x80000000)");
    check(SS_FLOAT32, 0xff800000, 0, "-inf (0xff800000)");
    check(SS_FLOAT32, 0x3727c5ac, 0, "1e-05 (0x3727c5ac)");
    check(SS_FLOAT64, 0x4341c37937e08000, 0, "1e+16 (0x4341c37937e08000)");
    check(SS_FLOAT64, 0x3fb999999999999a, 0, "0.1 (0x3fb999999999999a)");
    check(SS_FLOAT64, 0x4059000000000000, 0, "100.0 (0x4059000000000000)");
    check(SS_FLOAT16, 0x3c00, 0, "1.0 (0x3c00)");
    check(SS_FLOAT16, 0x4302, 0, "3.504 (0x4302)");
    check(SS_BFLOAT16, 0x4302, 0, "130.0 (0x4302)");
    check(SS_FLOAT16, 0x2e66, 0, "0.1 (0x2e66)");
    check(SS_FLOAT16, 0x0001, 0, "6e-08 (0x0001)");
    check(SS_BFLOAT16, 0x4110, 0, "9.0 (0x4110)");
    check(SS_BFLOAT16, 0x3dcd, 0, "0.1 (0x3dcd)");
    check(SS_BFLOAT16, 0x7f80, 0, "inf (0x7f80)");
    check(SS_COMPLEX64, 0x4000000040800000ull, 0, "(4+2j) (0x4000000040800000)");
    check(SS_COMPLEX128, 0x4010000000000000ull, 0xc010000000000000ull,
          "(4-4j) (0xc0100000000000004010000000000000)");
    check(SS_BOOL, 0, 0, "False (0x00)");
    check(SS_BOOL, 1, 0, "True (0x01)");
    check(SS_BOOL, 2, 0, "True (0x02)");
    check(SS_UINT8, 200, 0, "200 (0xc8)");
    check(SS_INT8, 0xff, 0, "-1 (0xff)");
    check(SS_INT16, 0x8000, 0, "-32768 (0x8000)");
    check(SS_INT32, 0x7fffffff, 0, "2147483647 (0x7fffffff)");
    check(SS_INT64, 0x8000000000000000ull, 0, "-9223372036854775808 (0x8000000000000000)");
}

/* Unknown dtype (value_type 0) or a size that does not match: bits only. */
static void test_bits_only(void **state) {
    (void)state;
    const uint8_t b[4] = {0x00, 0x00, 0x10, 0x41};
    char got[64];
    ss_value_format(0, b, 4, got, sizeof got);
    assert_string_equal(got, "0x41100000");
    ss_value_format(1 + SS_FLOAT64, b, 4, got, sizeof got);
    assert_string_equal(got, "0x41100000");
}

/* The first-difference line shows numbers next to bits once the diff knows its dtype. */
static void test_diff_line(void **state) {
    (void)state;
    ss_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.op.elem_size = 4;
    plan.op.input.ndim = 1;
    ss_diff d;
    memset(&d, 0, sizeof d);
    d.count = 2;
    d.index = 3;
    d.elem_size = 4;
    d.value_type = 1 + SS_FLOAT32;
    const uint32_t e = 0x41100000, a = 0x41000000;
    memcpy(d.expected, &e, 4);
    memcpy(d.actual, &a, 4);
    char line[256];
    ss_diff_format(&plan, &d, line, sizeof line);
    assert_string_equal(line, "input storage[3]: expected 9.0 (0x41100000), got 8.0 (0x41000000); 2 elements differ");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_dtype),
        cmocka_unit_test(test_bits_only),
        cmocka_unit_test(test_diff_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
