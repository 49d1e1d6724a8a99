/* test_program.c - programs: the JSON form (hostile input, round trip), the reference's meaning (a table of
 * hand-computed programs), the comparison, which step is wrong, the generator and the minimizer. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_case.h"
#include "ss_compare.h"
#include "ss_gen.h"
#include "ss_gen_program.h"
#include "ss_minimize.h"
#include "ss_plan_build.h"
#include "ss_program.h"
#include "ss_program_py.h"
#include "ss_program_ref.h"
#include "ss_storage.h"
#include "ss_value_fmt.h"
#include "test_program_util.h"

/* ---- parsing -------------------------------------------------------------- */

static void expect_parse_error(const char *program, const char *field, const char *words) {
    char *text = tp_case_text("int32", 6, "[0,1,2,3,4,5]", program);
    ss_case c;
    ss_error err = {{0}, {0}};
    const int rc = ss_case_from_json(text, strlen(text), &c, &err);
    if (rc == 0) print_error("accepted: %s\n", program);
    assert_int_equal(rc, -1);
    if (strcmp(err.field, field) || (words && !strstr(err.msg, words)))
        print_error("for %s: got %s: %s\n", program, err.field, err.msg);
    assert_string_equal(err.field, field);
    if (words) assert_non_null(strstr(err.msg, words));
    ss_case_free(&c);
    free(text);
}

static void test_parse_hostile(void **state) {
    (void)state;
    expect_parse_error("{}", "program", "array");
    expect_parse_error("[]", "program", "1..16");
    char many[4096] = "[";
    for (int i = 0; i < 17; i++) strcat(many, i ? ",{\"op\":\"inplace\",\"into\":\"x\",\"kind\":\"zero_\"}"
                                                 : "{\"op\":\"inplace\",\"into\":\"x\",\"kind\":\"zero_\"}");
    strcat(many, "]");
    expect_parse_error(many, "program", "1..16");
    expect_parse_error("[3]", "program[0]", "object");
    expect_parse_error("[{\"op\":\"jump\"}]", "program[0].op", "one of");
    expect_parse_error("[{\"op\":\"inplace\",\"into\":\"x\",\"kind\":\"zero_\",\"by\":1}]", "program[0].by", "unknown");
    expect_parse_error("[{\"op\":\"view\",\"name\":\"A\",\"of\":\"x\",\"kind\":\"real\"}]", "program[0].name", "[a-z0-9_]");
    expect_parse_error("[{\"op\":\"view\",\"name\":\"abcdefghijklmnop\",\"of\":\"x\",\"kind\":\"real\"}]",
                       "program[0].name", "1..15");
    expect_parse_error("[{\"op\":\"view\",\"name\":\"lambda\",\"of\":\"x\",\"kind\":\"real\"}]", "program[0].name", "reserved");
    expect_parse_error("[{\"op\":\"view\",\"name\":\"x\",\"of\":\"x\",\"kind\":\"real\"}]", "program[0].name", "predefined");
    /* a forward reference, and a name defined by its own step (a cycle) */
    expect_parse_error("[{\"op\":\"inplace\",\"into\":\"a\",\"kind\":\"zero_\"},"
                       "{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"real\"}]", "program[0].into", "not defined");
    expect_parse_error("[{\"op\":\"view\",\"name\":\"a\",\"of\":\"a\",\"kind\":\"real\"}]", "program[0].of", "not defined");
    expect_parse_error("[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"real\"},"
                       "{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"imag\"}]", "program[1].name", "already defined");
    /* a view of a read, and a write into a read */
    expect_parse_error("[{\"op\":\"read\",\"name\":\"r\",\"of\":\"x\",\"kind\":\"clone\"},"
                       "{\"op\":\"view\",\"name\":\"a\",\"of\":\"r\",\"kind\":\"real\"}]", "program[1].of", "is a read");
    expect_parse_error("[{\"op\":\"read\",\"name\":\"r\",\"of\":\"x\",\"kind\":\"clone\"},"
                       "{\"op\":\"inplace\",\"into\":\"r\",\"kind\":\"zero_\"}]", "program[1].into", "is a read");
    /* deep nesting where a string belongs, huge and fractional integers */
    expect_parse_error("[{\"op\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]}]", "program[0].op", "one of");
    expect_parse_error("[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"select\",\"dim\":0,\"index\":1e300}]",
                       "program[0].index", "integer");
    expect_parse_error("[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"select\",\"dim\":99,\"index\":0}]",
                       "program[0].dim", "[-16, 15]");
    expect_parse_error("[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"slice\",\"dim\":0,\"step\":0.5}]",
                       "program[0].step", "integer");
    expect_parse_error("[{\"op\":\"inplace\",\"into\":\"x\",\"kind\":\"add_\",\"operand\":4}]", "program[0].operand", "[-3, 3]");
    expect_parse_error("[{\"op\":\"inplace\",\"into\":\"x\",\"kind\":\"fill_\",\"operand\":16}]", "program[0].operand", "[0, 15]");
    expect_parse_error("[{\"op\":\"inplace\",\"into\":\"x\",\"kind\":\"copy_\",\"operand\":1}]", "program[0].operand", "name");
    expect_parse_error("[{\"op\":\"index_put\",\"into\":\"x\",\"indices\":[[0,1],[0]],\"values\":1,\"accumulate\":false}]",
                       "program[0].indices", "one length");
    expect_parse_error("[{\"op\":\"index_put\",\"into\":\"x\",\"indices\":[[0]],\"values\":1,\"accumulate\":1}]",
                       "program[0].accumulate", "true or false");
    expect_parse_error("[{\"op\":\"return\",\"values\":[\"x\"]},{\"op\":\"inplace\",\"into\":\"x\",\"kind\":\"zero_\"}]",
                       "program[0].op", "last step");
    expect_parse_error("[{\"op\":\"return\",\"values\":[\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]}]",
                       "program[0].values", "more than 8");
    expect_parse_error("[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"dtype\",\"dtype\":\"float8\"}]",
                       "program[0].dtype", "dtype name");
    expect_parse_error("[{\"op\":\"write\",\"into\":\"x\",\"spelling\":\"scatter-return\",\"src\":\"src\"}]",
                       "program[0].spelling", "one of");
}

