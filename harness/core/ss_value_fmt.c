/* ss_value_fmt.c - element values as numbers (shortest round-trip floats, Python spelling) next to their bits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_bits.h"
#include "ss_value_fmt.h"


/* Does text read back to exactly `d` once rounded into dtype t? */
static int reads_back(ss_dtype t, const char *text, double d) {
    const double r = strtod(text, NULL);
    if (t == SS_FLOAT32 || t == SS_COMPLEX64) return (float)r == (float)d;
    if (t == SS_FLOAT16 || t == SS_BFLOAT16) {
        uint16_t a, b;
        return ss_double_to_half(t, r, &a) == 0 && ss_double_to_half(t, d, &b) == 0 && a == b;
    }
    return r == d;
}

/* Python's float repr: the fewest significant digits that read back to the
 * same bits, fixed notation for decimal exponents in [-4, 16), else
 * scientific; `point` adds ".0" to an integral result (complex parts go
 * without, as in Python's "(1+2j)"). */
static void shortest(ss_dtype t, double d, int point, char *out, size_t n) {
    char buf[64];
    int p = 1;
    if (isnan(d)) { snprintf(out, n, "nan"); return; }
    if (isinf(d)) { snprintf(out, n, "%sinf", d < 0 ? "-" : ""); return; }
    for (; p < 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, d);
        if (reads_back(t, buf, d)) break;
    }
    snprintf(buf, sizeof buf, "%.*e", p - 1, d);
    const int exp10 = atoi(strchr(buf, 'e') + 1);
    if (exp10 >= -4 && exp10 < 16) {
        const int decimals = p - 1 - exp10 > 0 ? p - 1 - exp10 : 0;
        snprintf(buf, sizeof buf, "%.*f", decimals, d);
        if (point && !strchr(buf, '.')) strncat(buf, ".0", sizeof buf - strlen(buf) - 1);
    }   /* else "1.5e-05", "1e+16": the p digits already have no trailing zero */
    snprintf(out, n, "%s", buf);
}

void ss_value_number(ss_dtype t, const uint8_t *p, char *out, size_t n) {
    const size_t es = ss_dtype_size(t);
    const uint64_t u = es <= 8 ? ss_load_le(p, es) : 0;
    float f, fi;
    double d, di;
    char re[40], im[40];
    switch (t) {
    case SS_BOOL: snprintf(out, n, "%s", u ? "True" : "False"); return;
    case SS_UINT8: snprintf(out, n, "%llu", (unsigned long long)u); return;
    case SS_INT8: snprintf(out, n, "%d", (int8_t)u); return;
    case SS_INT16: snprintf(out, n, "%d", (int16_t)u); return;
    case SS_INT32: snprintf(out, n, "%d", (int32_t)u); return;
    case SS_INT64: snprintf(out, n, "%lld", (long long)(int64_t)u); return;
    case SS_FLOAT16: case SS_BFLOAT16: shortest(t, ss_half_to_double(t, (uint16_t)u), 1, out, n); return;
    case SS_FLOAT32: memcpy(&f, p, 4); shortest(t, f, 1, out, n); return;
    case SS_FLOAT64: memcpy(&d, p, 8); shortest(t, d, 1, out, n); return;
    case SS_COMPLEX64:
        memcpy(&f, p, 4);
        memcpy(&fi, p + 4, 4);
        d = f;
        di = fi;
        break;
    case SS_COMPLEX128:
        memcpy(&d, p, 8);
        memcpy(&di, p + 8, 8);
        break;
    default: snprintf(out, n, "?"); return;
    }
    shortest(t, d, 0, re, sizeof re);
    shortest(t, fabs(di), 0, im, sizeof im);
    snprintf(out, n, "(%s%s%sj)", re, signbit(di) ? "-" : "+", im);
}

void ss_value_bits(const uint8_t *b, size_t es, char *out, size_t n) {
    if (!n) return;
    size_t k = (size_t)snprintf(out, n, "0x");
    for (size_t i = es; i-- > 0 && k + 2 < n;) k += (size_t)snprintf(out + k, n - k, "%02x", b[i]);
}

void ss_value_format(int value_type, const uint8_t *bytes, size_t es, char *out, size_t n) {
    char bits[40], num[96];
    ss_value_bits(bytes, es, bits, sizeof bits);
    if (value_type < 1 || value_type > SS_DTYPE_COUNT || ss_dtype_size((ss_dtype)(value_type - 1)) != es) {
        snprintf(out, n, "%s", bits);
        return;
    }
    ss_value_number((ss_dtype)(value_type - 1), bytes, num, sizeof num);
    snprintf(out, n, "%s (%s)", num, bits);
}
