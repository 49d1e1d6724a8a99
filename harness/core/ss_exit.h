/* ss_exit.h - the exit codes every subcommand shares, and the tool's version.
 *
 *   0 all agree / nothing found, 1 a finding (mismatch, crash, timeout, ...),
 *   2 invalid case or usage, 3 a requested target cannot run here,
 *   4 regress checked nothing (every expectation skipped: its targets cannot
 *   run here), so its silence is no verdict;
 *   fuzz stopped by a signal: 128 + its number (Ctrl-C: 130).
 * In core so that library code (replay, reports, triage) can return them
 * without including the command layer. */
#ifndef SS_EXIT_H
#define SS_EXIT_H

enum { SS_EXIT_OK = 0, SS_EXIT_FINDING = 1, SS_EXIT_USAGE = 2, SS_EXIT_TARGET = 3, SS_EXIT_NOTHING_CHECKED = 4 };

#define SS_VERSION "0.1.0"

#endif