/* Semantic errors come from the reference, with the same kind of field. */
static void expect_invalid(const char *dtype, int64_t numel, const char *values, const char *program,
                           const char *field, const char *words) {
    tp_run run;
    tp_run_case(&run, dtype, numel, values, program);
    if (run.res.status != SS_PROG_INVALID) print_error("status %d for %s\n", run.res.status, program);
    assert_int_equal(run.res.status, SS_PROG_INVALID);
    if (strcmp(run.res.err.field, field) || !strstr(run.res.err.msg, words))
        print_error("for %s: got %s: %s\n", program, run.res.err.field, run.res.err.msg);
    assert_string_equal(run.res.err.field, field);
    assert_non_null(strstr(run.res.err.msg, words));
    tp_run_free(&run);
}

static void test_reference_invalid(void **state) {
    (void)state;
    expect_invalid("int32", 6, "[0,1,2,3,4,5]",
                   "[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"as_strided\",\"sizes\":[2,3],\"strides\":[3,1],\"offset\":0},"
                   "{\"op\":\"view\",\"name\":\"b\",\"of\":\"a\",\"kind\":\"select\",\"dim\":0,\"index\":0},"
                   "{\"op\":\"view\",\"name\":\"c\",\"of\":\"a\",\"kind\":\"select\",\"dim\":-5,\"index\":0}]",
                   "program[2].dim", "-5 out of range for a 2-dim view");
    expect_invalid("int32", 6, "[0,1,2,3,4,5]",
                   "[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"as_strided\",\"sizes\":[4],\"strides\":[2],\"offset\":0}]",
                   "program[0].sizes", "past the end of its storage");
    expect_invalid("int32", 6, "[0,1,2,3,4,5]",
                   "[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"as_strided\",\"sizes\":[1099511627776,1099511627776],\"strides\":[0,0],\"offset\":0}]",
                   "program[0].sizes", "2^24");
    expect_invalid("int32", 6, "[0,1,2,3,4,5]",
                   "[{\"op\":\"read\",\"name\":\"r\",\"of\":\"x\",\"kind\":\"clone\"},"
                   "{\"op\":\"write\",\"into\":\"x\",\"spelling\":\"setitem\",\"src\":\"r\"}]",
                   "program[1].src", "has shape [6]");
    expect_invalid("int32", 6, "[0,1,2,3,4,5]",
                   "[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"slice\",\"dim\":0,\"step\":2},"
                   "{\"op\":\"view\",\"name\":\"b\",\"of\":\"a\",\"kind\":\"dtype\",\"dtype\":\"int16\"}]",
                   "program[1].dtype", "stride must be 1");
    expect_invalid("int32", 6, "[0,1,2,3,4,5]",
                   "[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"dtype\",\"dtype\":\"int64\"},"
                   "{\"op\":\"view\",\"name\":\"b\",\"of\":\"x\",\"kind\":\"slice\",\"dim\":0,\"start\":1},"
                   "{\"op\":\"view\",\"name\":\"c\",\"of\":\"b\",\"kind\":\"dtype\",\"dtype\":\"int64\"}]",
                   "program[2].dtype", "multiple of 2");
    expect_invalid("int32", 6, "[0,1,2,3,4,5]",
                   "[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"select\",\"dim\":0,\"index\":6}]",
                   "program[0].index", "out of range");
    expect_invalid("int32", 6, "[0,1,2,3,4,5]",
                   "[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"imag\"}]", "program[0].kind", "complex");
    expect_invalid("int32", 6, "[0,1,2,3,4,5]",
                   "[{\"op\":\"index_put\",\"into\":\"x\",\"indices\":[[0],[0]],\"values\":1,\"accumulate\":false}]",
                   "program[0].indices", "2 index lists for a 1-dim view");
    expect_invalid("bool", 6, "[0,1,0,1,0,1]",
                   "[{\"op\":\"inplace\",\"into\":\"x\",\"kind\":\"add_\",\"operand\":1}]", "program[0].kind", "bool");
}

/* ---- round trip ----------------------------------------------------------- */

static const char *const every_step =
    "[{\"op\":\"view\",\"name\":\"a\",\"of\":\"x\",\"kind\":\"slice\",\"dim\":0,\"start\":null,\"end\":-1,\"step\":2},"
    "{\"op\":\"view\",\"name\":\"b\",\"of\":\"x\",\"kind\":\"slice\",\"dim\":0},"
    "{\"op\":\"view\",\"name\":\"c\",\"of\":\"x\",\"kind\":\"as_strided\",\"sizes\":[2,2],\"strides\":[1,1],\"offset\":1},"
    "{\"op\":\"view\",\"name\":\"d\",\"of\":\"c\",\"kind\":\"transpose\",\"dim0\":0,\"dim1\":1},"
    "{\"op\":\"view\",\"name\":\"e\",\"of\":\"c\",\"kind\":\"diagonal\",\"offset\":0,\"dim1\":0,\"dim2\":1},"
    "{\"op\":\"view\",\"name\":\"f\",\"of\":\"x\",\"kind\":\"unfold\",\"dim\":0,\"size\":2,\"step\":2},"
    "{\"op\":\"view\",\"name\":\"g\",\"of\":\"f\",\"kind\":\"permute\",\"dims\":[1,0]},"
    "{\"op\":\"view\",\"name\":\"h\",\"of\":\"x\",\"kind\":\"dtype\",\"dtype\":\"int16\"},"
    "{\"op\":\"read\",\"name\":\"r\",\"of\":\"g\",\"kind\":\"sum\",\"dim\":1},"
    "{\"op\":\"read\",\"name\":\"s\",\"of\":\"x\",\"kind\":\"slice_scatter\",\"src\":\"r\",\"dim\":0,\"start\":0,\"end\":2},"
    "{\"op\":\"read\",\"name\":\"t\",\"of\":\"s\",\"kind\":\"flip\",\"dims\":[0]},"
    "{\"op\":\"write\",\"into\":\"x\",\"spelling\":\"clone-scatter\",\"src\":\"src\"},"
    "{\"op\":\"inplace\",\"into\":\"b\",\"kind\":\"sub_\",\"operand\":-2},"
    "{\"op\":\"index_put\",\"into\":\"x\",\"indices\":[[0,-1,0]],\"values\":7,\"accumulate\":true},"
    "{\"op\":\"inplace\",\"into\":\"e\",\"kind\":\"zero_\"},"
    "{\"op\":\"return\",\"values\":[\"t\",\"h\",\"x\"]}]";

