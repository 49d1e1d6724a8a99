/* test_case_json.c - the case file reader/writer: bit-exact round trips, every parser rule, hostile files, atomic save. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ss_case.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void) {   /* xorshift64*: deterministic, good enough for bit patterns */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static const char *hostile_dir(void) {
    const char *d = getenv("SS_HOSTILE_DIR");
    return d ? d : "tests/hostile";
}

/* ---- helpers ------------------------------------------------------------- */

/* Parse text expecting failure; returns the error for field checks. */
static ss_error expect_reject(const char *text) {
    ss_case c;
    ss_error err = {{0}, {0}};
    const int rc = ss_case_from_json(text, strlen(text), &c, &err);
    if (rc == 0) print_error("accepted: %s\n", text);
    assert_int_equal(rc, -1);
    assert_true(err.field[0] != '\0');
    assert_true(err.msg[0] != '\0');
    ss_case_free(&c);
    return err;
}

static void expect_field(const char *text, const char *field) {
    const ss_error err = expect_reject(text);
    if (strcmp(err.field, field)) print_error("field %s (%s) for %s\n", err.field, err.msg, text);
    assert_string_equal(err.field, field);
}

/* A valid case with `extra` spliced in as further top-level members (replacing
 * nothing: callers pass keys the base lacks). */
#define BASE_HEAD "{\"format\":\"ssfuzz-case\",\"version\":1,\"dtype\":\"float32\","
#define BASE_STORAGE "\"storage\":{\"numel\":12},"
#define BASE_INPUT "\"input\":{\"offset\":0,\"sizes\":[3,4],\"strides\":[4,1]},"
#define BASE_SRC "\"src\":{\"storage\":\"input\",\"offset\":0,\"sizes\":[2,4],\"strides\":[4,1]},"
#define BASE_OP "\"dim\":0,\"start\":1,\"end\":null,\"step\":1,"
#define BASE_FILL "\"fill\":{\"seed\":7}"
#define BASE BASE_HEAD BASE_STORAGE BASE_INPUT BASE_SRC BASE_OP BASE_FILL "}"

static void fill_view(ss_view *v, int ndim) {
    v->offset = (int64_t)(rng() % 5);
    v->ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        v->sizes[d] = (int64_t)(rng() % 4);
        v->strides[d] = (int64_t)(rng() % 7);
    }
}

/* Random bytes with the interesting patterns planted at the front. */
static void fill_values(ss_dtype t, uint8_t *p, int64_t n) {
    const size_t sz = ss_dtype_size(t);
    for (int64_t i = 0; i < n * (int64_t)sz; i++) p[i] = (uint8_t)rng();
    static const uint64_t f32[] = {0x7fc00001, 0xffbfffff, 0x80000000, 0x00000001, 0x007fffff,
                                   0x7f800000, 0xff800000, 0x3f800000, 0x3dcccccd, 0x7f7fffff};
    static const uint64_t f64[] = {0x7ff8000000000001ULL, 0xfff0000000000001ULL,
                                   0x8000000000000000ULL, 0x0000000000000001ULL,
                                   0x000fffffffffffffULL, 0x7ff0000000000000ULL,
                                   0x3fb999999999999aULL, 0x4340000000000000ULL,
                                   0x7fefffffffffffffULL, 0x3ff0000000000001ULL};
    static const uint64_t i64[] = {0x8000000000000000ULL, 0x7fffffffffffffffULL,
                                   0x0020000000000000ULL, 0x0020000000000001ULL,
                                   0xffe0000000000000ULL, 0x00038d7ea4c67fffULL,
                                   0x00038d7ea4c68000ULL, 0xffffffffffffffffULL, 0, 1};
    static const uint64_t f16[] = {0x7e01, 0xfc01, 0x8000, 0x0001, 0x03ff, 0x7c00, 0xfc00,
                                   0x7bff, 0x3c00, 0x0400};
    const uint64_t *pat = NULL;
    switch (t) {
    case SS_FLOAT32: case SS_COMPLEX64: pat = f32; break;
    case SS_FLOAT64: case SS_COMPLEX128: pat = f64; break;
    case SS_INT64: pat = i64; break;
    case SS_FLOAT16: case SS_BFLOAT16: pat = f16; break;
    default: break;
    }
    const size_t w = sz > 8 ? 8 : sz;
    for (int64_t i = 0; pat && i < 10 && (i + 1) * (int64_t)w <= n * (int64_t)sz; i++)
        for (size_t b = 0; b < w; b++) p[i * (int64_t)w + (int64_t)b] = (uint8_t)(pat[i] >> (8 * b));
    if (t == SS_BOOL)   /* mostly canonical, a few odd bytes */
        for (int64_t i = 0; i < n; i++) p[i] = (i % 7 == 3) ? p[i] : p[i] & 1;
}

