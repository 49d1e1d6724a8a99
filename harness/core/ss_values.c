/* ss_values.c - element values <-> JSON: exact numbers where cJSON keeps them exact, hex bit patterns otherwise. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ss_bits.h"
#include "ss_case.h"

/* ---- little-endian element bytes <-> integers ---------------------------- */


static void store_le(uint8_t *p, size_t n, uint64_t v) {
    for (size_t i = 0; i < n; i++, v >>= 8) p[i] = (uint8_t)v;
}

/* ---- half / bfloat16 ------------------------------------------------------
 * Both are IEEE-style binary formats; only the field widths differ, so one
 * pair of routines with (mantissa bits, bias) covers them. */

typedef struct { int mant; int bias; } small_fmt;
static const small_fmt FMT_F16 = {10, 15};
static const small_fmt FMT_BF16 = {7, 127};

static double small_to_double(small_fmt f, uint16_t bits) {
    const int sign = bits >> 15;
    const int exp = (bits >> f.mant) & ((1 << (15 - f.mant)) - 1);
    const int emax_field = (1 << (15 - f.mant)) - 1;
    const uint16_t frac = bits & ((1u << f.mant) - 1);
    double v;
    if (exp == emax_field) v = frac ? NAN : INFINITY;
    else if (exp == 0) v = ldexp(frac, 1 - f.bias - f.mant);
    else v = ldexp(frac | (1u << f.mant), exp - f.bias - f.mant);
    return sign ? -v : v;
}

/* Round-to-nearest-even conversion of a finite double. Returns -1 when the
 * value rounds to infinity (the reader refuses it rather than storing inf).
 * Scaling by a power of two and splitting off the integer part are exact in
 * double (the scaled value has at most mant+1 integer bits), so the only
 * rounding is the explicit tie-to-even step: no double rounding. */
static int double_to_small(small_fmt f, double d, uint16_t *out) {
    const uint16_t sign = signbit(d) ? 0x8000 : 0;
    const double a = fabs(d);
    const int emin = 1 - f.bias;
    /* Halfway between the largest finite value and 2^(bias+1); its mantissa is
     * all ones (odd), so the tie rounds up to infinity. */
    const double overflow = ldexp(2.0 - ldexp(1.0, -(f.mant + 1)), f.bias);
    if (a >= overflow) return -1;
    int e;
    frexp(a, &e);
    int E = e - 1;                       /* a = 1.x * 2^E */
    if (a == 0 || E < emin) E = emin;    /* subnormal: fixed quantum */
    const double n = ldexp(a, f.mant - E);
    double k = floor(n);
    const double rest = n - k;
    if (rest > 0.5 || (rest == 0.5 && fmod(k, 2.0) != 0)) k += 1;
    /* k in [0, 2^(mant+1)]. For subnormals the encoding is k itself (k ==
     * 2^mant is exactly the smallest normal); for normals adding the biased
     * exponent lets a carry out of the mantissa bump the exponent. */
    uint32_t bits = (uint32_t)k;
    if (E > emin || bits >= (1u << f.mant))
        bits = ((uint32_t)(E + f.bias) << f.mant) + (bits - (1u << f.mant));
    *out = (uint16_t)(sign | bits);
    return 0;
}

double ss_half_to_double(ss_dtype t, uint16_t bits) {
    return small_to_double(t == SS_BFLOAT16 ? FMT_BF16 : FMT_F16, bits);
}

int ss_double_to_half(ss_dtype t, double d, uint16_t *out) {
    return double_to_small(t == SS_BFLOAT16 ? FMT_BF16 : FMT_F16, d, out);
}

/* ---- number exactness ----------------------------------------------------- */

/* cJSON 1.7 prints a double with "%1.15g" and falls back to "%1.17g" only when
 * the short form reads back outside DBL_EPSILON of the value, so a short form
 * that is close but not equal would silently change the bits. Say "exact"
 * only when cJSON's output will read back bit-exact: an int it prints with %d,
 * a short form that round-trips, or one far enough off that cJSON switches to
 * %1.17g (the 4x margin keeps us clear of its tolerance test). */
static int number_is_exact(double d) {
    if (!isfinite(d) || (d == 0 && signbit(d))) return 0;
    if (d >= INT_MIN && d <= INT_MAX && d == (double)(int)d) return 1;
    char buf[40];
    snprintf(buf, sizeof buf, "%1.15g", d);
    const double t = strtod(buf, NULL);
    if (t == d) return 1;
    return fabs(t - d) > 4 * fmax(fabs(t), fabs(d)) * DBL_EPSILON;
}

/* ---- writer --------------------------------------------------------------- */