static void test_round_trip(void **state) {
    (void)state;
    char *text = tp_case_text("int32", 6, "[0,1,2,3,4,5]", every_step);
    ss_case c, d;
    ss_error err;
    if (ss_case_from_json(text, strlen(text), &c, &err)) fail_msg("%s: %s", err.field, err.msg);
    char *out = ss_case_to_json(&c);
    assert_non_null(out);
    if (ss_case_from_json(out, strlen(out), &d, &err)) fail_msg("%s: %s", err.field, err.msg);
    char *out2 = ss_case_to_json(&d);
    assert_string_equal(out, out2);
    assert_int_equal(d.program->nsteps, 16);
    assert_int_equal(d.program->steps[1].start_state, SS_BOUND_ABSENT);
    assert_int_equal(d.program->steps[0].start_state, SS_BOUND_NULL);
    assert_int_equal(d.program->steps[12].operand.value, -2);
    /* a deep copy prints the same */
    ss_case e;
    assert_int_equal(ss_case_copy(&e, &d), 0);
    char *out3 = ss_case_to_json(&e);
    assert_string_equal(out, out3);
    /* "small" survives too */
    assert_int_equal(c.fill_small, 0);
    free(out);
    free(out2);
    free(out3);
    free(text);
    ss_case_free(&c);
    ss_case_free(&d);
    ss_case_free(&e);
}

static void test_small_fill(void **state) {
    (void)state;
    static const char *const dtypes[] = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                         "bfloat16", "float32", "float64", "complex64", "complex128"};
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
        char text[600];
        snprintf(text, sizeof text, "{\"format\":\"ssfuzz-case\",\"version\":1,\"dtype\":\"%s\",\"storage\":{\"numel\":64},"
                 "\"input\":{\"offset\":0,\"sizes\":[64],\"strides\":[1]},\"src\":{\"storage\":\"separate\",\"offset\":0,"
                 "\"sizes\":[4],\"strides\":[1]},\"src_storage\":{\"numel\":4},\"dim\":0,\"start\":0,\"end\":4,\"step\":1,"
                 "\"fill\":{\"seed\":5,\"small\":true}}", dtypes[i]);
        ss_case c;
        ss_error err;
        if (ss_case_from_json(text, strlen(text), &c, &err)) fail_msg("%s: %s", err.field, err.msg);
        assert_int_equal(c.fill_small, 1);
        ss_storage in = {0}, src = {0};
        const size_t es = ss_dtype_size(c.dtype);
        assert_int_equal(ss_storage_reserve(&in, 64 * es, 64), 0);
        assert_int_equal(ss_storage_reserve(&src, 4 * es, 64), 0);
        ss_fill_case(&c, &in, &src);
        int distinct = 0;
        for (int k = 0; k < 64; k++) {
            char num[64];
            ss_value_number(c.dtype, ss_storage_data(&in) + k * es, num, sizeof num);
            /* every value an integer 0..15 (complex: both parts) */
            const char *p = num;
            while (*p) {
                while (*p && !(*p >= '0' && *p <= '9')) p++;
                if (!*p) break;
                char *end;
                const long v = strtol(p, &end, 10);
                assert_true(v >= 0 && v <= 15);
                p = end;
                if (*p == '.') { p++; assert_true(*p == '0'); p++; }
            }
            distinct |= strcmp(num, "0") && strcmp(num, "0.0") && strcmp(num, "False");
        }
        assert_true(distinct);
        char *out = ss_case_to_json(&c);
        assert_non_null(strstr(out, "\"small\":\ttrue"));
        free(out);
        ss_storage_free(&in);
        ss_storage_free(&src);
        ss_case_free(&c);
    }
}

/* ---- the reference's meaning: a table ----------------------------------- */

typedef struct sem_row {
    const char *what;
    const char *dtype;
    int64_t numel;
    const char *values;       /* the input storage */
    const char *sizes;        /* x's sizes (contiguous); NULL: [numel] */
    const char *program;
    ss_prog_status status;
    int raises;
    const char *storage;      /* final input storage, values as Python prints them */
    const char *rets;         /* "v:0 1|f:2 3": each returned value, v view / f fresh */
} sem_row;

#define V(name, of, kind, rest) "{\"op\":\"view\",\"name\":\"" name "\",\"of\":\"" of "\",\"kind\":\"" kind "\"" rest "}"
#define R(name, of, kind, rest) "{\"op\":\"read\",\"name\":\"" name "\",\"of\":\"" of "\",\"kind\":\"" kind "\"" rest "}"
#define W(into, sp, src, rest) "{\"op\":\"write\",\"into\":\"" into "\",\"spelling\":\"" sp "\",\"src\":\"" src "\"" rest "}"
#define IP(into, kind, rest) "{\"op\":\"inplace\",\"into\":\"" into "\",\"kind\":\"" kind "\"" rest "}"
#define RET(...) "{\"op\":\"return\",\"values\":[" __VA_ARGS__ "]}"