static void assert_same_case(const ss_case *a, const ss_case *b) {
    assert_int_equal(a->dtype, b->dtype);
    assert_memory_equal(&a->op, &b->op, sizeof a->op);
    assert_int_equal(a->explicit_values, b->explicit_values);
    const size_t sz = ss_dtype_size(a->dtype);
    if (a->explicit_values) {
        assert_memory_equal(a->values_input, b->values_input,
                            (size_t)a->op.input_storage_numel * sz);
        if (!a->op.src_aliased)
            assert_memory_equal(a->values_src, b->values_src, (size_t)a->op.src_storage_numel * sz);
    } else {
        assert_true(a->fill_seed == b->fill_seed);
    }
    assert_int_equal(a->meta != NULL, b->meta != NULL);
    assert_int_equal(a->expect != NULL, b->expect != NULL);
    if (a->meta) assert_true(cJSON_Compare(a->meta, b->meta, 1));
    if (a->expect) assert_true(cJSON_Compare(a->expect, b->expect, 1));
}

static void round_trip(const ss_case *c) {
    char *text = ss_case_to_json(c);
    assert_non_null(text);
    assert_int_equal(strncmp(text, "{\n\t\"format\":\t\"ssfuzz-case\",\n\t\"version\":\t1,", 42), 0);
    ss_case back;
    ss_error err;
    const int rc = ss_case_from_json(text, strlen(text), &back, &err);
    if (rc) print_error("%s: %s\n", err.field, err.msg);
    assert_int_equal(rc, 0);
    assert_same_case(c, &back);
    char *again = ss_case_to_json(&back);   /* stable: writing twice gives the same text */
    assert_string_equal(text, again);
    free(again);
    free(text);
    ss_case_free(&back);
}

static void make_case(ss_case *c, ss_dtype t, int aliased, int explicit_values, int64_t numel) {
    ss_case_init(c);
    c->dtype = t;
    c->op.elem_size = ss_dtype_size(t);
    c->op.input_storage_numel = numel;
    c->op.src_aliased = aliased;
    c->op.src_storage_numel = aliased ? numel : numel / 2 + 1;
    fill_view(&c->op.input, 1 + (int)(rng() % SS_MAX_NDIM));
    fill_view(&c->op.src, (int)(rng() % 3));
    c->op.dim = -1;
    c->op.has_start = (int)(rng() & 1);
    c->op.start = c->op.has_start ? -3 : 0;
    c->op.has_end = 1;
    c->op.end = SS_MAX_JSON_INT;   /* 2^53: cJSON's own printer would round this */
    c->op.step = 2;
    c->explicit_values = explicit_values;
    c->fill_seed = explicit_values ? 0 : (uint64_t)SS_MAX_JSON_INT - 1;
    if (explicit_values) {
        const size_t sz = ss_dtype_size(t);
        c->values_input = malloc((size_t)numel * sz + 1);
        fill_values(t, c->values_input, numel);
        if (!aliased) {
            c->values_src = malloc((size_t)c->op.src_storage_numel * sz + 1);
            fill_values(t, c->values_src, c->op.src_storage_numel);
        }
    }
}

/* ---- round trips ---------------------------------------------------------- */

static void test_round_trip_every_dtype(void **state) {
    (void)state;
    for (int t = 0; t < SS_DTYPE_COUNT; t++)
        for (int aliased = 0; aliased <= 1; aliased++)
            for (int expl = 0; expl <= 1; expl++) {
                ss_case c;
                make_case(&c, (ss_dtype)t, aliased, expl, 3000);
                round_trip(&c);
                ss_case_free(&c);
            }
}

static void test_round_trip_meta_expect_and_copy(void **state) {
    (void)state;
    ss_case c, d;
    make_case(&c, SS_COMPLEX128, 0, 1, 10);
    c.meta = cJSON_Parse("{\"target\":\"emu:reinplace\",\"n\":[1,2,{\"x\":null}]}");
    c.expect = cJSON_Parse("{\"emu:reinplace\":\"mismatch\"}");
    round_trip(&c);
    assert_int_equal(ss_case_copy(&d, &c), 0);
    assert_ptr_not_equal(d.values_input, c.values_input);
    assert_ptr_not_equal(d.meta, c.meta);
    ss_case_free(&c);   /* the copy must not share anything */
    round_trip(&d);
    ss_case_free(&d);
}

/* Every float16/bfloat16 bit pattern, through text and back. */
static void test_round_trip_all_half_patterns(void **state) {
    (void)state;
    const ss_dtype types[] = {SS_FLOAT16, SS_BFLOAT16};
    uint8_t *in = malloc(65536 * 2), *out = malloc(65536 * 2);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 65536; i++) { in[2 * i] = (uint8_t)i; in[2 * i + 1] = (uint8_t)(i >> 8); }
        cJSON *arr = ss_values_to_json(types[k], in, 65536);
        char *text = cJSON_PrintUnformatted(arr);
        cJSON *back = cJSON_Parse(text);
        ss_error err;
        assert_int_equal(ss_values_from_json(types[k], back, out, 65536, "v", &err), 0);
        assert_memory_equal(in, out, 65536 * 2);
        cJSON_Delete(arr); cJSON_Delete(back); free(text);
    }
    free(in); free(out);
}

