/* test_pyexpr.c - the one Python line of a case: idiomatic indexing where it exists, as_strided only where none does. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "ss_case.h"
#include "ss_pyexpr.h"

/* A case from its JSON fields (between the fixed header and the fill). */
static void check(const char *fields, const char *want, int exact) {
    char text[2048];
    snprintf(text, sizeof text, "{\"format\": \"ssfuzz-case\", \"version\": 1, %s, \"fill\": {\"seed\": 1}}", fields);
    ss_case c;
    ss_case_init(&c);
    ss_error err;
    if (ss_case_from_json(text, strlen(text), &c, &err)) fail_msg("%s: %s: %s", want, err.field, err.msg);
    ss_pyexpr e;
    assert_int_equal(ss_pyexpr_derive(&c, &e), 0);
    if (strcmp(e.line, want) || e.exact != exact)
        fail_msg("got '%s' (exact %d), want '%s' (exact %d)", e.line, e.exact, want, exact);
    ss_case_free(&c);
}

#define ALIASED(n, dt) "\"dtype\": \"" dt "\", \"storage\": {\"numel\": " #n "}"

static void test_shifts(void **state) {
    (void)state;
    check(ALIASED(24, "float32") ", \"input\": {\"offset\": 0, \"sizes\": [4, 6], \"strides\": [6, 1]},"
          "\"src\": {\"storage\": \"input\", \"offset\": 0, \"sizes\": [4, 5], \"strides\": [6, 1]},"
          "\"dim\": 1, \"start\": 1, \"end\": null", "x[:, 1:] = x[:, :-1]", 1);
    check(ALIASED(64, "bfloat16") ", \"input\": {\"offset\": 0, \"sizes\": [2, 8, 4], \"strides\": [32, 4, 1]},"
          "\"src\": {\"storage\": \"input\", \"offset\": 12, \"sizes\": [2, 5, 4], \"strides\": [32, 4, 1]},"
          "\"dim\": 1, \"start\": null, \"end\": -3, \"meta\": {\"python\": {\"x\": \"state\"}}",
          "state[:, :-3, :] = state[:, 3:, :]", 1);
    check(ALIASED(8, "uint8") ", \"input\": {\"offset\": 0, \"sizes\": [8], \"strides\": [1]},"
          "\"src\": {\"storage\": \"input\", \"offset\": 1, \"sizes\": [7], \"strides\": [1]},"
          "\"dim\": 0, \"end\": -1", "x[:-1] = x[1:]", 1);
    check(ALIASED(8, "uint8") ", \"input\": {\"offset\": 0, \"sizes\": [8], \"strides\": [1]},"
          "\"src\": {\"storage\": \"input\", \"offset\": 0, \"sizes\": [4], \"strides\": [2]},"
          "\"dim\": 0, \"start\": 1, \"step\": 2", "x[1::2] = x[::2]", 1);
}

static void test_transposes(void **state) {
    (void)state;
    /* x[0] = x[0].t(): the input view is x[0] of a 2x3x3 storage, the slice the whole of it */
    check(ALIASED(18, "float32") ", \"input\": {\"offset\": 0, \"sizes\": [3, 3], \"strides\": [3, 1]},"
          "\"src\": {\"storage\": \"input\", \"offset\": 0, \"sizes\": [3, 3], \"strides\": [1, 3]},"
          "\"dim\": 0, \"meta\": {\"python\": {\"shape\": [2, 3, 3]}}", "x[0] = x[0].t()", 1);
    check(ALIASED(18, "float32") ", \"input\": {\"offset\": 0, \"sizes\": [2, 3, 3], \"strides\": [9, 3, 1]},"
          "\"src\": {\"storage\": \"input\", \"offset\": 0, \"sizes\": [1, 3, 3], \"strides\": [9, 1, 3]},"
          "\"dim\": 0, \"start\": 0, \"end\": 1", "x[0:1] = x[0:1].transpose(1, 2)", 1);
    check(ALIASED(64, "float32") ", \"input\": {\"offset\": 0, \"sizes\": [4, 4, 4], \"strides\": [16, 4, 1]},"
          "\"src\": {\"storage\": \"input\", \"offset\": 0, \"sizes\": [4, 4, 4], \"strides\": [1, 16, 4]},"
          "\"dim\": 0", "x[:] = x.permute(2, 0, 1)", 1);
    check(ALIASED(4, "float32") ", \"input\": {\"offset\": 0, \"sizes\": [2, 2], \"strides\": [1, 2]},"
          "\"src\": {\"storage\": \"input\", \"offset\": 0, \"sizes\": [2, 2], \"strides\": [2, 1]},"
          "\"dim\": 0", "x.t()[:] = x", 1);
}