static const sem_row table[] = {
    {"aliased shift with a read before, used after", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("a", "x", "slice", ",\"dim\":0,\"start\":0,\"end\":2") "," R("r", "a", "clone", "") ","
     W("x", "setitem-clone", "src", "") "," IP("a", "add_", ",\"operand\":\"r\"") "," RET("\"x\",\"r\"") "]",
     SS_PROG_OK, 0, "0 1 1 2 3 4", "v:0 1 1 2 3 4|f:0 1"},
    {"setitem from a partially overlapping dense view is refused", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" W("x", "setitem", "src", "") "]", SS_PROG_REFUSED, 1, NULL, NULL},
    {"copy_ partial overlap refused", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("a", "x", "slice", ",\"dim\":0,\"start\":1,\"end\":4") "," V("b", "x", "slice", ",\"dim\":0,\"start\":0,\"end\":3") ","
     IP("a", "copy_", ",\"operand\":\"b\"") "]", SS_PROG_REFUSED, 1, NULL, NULL},
    {"copy_ full overlap allowed", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("a", "x", "slice", ",\"dim\":0,\"start\":1,\"end\":4") "," IP("a", "copy_", ",\"operand\":\"a\"") "]",
     SS_PROG_OK, 0, "0 1 2 3 4 5", ""},
    {"scatter-copy of an aliased shift: the snapshot", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" W("x", "scatter-copy", "src", "") "," RET("\"x\"") "]", SS_PROG_OK, 0, "0 0 1 2 3 4", "v:0 0 1 2 3 4"},
    {"index_put duplicates: an allowed set", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("v", "x", "slice", ",\"dim\":0,\"start\":3") "," R("r", "v", "clone", "") ","
     "{\"op\":\"index_put\",\"into\":\"x\",\"indices\":[[0,2,2]],\"values\":\"r\",\"accumulate\":false}]",
     SS_PROG_OK, 0, "3 1 5 3 4 5", ""},
    {"index_put duplicates accumulate", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[{\"op\":\"index_put\",\"into\":\"x\",\"indices\":[[0,2,-4]],\"values\":1,\"accumulate\":true}]",
     SS_PROG_OK, 0, "1 1 4 3 4 5", ""},
    {"index_put values overlapping the view raise", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("v", "x", "slice", ",\"dim\":0,\"start\":3") ","
     "{\"op\":\"index_put\",\"into\":\"x\",\"indices\":[[0,1,2]],\"values\":\"v\",\"accumulate\":false}]",
     SS_PROG_REFUSED, 1, NULL, NULL},
    {"dtype view int32 as int16", "int32", 2, "[1,2]", NULL,
     "[" V("v", "x", "dtype", ",\"dtype\":\"int16\"") "," IP("v", "add_", ",\"operand\":1") "," RET("\"v\"") "]",
     SS_PROG_OK, 0, "65538 65539", "v:2 1 3 1"},
    {"dtype view float32 as uint8", "float32", 1, "[1.0]", NULL,
     "[" V("u", "x", "dtype", ",\"dtype\":\"uint8\"") "," R("r", "u", "clone", "") "," V("w", "u", "slice", ",\"dim\":0,\"start\":3") ","
     IP("w", "add_", ",\"operand\":1") "," RET("\"r\",\"u\"") "]",
     SS_PROG_OK, 0, "4.0", "f:0 0 128 63|v:0 0 128 64"},
    {"real and imag of complex64", "complex64", 2, "[[1,2],[3,4]]", NULL,
     "[" V("re", "x", "real", "") "," V("im", "x", "imag", "") "," IP("re", "add_", ",\"operand\":\"im\"") ","
     RET("\"re\",\"im\"") "]", SS_PROG_OK, 0, "(3+2j) (7+4j)", "v:3.0 7.0|v:2.0 4.0"},
    {"unfold read is fine", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("u", "x", "unfold", ",\"dim\":0,\"size\":2,\"step\":1") "," R("r", "u", "sum", ",\"dim\":1") "," RET("\"r\"") "]",
     SS_PROG_OK, 0, "0 1 2 3 4 5", "f:1 3 5 7 9"},
    {"unfold with step < size refused on write", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("u", "x", "unfold", ",\"dim\":0,\"size\":2,\"step\":1") "," IP("u", "add_", ",\"operand\":1") "]",
     SS_PROG_REFUSED, 0, NULL, NULL},
    {"as_strided overlapping: read fine, fill fine", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("a", "x", "as_strided", ",\"sizes\":[2,2],\"strides\":[1,1],\"offset\":0") "," R("r", "a", "clone", "") ","
     IP("a", "fill_", ",\"operand\":9") "," RET("\"r\"") "]", SS_PROG_OK, 0, "9 9 9 3 4 5", "f:0 1 1 2"},
    {"as_strided overlapping: a write is refused", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("a", "x", "as_strided", ",\"sizes\":[2,2],\"strides\":[1,1],\"offset\":0") "," IP("a", "mul_", ",\"operand\":2") "]",
     SS_PROG_REFUSED, 0, NULL, NULL},
    {"stride 0: PyTorch raises", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("a", "x", "as_strided", ",\"sizes\":[3],\"strides\":[0],\"offset\":2") "," IP("a", "add_", ",\"operand\":1") "]",
     SS_PROG_REFUSED, 1, NULL, NULL},
    {"slice_scatter returned fresh, then x mutated", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("t", "x", "slice", ",\"dim\":0,\"start\":4") "," R("r", "t", "clone", "") ","
     R("y", "x", "slice_scatter", ",\"src\":\"r\",\"dim\":0,\"start\":0,\"end\":2") "," IP("x", "zero_", "") "," RET("\"y\"") "]",
     SS_PROG_OK, 0, "0 0 0 0 0 0", "f:4 5 2 3 4 5"},
    {"transpose returned as a view, its clone fresh", "int32", 6, "[0,1,2,3,4,5]", "[2,3]",
     "[" V("t", "x", "transpose", ",\"dim0\":0,\"dim1\":1") "," R("r", "t", "clone", "") "," RET("\"t\",\"r\"") "]",
     SS_PROG_OK, 0, "0 1 2 3 4 5", "v:0 3 1 4 2 5|f:0 3 1 4 2 5"},
    {"diagonal fill", "int32", 9, "[0,1,2,3,4,5,6,7,8]", "[3,3]",
     "[" V("d", "x", "diagonal", ",\"offset\":0,\"dim1\":0,\"dim2\":1") "," IP("d", "fill_", ",\"operand\":9") "]",
     SS_PROG_OK, 0, "9 1 2 3 9 5 6 7 9", ""},
    {"diagonal with an offset", "int32", 9, "[0,1,2,3,4,5,6,7,8]", "[3,3]",
     "[" V("d", "x", "diagonal", ",\"offset\":-1,\"dim1\":0,\"dim2\":1") "," RET("\"d\"") "]",
     SS_PROG_OK, 0, "0 1 2 3 4 5 6 7 8", "v:3 7"},
    {"select with a negative index, sub_", "int32", 6, "[0,1,2,3,4,5]", "[2,3]",
     "[" V("s", "x", "select", ",\"dim\":0,\"index\":-1") "," IP("s", "sub_", ",\"operand\":1") "]",
     SS_PROG_OK, 0, "0 1 2 2 3 4", ""},
    {"sum and flip", "int32", 6, "[0,1,2,3,4,5]", "[2,3]",
     "[" R("s", "x", "sum", ",\"dim\":1") "," R("f", "x", "flip", ",\"dims\":[1]") "," RET("\"s\",\"f\"") "]",
     SS_PROG_OK, 0, "0 1 2 3 4 5", "f:3 12|f:2 1 0 5 4 3"},
    {"int8 arithmetic wraps", "int8", 2, "[127,-128]", NULL,
     "[" R("a", "x", "add", ",\"value\":1") "," R("n", "x", "neg", "") "," RET("\"a\",\"n\"") "]",
     SS_PROG_OK, 0, "127 -128", "f:-128 -127|f:-127 -128"},
    {"mutation of src after the write", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" W("x", "setitem-clone", "src", "") "," IP("src", "add_", ",\"operand\":1") "]",
     SS_PROG_OK, 0, "1 1 2 3 4 4", ""},
    {"in-place op with an overlapping non-dense operand: the snapshot", "int32", 6, "[0,1,2,3,4,5]", "[2,3]",
     "[" V("a", "x", "slice", ",\"dim\":1,\"start\":1") "," V("b", "x", "slice", ",\"dim\":1,\"end\":2") ","
     IP("a", "add_", ",\"operand\":\"b\"") "]", SS_PROG_OK, 0, "0 1 3 3 7 9", ""},
    {"index-put spelling with an overlapping src raises", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" W("x", "index-put", "src", "") "]", SS_PROG_REFUSED, 1, NULL, NULL},
    {"index-put spelling from a read", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" R("r", "src", "mul", ",\"value\":2") "," W("x", "index-put", "r", "") "]", SS_PROG_OK, 0, "0 0 2 4 6 8", ""},
    {"write with its own slice", "int32", 6, "[0,1,2,3,4,5]", NULL,
     "[" V("a", "x", "slice", ",\"dim\":0,\"start\":0,\"end\":2") "," R("r", "a", "clone", "") ","
     W("x", "copy", "r", ",\"dim\":0,\"start\":-2,\"end\":null,\"step\":1") "]", SS_PROG_OK, 0, "0 1 2 3 0 1", ""},
    {"float16 arithmetic", "float16", 3, "[1,2,3]", NULL,
     "[" IP("x", "mul_", ",\"operand\":-3") "," R("r", "x", "sum", ",\"dim\":0") "," RET("\"r\"") "]",
     SS_PROG_OK, 0, "-3.0 -6.0 -9.0", "f:-18.0"},
};