/* Random doubles and float32s through cJSON's printer: catches any value the
 * writer wrongly trusts cJSON to print exactly. */
static void test_round_trip_random_floats_text(void **state) {
    (void)state;
    const ss_dtype types[] = {SS_FLOAT32, SS_FLOAT64, SS_COMPLEX64, SS_COMPLEX128, SS_INT64};
    enum { N = 200000 };
    uint8_t *in = malloc(N * 8), *out = malloc(N * 8);
    for (int k = 0; k < 5; k++) {
        const int64_t n = N * 8 / (int64_t)ss_dtype_size(types[k]);
        for (int64_t i = 0; i < N * 8; i++) in[i] = (uint8_t)rng();
        if (types[k] == SS_FLOAT64)   /* plain-looking decimals: the short form matters */
            for (int64_t i = 0; i < n / 2; i++) {
                const double d = (double)(rng() % 2000000) / 1000.0;
                memcpy(in + 8 * i, &d, 8);
            }
        cJSON *arr = ss_values_to_json(types[k], in, n);
        char *text = cJSON_PrintUnformatted(arr);
        cJSON *back = cJSON_Parse(text);
        ss_error err;
        assert_int_equal(ss_values_from_json(types[k], back, out, n, "v", &err), 0);
        assert_memory_equal(in, out, (size_t)N * 8);
        cJSON_Delete(arr); cJSON_Delete(back); free(text);
    }
    free(in); free(out);
}

/* ---- explicit values ------------------------------------------------------- */

static void parse_values(const char *dtype, int numel, const char *vals, uint8_t *out,
                         size_t bytes) {
    char text[1024];
    snprintf(text, sizeof text,
             "{\"format\":\"ssfuzz-case\",\"version\":1,\"dtype\":\"%s\",\"storage\":{\"numel\":%d},"
             BASE_INPUT BASE_SRC BASE_OP "\"values\":{\"input\":%s}}",
             dtype, numel, vals);
    ss_case c;
    ss_error err;
    const int rc = ss_case_from_json(text, strlen(text), &c, &err);
    if (rc) print_error("%s: %s\n", err.field, err.msg);
    assert_int_equal(rc, 0);
    memcpy(out, c.values_input, bytes);
    ss_case_free(&c);
}

static void test_values_explicit(void **state) {
    (void)state;
    uint8_t b[64];
    uint32_t u32[4];
    parse_values("float32", 4, "[\"0x7fc00001\", \"0x80000000\", -0.0, 0.1]", b, 16);
    memcpy(u32, b, 16);
    assert_int_equal(u32[0], 0x7fc00001);
    assert_int_equal(u32[1], 0x80000000);
    assert_int_equal(u32[2], 0x80000000);
    assert_int_equal(u32[3], 0x3dcccccd);
    uint16_t h[6];   /* ties go to even; 0.1 -> 0x2e66; halfway below the min subnormal -> 0 */
    parse_values("float16", 6, "[0.1, 1.00048828125, 1.00146484375, 65519, 2.98023223876953125e-8,"
                 " 8.94069671630859375e-8]", b, 12);
    memcpy(h, b, 12);
    assert_int_equal(h[0], 0x2e66);
    assert_int_equal(h[1], 0x3c00);
    assert_int_equal(h[2], 0x3c02);
    assert_int_equal(h[3], 0x7bff);
    assert_int_equal(h[4], 0x0000);
    assert_int_equal(h[5], 0x0002);
    parse_values("bfloat16", 3, "[1.00390625, 1.01171875, \"0x7fc1\"]", b, 6);
    memcpy(h, b, 6);
    assert_int_equal(h[0], 0x3f80);
    assert_int_equal(h[1], 0x3f82);
    assert_int_equal(h[2], 0x7fc1);
    uint64_t u64[4];
    parse_values("complex128", 2, "[[1.5, -2], \"0x7ff80000000000010000000000000000\"]", b, 32);
    memcpy(u64, b, 32);
    assert_true(u64[0] == 0x3ff8000000000000ULL && u64[1] == 0xc000000000000000ULL);
    assert_true(u64[2] == 0 && u64[3] == 0x7ff8000000000001ULL);   /* imag is the high half */
    parse_values("int64", 3, "[\"0x8000000000000000\", -9007199254740992, \"0xff\"]", b, 24);
    memcpy(u64, b, 24);
    assert_true(u64[0] == 0x8000000000000000ULL && (int64_t)u64[1] == -9007199254740992LL);
    assert_true(u64[2] == 255);
    parse_values("bool", 4, "[true, false, 1, 0]", b, 4);
    assert_memory_equal(b, "\1\0\1\0", 4);

    /* The writer: NaN, inf and -0.0 as hex; plain values as numbers. */
    const float f[4] = {NAN, INFINITY, -0.0f, 0.5f};
    cJSON *arr = ss_values_to_json(SS_FLOAT32, (const uint8_t *)f, 4);
    char *text = cJSON_PrintUnformatted(arr);
    assert_string_equal(text, "[\"0x7fc00000\",\"0x7f800000\",\"0x80000000\",0.5]");
    free(text);
    cJSON_Delete(arr);
}

