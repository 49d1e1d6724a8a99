/* ss_escape.c - text made safe for XML, HTML and JSON documents. */
#include <stdlib.h>
#include <string.h>
#include "ss_escape.h"
#include "ss_text.h"

void ss_xml_escape(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        const size_t k = ss_text_shown((const char *)p);
        if (k == 0 && *p != '\t' && *p != '\n' && *p != '\r') {
            /* controls (C0, DEL, C1), bidirectional overrides, invalid UTF-8 */
            const size_t skip = ss_utf8_len((const char *)p);
            fputs("\xEF\xBF\xBD", f);
            p += skip ? skip : 1;
            continue;
        }
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
        default: fputc(*p, f);
        }
        p++;
    }
}

void ss_text_sanitize(const char *s, char *out, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    if (!n) return;
    while (*p && o + 1 < n) {
        const size_t k = ss_text_shown((const char *)p), whole = ss_utf8_len((const char *)p);
        if (k > 1 && o + k < n) { memcpy(out + o, p, k); o += k; p += k; continue; }
        if (k > 1) break;
        out[o++] = k == 1 || *p == '\t' ? (char)*p : '?';
        p += k || !whole ? 1 : whole;   /* a refused character is one '?' */
    }
    out[o] = 0;
}

void ss_xml_escape_word(FILE *f, const char *s) {
    const size_t len = strlen(s);
    char *q = len < ((size_t)-1 - 3) / 4 ? malloc(4 * len + 3) : NULL;   /* ' becomes '\'' */
    if (!q || ss_shell_quote(s, q, 4 * len + 3) < 0) fputs("PATH", f);
    else ss_xml_escape(f, q);
    free(q);
}