static void test_semantics_table(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const sem_row *row = &table[i];
        tp_run run;
        tp_run_case_shaped(&run, row->dtype, row->numel, row->values, row->sizes, row->program);
        if (run.res.status != row->status)
            print_error("%s: status %d (%s%s%s), expected %d\n", row->what, run.res.status, run.res.err.field,
                        run.res.err.msg, run.res.why, row->status);
        assert_int_equal(run.res.status, row->status);
        if (row->status == SS_PROG_REFUSED) {
            if (run.res.raises != row->raises) print_error("%s: raises %d\n", row->what, run.res.raises);
            assert_int_equal(run.res.raises, row->raises);
            assert_true(run.res.why[0] != 0);
        }
        if (row->storage) {
            char got[512];
            tp_format_storage(&run, got, sizeof got);
            if (strcmp(got, row->storage)) print_error("%s: storage %s, expected %s\n", row->what, got, row->storage);
            assert_string_equal(got, row->storage);
        }
        if (row->rets) {
            char got[512];
            tp_format_returns(&run, got, sizeof got);
            if (strcmp(got, row->rets)) print_error("%s: returns %s, expected %s\n", row->what, got, row->rets);
            assert_string_equal(got, row->rets);
        }
        tp_run_free(&run);
    }
}

static void test_open_read_invalid(void **state) {
    (void)state;
    expect_invalid("int32", 6, "[0,1,2,3,4,5]",
                   "[" V("v", "x", "slice", ",\"dim\":0,\"start\":3") "," R("r", "v", "clone", "") ","
                   "{\"op\":\"index_put\",\"into\":\"x\",\"indices\":[[0,2,2]],\"values\":\"r\",\"accumulate\":false},"
                   R("q", "x", "clone", "") "]", "program[3]", "left open");
}

/* ---- comparison and blame ------------------------------------------------ */

/* The actual result = the reference's own, returned values as themselves. */
static void actual_from(const tp_run *r, ss_storage *in, ss_storage *src, ss_prog_actual *act) {
    memset(act, 0, sizeof *act);
    act->in = in;
    act->src = src;
    act->nret = r->res.nret;
    for (int i = 0; i < r->res.nret; i++) {
        const ss_prog_value *v = &r->res.ret[i];
        ss_prog_actual_value *a = &act->ret[i];
        a->dtype = v->dtype;
        a->ndim = v->view.ndim;
        memcpy(a->sizes, v->view.sizes, sizeof a->sizes);
        a->bytes = v->bytes;
        a->nbytes = (size_t)v->numel * ss_dtype_size(v->dtype);
        a->shares = v->is_view ? (r->c.op.src_aliased ? 3 : v->storage == 0 ? 1 : 2) : 0;
    }
}