/* Our half conversion against the compiler's (round-to-nearest-even). */
static void test_float16_matches_compiler(void **state) {
    (void)state;
#ifdef __FLT16_MAX__
    for (int i = 0; i < 200000; i++) {
        uint64_t bits = rng();
        double d;
        memcpy(&d, &bits, 8);
        d = ldexp(fmod(fabs(d), 1.0) + 1.0, (int)(rng() % 50) - 30) * ((bits & 1) ? -1 : 1);
        if (!(fabs(d) < 65504)) continue;
        cJSON *arr = cJSON_CreateArray();
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(d));
        uint16_t got, want;
        ss_error err;
        assert_int_equal(ss_values_from_json(SS_FLOAT16, arr, (uint8_t *)&got, 1, "v", &err), 0);
        const _Float16 hf = (_Float16)d;
        memcpy(&want, &hf, 2);
        assert_int_equal(got, want);
        cJSON_Delete(arr);
    }
#else
    skip();
#endif
}

/* ---- parser rules (one test each, checking the field named) ---------------- */

/* BASE with the first occurrence of `from` replaced by `to`. */
static char *with(const char *from, const char *to) {
    static char buf[4096];
    const char *at = strstr(BASE, from);
    assert_non_null(at);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - BASE), BASE, to, at + strlen(from));
    return buf;
}

static void test_base_is_valid(void **state) {
    (void)state;
    ss_case c;
    ss_error err;
    assert_int_equal(ss_case_from_json(BASE, strlen(BASE), &c, &err), 0);
    assert_int_equal(c.op.has_start, 1);
    assert_int_equal(c.op.start, 1);
    assert_int_equal(c.op.has_end, 0);
    assert_int_equal(c.op.src_aliased, 1);
    assert_int_equal(c.op.src_storage_numel, 12);
    assert_int_equal(c.op.elem_size, 4);
    assert_int_equal(c.fill_seed, 7);
    ss_case_free(&c);
    /* step defaults to 1; start/end may be absent; a BOM-less text needs no terminator */
    const char *t = with("\"start\":1,\"end\":null,\"step\":1,", "");
    char *unterminated = malloc(strlen(t));
    memcpy(unterminated, t, strlen(t));
    assert_int_equal(ss_case_from_json(unterminated, strlen(t), &c, &err), 0);
    assert_int_equal(c.op.step, 1);
    assert_int_equal(c.op.has_start + c.op.has_end, 0);
    free(unterminated);
    ss_case_free(&c);
}

static void test_rule_utf8(void **state) {
    (void)state;
    const char *bad[] = {"\"\xff\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
                         "\"\xe2\x82\"", "\"\xe2\x82"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const ss_error err = expect_reject(with("\"float32\"", bad[i]));
        assert_string_equal(err.field, "(file)");
        assert_non_null(strstr(err.msg, "invalid UTF-8 at line 1:46 (byte 45)"));
    }
}

/* A "$schema" key (for editors) is accepted and must be a string; an unknown dtype
 * lists the valid ones. */
static void test_schema_key_and_dtype_list(void **state) {
    (void)state;
    const char *base = BASE;
    char text[4096];
    snprintf(text, sizeof text, "{\"$schema\":\"schema/ssfuzz-case.schema.json\",%s", base + 1);
    ss_case c;
    ss_error err;
    assert_int_equal(ss_case_from_json(text, strlen(text), &c, &err), 0);
    ss_case_free(&c);
    snprintf(text, sizeof text, "{\"$schema\":3,%s", base + 1);
    expect_field(text, "$schema");
    err = expect_reject(with("\"float32\"", "\"float33\""));
    assert_string_equal(err.field, "dtype");
    assert_non_null(strstr(err.msg, "unknown dtype \"float33\" (one of: bool, uint8, "));
    assert_non_null(strstr(err.msg, "bfloat16, float32, float64, complex64, complex128)"));
}

static void test_rule_syntax(void **state) {
    (void)state;
    ss_error err = expect_reject("{\"format\": \"ssfuzz-case\",, }");
    assert_string_equal(err.field, "(json)");
    assert_non_null(strstr(err.msg, "syntax error at line 1:26 (byte 25)"));   /* the 2nd comma */
    err = expect_reject("{\n  \"format\": \"ssfuzz-case\",\n  \"version\": 01\n}");
    assert_non_null(strstr(err.msg, "at line 3:15 (byte 43)"));   /* line:column of the bad number */
    expect_field(BASE " x", "(json)");                        /* trailing garbage */
    expect_field("{\"format\":\"ssfuzz-case\"\0}", "(json)"); /* truncated */
    expect_field("", "(json)");
    expect_field("[1]", "(json)");                            /* not an object */
    ss_case c;
    char nul[] = BASE "\0 ";                                   /* embedded NUL */
    assert_int_equal(ss_case_from_json(nul, sizeof nul - 1, &c, &err), -1);
    assert_string_equal(err.field, "(json)");
}

