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

static void test_run_program(void **state) {
    (void)state;
    ss_op op;
    memset(&op, 0, sizeof op);
    op.elem_size = 4;
    op.input_storage_numel = 8;
    op.src_aliased = 1;
    op.input.ndim = 1, op.input.sizes[0] = 8, op.input.strides[0] = 1;
    op.src.ndim = 1, op.src.sizes[0] = 2, op.src.strides[0] = 1;
    uint8_t head[512], prog[128];
    assert_int_equal(ss_tp_run_head_encode(head, "aot-eager-cpu", "program", "two-inputs", "float32", &op), 0);
    const char *src = "def program(x, src):\n    return (x,)\n";
    const size_t len = strlen(src);
    assert_int_equal(ss_tp_run_program_size(len), (8 + len + 15) / 16 * 16);   /* storages stay aligned */
    assert_int_equal(ss_tp_run_program_size(8), 16);
    assert_int_equal(ss_tp_run_program_encode(head, prog, src, len, 1), 0);
    assert_int_equal(head[92], 1 | SS_TP_F_PROGRAM);       /* aliased, a program */
    assert_int_equal(prog[0], (uint8_t)len);
    assert_memory_equal(prog + 4, src, len);
    assert_int_equal(prog[4 + len], 1);                     /* one returned value */
    for (size_t i = 8 + len; i < ss_tp_run_program_size(len); i++) assert_int_equal(prog[i], 0);
    assert_int_equal(ss_tp_run_program_encode(head, prog, src, SS_TP_MAX_SOURCE + 1, 1), -1);
}

/* Appends one returned value's encoding to b at *k. */
static void put_value(uint8_t *b, size_t *k, uint32_t shares, const char *dtype, uint32_t ndim,
                      const uint64_t *sizes, uint64_t nbytes, const uint8_t *bytes) {
    put32(b + *k, shares, 0);
    memset(b + *k + 4, 0, 16);
    memcpy(b + *k + 4, dtype, strlen(dtype));
    put32(b + *k + 20, ndim, 0);
    *k += 24;
    for (uint32_t d = 0; d < ndim; d++, *k += 8) put32(b + *k, (uint32_t)sizes[d], (uint32_t)(sizes[d] >> 32));
    put32(b + *k, (uint32_t)nbytes, (uint32_t)(nbytes >> 32));
    *k += 8;
    if (bytes) memcpy(b + *k, bytes, (size_t)nbytes);
    *k += bytes ? (size_t)nbytes : 0;
}

static void test_program_result_lengths(void **state) {
    (void)state;
    uint8_t head[8];
    ss_tp_result r;
    char why[256];
    put32(head, SS_TP_OK, 3);
    assert_int_equal(ss_tp_result_decode_program(head, 8 + 3 + 40 + 4, 40, &r, why, sizeof why), 0);
    assert_true(r.returns_len == 4);
    assert_int_equal(ss_tp_result_decode_program(head, 8 + 3 + 40 + 3, 40, &r, why, sizeof why), -1);  /* no count */
    assert_int_equal(ss_tp_result_decode_program(head, 8 + 3 + 40 + SS_TP_MAX_RETURNS_BYTES + 1, 40, &r, why,
                                                 sizeof why), -1);
    assert_non_null(strstr(why, "returned values"));
    put32(head, SS_TP_REFUSED, 3);                                  /* no storages, no values */
    assert_int_equal(ss_tp_result_decode_program(head, 8 + 3, 40, &r, why, sizeof why), 0);
    assert_true(r.returns_len == 0);
    assert_int_equal(ss_tp_result_decode_program(head, 8 + 3 + 4, 40, &r, why, sizeof why), -1);
}

static void test_returns_decode(void **state) {
    (void)state;
    uint8_t b[512], vals[24];
    for (int i = 0; i < 24; i++) vals[i] = (uint8_t)i;
    const uint64_t s23[] = {2, 3}, s0[] = {0, 5}, huge[] = {(uint64_t)1 << 40, (uint64_t)1 << 40};
    ss_prog_actual a;
    char why[256];
    size_t k = 4;
    put32(b, 2, 0);
    put_value(b, &k, 1, "float32", 2, s23, 24, vals);
    put_value(b, &k, 0, "int16", 2, s0, 0, vals);
    assert_int_equal(ss_tp_returns_decode(b, k, &a, why, sizeof why), 0);
    assert_int_equal(a.nret, 2);
    assert_int_equal(a.ret[0].dtype, SS_FLOAT32);
    assert_int_equal(a.ret[0].ndim, 2);
    assert_true(a.ret[0].sizes[1] == 3 && a.ret[0].nbytes == 24 && a.ret[0].shares == 1);
    assert_memory_equal(a.ret[0].bytes, vals, 24);
    assert_int_equal(a.ret[1].dtype, SS_INT16);
    assert_true(a.ret[1].nbytes == 0);
    /* every length checked against the frame: each cut is refused */
    for (size_t cut = 0; cut < k; cut++)
        assert_int_equal(ss_tp_returns_decode(b, cut, &a, why, sizeof why), -1);
    assert_int_equal(ss_tp_returns_decode(b, k + 1, &a, why, sizeof why), -1);   /* a byte left over */
    assert_non_null(strstr(why, "before the frame"));
    /* hostile fields, one at a time */
    struct { uint32_t shares; const char *dtype; uint32_t ndim; const uint64_t *sizes; uint64_t nbytes;
             const char *says; } bad[] = {
        {4, "float32", 2, s23, 24, "unknown bits"},
        {0, "float8", 2, s23, 24, "dtype"},
        {0, "float32", SS_MAX_NDIM + 1, s23, 24, "ndim"},
        {0, "float32", 2, s23, 23, "23 bytes for 6 elements"},
        {0, "float32", 2, huge, 0, "out of range"},
        {0, "float32", 2, s23, (uint64_t)1 << 62, "bytes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        k = 4;
        put32(b, 1, 0);
        put_value(b, &k, bad[i].shares, bad[i].dtype, bad[i].ndim <= 2 ? bad[i].ndim : 0, bad[i].sizes,
                  bad[i].nbytes, NULL);
        if (bad[i].ndim > 2) put32(b + 4 + 20, bad[i].ndim, 0);
        assert_int_equal(ss_tp_returns_decode(b, k, &a, why, sizeof why), -1);
        assert_non_null(strstr(why, bad[i].says));
    }
    put32(b, SS_PROG_MAX_RETURNS + 1, 0);                           /* too many values */
    assert_int_equal(ss_tp_returns_decode(b, 4, &a, why, sizeof why), -1);
    memset(b, 0, 24 + 4);                                          /* a 16-char dtype without its NUL */
    put32(b, 1, 0);
    memset(b + 8, 'a', 16);
    assert_int_equal(ss_tp_returns_decode(b, 4 + 24 + 8, &a, why, sizeof why), -1);
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
        cmocka_unit_test(test_run_program),       cmocka_unit_test(test_program_result_lengths),
        cmocka_unit_test(test_returns_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
