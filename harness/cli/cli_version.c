/* cli_version.c - `ssfuzz version` (and --version): the tool's version and its case format's. */
#include <stdio.h>
#include <string.h>
#include "ss_cli.h"

int ss_cmd_version(int argc, char **argv) {
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: ssfuzz version\n\nPrints the version of ssfuzz (also in every reproducer's "
               "meta.version) and the\ncase format version it reads and writes.\n");
        return SS_EXIT_OK;
    }
    if (argc > 1) {
        fprintf(stderr, "ssfuzz version: unexpected argument '%s' (ssfuzz help version)\n", argv[1]);
        return SS_EXIT_USAGE;
    }
    printf("ssfuzz %s\ncase format: ssfuzz-case version 1\n", SS_VERSION);
    return SS_EXIT_OK;
}