/* Issue 14 item 3: what cJSON lets through but JSON (or exactness) does not. */
static void expect_rule(const char *text, const char *field, const char *rule) {
    const ss_error err = expect_reject(text);
    if (strcmp(err.field, field) || !strstr(err.msg, rule))
        print_error("got %s: %s; wanted %s: ...%s...\n", err.field, err.msg, field, rule);
    assert_string_equal(err.field, field);
    assert_non_null(strstr(err.msg, rule));
}

static void test_rule_json_strictness(void **state) {
    (void)state;
    expect_rule(with("\"float32\"", "\"uint8\\u0000junk\""), "dtype", "\\u0000 (NUL)");
    expect_rule(with("\"start\":1", "\"start\\u0000bogus\":1"), "start\\u0000", "key holds \\u0000");
    expect_rule(with("\"dim\":0", "\"dim\":01"), "dim", "\"01\" is not a JSON number (leading zero)");
    expect_rule(with("\"dim\":0", "\"dim\":00"), "dim", "\"00\" is not a JSON number (leading zero)");
    expect_rule(with("\"dim\":0", "\"dim\":-01"), "dim", "leading zero");
    expect_rule(with("\"dim\":0", "\"dim\":1."), "dim", "\"1.\" is not a JSON number ('.' must be followed by digits)");
    expect_rule(with("\"dim\":0", "\"dim\":1e"), "dim", "an exponent needs digits");
    expect_rule(with("\"dim\":0", "\"dim\":-"), "dim", "'-' must be followed by digits");
    expect_rule(with("\"strides\":[4,1]", "\"strides\":[4,9007199254740993]"), "input.strides[1]",
                "integer 9007199254740993 is beyond 2^53 in magnitude");
    expect_rule(with("\"offset\":0", "\"offset\":-9007199254740993"), "input.offset", "beyond 2^53");
    expect_rule(with("\"numel\":12", "\"numel\":12,\"x\":{\"y\":[1,02]}"), "storage.x.y[1]", "leading zero");
    expect_rule(with("\"seed\":7", "\"seed\":100000000000000000000"), "fill.seed", "beyond 2^53");
    expect_rule(with("\"float32\"", "\"\\udc00\""), "dtype", "lone low surrogate");
    /* exactly 2^53 and its negative are fine, and so is a big float literal in meta */
    ss_case c;
    ss_error err;
    const char *ok = with("\"seed\":7", "\"seed\":9007199254740992},\"meta\":{\"x\":-9007199254740992,"
                                        "\"y\":1.5e300,\"z\":\"a\\u0001b\"");
    const int rc = ss_case_from_json(ok, strlen(ok), &c, &err);
    if (rc) print_error("%s: %s\n", err.field, err.msg);
    assert_int_equal(rc, 0);
    ss_case_free(&c);
    /* a meta number cJSON would write back as an inexact integer literal */
    expect_rule(with("\"seed\":7", "\"seed\":7},\"meta\":{\"x\":1.2345678901234567e16"), "meta",
                "between 2^53 and 10^17");
    /* values: an int64 literal beyond 2^53 is refused (hex), a float64 one is a float */
    static const char *const vals[][3] = {
        {"int64", "[1,2,3,4,5,6,7,8,9,10,11,9007199254740993]", "values.input[11]"},
        {"int64", "[1,2,3,4,5,6,7,8,9,10,11,-9007199254740993]", "values.input[11]"},
        {"float64", "[1,2,3,4,5,6,7,8,9,10,11,01]", "values.input[11]"}};
    for (size_t i = 0; i < 3; i++) {
        char t[1024], from[64];
        snprintf(from, sizeof from, "\"%s\"", vals[i][0]);
        snprintf(t, sizeof t, "%s", with("\"float32\"", from));
        char *f = strstr(t, "\"fill\":{\"seed\":7}");
        snprintf(f, sizeof t - (size_t)(f - t), "\"values\":{\"input\":%s}}", vals[i][1]);
        expect_field(t, vals[i][2]);
    }
}

static void test_rule_unknown_field(void **state) {
    (void)state;
    expect_field(with("\"dim\"", "\"bogus\":1,\"dim\""), "bogus");
    expect_field(with("\"offset\":0,\"sizes\":[3,4]", "\"offset\":0,\"x\":0,\"sizes\":[3,4]"),
                 "input.x");
    expect_field(with("\"storage\":\"input\"", "\"storage\":\"input\",\"y\":1"), "src.y");
    expect_field(with("{\"numel\":12}", "{\"numel\":12,\"z\":1}"), "storage.z");
    expect_field(with("{\"seed\":7}", "{\"seed\":7,\"w\":1}"), "fill.w");
    expect_field(with("\"dtype\"", "\"Dtype\":\"float32\",\"dtype\""), "Dtype");
}

