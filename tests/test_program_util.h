/* test_program_util.h - program cases from short strings, run through the reference, printed back (test_program.c). */
#ifndef TEST_PROGRAM_UTIL_H
#define TEST_PROGRAM_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_case.h"
#include "ss_plan_build.h"
#include "ss_program.h"
#include "ss_program_ref.h"
#include "ss_storage.h"
#include "ss_value_fmt.h"

/* A case on one storage of `numel` elements with explicit values: x its
 * contiguous view of `sizes` ("[2,3]"; NULL: [numel]); src = x[:-1] along dim 0,
 * aliased; the case's write x[1:] along dim 0. */
static inline char *tp_case_text_shaped(const char *dtype, int64_t numel, const char *values, const char *sizes,
                                        const char *program) {
    long a = (long)numel, b = 0;
    if (sizes) sscanf(sizes, "[%ld,%ld]", &a, &b);
    char in[128], src[128];
    if (b) {
        snprintf(in, sizeof in, "{\"offset\":0,\"sizes\":[%ld,%ld],\"strides\":[%ld,1]}", a, b, b);
        snprintf(src, sizeof src, "{\"storage\":\"input\",\"offset\":0,\"sizes\":[%ld,%ld],\"strides\":[%ld,1]}", a - 1, b, b);
    } else {
        snprintf(in, sizeof in, "{\"offset\":0,\"sizes\":[%ld],\"strides\":[1]}", a);
        snprintf(src, sizeof src, "{\"storage\":\"input\",\"offset\":0,\"sizes\":[%ld],\"strides\":[1]}", a - 1);
    }
    const size_t n = strlen(program) + strlen(values) + 512;
    char *text = malloc(n);
    snprintf(text, n, "{\"format\":\"ssfuzz-case\",\"version\":1,\"dtype\":\"%s\",\"storage\":{\"numel\":%lld},"
             "\"input\":%s,\"src\":%s,\"dim\":0,\"start\":1,\"end\":null,\"step\":1,\"values\":{\"input\":%s},"
             "\"program\":%s}", dtype, (long long)numel, in, src, values, program);
    return text;
}

static inline char *tp_case_text(const char *dtype, int64_t numel, const char *values, const char *program) {
    return tp_case_text_shaped(dtype, numel, values, NULL, program);
}

typedef struct tp_run {
    ss_case c;
    ss_plan plan;
    ss_storage in, src, init_in, init_src;
    ss_prog_result res;
} tp_run;

/* Parses, plans, fills and runs the reference (fails the test when the case does not parse). */
static inline void tp_run_text(tp_run *r, const char *text) {
    memset(r, 0, sizeof *r);
    ss_error err;
    if (ss_case_from_json(text, strlen(text), &r->c, &err)) fail_msg("%s: %s", err.field, err.msg);
    if (ss_plan_build(&r->c.op, &r->plan, &err)) fail_msg("%s: %s", err.field, err.msg);
    const size_t es = r->c.op.elem_size;
    const size_t nin = (size_t)r->c.op.input_storage_numel * es;
    const size_t nsrc = r->c.op.src_aliased ? 0 : (size_t)r->c.op.src_storage_numel * es;
    assert_int_equal(ss_storage_reserve(&r->in, nin, SS_GUARD_DEFAULT), 0);
    assert_int_equal(ss_storage_reserve(&r->src, nsrc, SS_GUARD_DEFAULT), 0);
    assert_int_equal(ss_storage_reserve(&r->init_in, nin, SS_GUARD_DEFAULT), 0);
    assert_int_equal(ss_storage_reserve(&r->init_src, nsrc, SS_GUARD_DEFAULT), 0);
    ss_fill_case(&r->c, &r->init_in, &r->init_src);
    ss_storage_copy(&r->in, &r->init_in);
    ss_storage_copy(&r->src, &r->init_src);
    ss_prog_ref_run(&r->c, &r->plan, &r->in, &r->src, &r->res);
}

static inline void tp_run_case_shaped(tp_run *r, const char *dtype, int64_t numel, const char *values,
                                      const char *sizes, const char *program) {
    char *text = tp_case_text_shaped(dtype, numel, values, sizes, program);
    tp_run_text(r, text);
    free(text);
}

static inline void tp_run_case(tp_run *r, const char *dtype, int64_t numel, const char *values, const char *program) {
    tp_run_case_shaped(r, dtype, numel, values, NULL, program);
}

static inline void tp_run_free(tp_run *r) {
    ss_prog_result_free(&r->res);
    ss_storage_free(&r->in);
    ss_storage_free(&r->src);
    ss_storage_free(&r->init_in);
    ss_storage_free(&r->init_src);
    ss_case_free(&r->c);
}

/* "v0 v1 ..." as Python prints the values. */
static inline void tp_format_values(ss_dtype t, const uint8_t *p, int64_t n, char *out, size_t cap) {
    size_t k = 0;
    out[0] = 0;
    for (int64_t i = 0; i < n && k < cap; i++) {
        char num[64];
        ss_value_number(t, p + (size_t)i * ss_dtype_size(t), num, sizeof num);
        k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? " " : "", num);
    }
}

static inline void tp_format_storage(const tp_run *r, char *out, size_t cap) {
    tp_format_values(r->c.dtype, ss_storage_data(&r->in), r->c.op.input_storage_numel, out, cap);
}

/* "v:0 1|f:2 3": each returned value, v a view, f a fresh tensor. */
static inline void tp_format_returns(const tp_run *r, char *out, size_t cap) {
    size_t k = 0;
    out[0] = 0;
    for (int i = 0; i < r->res.nret && k < cap; i++) {
        const ss_prog_value *v = &r->res.ret[i];
        char vals[400];
        tp_format_values(v->dtype, v->bytes, v->numel, vals, sizeof vals);
        k += (size_t)snprintf(out + k, cap - k, "%s%s:%s", i ? "|" : "", v->is_view ? "v" : "f", vals);
    }
}

#endif
