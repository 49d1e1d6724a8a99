/* test_text.c - ss_text_inert (escapes, truncation that never splits one, idempotence),
 * ss_text_shown, ss_shell_quote (round trip through /bin/sh, refusal when it does not
 * fit), ss_shell_word, and the document escapers that share the rule. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ss_escape.h"
#include "ss_text.h"

/* No byte a terminal acts on: C0, DEL, C1 (raw or UTF-8), and all valid UTF-8. */
static void assert_inert(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        assert_true(*p >= 0x20 && *p != 0x7F);
        assert_false(p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F);
    }
    for (const char *p = s; *p;) {
        const size_t k = ss_utf8_len(p);
        assert_true(k > 0);
        p += k;
    }
}

static void test_table(void **state) {
    (void)state;
    static const struct { const char *in, *want; } rows[] = {
        {"plain text", "plain text"},
        {"", ""},
        {"\x1b[2J", "\\x1b[2J"},                      /* clear screen */
        {"a\x1b]0;title\x07z", "a\\x1b]0;title\\x07z"}, /* OSC window title, BEL */
        {"\x9b" "2J", "\\x9b2J"},                      /* raw C1 CSI: invalid UTF-8 */
        {"\xc2\x9b" "2J", "\\xc2\\x9b2J"},             /* C1 CSI as UTF-8 */
        {"\xc2\xa0nbsp", "\xc2\xa0nbsp"},              /* U+00A0 is printable */
        {"line1\nline2\r\tx", "line1\\nline2\\r\\tx"},
        {"del\x7f", "del\\x7f"},
        {"bad \xff\xfe utf8 \xc3", "bad \\xff\\xfe utf8 \\xc3"},
        {"\xc0\xaf", "\\xc0\\xaf"},                    /* overlong '/' */
        {"\xed\xa0\x80", "\\xed\\xa0\\x80"},           /* surrogate */
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x8d", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x8d"},
        {"rtl\xe2\x80\xae" "evil", "rtl\\xe2\\x80\\xaeevil"}, /* U+202E reorders the line */
        {"\xe2\x81\xa6x", "\\xe2\\x81\\xa6x"},          /* U+2066 */
        {"\x01\x1f", "\\x01\\x1f"},
        {"back\\slash", "back\\slash"},
        {"$(touch pwned)", "$(touch pwned)"},          /* inert, not quoted: that is ss_shell_quote */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char out[128];
        const size_t len = ss_text_inert(rows[i].in, out, sizeof out);
        assert_string_equal(out, rows[i].want);
        assert_int_equal(len, strlen(out));
        assert_inert(out);
        char again[128];   /* idempotent: inert text passes unchanged */
        ss_text_inert(out, again, sizeof again);
        assert_string_equal(again, out);
    }
    char out[8];
    assert_int_equal(ss_text_inert(NULL, out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(ss_text_inert("x", out, 0), 0);   /* n == 0: nothing written */
}

/* Every buffer size: a prefix of the full escape, ending on a unit boundary. */
static void test_truncation(void **state) {
    (void)state;
    const char *in = "ab\x1b[2J\xc3\xa9\n\x9b\xf0\x9f\x90\x8dz";
    char full[128];
    const size_t flen = ss_text_inert(in, full, sizeof full);
    assert_string_equal(full, "ab\\x1b[2J\xc3\xa9\\n\\x9b\xf0\x9f\x90\x8dz");
    static const size_t bounds[] = {0, 1, 2, 6, 7, 8, 9, 11, 13, 17, 21, 22};   /* unit ends */
    for (size_t n = 1; n <= flen + 1; n++) {
        char out[128];
        memset(out, 'Z', sizeof out);
        const size_t len = ss_text_inert(in, out, n);
        assert_true(len < n);
        assert_int_equal(out[len], '\0');
        assert_int_equal(memcmp(out, full, len), 0);
        assert_int_equal(out[n], 'Z');   /* nothing past the buffer */
        size_t best = 0;
        for (size_t b = 0; b < sizeof bounds / sizeof bounds[0]; b++)
            if (bounds[b] < n && bounds[b] > best) best = bounds[b];
        assert_int_equal(len, best);   /* the longest whole-unit prefix that fits */
        assert_inert(out);
    }
}

/* What /bin/sh makes of `printf %s QUOTED`. */
static char *sh_roundtrip(const char *quoted) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "printf %%s %s", quoted);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    static char got[4096];
    const size_t k = fread(got, 1, sizeof got - 1, f);
    got[k] = '\0';
    assert_int_equal(pclose(f), 0);
    return got;
}