static void test_rule_duplicate_key(void **state) {
    (void)state;
    ss_error err = expect_reject(with("\"dim\":0", "\"dim\":0,\"dim\":1"));
    assert_string_equal(err.field, "dim");
    assert_string_equal(err.msg, "duplicate key");
    err = expect_reject(with(BASE_FILL, BASE_FILL ",\"meta\":{\"a\":1,\"b\":2,\"a\":3}"));
    assert_string_equal(err.msg, "duplicate key");
}

static void test_rule_format_version(void **state) {
    (void)state;
    expect_field(with("\"ssfuzz-case\"", "\"ssfuzz\""), "format");
    expect_field(with("\"format\":\"ssfuzz-case\",", ""), "format");
    expect_field(with("\"version\":1", "\"version\":2"), "version");
    expect_field(with("\"version\":1", "\"version\":\"1\""), "version");
    ss_case c;   /* 1.0e0 is an integral number, so it is version 1 */
    ss_error err;
    const char *t = with("\"version\":1", "\"version\":1.0e0");
    assert_int_equal(ss_case_from_json(t, strlen(t), &c, &err), 0);
    ss_case_free(&c);
}

static void test_rule_dtype(void **state) {
    (void)state;
    expect_field(with("\"float32\"", "\"float128\""), "dtype");
    expect_field(with("\"float32\"", "32"), "dtype");
    expect_field(with("\"dtype\":\"float32\",", ""), "dtype");
}

static void test_rule_integers(void **state) {
    (void)state;
    const char *bad[] = {"1.5", "1e400", "-1e400", "\"3\"", "true", "null", "[1]", "1e300"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char to[64];
        snprintf(to, sizeof to, "\"strides\":[4,%s]", bad[i]);
        const ss_error err = expect_reject(with("\"strides\":[4,1]", to));
        assert_string_equal(err.field, "input.strides[1]");
        assert_string_equal(err.msg, "must be an integer in [-2^53, 2^53]");
    }
    expect_field(with("\"dim\":0", "\"dim\":0.5"), "dim");
    expect_field(with("\"step\":1", "\"step\":\"1\""), "step");
    expect_field(with("\"start\":1", "\"start\":false"), "start");
    expect_field(with("\"offset\":0", "\"offset\":1e400"), "input.offset");
    expect_field(with("\"dim\":0,", ""), "dim");
    ss_case c;   /* the limits themselves are fine here: ranges are the plan's job */
    ss_error err;
    const char *t = with("\"strides\":[4,1]", "\"strides\":[-9007199254740992,9007199254740992]");
    assert_int_equal(ss_case_from_json(t, strlen(t), &c, &err), 0);
    ss_case_free(&c);
}

static void test_rule_ranks(void **state) {
    (void)state;
    char big[512] = "\"sizes\":[";
    for (int i = 0; i < 17; i++) strcat(big, i ? ",1" : "1");
    strcat(big, "]");
    expect_field(with("\"sizes\":[3,4]", big), "input.sizes");
    expect_field(with("\"strides\":[4,1]", "\"strides\":[4]"), "input.strides");
    expect_field(with("\"sizes\":[3,4]", "\"sizes\":3"), "input.sizes");
    expect_field(with("\"sizes\":[3,4]", "\"sizes\":[3,4],\"sizes\":[3,4]"), "sizes");
    expect_field(with("\"sizes\":[2,4]", "\"sizes\":[2]"), "src.strides");
}

static void test_rule_numel(void **state) {
    (void)state;
    expect_field(with("{\"numel\":12}", "{\"numel\":-1}"), "storage.numel");
    expect_field(with("{\"numel\":12}", "{\"numel\":1099511627777}"), "storage.numel");
    expect_field(with("{\"numel\":12}", "12"), "storage");
    expect_field(with("{\"numel\":12}", "{}"), "storage.numel");
}

static void test_rule_src_storage(void **state) {
    (void)state;
    expect_field(with("\"storage\":\"input\"", "\"storage\":\"other\""), "src.storage");
    expect_field(with("\"storage\":\"input\"", "\"storage\":\"separate\""), "src_storage");
    expect_field(with(BASE_FILL, BASE_FILL ",\"src_storage\":{\"numel\":3}"), "src_storage");
    const char *t = with("\"storage\":\"input\"", "\"storage\":\"separate\"");
    char buf[4096];
    snprintf(buf, sizeof buf, "%.*s,\"src_storage\":{\"numel\":8}}", (int)strlen(t) - 1, t);
    ss_case c;
    ss_error err;
    assert_int_equal(ss_case_from_json(buf, strlen(buf), &c, &err), 0);
    assert_int_equal(c.op.src_aliased, 0);
    assert_int_equal(c.op.src_storage_numel, 8);
    ss_case_free(&c);
}

static void test_rule_fill_values(void **state) {
    (void)state;
    expect_field(with(BASE_FILL, BASE_FILL ",\"values\":{\"input\":[]}"), "fill");
    expect_field(with("," BASE_FILL, ""), "fill");
    expect_field(with("{\"seed\":7}", "{\"seed\":-7}"), "fill.seed");
    expect_field(with("{\"seed\":7}", "{\"seed\":7.5}"), "fill.seed");
    expect_field(with("{\"seed\":7}", "{}"), "fill.seed");
    expect_field(with(BASE_FILL, "\"values\":{\"input\":[1,2,3]}"), "values.input");
    expect_field(with(BASE_FILL, "\"values\":{\"input\":{}}"), "values.input");
    expect_field(with(BASE_FILL, "\"values\":{\"input\":[0,0,0,0,0,0,0,0,0,0,0,0],\"src\":[]}"),
                 "values.src");
    expect_field(with(BASE_FILL, "\"values\":[]"), "values");
}