static cJSON *hex_item(const uint8_t *p, size_t n) {
    char buf[2 + 32 + 1] = "0x";
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        const uint8_t b = p[n - 1 - i];
        buf[2 + 2 * i] = digits[b >> 4];
        buf[3 + 2 * i] = digits[b & 15];
    }
    buf[2 + 2 * n] = '\0';
    return cJSON_CreateString(buf);
}

/* The element as an exact double, or 0 when it has none we may print. */
static int float_value(ss_dtype t, const uint8_t *p, double *d) {
    switch (t) {
    case SS_FLOAT16: *d = small_to_double(FMT_F16, (uint16_t)ss_load_le(p, 2)); break;
    case SS_BFLOAT16: *d = small_to_double(FMT_BF16, (uint16_t)ss_load_le(p, 2)); break;
    case SS_FLOAT32: case SS_COMPLEX64: { float f; memcpy(&f, p, 4); *d = f; break; }
    case SS_FLOAT64: case SS_COMPLEX128: memcpy(d, p, 8); break;
    default: return 0;
    }
    return number_is_exact(*d);
}

static cJSON *element_to_json(ss_dtype t, const uint8_t *p) {
    const size_t sz = ss_dtype_size(t);
    const uint64_t u = sz <= 8 ? ss_load_le(p, sz) : 0;
    double d, im;
    switch (t) {
    case SS_BOOL:
        if (u <= 1) return cJSON_CreateBool(u == 1);
        return hex_item(p, sz);   /* a non-canonical bool byte is still data to move */
    case SS_UINT8: return cJSON_CreateNumber((double)u);
    case SS_INT8: return cJSON_CreateNumber((int8_t)u);
    case SS_INT16: return cJSON_CreateNumber((int16_t)u);
    case SS_INT32: return cJSON_CreateNumber((int32_t)u);
    case SS_INT64: {
        /* Past 10^15 an integer has 16+ digits and cJSON's %1.15g may be lossy. */
        const int64_t v = (int64_t)u;
        if (v > -1000000000000000LL && v < 1000000000000000LL)
            return cJSON_CreateNumber((double)v);
        return hex_item(p, sz);
    }
    case SS_FLOAT16: case SS_BFLOAT16: case SS_FLOAT32: case SS_FLOAT64:
        return float_value(t, p, &d) ? cJSON_CreateNumber(d) : hex_item(p, sz);
    case SS_COMPLEX64: case SS_COMPLEX128: {
        const size_t half = sz / 2;
        if (float_value(t, p, &d) && float_value(t, p + half, &im)) {
            cJSON *pair = cJSON_CreateArray();
            cJSON *re_j = cJSON_CreateNumber(d), *im_j = cJSON_CreateNumber(im);
            if (!pair || !re_j || !im_j) {
                cJSON_Delete(pair); cJSON_Delete(re_j); cJSON_Delete(im_j);
                return NULL;
            }
            cJSON_AddItemToArray(pair, re_j);
            cJSON_AddItemToArray(pair, im_j);
            return pair;
        }
        return hex_item(p, sz);
    }
    default: return NULL;
    }
}

cJSON *ss_values_to_json(ss_dtype t, const uint8_t *bytes, int64_t n) {
    const size_t sz = ss_dtype_size(t);
    if (sz == 0 || n < 0 || (n > 0 && !bytes)) return NULL;
    cJSON *arr = cJSON_CreateArray();
    if (!arr) return NULL;
    for (int64_t i = 0; i < n; i++) {
        cJSON *e = element_to_json(t, bytes + (size_t)i * sz);
        if (!e) { cJSON_Delete(arr); return NULL; }
        cJSON_AddItemToArray(arr, e);
    }
    return arr;
}

/* ---- reader --------------------------------------------------------------- */

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* "0x" then 1..2*sz hex digits: the element's bytes as a little-endian integer. */
static int hex_to_bytes(const char *s, uint8_t *out, size_t sz, const char *field,
                        ss_error *err) {
    if (s[0] != '0' || s[1] != 'x')
        return ss_fail(err, field, "string must be a hex bit pattern \"0x...\"");
    const char *digits = s + 2;
    const size_t len = strlen(digits);
    if (len == 0 || len > 2 * sz)
        return ss_fail(err, field, "hex bit pattern must have 1 to %zu digits", 2 * sz);
    memset(out, 0, sz);
    for (size_t i = 0; i < len; i++) {
        const int v = hexval(digits[len - 1 - i]);
        if (v < 0) return ss_fail(err, field, "bad hex digit in bit pattern");
        out[i / 2] |= (uint8_t)(v << (4 * (i % 2)));
    }
    return 0;
}

static int integral_in(double d, double lo, double hi) {
    return isfinite(d) && d == floor(d) && d >= lo && d <= hi;
}