static void test_layouts(void **state) {
    (void)state;
    /* a KV cache: layer 1 of a [2, 1, 2, 8, 4] buffer, named by the Python module */
    check(ALIASED(128, "float16") ", \"input\": {\"offset\": 64, \"sizes\": [1, 2, 8, 4], \"strides\": [64, 32, 4, 1]},"
          "\"src\": {\"storage\": \"input\", \"offset\": 72, \"sizes\": [1, 2, 2, 4], \"strides\": [64, 32, 4, 1]},"
          "\"dim\": 2, \"start\": 3, \"end\": 5, \"meta\": {\"python\": {\"x\": \"kv\"}}",
          "kv[1, :, :, 3:5] = kv[1, :, :, 2:4]", 1);
    /* separate src read with a step; a reserved word is not taken as a name */
    check("\"dtype\": \"int32\", \"storage\": {\"numel\": 2}, \"src_storage\": {\"numel\": 3},"
          "\"input\": {\"offset\": 0, \"sizes\": [2], \"strides\": [1]},"
          "\"src\": {\"storage\": \"separate\", \"offset\": 0, \"sizes\": [2], \"strides\": [2]},"
          "\"dim\": 0, \"meta\": {\"python\": {\"x\": \"import\", \"y\": \"new\"}}", "x[:] = new[::2]", 1);
    /* stride 0 (expanded) src: no indexing reaches it */
    check(ALIASED(4, "float32") ", \"input\": {\"offset\": 0, \"sizes\": [4], \"strides\": [1]},"
          "\"src\": {\"storage\": \"input\", \"offset\": 0, \"sizes\": [3], \"strides\": [0]},"
          "\"dim\": 0, \"start\": 1", "x[1:] = torch.as_strided(x, (3,), (0,), 0)", 0);
    /* a meta shape that does not fit the storage is ignored */
    check(ALIASED(8, "uint8") ", \"input\": {\"offset\": 0, \"sizes\": [8], \"strides\": [1]},"
          "\"src\": {\"storage\": \"input\", \"offset\": 0, \"sizes\": [7], \"strides\": [1]},"
          "\"dim\": 0, \"start\": 1, \"meta\": {\"python\": {\"shape\": [3, 3]}}", "x[1:] = x[:-1]", 1);
}

/* Form user-two-inputs: the line on x (the input view) and src, and the call's two views with the
 * storage named base (meta.python's name set aside: x is the function's parameter). */
static void check_two(const char *fields, const char *line, const char *views) {
    char text[2048], got[2 * SS_PYEXPR_LEN + 8];
    snprintf(text, sizeof text, "{\"format\": \"ssfuzz-case\", \"version\": 1, %s, \"fill\": {\"seed\": 1}}", fields);
    ss_case c;
    ss_case_init(&c);
    ss_error err;
    if (ss_case_from_json(text, strlen(text), &c, &err)) fail_msg("%s: %s: %s", line, err.field, err.msg);
    ss_pyexpr two, based;
    assert_int_equal(ss_pyexpr_two_inputs(&c, &two), 0);
    assert_int_equal(ss_pyexpr_derive_named(&c, "base", &based), 0);
    snprintf(got, sizeof got, "%s, %s", based.target, based.rhs);
    if (strcmp(two.line, line) || strcmp(got, views))
        fail_msg("got '%s' on '%s', want '%s' on '%s'", two.line, got, line, views);
    ss_case_free(&c);
}

static void test_two_inputs(void **state) {
    (void)state;
    check_two(ALIASED(24, "float32") ", \"input\": {\"offset\": 0, \"sizes\": [4, 6], \"strides\": [6, 1]},"
              "\"src\": {\"storage\": \"input\", \"offset\": 0, \"sizes\": [4, 5], \"strides\": [6, 1]},"
              "\"dim\": 1, \"start\": 1, \"end\": null, \"meta\": {\"python\": {\"x\": \"state\"}}",
              "x[:, 1:] = src", "base, base[:, :-1]");
    /* the whole view written: x[:] (assign into, never rebind); the corpus case's as_strided views */
    check_two(ALIASED(8, "uint8") ", \"input\": {\"offset\": 4, \"sizes\": [4], \"strides\": [1]},"
              "\"src\": {\"storage\": \"input\", \"offset\": 2, \"sizes\": [4], \"strides\": [1]},"
              "\"dim\": 0", "x[:] = src", "base[4:], base[2:6]");
    check_two(ALIASED(61, "int8") ", \"input\": {\"offset\": 25, \"sizes\": [8, 1], \"strides\": [5, 1]},"
              "\"src\": {\"storage\": \"input\", \"offset\": 0, \"sizes\": [8, 1], \"strides\": [5, 1]},"
              "\"dim\": 1, \"end\": 1", "x[:, :1] = src",
              "torch.as_strided(base, (8, 1), (5, 1), 25), torch.as_strided(base, (8, 1), (5, 1), 0)");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shifts),
        cmocka_unit_test(test_transposes),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_two_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
