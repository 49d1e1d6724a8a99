/* ss_text.c - untrusted text made inert for a terminal, and quoted for a shell. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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

size_t ss_text_shown(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    const size_t k = ss_utf8_len(s);
    if (k == 1) return p[0] >= 0x20 && p[0] != 0x7F ? 1 : 0;
    if (k == 2 && p[0] == 0xC2 && p[1] <= 0x9F) return 0;   /* C1 */
    if (k == 3 && p[0] == 0xE2 && ((p[1] == 0x80 && p[2] >= 0xA8 && p[2] <= 0xAE) ||
                                   (p[1] == 0x81 && p[2] >= 0xA6 && p[2] <= 0xA9)))
        return 0;   /* U+2028-U+202E, U+2066-U+2069 */
    return k;
}

size_t ss_text_inert(const char *in, char *out, size_t n) {
    const unsigned char *p = (const unsigned char *)(in ? in : "");
    size_t o = 0;
    if (!n) return 0;
    while (*p) {
        if (*p >= 0x20 && *p < 0x7F) {   /* a run of printable ASCII, each byte a unit of its own: in bulk */
            size_t r = 1;
            while (p[r] >= 0x20 && p[r] < 0x7F) r++;
            if (r > n - 1 - o) r = n - 1 - o;   /* room for the terminator, as unit by unit */
            if (!r) break;
            memcpy(out + o, p, r);
            o += r;
            p += r;
            continue;
        }
        size_t k = ss_text_shown((const char *)p);
        char unit[16];
        size_t u = 0;
        if (k) {
            memcpy(unit, p, k);
            u = k;
        } else {
            /* a refused character's bytes, or one invalid byte (the next is looked at afresh) */
            if (!(k = ss_utf8_len((const char *)p))) k = 1;
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

int ss_shell_word(const char *in, char *out, size_t n) {
    if (!n) return -1;
    out[0] = '\0';
    char *quoted = malloc(n), *shown = NULL;
    int len = quoted ? ss_shell_quote(in, quoted, n) : -1;
    /* the inert form is never shorter, and never more than four times longer */
    if (len >= 0 && (size_t)len < ((size_t)-1) / 4 && (shown = malloc(4 * (size_t)len + 1))) {
        const size_t k = ss_text_inert(quoted, shown, 4 * (size_t)len + 1);
        if (k < n) memcpy(out, shown, k + 1);
        len = k < n ? (int)k : -1;
    } else {
        len = -1;
    }
    free(quoted);
    free(shown);
    return len;
}

void ss_text_set(char *out, size_t n, const char *msg) {
    if (n == 0) return;
    size_t len = strlen(msg);
    if (len >= n) len = n - 1;
    memcpy(out, msg, len);
    out[len] = '\0';
}