/* One float component from a JSON number, rounded to nearest even. */
static int float_from_number(ss_dtype t, double d, uint8_t *out, const char *field,
                             ss_error *err) {
    if (!isfinite(d)) return ss_fail(err, field, "must be a finite number (use hex for inf/nan)");
    switch (t) {
    case SS_FLOAT16: case SS_BFLOAT16: {
        uint16_t h;
        if (double_to_small(t == SS_FLOAT16 ? FMT_F16 : FMT_BF16, d, &h) != 0)
            return ss_fail(err, field, "out of range for %s", ss_dtype_name(t));
        store_le(out, 2, h);
        return 0;
    }
    case SS_FLOAT32: case SS_COMPLEX64: {
        const float f = (float)d;   /* C conversion: current mode, round-to-nearest-even */
        if (isinf(f)) return ss_fail(err, field, "out of range for %s", ss_dtype_name(t));
        memcpy(out, &f, 4);
        return 0;
    }
    default:
        memcpy(out, &d, 8);
        return 0;
    }
}

static int element_from_json(ss_dtype t, const cJSON *e, uint8_t *out, const char *field,
                             ss_error *err) {
    const size_t sz = ss_dtype_size(t);
    if (cJSON_IsString(e)) return hex_to_bytes(e->valuestring, out, sz, field, err);
    const double d = cJSON_IsNumber(e) ? e->valuedouble : 0;
    switch (t) {
    case SS_BOOL:
        if (cJSON_IsBool(e)) { out[0] = cJSON_IsTrue(e); return 0; }
        if (cJSON_IsNumber(e) && (d == 0 || d == 1)) { out[0] = (uint8_t)d; return 0; }
        return ss_fail(err, field, "must be true, false, 0 or 1");
    case SS_UINT8: case SS_INT8: case SS_INT16: case SS_INT32: case SS_INT64: {
        static const double lo[] = {[SS_UINT8] = 0, [SS_INT8] = -128, [SS_INT16] = -32768,
                                    [SS_INT32] = -2147483648.0, [SS_INT64] = -9007199254740992.0};
        static const double hi[] = {[SS_UINT8] = 255, [SS_INT8] = 127, [SS_INT16] = 32767,
                                    [SS_INT32] = 2147483647.0, [SS_INT64] = 9007199254740992.0};
        if (!cJSON_IsNumber(e) || !integral_in(d, lo[t], hi[t]))
            return ss_fail(err, field, "must be an integer in [%.17g, %.17g] or a hex bit pattern",
                           lo[t], hi[t]);
        store_le(out, sz, (uint64_t)(int64_t)d);
        return 0;
    }
    case SS_FLOAT16: case SS_BFLOAT16: case SS_FLOAT32: case SS_FLOAT64:
        if (!cJSON_IsNumber(e)) return ss_fail(err, field, "must be a number or a hex bit pattern");
        return float_from_number(t, d, out, field, err);
    case SS_COMPLEX64: case SS_COMPLEX128: {
        const cJSON *re = cJSON_IsArray(e) ? e->child : NULL;
        const cJSON *im = re ? re->next : NULL;
        if (!re || !im || im->next || !cJSON_IsNumber(re) || !cJSON_IsNumber(im))
            return ss_fail(err, field, "must be [re, im] numbers or a hex bit pattern");
        SS_TRY(float_from_number(t, re->valuedouble, out, field, err));
        return float_from_number(t, im->valuedouble, out + sz / 2, field, err);
    }
    default:
        return ss_fail(err, field, "unknown dtype");
    }
}

int ss_values_from_json(ss_dtype t, const cJSON *arr, uint8_t *out, int64_t n,
                        const char *field, ss_error *err) {
    const size_t sz = ss_dtype_size(t);
    if (sz == 0) return ss_fail(err, field, "unknown dtype");
    if (!cJSON_IsArray(arr)) return ss_fail(err, field, "must be an array");
    /* Count without trusting n or the array: stop as soon as they disagree. */
    int64_t count = 0;
    for (const cJSON *e = arr->child; e && count <= n; e = e->next) count++;
    if (count != n)
        return ss_fail(err, field, "must have exactly %lld elements (the storage numel)",
                       (long long)n);
    char ef[sizeof err->field + 24];   /* room for the index; ss_fail truncates */
    int64_t i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        snprintf(ef, sizeof ef, "%s[%lld]", field, (long long)i);
        SS_TRY(element_from_json(t, e, out + (size_t)i * sz, ef, err));
    }
    return 0;
}

/* ---- reader over raw text ------------------------------------------------- */

/* Elements are read straight from the (scanned, well-formed) text into the
 * storage bytes, each as a cJSON node on the stack: no tree is built, so a
 * values array costs its storage bytes and nothing per element. */

static void skip_ws(const char *s, size_t *i) {
    while (s[*i] == ' ' || s[*i] == '\t' || s[*i] == '\n' || s[*i] == '\r') (*i)++;
}

