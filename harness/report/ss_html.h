/* ss_html.h - the nightly report as one self-contained HTML page (no scripts, no
 * external files): tonight's verdict and facts, one table per finding class with links
 * to each reproducer and its `explain` output, and an inline-SVG trend of cases/s and
 * unique findings over the last nights. */
#ifndef SS_HTML_H
#define SS_HTML_H

#include <stddef.h>
#include "ss_history.h"

/* Item explain paths are taken as relative to the page's directory. */
int ss_html_write(const char *path, const ss_night *n, const ss_triage *t, const ss_history_row *rows,
                  size_t nrows, ss_error *err);

#endif
