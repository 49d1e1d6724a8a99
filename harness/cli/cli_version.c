/* cli_version.c - `ssfuzz version` (and --version): the tool's version and its case format's. */
#include <stdio.h>
#include "cli_opts.h"
#include "ss_cli.h"

int ss_cmd_version(int argc, char **argv) {
    cli_opt opts[] = {CLI_OPT_END};
    const cli_cmd cmd = {"version", "", "Prints the version of ssfuzz (also in every reproducer's meta.version) "
                         "and the\ncase format version it reads and writes.", "exit: 0\n", opts, "", 0, 0};
    const int pr = cli_parse(&cmd, &argc, argv);
    if (pr >= 0) return pr;
    printf("ssfuzz %s\ncase format: ssfuzz-case version 1\n", SS_VERSION);
    return SS_EXIT_OK;
}
