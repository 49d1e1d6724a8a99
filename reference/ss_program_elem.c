/* ss_program_elem.c - a program's element arithmetic in the dtype itself, and the exactness watch.
 *
 * Integers wrap as two's complement in their width (PyTorch does the same).
 * Floats are computed in double and rounded once to the dtype, which is what
 * every implementation gives when operands and results are small integers:
 * the exactness watch flags the first step where they are not (|v| > 256,
 * bfloat16's last exact integer; a -0.0 result, whose sign an implementation
 * may lose by rewriting x * -1 as 0 - x; NaN, inf or subnormal operands). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ss_bits.h"
#include "ss_program_int.h"

#define EXACT_LIMIT 256.0

void ss_el_inexact(prun *r, const char *fmt, ...) {
    if (r->res->inexact_step >= 0) return;
    r->res->inexact_step = r->step;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->res->inexact, sizeof r->res->inexact, fmt, ap);
    va_end(ap);
}

int ss_el_is_float(ss_dtype t) {
    return t >= SS_FLOAT16 && t <= SS_COMPLEX128;
}

static int is_complex(ss_dtype t) { return t == SS_COMPLEX64 || t == SS_COMPLEX128; }

/* Component i (0 real, 1 imaginary) of a float element as a double. */
static double get_f(ss_dtype t, const uint8_t *p, int i) {
    switch (t) {
    case SS_FLOAT16: case SS_BFLOAT16: return ss_half_to_double(t, (uint16_t)ss_load_le(p, 2));
    case SS_FLOAT32: case SS_COMPLEX64: { float f; memcpy(&f, p + 4 * i, 4); return f; }
    default: { double d; memcpy(&d, p + 8 * i, 8); return d; }
    }
}

static void put_f(ss_dtype t, uint8_t *p, int i, double d) {
    switch (t) {
    case SS_FLOAT16: case SS_BFLOAT16: {
        uint16_t h;
        if (ss_double_to_half(t, d, &h)) h = (uint16_t)((signbit(d) ? 0x8000 : 0) | (t == SS_FLOAT16 ? 0x7c00 : 0x7f80));
        p[0] = (uint8_t)h;
        p[1] = (uint8_t)(h >> 8);
        return;
    }
    case SS_FLOAT32: case SS_COMPLEX64: { const float f = (float)d; memcpy(p + 4 * i, &f, 4); return; }
    default: memcpy(p + 8 * i, &d, 8); return;
    }
}

static void put_i(ss_dtype t, uint8_t *p, uint64_t v) {
    const size_t n = ss_dtype_size(t);
    for (size_t i = 0; i < n; i++, v >>= 8) p[i] = (uint8_t)v;
}

