/* ss_cli.h - subcommands of the ssfuzz CLI, one file each (cli_*.c); exit codes
 * in ss_exit.h. */
#ifndef SS_CLI_H
#define SS_CLI_H

#include "ss_exit.h"

int ss_cmd_replay(int argc, char **argv);
int ss_cmd_targets(int argc, char **argv);
int ss_cmd_fuzz(int argc, char **argv);
int ss_cmd_minimize(int argc, char **argv);
int ss_cmd_regress(int argc, char **argv);
int ss_cmd_explain(int argc, char **argv);
int ss_cmd_export(int argc, char **argv);
int ss_cmd_triage(int argc, char **argv);
int ss_cmd_merge(int argc, char **argv);
int ss_cmd_gen(int argc, char **argv);
int ss_cmd_version(int argc, char **argv);

/* Records each global --python, in order: export --issue tries each. */
void ss_cli_export_python(const char *path);
/* Registers export's script writer for torch findings' confirmation (fuzz, replay --confirm). */
void ss_cli_export_register(void);

#endif
