/* ss_escape.c - text made safe for XML, HTML and JSON documents. */
#include <string.h>
#include "ss_escape.h"

/* Length of the valid UTF-8 sequence at s (RFC 3629), 0 when invalid. */
static size_t utf8_len(const unsigned char *s) {
    const unsigned c = s[0];
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c >= 0xE0 && c <= 0xEF) { n = 2; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 3; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
    else return 0;
    for (size_t k = 1; k <= n; k++)   /* stops at the NUL terminator: it is not a continuation */
        if (s[k] < (k == 1 ? lo : 0x80) || s[k] > (k == 1 ? hi : 0xBF)) return 0;
    return n + 1;
}

void ss_xml_escape(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        const size_t k = utf8_len(p);
        if (k == 0) { fputs("\xEF\xBF\xBD", f); p++; continue; }
        /* U+FFFE and U+FFFF are valid UTF-8 but not XML 1.0 characters */
        const int nonchar = k == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE;
        if (nonchar) { fputs("\xEF\xBF\xBD", f); p += k; continue; }
        if (k > 1) { fwrite(p, 1, k, f); p += k; continue; }
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\t': case '\n': case '\r': fprintf(f, "&#%d;", *p); break;
        default:
            if (*p < 0x20 || *p == 0x7F) fputs("\xEF\xBF\xBD", f);   /* not allowed in XML 1.0 */
            else fputc(*p, f);
        }
        p++;
    }
}

void ss_text_sanitize(const char *s, char *out, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    if (!n) return;
    while (*p && o + 1 < n) {
        const size_t k = utf8_len(p);
        if (k > 1 && o + k < n) { memcpy(out + o, p, k); o += k; p += k; continue; }
        if (k > 1) break;
        out[o++] = (k == 0 || (*p < 0x20 && *p != '\t') || *p == 0x7F) ? '?' : (char)*p;
        p++;
    }
    out[o] = 0;
}
