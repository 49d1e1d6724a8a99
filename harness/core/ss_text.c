/* ss_text.c - untrusted text made inert for a terminal, and quoted for a shell. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "ss_text.h"

size_t ss_utf8_len(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    const unsigned c = p[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c >= 0xE0 && c <= 0xEF) { n = 2; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 3; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
    else return 0;
    for (size_t k = 1; k <= n; k++)   /* stops at the NUL terminator: it is not a continuation */
        if (p[k] < (k == 1 ? lo : 0x80) || p[k] > (k == 1 ? hi : 0xBF)) return 0;
    return n + 1;
}

/* A valid sequence of k bytes a terminal would act on rather than show: C1
 * controls (C2 80-9F), U+2028/U+2029, U+202A-U+202E, U+2066-U+2069. */
static int acts(const unsigned char *p, size_t k) {
    if (k == 2) return p[0] == 0xC2 && p[1] <= 0x9F;
    if (k != 3 || p[0] != 0xE2) return 0;
    return (p[1] == 0x80 && p[2] >= 0xA8 && p[2] <= 0xAE) || (p[1] == 0x81 && p[2] >= 0xA6 && p[2] <= 0xA9);
}

size_t ss_text_inert(const char *in, char *out, size_t n) {
    const unsigned char *p = (const unsigned char *)(in ? in : "");
    size_t o = 0;
    if (!n) return 0;
    while (*p) {
        size_t k = ss_utf8_len((const char *)p);
        char unit[16];
        size_t u = 0;
        if (k > 1 && !acts(p, k)) {
            memcpy(unit, p, k);
            u = k;
        } else {
            if (k == 0) k = 1;   /* an invalid byte: escaped alone, the next is looked at afresh */
            for (size_t i = 0; i < k; i++) {
                const unsigned c = p[i];
                const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
                if (named) { memcpy(unit + u, named, 2); u += 2; }
                else if (c >= 0x20 && c < 0x7F) unit[u++] = (char)c;
                else u += (size_t)snprintf(unit + u, sizeof unit - u, "\\x%02x", c);
            }
        }
        if (u >= n - o) break;   /* a whole unit plus the terminator, or nothing */
        memcpy(out + o, unit, u);
        o += u;
        p += k;
    }
    out[o] = '\0';
    return o;
}

static int shell_plain(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!strchr("@%+=:,./_-", *s) && !(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
            !(*s >= '0' && *s <= '9'))
            return 0;
    return 1;
}

int ss_shell_quote(const char *in, char *out, size_t n) {
    const char *s = in ? in : "";
    size_t o = 0;
    if (!n) return -1;
    if (shell_plain(s)) {
        const size_t len = strlen(s);
        if (len >= n || len > INT_MAX) { out[0] = '\0'; return -1; }
        memcpy(out, s, len + 1);
        return (int)len;
    }
    /* every step checks room for its bytes, the closing quote and the NUL */
    out[o++] = '\'';
    for (; *s; s++) {
        const char *piece = *s == '\'' ? "'\\''" : NULL;
        const size_t len = piece ? 4 : 1;
        if (o + len + 2 > n) { out[0] = '\0'; return -1; }
        if (piece) memcpy(out + o, piece, len);
        else out[o] = *s;
        o += len;
    }
    if (o + 2 > n) { out[0] = '\0'; return -1; }
    out[o++] = '\'';
    out[o] = '\0';
    if (o > INT_MAX) { out[0] = '\0'; return -1; }
    return (int)o;
}