static void test_rule_value_elements(void **state) {
    (void)state;
    struct { const char *dtype, *elem, *field; } cases[] = {
        {"float32", "\"0x1234567890\"", "values.input[11]"},   /* too many digits */
        {"float32", "\"0xzz\"", "values.input[11]"},
        {"float32", "\"0x\"", "values.input[11]"},
        {"float32", "\"12\"", "values.input[11]"},
        {"float32", "1e39", "values.input[11]"},                /* rounds to inf */
        {"float32", "1e400", "values.input[11]"},
        {"float32", "null", "values.input[11]"},
        {"float16", "65520", "values.input[11]"},
        {"bfloat16", "3.4e38", "values.input[11]"},
        {"bool", "2", "values.input[11]"},
        {"bool", "0.5", "values.input[11]"},
        {"uint8", "256", "values.input[11]"},
        {"int8", "-129", "values.input[11]"},
        {"int16", "1.5", "values.input[11]"},
        {"int32", "2147483648", "values.input[11]"},
        {"int64", "9007199254740994", "values.input[11]"},
        {"complex64", "[1]", "values.input[11]"},
        {"complex64", "[1,2,3]", "values.input[11]"},
        {"complex64", "1", "values.input[11]"},
        {"complex128", "\"0x1000000000000000000000000000000000\"", "values.input[11]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        /* eleven valid zeros, then the bad element, in a case of that dtype */
        const char *zero = strncmp(cases[i].dtype, "complex", 7) ? "0" : "[0,0]";
        char vals[512] = "\"values\":{\"input\":[", text[4096];
        for (int k = 0; k < 11; k++) { strcat(vals, zero); strcat(vals, ","); }
        strcat(vals, cases[i].elem);
        strcat(vals, "]}");
        const char *t = with(BASE_FILL, vals);
        const char *dt = strstr(t, "float32");
        snprintf(text, sizeof text, "%.*s%s%s", (int)(dt - t), t, cases[i].dtype, dt + 7);
        expect_field(text, cases[i].field);
    }
}

static void test_rule_meta_expect(void **state) {
    (void)state;
    expect_field(with(BASE_FILL, BASE_FILL ",\"meta\":[]"), "meta");
    expect_field(with(BASE_FILL, BASE_FILL ",\"expect\":\"x\""), "expect");
    ss_case c;
    ss_error err;
    const char *t = with(BASE_FILL, BASE_FILL ",\"meta\":{\"anything\":[1.5,\"x\",{}]},\"expect\":{}");
    assert_int_equal(ss_case_from_json(t, strlen(t), &c, &err), 0);
    assert_non_null(c.meta);
    assert_non_null(c.expect);
    ss_case_free(&c);
}

static void test_rule_deep_nesting(void **state) {
    (void)state;
    const size_t depth = 100000;
    char *t = malloc(2 * depth + 64);
    size_t n = (size_t)sprintf(t, "{\"meta\":");
    for (size_t i = 0; i < depth; i++) t[n++] = '[';
    for (size_t i = 0; i < depth; i++) t[n++] = ']';
    t[n++] = '}';
    t[n] = '\0';
    expect_field(t, "(json)");
    /* objects too */
    n = (size_t)sprintf(t, "{\"meta\":");
    char *o = malloc(6 * depth + 64);
    memcpy(o, t, n);
    for (size_t i = 0; i < depth; i++) { memcpy(o + n, "{\"a\":", 5); n += 5; }
    o[n++] = '1';
    for (size_t i = 0; i <= depth; i++) o[n++] = '}';
    o[n] = '\0';
    expect_field(o, "(json)");
    free(o);
    free(t);
}

/* ---- hostile files ---------------------------------------------------------- */

/* Loads every file in dir whose name starts with prefix; returns how many.
 * want_ok: 0 = each must be refused by the reader, 1 = each must parse (its
 * problem is semantic and belongs to ss_plan_build). */
static int load_all(const char *dir, const char *prefix, int want_ok) {
    DIR *d = opendir(dir);
    if (!d) print_error("cannot open %s (run from the repo root or set SS_HOSTILE_DIR)\n", dir);
    assert_non_null(d);
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, strlen(prefix)) || n < 5 || strcmp(e->d_name + n - 5, ".json"))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ss_case c;
        ss_error err = {{0}, {0}};
        const int rc = ss_case_load(path, &c, &err);
        if ((rc == 0) != want_ok)
            print_error("%s: rc %d (%s: %s)\n", path, rc, err.field, err.msg);
        assert_int_equal(rc == 0, want_ok);
        if (rc) assert_true(err.msg[0] != '\0');
        ss_case_free(&c);
        count++;
    }
    closedir(d);
    return count;
}