static void test_compare_allowed_set(void **state) {
    (void)state;
    tp_run r;
    tp_run_case(&r, "int32", 6, "[0,1,2,3,4,5]",
                "[" V("v", "x", "slice", ",\"dim\":0,\"start\":3") "," R("r", "v", "clone", "") ","
                "{\"op\":\"index_put\",\"into\":\"x\",\"indices\":[[0,2,2]],\"values\":\"r\",\"accumulate\":false},"
                RET("\"x\",\"r\"") "]");
    assert_int_equal(r.res.status, SS_PROG_OK);
    assert_int_equal(r.res.nopen, 1);
    assert_int_equal(r.res.open[0].nvals, 2);
    ss_storage act_in = {0};
    assert_int_equal(ss_storage_reserve(&act_in, r.in.bytes, SS_GUARD_DEFAULT), 0);
    ss_storage_copy(&act_in, &r.in);
    ss_prog_actual act;
    actual_from(&r, &act_in, &r.src, &act);
    ss_prog_diff d;
    assert_int_equal(ss_prog_compare(&r.c, &r.res, &r.in, &r.src, &act, &d), 0);
    /* x[2] = 4 is the other allowed value: in the storage and in the returned view */
    int32_t four = 4, six = 6;
    memcpy(ss_storage_data(&act_in) + 8, &four, 4);
    uint8_t xbytes[24];
    memcpy(xbytes, ss_storage_data(&act_in), 24);
    act.ret[0].bytes = xbytes;
    assert_int_equal(ss_prog_compare(&r.c, &r.res, &r.in, &r.src, &act, &d), 0);
    memcpy(ss_storage_data(&act_in) + 8, &six, 4);
    assert_int_equal(ss_prog_compare(&r.c, &r.res, &r.in, &r.src, &act, &d), 1);
    assert_int_equal(d.kind, SS_PD_STORAGE);
    assert_int_equal(d.index, 2);
    assert_int_equal(d.nallowed, 2);
    ss_prog_ref_blame(&r.c, &r.plan, &r.init_in, &r.init_src, &d);
    assert_int_equal(d.step, 2);
    char line[400];
    ss_prog_diff_format(r.c.program, &d, line, sizeof line);
    assert_non_null(strstr(line, "input storage[2] (x[2]): expected 5 (0x00000005) (or one of 2 allowed values), got 6"));
    assert_non_null(strstr(line, "first wrong step: program[2]"));
    /* a returned read that shares x's storage, and a view that does not */
    memcpy(ss_storage_data(&act_in) + 8, &four, 4);
    act.ret[1].shares = 1;
    assert_int_equal(ss_prog_compare(&r.c, &r.res, &r.in, &r.src, &act, &d), 1);
    assert_int_equal(d.kind, SS_PD_RET_ALIAS);
    ss_prog_ref_blame(&r.c, &r.plan, &r.init_in, &r.init_src, &d);
    ss_prog_diff_format(r.c.program, &d, line, sizeof line);
    assert_string_equal(line, "returned value 1 (r) shares x's storage but must share no input storage "
                              "(a fresh tensor); first wrong step: program[1]");
    act.ret[1].shares = 0;
    act.ret[0].shares = 0;
    assert_int_equal(ss_prog_compare(&r.c, &r.res, &r.in, &r.src, &act, &d), 1);
    ss_prog_diff_format(r.c.program, &d, line, sizeof line);
    assert_non_null(strstr(line, "returned value 0 (x) shares no input storage (a fresh tensor) but must share x's and src's storage"));
    ss_storage_free(&act_in);
    tp_run_free(&r);
}

/* #198094's shape: the slice_scatter result returned after x.zero_(). */
static void test_blame_returned_read(void **state) {
    (void)state;
    tp_run r;
    tp_run_case(&r, "int32", 6, "[0,1,2,3,4,5]",
                "[" V("t", "x", "slice", ",\"dim\":0,\"start\":4") "," R("q", "t", "clone", "") ","
                R("y", "x", "slice_scatter", ",\"src\":\"q\",\"dim\":0,\"start\":0,\"end\":2") ","
                IP("x", "zero_", "") "," RET("\"y\"") "]");
    ss_prog_actual act;
    actual_from(&r, &r.in, &r.src, &act);
    uint8_t zeros[24] = {0};
    act.ret[0].bytes = zeros;
    ss_prog_diff d;
    assert_int_equal(ss_prog_compare(&r.c, &r.res, &r.in, &r.src, &act, &d), 1);
    assert_int_equal(d.kind, SS_PD_RET_VALUE);
    assert_int_equal(d.count, 6);
    assert_int_equal(ss_prog_ref_blame(&r.c, &r.plan, &r.init_in, &r.init_src, &d), 2);
    char line[400];
    ss_prog_diff_format(r.c.program, &d, line, sizeof line);
    assert_string_equal(line, "returned value 0 (y)[0]: expected 4 (0x00000004), got 0 (0x00000000); 6 elements "
                              "differ; first wrong step: program[2]");
    /* a wrong storage element: its last writer, or -1 when no step writes it */
    tp_run_free(&r);
    tp_run_case(&r, "int32", 6, "[0,1,2,3,4,5]", "[" IP("src", "add_", ",\"operand\":1") "]");
    ss_storage act_in = {0};
    assert_int_equal(ss_storage_reserve(&act_in, r.in.bytes, SS_GUARD_DEFAULT), 0);
    ss_storage_copy(&act_in, &r.in);
    actual_from(&r, &act_in, &r.src, &act);
    int32_t nine = 9;
    memcpy(ss_storage_data(&act_in) + 20, &nine, 4);
    assert_int_equal(ss_prog_compare(&r.c, &r.res, &r.in, &r.src, &act, &d), 1);
    assert_int_equal(d.index, 5);
    assert_int_equal(ss_prog_ref_blame(&r.c, &r.plan, &r.init_in, &r.init_src, &d), -1);
    memcpy(ss_storage_data(&act_in), &nine, 4);
    assert_int_equal(ss_prog_compare(&r.c, &r.res, &r.in, &r.src, &act, &d), 1);
    assert_int_equal(d.index, 0);
    assert_int_equal(d.count, 2);
    assert_int_equal(ss_prog_ref_blame(&r.c, &r.plan, &r.init_in, &r.init_src, &d), 0);
    ss_storage_free(&act_in);
    tp_run_free(&r);
}

/* ---- the generator ------------------------------------------------------- */

/* 10 000 generated programs: each parses back from its JSON, and the reference
 * runs it as valid (or refuses it by PyTorch's rules) and exactly. */