static void test_quote(void **state) {
    (void)state;
    static const struct { const char *in, *want; } rows[] = {
        {"build/plugins/naive.so", "build/plugins/naive.so"},
        {"", "''"},
        {"a b.so", "'a b.so'"},
        {"it's.so", "'it'\\''s.so'"},
        {"$(touch pwned).so", "'$(touch pwned).so'"},
        {"`id`;rm -rf ~", "'`id`;rm -rf ~'"},
        {"two\nlines", "'two\nlines'"},
        {"\"dq\" \\ *?[x]", "'\"dq\" \\ *?[x]'"},
        {"''", "''\\'''\\'''"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char out[128];
        const int len = ss_shell_quote(rows[i].in, out, sizeof out);
        assert_string_equal(out, rows[i].want);
        assert_int_equal(len, (int)strlen(out));
        assert_string_equal(sh_roundtrip(out), rows[i].in);
    }
    assert_int_equal(access("pwned.so", F_OK) == 0 || access("pwned", F_OK) == 0, 0);
}

/* Too long: -1 and an empty string at every size short of the whole, never a prefix. */
static void test_quote_too_long(void **state) {
    (void)state;
    static const char *const ins[] = {"plain/path.so", "it's a path", "'"};
    for (size_t i = 0; i < sizeof ins / sizeof ins[0]; i++) {
        char full[64];
        const int need = ss_shell_quote(ins[i], full, sizeof full);
        assert_true(need > 0);
        for (size_t n = 0; n <= (size_t)need; n++) {
            char out[64];
            memset(out, 'Z', sizeof out);
            assert_int_equal(ss_shell_quote(ins[i], out, n), -1);
            if (n) assert_string_equal(out, "");
            assert_int_equal(out[n], 'Z');   /* nothing written past the buffer */
        }
        char out[64];
        assert_int_equal(ss_shell_quote(ins[i], out, (size_t)need + 1), need);
        assert_string_equal(out, full);
    }
}

/* ss_text_shown: the unit a terminal shows as itself, 0 for what it would act on. */
static void test_shown(void **state) {
    (void)state;
    static const struct { const char *s; size_t want; } rows[] = {
        {"a", 1}, {" ", 1}, {"~", 1}, {"", 0}, {"\x1b", 0}, {"\n", 0}, {"\x7f", 0}, {"\x9b", 0},
        {"\xc2\x9b", 0}, {"\xc2\x80", 0}, {"\xc2\xa0", 2}, {"\xc3\xa9", 2}, {"\xe2\x80\xa7", 3},
        {"\xe2\x80\xa8", 0}, {"\xe2\x80\xae", 0}, {"\xe2\x80\xaf", 3}, {"\xe2\x81\xa5", 3},
        {"\xe2\x81\xa9", 0}, {"\xe2\x81\xaa", 3}, {"\xf0\x9f\x90\x8d", 4}, {"\xf4\x90\x80\x80", 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) assert_int_equal(ss_text_shown(rows[i].s), rows[i].want);
}

/* ss_shell_word: quoted, then inert; -1 and "" when the whole does not fit. */
static void test_shell_word(void **state) {
    (void)state;
    char out[64];
    assert_int_equal(ss_shell_word("/tmp/x y/$(touch pwned)\x1b[2J.so", out, sizeof out), 35);
    assert_string_equal(out, "'/tmp/x y/$(touch pwned)\\x1b[2J.so'");
    assert_int_equal(ss_shell_word("plain/p.so", out, sizeof out), 10);
    assert_string_equal(out, "plain/p.so");
    /* the quoted form fits in 8 bytes, the inert one does not: refused, not cut */
    assert_int_equal(ss_shell_word("\x1b\x1b", out, 8), -1);
    assert_string_equal(out, "");
    assert_int_equal(ss_shell_word("\x1b\x1b", out, 11), 10);
    assert_string_equal(out, "'\\x1b\\x1b'");
    assert_int_equal(ss_shell_word("abc", out, 3), -1);
    assert_int_equal(ss_shell_word("abc", out, 0), -1);
}

/* The document writers refuse what the terminal helper escapes: C1 and bidi too. */
static void test_documents(void **state) {
    (void)state;
    char buf[256] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    assert_non_null(f);
    ss_xml_escape(f, "a\xc2\x9b" "b\xe2\x80\xae" "c\x1b[2J\td\xc3\xa9");
    fclose(f);
    assert_string_equal(buf, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD[2J&#9;d\xc3\xa9");
    f = fmemopen(buf, sizeof buf - 1, "w");
    ss_xml_escape_word(f, "dir/it's <x>.json");
    fclose(f);
    assert_string_equal(buf, "&apos;dir/it&apos;\\&apos;&apos;s &lt;x&gt;.json&apos;");
    char out[64];
    ss_text_sanitize("a\xc2\x9b" "b\xe2\x81\xa6" "c\x1b\x7f\xff\td", out, sizeof out);
    assert_string_equal(out, "a?b?c???\td");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_quote),
        cmocka_unit_test(test_quote_too_long),
        cmocka_unit_test(test_shown),
        cmocka_unit_test(test_shell_word),
        cmocka_unit_test(test_documents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