static void test_hostile_committed(void **state) {
    (void)state;
    assert_true(load_all(hostile_dir(), "parse-", 0) >= 30);
    assert_true(load_all(hostile_dir(), "plan-", 1) >= 5);
}

static void test_hostile_generated(void **state) {
    (void)state;
    char dir[] = "/tmp/ssfuzz-big-XXXXXX", cmd[256];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "sh %s/make-big.sh %s", hostile_dir(), dir);
    assert_int_equal(system(cmd), 0);
    assert_true(load_all(dir, "parse-", 0) >= 4);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_load_file_problems(void **state) {
    (void)state;
    ss_case c;
    ss_error err;
    assert_int_equal(ss_case_load("/nonexistent/case.json", &c, &err), -1);
    assert_string_equal(err.field, "(file)");
    assert_non_null(strstr(err.msg, "cannot open"));
    assert_int_equal(ss_case_load("/tmp", &c, &err), -1);
    assert_non_null(strstr(err.msg, "directory"));
    assert_int_equal(ss_case_load("/dev/zero", &c, &err), -1);   /* endless: refused at the cap */
    assert_non_null(strstr(err.msg, "larger than"));
    ss_case_free(&c);
}

/* ---- atomic save -------------------------------------------------------------- */

static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void test_save_atomic(void **state) {
    (void)state;
    char dir[] = "/tmp/ssfuzz-save-XXXXXX", path[128], cmd[160];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/case.json", dir);
    ss_case c, back;
    ss_error err;
    make_case(&c, SS_FLOAT64, 0, 1, 50);
    assert_int_equal(ss_case_save_atomic(path, &c, &err), 0);
    c.op.dim = 5;   /* overwrite an existing file */
    assert_int_equal(ss_case_save_atomic(path, &c, &err), 0);
    assert_int_equal(count_entries(dir), 1);
    assert_int_equal(ss_case_load(path, &back, &err), 0);
    assert_same_case(&c, &back);
    ss_case_free(&back);
    FILE *f = fopen(path, "rb");   /* the file is exactly the serialized text */
    char *text = ss_case_to_json(&c), *got = calloc(1, strlen(text) + 2);
    assert_int_equal(fread(got, 1, strlen(text) + 1, f), strlen(text));
    assert_string_equal(got, text);
    fclose(f);
    free(got);
    free(text);

    /* rename fails (the target is a directory): the written temp must go */
    snprintf(path, sizeof path, "%s/sub", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(ss_case_save_atomic(path, &c, &err), -1);
    assert_string_equal(err.field, "(file)");
    assert_int_equal(count_entries(dir), 2);

    /* missing directory */
    snprintf(path, sizeof path, "%s/nope/case.json", dir);
    assert_int_equal(ss_case_save_atomic(path, &c, &err), -1);

    /* unwritable directory; root ignores modes, so drop to nobody in a child */
    snprintf(path, sizeof path, "%s/ro", dir);
    assert_int_equal(mkdir(path, 0555), 0);
    assert_int_equal(chmod(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/ro/case.json", dir);
    const pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) || setuid(65534))) _exit(3);
        ss_error e2;
        const int rc = ss_case_save_atomic(path, &c, &e2);
        _exit(rc == -1 && strstr(e2.msg, "cannot create temp file") ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    snprintf(path, sizeof path, "%s/ro", dir);
    assert_int_equal(count_entries(path), 0);

    ss_case_free(&c);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_dtype),
        cmocka_unit_test(test_round_trip_meta_expect_and_copy),
        cmocka_unit_test(test_round_trip_all_half_patterns),
        cmocka_unit_test(test_round_trip_random_floats_text),
        cmocka_unit_test(test_values_explicit),
        cmocka_unit_test(test_float16_matches_compiler),
        cmocka_unit_test(test_base_is_valid),
        cmocka_unit_test(test_rule_utf8),
        cmocka_unit_test(test_rule_syntax),
        cmocka_unit_test(test_schema_key_and_dtype_list),
        cmocka_unit_test(test_rule_unknown_field),
        cmocka_unit_test(test_rule_duplicate_key),
        cmocka_unit_test(test_rule_format_version),
        cmocka_unit_test(test_rule_dtype),
        cmocka_unit_test(test_rule_integers),
        cmocka_unit_test(test_rule_ranks),
        cmocka_unit_test(test_rule_numel),
        cmocka_unit_test(test_rule_src_storage),
        cmocka_unit_test(test_rule_fill_values),
        cmocka_unit_test(test_rule_value_elements),
        cmocka_unit_test(test_rule_meta_expect),
        cmocka_unit_test(test_rule_deep_nesting),
        cmocka_unit_test(test_rule_json_strictness),
        cmocka_unit_test(test_hostile_committed),
        cmocka_unit_test(test_hostile_generated),
        cmocka_unit_test(test_load_file_problems),
        cmocka_unit_test(test_save_atomic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
