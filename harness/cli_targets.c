/* cli_targets.c - `ssfuzz targets`: every target, its kind, and whether it can run here. */
#include <stdio.h>
#include <string.h>
#include "ss_cli.h"
#include "ss_target.h"
#include "ss_torch.h"

int ss_cmd_targets(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: ssfuzz targets\n\n"
                   "Lists every target (ENGINE:KERNEL), whether it is a correct kernel, a deliberately\n"
                   "wrong mutant, or an external implementation (torch), and `available` or the reason\n"
                   "it cannot run here. emu:* targets honour --schedule (forward, reverse, lockstep,\n"
                   "warp, random); torch:compile-* targets take the input forms as schedules\n"
                   "(x-input, storage-input, two-inputs). torch:* targets run only when named.\n"
                   "Plugin targets (PLUGIN:KERNEL, kind `plugin`) come from --plugin PATH.so or\n"
                   "$SSFUZZ_PLUGINS and also run only when named.\n");
            return SS_EXIT_OK;
        }
        fprintf(stderr, "ssfuzz targets: unexpected argument '%s' (ssfuzz targets --help)\n", argv[i]);
        return SS_EXIT_USAGE;
    }
    const char *why_torch = NULL, *version = ss_torch_version(&why_torch);
    if (version) printf("# torch %s\n", version);
    for (size_t i = 0; i < ss_target_count(); i++) {
        const ss_target *t = ss_target_at(i);
        const char *why = t->unavailable(t);
        const char *kind = t->mutant ? "mutant" : !strcmp(t->engine, "torch") || !strcmp(t->engine, "plugin")
                           ? t->engine : "kernel";
        printf("%-36s %-7s %s\n", t->name, kind, why ? why : "available");
    }
    return SS_EXIT_OK;
}