/* Past one well-formed value at s[*i] (strings may hold escaped quotes). */
static void skip_value(const char *s, size_t *i) {
    int depth = 0;
    do {
        const char c = s[*i];
        if (c == '"') {
            for ((*i)++; s[*i] != '"'; (*i)++)
                if (s[*i] == '\\') (*i)++;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            depth--;
        } else if (depth == 0) {   /* a scalar: up to the next separator */
            while (!strchr(",]} \t\n\r", s[*i])) (*i)++;
            return;
        }
        (*i)++;
    } while (depth > 0);
}

/* One element at s[*i] as a stack node; strings decoded into buf (cap bytes,
 * truncated: anything that long is no hex pattern), pairs into kids. */
static void node_at(const char *s, size_t *i, cJSON *node, cJSON *kids, int nkids, char *buf,
                    size_t cap) {
    memset(node, 0, sizeof *node);
    const char c = s[*i];
    if (c == '"') {
        size_t u = 0;
        for ((*i)++; s[*i] != '"'; (*i)++) {
            char ch = s[*i];
            if (ch == '\\') {
                const char e = s[++*i];
                ch = e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n' : e == 'r' ? '\r'
                   : e == 't' ? '\t' : e;
                if (e == 'u') {
                    const unsigned long v = strtoul((char[5]){s[*i + 1], s[*i + 2], s[*i + 3], s[*i + 4], 0}, NULL, 16);
                    ch = v < 0x80 ? (char)v : '?';
                    *i += 4;
                }
            }
            if (u + 1 < cap) buf[u++] = ch;
        }
        (*i)++;
        buf[u] = '\0';
        node->type = cJSON_String;
        node->valuestring = buf;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        char num[64];
        size_t u = 0;
        while (u + 1 < sizeof num && strchr("0123456789+-.eE", s[*i]) && s[*i]) num[u++] = s[(*i)++];
        num[u] = '\0';
        node->type = cJSON_Number;
        node->valuedouble = strtod(num, NULL);
        /* valueint (unused by the decoder otherwise) flags an integer literal
         * beyond 2^53, which the double has rounded */
        const size_t neg = num[0] == '-', nd = strlen(num) - neg;
        node->valueint = !strpbrk(num, ".eE") &&
                         (nd > 16 || (nd == 16 && strcmp(num + neg, "9007199254740992") > 0));
    } else if (c == 't' || c == 'f' || c == 'n') {
        node->type = c == 't' ? cJSON_True : c == 'f' ? cJSON_False : cJSON_NULL;
        skip_value(s, i);
    } else if (c == '[' && nkids > 0) {   /* [re, im]: scalar children, at most nkids kept */
        node->type = cJSON_Array;
        cJSON *last = NULL;
        (*i)++;
        for (int k = 0;; k++) {
            skip_ws(s, i);
            if (s[*i] == ']') break;
            if (k < nkids) {
                node_at(s, i, &kids[k], NULL, 0, buf, cap);
                if (last) last->next = &kids[k];
                else node->child = &kids[k];
                last = &kids[k];
            } else {
                skip_value(s, i);
            }
            skip_ws(s, i);
            if (s[*i] == ',') (*i)++;
        }
        (*i)++;
    } else {   /* an object, or an array inside a pair: only its type matters */
        node->type = c == '{' ? cJSON_Object : cJSON_Array;
        skip_value(s, i);
    }
}

int ss_values_from_text(ss_dtype t, const char *text, size_t len, uint8_t *out, int64_t n,
                        const char *field, ss_error *err) {
    const size_t sz = ss_dtype_size(t);
    if (sz == 0) return ss_fail(err, field, "unknown dtype");
    if (len < 2 || text[0] != '[') return ss_fail(err, field, "must be an array");
    size_t i = 1;
    int64_t k = 0;
    char buf[64];
    for (;; k++) {
        skip_ws(text, &i);
        if (i >= len || text[i] == ']') break;
        if (k >= n) return ss_fail(err, field, "must have exactly %lld elements (the storage numel)", (long long)n);
        cJSON node, kids[3];
        node_at(text, &i, &node, kids, 3, buf, sizeof buf);
        const int inexact_int = node.type == cJSON_Number && node.valueint && t <= SS_INT64;
        if (inexact_int)
            ss_fail(err, field, "integer literal beyond 2^53 is not exact in JSON: write it in hex");
        if (inexact_int || element_from_json(t, &node, out + (size_t)k * sz, field, err)) {
            if (err) snprintf(err->field, sizeof err->field, "%s[%lld]", field, (long long)k);
            return -1;
        }
        skip_ws(text, &i);
        if (text[i] == ',') i++;
    }
    if (k != n) return ss_fail(err, field, "must have exactly %lld elements (the storage numel)", (long long)n);
    return 0;
}
