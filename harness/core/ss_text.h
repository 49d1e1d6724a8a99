/* ss_text.h - untrusted text made inert for a terminal, and quoted for a shell.
 *
 * A reproducer is untrusted input (users download them from bug reports), and
 * so is what a torch worker or a plugin says: text from either is printed
 * through ss_text_inert, and a path put into a suggested command line through
 * ss_shell_quote (then ss_text_inert: quoting alone does not stop an escape
 * sequence from reaching the terminal). */
#ifndef SS_TEXT_H
#define SS_TEXT_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), 0 when invalid; 1 for ASCII and for the
 * terminator. Never reads past a NUL. */
size_t ss_utf8_len(const char *s);

/* Bytes of the character at s that a terminal shows as itself: printable
 * ASCII, or valid UTF-8 that is not a C1 control (U+0080-U+009F, which some
 * terminals obey like ESC), a bidirectional control (U+202A-U+202E,
 * U+2066-U+2069: they reorder what is shown) or a line/paragraph separator
 * (U+2028, U+2029). 0 for anything else (C0 controls, DEL, invalid UTF-8)
 * and at the terminator. */
size_t ss_text_shown(const char *s);

/* Copies `in` (NULL reads as "") into out (n bytes, always NUL-terminated when
 * n > 0) as printable text: what ss_text_shown passes is kept; newline, tab
 * and CR become `\n`, `\t`, `\r`; every other byte (of other C0 controls, DEL,
 * the valid characters ss_text_shown refuses, invalid UTF-8) `\xNN`. Backslash
 * itself is kept, so the function is idempotent (inert text stays unchanged).
 * When out is too small the text stops before the first escape or character
 * that does not fit whole (n >= 4 * strlen(in) + 1 always fits: no byte grows
 * beyond four). Returns the length written. */
size_t ss_text_inert(const char *in, char *out, size_t n);

/* Copies msg into out (n bytes, cut to fit, always terminated): snprintf(out,
 * n, "%s", msg) without the formatting machinery, for messages said on every
 * run of a common case (an input with internal overlap). */
void ss_text_set(char *out, size_t n, const char *msg);

/* Copies `in` into out (n bytes) quoted for a POSIX shell: unchanged when every
 * byte is one of A-Z a-z 0-9 @ % + = : , . / _ - (and it is not empty), else
 * in single quotes with each ' written as '\''. Returns the length, or -1 with
 * out = "" when the quoted form does not fit (a command is never truncated). */
int ss_shell_quote(const char *in, char *out, size_t n);

/* A word of a command line suggested on a terminal: ss_shell_quote, then
 * ss_text_inert (a quoted escape sequence would still reach the terminal; a
 * word holding a control character then reads as escaped, not as itself).
 * Returns the length, or -1 with out = "" when it does not fit whole. */
int ss_shell_word(const char *in, char *out, size_t n);

#endif
