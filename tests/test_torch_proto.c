/* test_torch_proto.c - the torch worker's frames and capabilities, and torch version ranges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ss_torch_proto.h"
#include "ss_version.h"

static void test_header_round_trip(void **state) {
    (void)state;
    uint8_t b[SS_TP_HEADER_SIZE];
    ss_tp_header h;
    char why[256];
    ss_tp_header_encode(b, SS_TP_RESULT, 123456789012ULL);
    assert_int_equal(ss_tp_header_decode(b, &h, why, sizeof why), 0);
    assert_int_equal(h.type, SS_TP_RESULT);
    assert_true(h.length == 123456789012ULL);
    assert_memory_equal(b, "SSTW", 4);   /* little-endian magic reads as text */
}

static void test_header_rejects(void **state) {
    (void)state;
    uint8_t b[SS_TP_HEADER_SIZE];
    ss_tp_header h;
    char why[256];
    ss_tp_header_encode(b, SS_TP_ACK, 0);
    b[0] ^= 1;
    assert_int_equal(ss_tp_header_decode(b, &h, why, sizeof why), -1);
    assert_non_null(strstr(why, "magic"));
    ss_tp_header_encode(b, SS_TP_ACK, 0);
    b[4] = 9;
    assert_int_equal(ss_tp_header_decode(b, &h, why, sizeof why), -1);
    assert_non_null(strstr(why, "version 9"));
    ss_tp_header_encode(b, 77, 0);
    assert_int_equal(ss_tp_header_decode(b, &h, why, sizeof why), -1);
    assert_non_null(strstr(why, "type 77"));
    ss_tp_header_encode(b, SS_TP_RUN, SS_TP_MAX_PAYLOAD + 1);
    assert_int_equal(ss_tp_header_decode(b, &h, why, sizeof why), -1);
    assert_non_null(strstr(why, "cap"));
}

static void put32(uint8_t *p, uint32_t a, uint32_t b) {
    for (int i = 0; i < 4; i++) { p[i] = (uint8_t)(a >> (8 * i)); p[4 + i] = (uint8_t)(b >> (8 * i)); }
}

static void test_result_lengths(void **state) {
    (void)state;
    uint8_t head[8];
    ss_tp_result r;
    char why[256];
    put32(head, SS_TP_OK, 0);
    assert_int_equal(ss_tp_result_decode(head, 8 + 40, 40, &r, why, sizeof why), 0);
    assert_int_equal(ss_tp_result_decode(head, 8 + 39, 40, &r, why, sizeof why), -1);  /* short storage */
    put32(head, SS_TP_REFUSED, 5);
    assert_int_equal(ss_tp_result_decode(head, 8 + 5, 40, &r, why, sizeof why), 0);      /* no storage */
    assert_int_equal(r.status, SS_TP_REFUSED);
    assert_int_equal(ss_tp_result_decode(head, 8 + 5 + 40, 40, &r, why, sizeof why), -1);
    put32(head, SS_TP_OK, 0xffffffffu);                                                  /* hostile length */
    assert_int_equal(ss_tp_result_decode(head, 16, 0, &r, why, sizeof why), -1);
    put32(head, 9, 0);
    assert_int_equal(ss_tp_result_decode(head, 8, 0, &r, why, sizeof why), -1);
    put32(head, SS_TP_EXCEPTION | SS_TP_REPLACE, 2);                                    /* ends the worker */
    assert_int_equal(ss_tp_result_decode(head, 8 + 2, 40, &r, why, sizeof why), 0);
    assert_int_equal(r.status, SS_TP_EXCEPTION);
    assert_int_equal(r.replace, 1);
    put32(head, SS_TP_OK | SS_TP_REPLACE, 0);                                           /* OK never ends it */
    assert_int_equal(ss_tp_result_decode(head, 8 + 40, 40, &r, why, sizeof why), -1);
    put32(head, SS_TP_REFUSED | 0x200, 0);                                               /* unknown bits */
    assert_int_equal(ss_tp_result_decode(head, 8, 40, &r, why, sizeof why), -1);
    assert_int_equal(ss_tp_result_decode(head, 3, 0, &r, why, sizeof why), -1);
}