static void test_generator_valid(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.programs = 1;
    int by_status[4] = {0}, by_op[SS_STEP_OP_COUNT] = {0}, by_len[SS_PROG_MAX_STEPS + 1] = {0}, open = 0;
    for (uint64_t i = 0; i < 10000; i++) {
        ss_case c;
        assert_int_equal(ss_gen_case(&cfg, 11 + i / 1000, i, &c, NULL), 0);
        assert_non_null(c.program);
        assert_true(c.program->nsteps >= 1 && c.program->nsteps <= 4);
        assert_int_equal(c.fill_small, 1);
        by_len[c.program->nsteps]++;
        for (int k = 0; k < c.program->nsteps; k++) by_op[c.program->steps[k].op]++;
        char *text = ss_case_to_json(&c);
        tp_run r;
        tp_run_text(&r, text);
        if ((r.res.status != SS_PROG_OK && r.res.status != SS_PROG_REFUSED) || r.res.inexact_step >= 0)
            print_error("case %llu: status %d (%s: %s) inexact %d (%s)\n%s\n", (unsigned long long)i, r.res.status,
                        r.res.err.field, r.res.err.msg, r.res.inexact_step, r.res.inexact, text);
        assert_true(r.res.status == SS_PROG_OK || r.res.status == SS_PROG_REFUSED);
        assert_true(r.res.inexact_step < 0);
        by_status[r.res.status]++;
        open += r.res.nopen > 0;
        tp_run_free(&r);
        free(text);
        ss_case_free(&c);
    }
    print_message("generated programs: %d ran, %d refused; with open elements %d; steps 1-4: %d %d %d %d; "
                  "view %d read %d write %d inplace %d index_put %d return %d\n", by_status[SS_PROG_OK],
                  by_status[SS_PROG_REFUSED], open, by_len[1], by_len[2], by_len[3], by_len[4], by_op[0], by_op[1],
                  by_op[2], by_op[3], by_op[4], by_op[5]);
    assert_true(by_status[SS_PROG_REFUSED] > 0 && by_status[SS_PROG_OK] > 5000);
    for (int k = 0; k < SS_STEP_OP_COUNT; k++) assert_true(by_op[k] > 100);
}

static void test_generator_deterministic(void **state) {
    (void)state;
    ss_gen_config cfg;
    ss_gen_config_default(&cfg);
    cfg.programs = 1;
    cfg.program_steps = 6;
    int longer = 0;
    for (uint64_t i = 0; i < 300; i++) {
        ss_case a, b;
        assert_int_equal(ss_gen_case(&cfg, 5, i, &a, NULL), 0);
        assert_int_equal(ss_gen_case(&cfg, 5, i + 1, &b, NULL), 0);   /* another case between */
        ss_case_free(&b);
        assert_int_equal(ss_gen_case(&cfg, 5, i, &b, NULL), 0);
        char *ta = ss_case_to_json(&a), *tb = ss_case_to_json(&b);
        assert_string_equal(ta, tb);
        longer += a.program->nsteps > 4;
        assert_true(a.program->nsteps <= 6);
        free(ta);
        free(tb);
        ss_case_free(&a);
        ss_case_free(&b);
    }
    assert_true(longer > 0);
    /* without --programs, the same cases as before: no program, no small fill */
    cfg.programs = 0;
    ss_case c;
    assert_int_equal(ss_gen_case(&cfg, 5, 3, &c, NULL), 0);
    assert_null(c.program);
    assert_int_equal(c.fill_small, 0);
    ss_case_free(&c);
}

/* ---- the minimizer --------------------------------------------------------- */

/* The signature minimized: the program runs, x ends all zero, and a returned
 * fresh tensor still holds a nonzero value (#198094's shape). */
static int fresh_survives_zero(const ss_case *c, const ss_plan *plan, void *user) {
    (void)user;
    if (!c->program) return 0;
    const size_t es = c->op.elem_size;
    ss_storage in = {0}, src = {0};
    if (ss_storage_reserve(&in, (size_t)c->op.input_storage_numel * es, 16) ||
        ss_storage_reserve(&src, c->op.src_aliased ? 0 : (size_t)c->op.src_storage_numel * es, 16))
        return 0;
    ss_fill_case(c, &in, &src);
    ss_prog_result res;
    int hit = 0;
    if (ss_prog_ref_run(c, plan, &in, &src, &res) == SS_PROG_OK) {
        int x_zero = 1;
        ss_prog_name_info names[SS_PROG_MAX_NAMES];
        ss_prog_result r2;
        ss_prog_ref_names(c, plan, names, &r2);
        ss_prog_result_free(&r2);
        const ss_view *xv = &c->op.input;
        int64_t idx[SS_MAX_NDIM] = {0};
        for (int64_t k = 0; k < ss_view_numel(xv); k++) {
            const uint8_t *e = ss_storage_data(&in) + ss_view_offset_of(xv, idx) * (int64_t)es;
            for (size_t b = 0; b < es; b++) x_zero &= e[b] == 0;
            for (int d = xv->ndim - 1; d >= 0 && ++idx[d] == xv->sizes[d]; d--) idx[d] = 0;
        }
        for (int i = 0; i < res.nret && x_zero; i++)
            if (!res.ret[i].is_view)
                for (int64_t b = 0; b < res.ret[i].numel * (int64_t)es; b++) hit |= res.ret[i].bytes[b] != 0;
    }
    ss_prog_result_free(&res);
    ss_storage_free(&in);
    ss_storage_free(&src);
    return hit;
}

