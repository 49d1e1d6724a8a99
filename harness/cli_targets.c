/* cli_targets.c - `ssfuzz targets`: every target, its kind, and whether it can run here. */
#include <stdio.h>
#include <string.h>
#include "ss_cli.h"
#include "ss_target.h"

int ss_cmd_targets(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: ssfuzz targets\n\n"
                   "Lists every target (ENGINE:KERNEL), whether it is a correct kernel or a\n"
                   "deliberately wrong mutant, and `available` or the reason it cannot run here.\n"
                   "emu:* targets honour --schedule (forward, reverse, lockstep, warp, random).\n");
            return SS_EXIT_OK;
        }
        fprintf(stderr, "ssfuzz targets: unexpected argument '%s' (ssfuzz targets --help)\n", argv[i]);
        return SS_EXIT_USAGE;
    }
    for (size_t i = 0; i < ss_target_count(); i++) {
        const ss_target *t = ss_target_at(i);
        const char *why = t->unavailable(t);
        printf("%-30s %-7s %s\n", t->name, t->mutant ? "mutant" : "kernel", why ? why : "available");
    }
    return SS_EXIT_OK;
}
