/* test_storage.c - guard bands: set on reserve, copied, and any changed byte detected at any width. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "ss_storage.h"

/* Every byte of either band, changed to any other value, is reported; data
 * bytes never are. Widths around the default one (which has its own path). */
static void test_guard_every_byte(void **state) {
    (void)state;
    static const size_t widths[] = {0, 1, 7, 8, 63, SS_GUARD_DEFAULT, 65, 128};
    static const uint8_t values[] = {0x00, 0xA4, 0xA7, 0x25, 0xFF};
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        ss_storage s = {0};
        const size_t g = widths[w], bytes = 24;
        assert_int_equal(ss_storage_reserve(&s, bytes, g), 0);
        assert_true(ss_storage_guards_intact(&s));
        memset(ss_storage_data(&s), 0x5A, bytes);   /* data is not a guard */
        assert_true(ss_storage_guards_intact(&s));
        for (size_t i = 0; i < 2 * g; i++) {
            uint8_t *p = i < g ? s.base + i : s.base + g + bytes + (i - g);
            for (size_t v = 0; v < sizeof values; v++) {
                *p = values[v];
                assert_false(ss_storage_guards_intact(&s));
                *p = SS_GUARD_BYTE;
            }
        }
        assert_true(ss_storage_guards_intact(&s));
        ss_storage_free(&s);
    }
}

/* A reused block gets fresh bands, and a copy carries data and bands. */
static void test_reserve_copy(void **state) {
    (void)state;
    ss_storage a = {0}, b = {0};
    assert_int_equal(ss_storage_reserve(&a, 100, SS_GUARD_DEFAULT), 0);
    memset(a.base, 0, 100 + 2 * SS_GUARD_DEFAULT);   /* dirty every byte in use (ASan poisons the rest) */
    assert_int_equal(ss_storage_reserve(&a, 40, SS_GUARD_DEFAULT), 0);
    assert_true(ss_storage_guards_intact(&a));
    for (size_t i = 0; i < 40; i++) ss_storage_data(&a)[i] = (uint8_t)i;
    assert_int_equal(ss_storage_reserve(&b, 40, SS_GUARD_DEFAULT), 0);
    b.base[3] = 0;
    ss_storage_copy(&b, &a);
    assert_true(ss_storage_guards_intact(&b));
    assert_memory_equal(a.base, b.base, 40 + 2 * SS_GUARD_DEFAULT);
    ss_storage_free(&a);
    ss_storage_free(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guard_every_byte),
        cmocka_unit_test(test_reserve_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