static void test_minimize_program(void **state) {
    (void)state;
    const char *text =
        "{\"format\":\"ssfuzz-case\",\"version\":1,\"dtype\":\"float32\",\"storage\":{\"numel\":40},"
        "\"input\":{\"offset\":3,\"sizes\":[4,6],\"strides\":[6,1]},\"src\":{\"storage\":\"input\",\"offset\":3,"
        "\"sizes\":[3,6],\"strides\":[6,1]},\"dim\":0,\"start\":1,\"end\":null,\"step\":1,"
        "\"fill\":{\"seed\":9,\"small\":true},\"program\":["
        V("a", "x", "slice", ",\"dim\":0,\"start\":0,\"end\":2") "," R("r", "a", "clone", "") ","
        R("y", "x", "slice_scatter", ",\"src\":\"src\",\"dim\":0,\"start\":1") ","
        IP("x", "add_", ",\"operand\":1") "," IP("a", "mul_", ",\"operand\":\"r\"") "," IP("x", "zero_", "") ","
        RET("\"y\",\"r\",\"x\"") "]}";
    ss_case c;
    ss_error err;
    if (ss_case_from_json(text, strlen(text), &c, &err)) fail_msg("%s: %s", err.field, err.msg);
    ss_plan plan;
    assert_int_equal(ss_plan_build(&c.op, &plan, NULL), 0);
    assert_int_equal(fresh_survives_zero(&c, &plan, NULL), 1);
    ss_min_stats st;
    assert_int_equal(ss_minimize(&c, NULL, fresh_survives_zero, NULL, &st), 0);
    assert_int_equal(ss_plan_build(&c.op, &plan, NULL), 0);
    assert_int_equal(fresh_survives_zero(&c, &plan, NULL), 1);
    char *out = ss_case_to_json(&c);
    /* the steps that do not matter went first: a read or slice_scatter, the zero_, the return */
    if (c.program->nsteps != 3) print_error("%s\n", out);
    assert_int_equal(c.program->nsteps, 3);
    assert_int_equal(c.program->steps[1].op, SS_STEP_INPLACE);
    assert_int_equal(c.program->steps[1].kind, SS_IK_ZERO);
    assert_int_equal(c.program->steps[2].op, SS_STEP_RETURN);
    assert_int_equal(c.program->steps[2].nret, 1);
    /* then the shapes shrank */
    assert_true(st.numel_after < st.numel_before);
    assert_true(c.op.input.ndim == 1);
    assert_int_equal(ss_min_is_minimal(&c, 0, fresh_survives_zero, NULL), 1);
    free(out);
    ss_case_free(&c);
}

/* ---- the Python printer ---------------------------------------------------- */

static void test_python_lines(void **state) {
    (void)state;
    static const char *const want =
        "def program(x, src):\n"
        "    a = x[:-1:2]\n"
        "    b = x[:]\n"
        "    c = x.as_strided((2, 2), (1, 1), 1)\n"
        "    d = c.transpose(0, 1)\n"
        "    e = c.diagonal(0, 0, 1)\n"
        "    f = x.unfold(0, 2, 2)\n"
        "    g = f.permute(1, 0)\n"
        "    h = x.view(torch.int16)\n"
        "    r = torch.sum(g, 1, dtype=g.dtype)\n"
        "    s = torch.slice_scatter(x, r, 0, 0, 2, 1)\n"
        "    t = s.flip((0,))\n"
        "    x.copy_(torch.slice_scatter(x.clone(), src, 0, 1, None, 1))\n"
        "    b.sub_(-2)\n"
        "    x.index_put_((torch.tensor([0, -1, 0]),), torch.tensor(7, dtype=x.dtype, device=x.device), accumulate=True)\n"
        "    e.zero_()\n"
        "    return (t, h, x)\n";
    char *text = tp_case_text("int32", 6, "[0,1,2,3,4,5]", every_step);
    tp_run r;
    tp_run_text(&r, text);
    char *got = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&got, &len);
    ss_program_py_function(f, &r.c, &r.plan);
    fclose(f);
    assert_string_equal(got, want);
    free(got);
    tp_run_free(&r);
    free(text);
    /* each write spelling, a 2-D case along dim 1 and along dim -1; select, reads, returns of one */
    static const struct { const char *step, *line; } rows[] = {
        {W("x", "setitem", "src", ",\"dim\":1,\"start\":1,\"end\":3"), "x[:, 1:3] = src"},
        {W("x", "setitem-clone", "src", ",\"dim\":-1,\"start\":null,\"end\":-1,\"step\":2"), "x[..., :-1:2] = src.clone()"},
        {W("x", "copy", "src", ",\"dim\":-2"), "x[..., 1:, :].copy_(src)"},
        {W("x", "scatter-copy", "src", ""), "x.copy_(torch.slice_scatter(x, src, 0, 1, None, 1))"},
        {W("x", "index-put", "r", ",\"dim\":1,\"start\":0,\"end\":3"),
         "x.index_put_((torch.arange(x.shape[0]).view(-1, 1), torch.arange(x.shape[1])[0:3]), r)"},
        {W("x", "index-put", "r", ",\"dim\":-1,\"start\":0,\"end\":3"),
         "x.index_put_((torch.arange(x.shape[0]).view(-1, 1), torch.arange(x.shape[1])[0:3]), r)"},
        {W("x", "index-put", "r", ""), "x.index_put_((torch.arange(x.shape[0])[1:],), r)"},
        {V("a", "x", "select", ",\"dim\":1,\"index\":-1"), "a = x[:, -1]"},
        {R("q", "x", "add", ",\"value\":-2"), "q = x - 2"},
        {R("q", "x", "mul", ",\"value\":-2"), "q = x * -2"},
        {R("q", "x", "neg", ""), "q = -x"},
        {IP("x", "fill_", ",\"operand\":3"), "x.fill_(3)"},
        {RET("\"x\""), "return (x,)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char prog[600];
        snprintf(prog, sizeof prog, "[" R("r", "src", "clone", "") ",%s]", rows[i].step);
        tp_run_case_shaped(&r, "int32", 12, "[0,1,2,3,4,5,6,7,8,9,10,11]", "[3,4]", prog);
        char line[SS_PROGRAM_PY_LINE];
        ss_program_py_step(&r.c, &r.plan, 1, line, sizeof line);
        if (strcmp(line, rows[i].line)) print_error("row %zu: %s\n", i, line);
        assert_string_equal(line, rows[i].line);
        tp_run_free(&r);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_hostile),
        cmocka_unit_test(test_reference_invalid),
        cmocka_unit_test(test_open_read_invalid),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_small_fill),
        cmocka_unit_test(test_semantics_table),
        cmocka_unit_test(test_compare_allowed_set),
        cmocka_unit_test(test_blame_returned_read),
        cmocka_unit_test(test_generator_valid),
        cmocka_unit_test(test_generator_deterministic),
        cmocka_unit_test(test_minimize_program),
        cmocka_unit_test(test_python_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