static uint64_t get_i(ss_dtype t, const uint8_t *p) {
    const size_t n = ss_dtype_size(t);
    uint64_t v = ss_load_le(p, n);
    if (t != SS_UINT8 && t != SS_BOOL && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~0ull << (8 * n);
    return v;
}

void ss_el_const(ss_dtype t, int64_t k, uint8_t *out) {
    memset(out, 0, ss_dtype_size(t));
    if (t == SS_BOOL) out[0] = k != 0;
    else if (ss_el_is_float(t)) put_f(t, out, 0, (double)k);
    else put_i(t, out, (uint64_t)k);
}

static int exact(double d) { return isfinite(d) && d == floor(d) && fabs(d) <= EXACT_LIMIT; }

static void watch_operand(prun *r, double d) {
    if (!exact(d)) ss_el_inexact(r, "an arithmetic operand (%g) is not an integer of magnitude <= 256", d);
}

static void watch_result(prun *r, double d) {
    if (!exact(d)) ss_el_inexact(r, "an arithmetic result (%g) is not an integer of magnitude <= 256", d);
    else if (d == 0 && signbit(d)) ss_el_inexact(r, "an arithmetic result is -0.0");
}

void ss_el_binary(prun *r, ss_dtype t, ss_el_op op, const uint8_t *a, const uint8_t *b, int64_t k,
                  uint8_t *out) {
    if (!ss_el_is_float(t)) {
        const uint64_t x = get_i(t, a), y = b ? get_i(t, b) : (uint64_t)k;
        uint64_t z = op == SS_EL_ADD ? x + y : op == SS_EL_SUB ? x - y : op == SS_EL_MUL ? x * y : 0 - x;
        if (t == SS_BOOL) z = z != 0;   /* not reached: bool arithmetic is refused earlier */
        put_i(t, out, z);
        return;
    }
    const int cx = is_complex(t);
    double xr = get_f(t, a, 0), xi = cx ? get_f(t, a, 1) : 0;
    double yr = b ? get_f(t, b, 0) : (double)k, yi = b && cx ? get_f(t, b, 1) : 0;
    watch_operand(r, xr);
    watch_operand(r, xi);
    watch_operand(r, yr);
    watch_operand(r, yi);
    double zr, zi;
    switch (op) {
    case SS_EL_ADD: zr = xr + yr; zi = xi + yi; break;
    case SS_EL_SUB: zr = xr - yr; zi = xi - yi; break;
    case SS_EL_MUL: zr = xr * yr - xi * yi; zi = cx ? xr * yi + xi * yr : 0; break;
    default: zr = -xr; zi = -xi; break;
    }
    watch_result(r, zr);
    put_f(t, out, 0, zr);
    if (cx) {
        watch_result(r, zi);
        put_f(t, out, 1, zi);
    }
}

void ss_el_sum(prun *r, ss_dtype t, const uint8_t *a, int64_t n, int64_t stride, uint8_t *out) {
    if (!ss_el_is_float(t)) {
        uint64_t s = 0;
        for (int64_t i = 0; i < n; i++) s += get_i(t, a + i * stride);
        put_i(t, out, s);
        return;
    }
    const int cx = is_complex(t);
    double sr = 0, si = 0, mag = 0;
    for (int64_t i = 0; i < n; i++) {
        const double xr = get_f(t, a + i * stride, 0), xi = cx ? get_f(t, a + i * stride, 1) : 0;
        watch_operand(r, xr);
        watch_operand(r, xi);
        /* any order of partial sums stays exact when the magnitudes' sum does */
        mag += fabs(xr) + fabs(xi);
        if ((xr == 0 && signbit(xr)) || (xi == 0 && signbit(xi)))
            ss_el_inexact(r, "a summed element is -0.0 (implementations start sums differently)");
        sr += xr;
        si += xi;
    }
    if (mag > EXACT_LIMIT) ss_el_inexact(r, "a sum's terms add up to more than 256 in magnitude");
    watch_result(r, sr);
    put_f(t, out, 0, sr);
    if (cx) {
        watch_result(r, si);
        put_f(t, out, 1, si);
    }
}

void ss_el_check_moved(prun *r, ss_dtype t, const uint8_t *a, int64_t n) {
    if (!ss_el_is_float(t) || r->res->inexact_step >= 0) return;
    const int64_t es = (int64_t)ss_dtype_size(t);
    const int parts = is_complex(t) ? 2 : 1;
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < parts; k++) {
            const double d = get_f(t, a + i * es, k);
            /* half and bfloat16 subnormals are normal as doubles: judge in the dtype */
            const int sub = t == SS_FLOAT16 ? (d != 0 && fabs(d) < 6.103515625e-05)
                          : t == SS_BFLOAT16 ? (d != 0 && fabs(d) < 1.1754943508222875e-38)
                          : (t == SS_FLOAT32 || t == SS_COMPLEX64) ? (d != 0 && fabs(d) < 1.1754943508222875e-38)
                          : (d != 0 && fabs(d) < 2.2250738585072014e-308);
            if (!isfinite(d) || sub) {
                ss_el_inexact(r, "a %s value moved by this step is NaN, infinite or subnormal",
                              ss_dtype_name(t));
                return;
            }
        }
}
