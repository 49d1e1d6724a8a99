/* test_vec.c - ss_grow: doubling growth that keeps the contents, no work for zero, overflow refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_vec.h"

typedef struct rec { int64_t id; char name[24]; } rec;

/* Appending one at a time: capacities 16, 32, 64, ...; every element kept. */
static void test_growth(void **state) {
    (void)state;
    rec *v = NULL;
    size_t n = 0, cap = 0;
    for (int64_t i = 0; i < 1000; i++) {
        assert_int_equal(SS_GROW(v, cap, n + 1), 0);
        assert_true(cap >= n + 1);
        assert_int_equal(cap & (cap - 1), 0);   /* 16 doubled */
        v[n].id = i;
        snprintf(v[n].name, sizeof v[n].name, "r%lld", (long long)i);
        n++;
    }
    assert_int_equal(cap, 1024);
    for (size_t i = 0; i < n; i++) {
        char want[24];
        snprintf(want, sizeof want, "r%zu", i);
        assert_int_equal(v[i].id, (int64_t)i);
        assert_string_equal(v[i].name, want);
    }
    /* a request far past the capacity doubles until it fits */
    assert_int_equal(SS_GROW(v, cap, 5000), 0);
    assert_int_equal(cap, 8192);
    assert_int_equal(v[999].id, 999);
    free(v);
}

/* Room already there, or nothing needed: nothing allocated, nothing changed. */
static void test_zero(void **state) {
    (void)state;
    char *b = NULL;
    size_t cap = 0;
    assert_int_equal(SS_GROW(b, cap, 0), 0);
    assert_null(b);
    assert_int_equal(cap, 0);
    assert_int_equal(SS_GROW(b, cap, 3), 0);
    assert_non_null(b);
    assert_int_equal(cap, SS_GROW_FIRST);
    char *const before = b;
    assert_int_equal(SS_GROW(b, cap, SS_GROW_FIRST), 0);
    assert_ptr_equal(b, before);
    assert_int_equal(cap, SS_GROW_FIRST);
    free(b);
    /* zero-sized elements: a valid (freeable) block, never a NULL "success" */
    void *z = NULL;
    size_t zcap = 0;
    assert_int_equal(ss_grow(&z, &zcap, 10, 0), 0);
    assert_non_null(z);
    assert_true(zcap >= 10);
    free(z);
}

/* need * elem_size beyond size_t: refused before any allocation, the old
 * array and its capacity left as they were. */
static void test_overflow_refused(void **state) {
    (void)state;
    int64_t *v = NULL;
    size_t cap = 0;
    assert_int_equal(SS_GROW(v, cap, 4), 0);
    for (int i = 0; i < 4; i++) v[i] = 100 + i;
    int64_t *const before = v;
    errno = 0;
    assert_int_equal(SS_GROW(v, cap, SIZE_MAX / sizeof *v + 1), -1);
    assert_int_equal(errno, ENOMEM);
    assert_ptr_equal(v, before);
    assert_int_equal(cap, SS_GROW_FIRST);
    assert_int_equal(SS_GROW(v, cap, SIZE_MAX), -1);
    assert_ptr_equal(v, before);
    for (int i = 0; i < 4; i++) assert_int_equal(v[i], 100 + i);
    /* still usable after a refusal */
    assert_int_equal(SS_GROW(v, cap, 40), 0);
    assert_int_equal(cap, 64);
    assert_int_equal(v[3], 103);
    free(v);
    /* an empty array stays empty */
    int64_t *e = NULL;
    size_t ecap = 0;
    assert_int_equal(SS_GROW(e, ecap, SIZE_MAX / 4), -1);
    assert_null(e);
    assert_int_equal(ecap, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_zero),
        cmocka_unit_test(test_overflow_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
