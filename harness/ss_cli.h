/* ss_cli.h - subcommands of the ssfuzz CLI, one file each (cli_*.c).
 *
 * Exit codes shared by every subcommand (the README documents them):
 *   0 all agree / nothing found, 1 a finding (mismatch, crash, timeout, ...),
 *   2 invalid case or usage, 3 a requested target cannot run here;
 *   fuzz stopped by a signal: 128 + its number (Ctrl-C: 130). */
#ifndef SS_CLI_H
#define SS_CLI_H

enum { SS_EXIT_OK = 0, SS_EXIT_FINDING = 1, SS_EXIT_USAGE = 2, SS_EXIT_TARGET = 3 };

#define SS_VERSION "0.1.0"

int ss_cmd_replay(int argc, char **argv);
int ss_cmd_targets(int argc, char **argv);
int ss_cmd_fuzz(int argc, char **argv);
int ss_cmd_minimize(int argc, char **argv);
int ss_cmd_regress(int argc, char **argv);
int ss_cmd_explain(int argc, char **argv);
int ss_cmd_export(int argc, char **argv);
int ss_cmd_triage(int argc, char **argv);
int ss_cmd_gen(int argc, char **argv);
int ss_cmd_version(int argc, char **argv);

#endif