static void test_run_head(void **state) {
    (void)state;
    ss_op op;
    memset(&op, 0, sizeof op);
    op.elem_size = 4;
    op.input_storage_numel = 12;
    op.src_aliased = 1;
    op.input.ndim = 2, op.input.sizes[0] = 3, op.input.sizes[1] = 4, op.input.strides[0] = 4, op.input.strides[1] = 1;
    op.src.ndim = 2, op.src.sizes[0] = 2, op.src.sizes[1] = 4, op.src.strides[0] = 4, op.src.strides[1] = 1;
    op.dim = -2, op.has_start = 1, op.start = 1, op.step = 1;
    const size_t n = ss_tp_run_head_size(&op);
    assert_int_equal(n, SS_TP_RUN_FIXED + 2 * (16 + 32));
    uint8_t buf[512];
    assert_int_equal(ss_tp_run_head_encode(buf, "compile-cpu", "setitem-clone", "x-input", "float32", &op), 0);
    assert_string_equal((char *)buf, "compile-cpu");
    assert_string_equal((char *)buf + 48, "x-input");
    assert_int_equal(buf[92], 1 | 2);                    /* aliased, has start */
    assert_int_equal((int8_t)buf[103], -1);              /* dim -2, sign-extended */
    assert_int_equal(ss_tp_run_head_encode(buf, "a-mode-name-of-24-chars!", "s", "f", "d", &op), -1);
}

static void test_caps(void **state) {
    (void)state;
    ss_tp_caps c;
    char why[256];
    const char *t = "torch=2.14.1\ncompile=\ncpu_compile=\ncuda=no CUDA device\nunknown=1\n";
    assert_int_equal(ss_tp_caps_parse(t, strlen(t), &c, why, sizeof why), 0);
    assert_string_equal(c.torch, "2.14.1");
    assert_string_equal(c.cpu_compile, "");
    assert_string_equal(c.cuda, "no CUDA device");
    const char *bad = "compile=\n";
    assert_int_equal(ss_tp_caps_parse(bad, strlen(bad), &c, why, sizeof why), -1);
    const char ctl[] = "torch=1\x01\x02\n";
    assert_int_equal(ss_tp_caps_parse(ctl, sizeof ctl - 1, &c, why, sizeof why), 0);
    assert_string_equal(c.torch, "1  ");
}

static void test_version_ranges(void **state) {
    (void)state;
    assert_int_equal(ss_version_in_range("2.14.1+cu130", "<2.15"), 1);
    assert_int_equal(ss_version_in_range("2.15.0", "<2.15"), 0);
    assert_int_equal(ss_version_in_range("2.15", ">=2.15.0"), 1);
    assert_int_equal(ss_version_in_range("1.13.0a0", ">=1.13"), 0);   /* PEP 440: a 1.13 pre-release */
    assert_int_equal(ss_version_in_range("1.13.0a0", ">=1.13.dev0"), 1);
    assert_int_equal(ss_version_in_range("2.14.1", ">=2.14,<2.15"), 1);
    assert_int_equal(ss_version_in_range("2.13.9", ">=2.14, <2.15"), 0);
    assert_int_equal(ss_version_in_range("2.14.1", "==2.14.1"), 1);
    assert_int_equal(ss_version_in_range("2.14.1", "!=2.14.1"), 0);
    assert_int_equal(ss_version_in_range("10.0", ">9.99"), 1);
    char why[200];
    assert_int_equal(ss_version_range_check("<2.15", why, sizeof why), 0);
    assert_int_equal(ss_version_range_check("2.15", why, sizeof why), -1);
    assert_int_equal(ss_version_range_check("<", why, sizeof why), -1);
    assert_int_equal(ss_version_range_check("<2.15,", why, sizeof why), -1);   /* no empty clause */
    assert_int_equal(ss_version_range_check("~=2.1", why, sizeof why), -1);
    assert_int_equal(ss_version_range_check("<2.15 junk", why, sizeof why), -1);
    assert_int_equal(ss_version_range_check("", why, sizeof why), -1);
    assert_int_equal(ss_version_in_range("x", "<2"), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_round_trip), cmocka_unit_test(test_header_rejects),
        cmocka_unit_test(test_result_lengths),    cmocka_unit_test(test_run_head),
        cmocka_unit_test(test_caps),              cmocka_unit_test(test_version_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
