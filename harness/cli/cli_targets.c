/* cli_targets.c - `ssfuzz targets`: every target, its kind, and whether it can run here. */
#include <stdio.h>
#include <string.h>
#include "cli_opts.h"
#include "ss_cli.h"
#include "ss_target.h"
#include "ss_text.h"

int ss_cmd_targets(int argc, char **argv) {
    cli_opt opts[] = {CLI_OPT_END};
    const cli_cmd cmd = {"targets", "",
        "Lists every target (ENGINE:KERNEL), whether it is a correct kernel, a deliberately\n"
        "wrong mutant, or an external implementation (torch), and `available` or the reason\n"
        "it cannot run here. A reason shared by several targets (no CUDA driver, no\n"
        "torch.compile) is printed once, as a note the targets refer to. emu:* targets run\n"
        "under schedules (forward, reverse, lockstep, warp, random); torch:compile-* targets\n"
        "take the input forms as schedules (x-input, storage-input, two-inputs). torch:*\n"
        "targets run only when named. Plugin targets (PLUGIN:KERNEL, kind `plugin`) come\n"
        "from --plugin PATH.so or $SSFUZZ_PLUGINS and also run only when named, as do\n"
        "Python kernels (NAME:KERNEL, NAME:KERNEL@cuda, kind `pykernel`) from --py-kernel\n"
        "NAME.py or $SSFUZZ_PY_KERNELS.", "exit: 0\n", opts, "", 0, 0};
    const int pr = cli_parse(&cmd, &argc, argv);
    if (pr >= 0) return pr;
    for (size_t e = 0; e < ss_engine_count(); e++) {
        const ss_engine *engine = ss_engine_at(e);
        const char *version = engine->version ? engine->version(NULL) : NULL;
        char shown[256];   /* an engine's words (a torch worker's): shown inert */
        if (version) printf("# %s %s\n", engine->name, (ss_text_inert(version, shown, sizeof shown), shown));
    }
    const size_t n = ss_target_count();
    /* Each reason is copied when asked: an engine may answer every target
     * from one static buffer, so a pointer kept would read the last answer. */
    static char reasons[512][768];
    const char *why[512];
    int note[512];   /* 1 + the note number of a reason two or more targets share; 0 none */
    size_t n_notes = 0;
    for (size_t i = 0; i < n && i < 512; i++) {
        const char *r = ss_target_at(i)->unavailable(ss_target_at(i));
        if (r) snprintf(reasons[i], sizeof reasons[i], "%s", r);
        why[i] = r ? reasons[i] : NULL;
        note[i] = 0;
        for (size_t k = 0; k < i && why[i] && !note[i]; k++)
            if (why[k] && !strcmp(why[k], why[i])) {
                if (!note[k]) {
                    note[k] = (int)++n_notes;
                    char shown[1024];
                    ss_text_inert(why[k], shown, sizeof shown);
                    printf("# note %d: %s\n", note[k], shown);
                }
                note[i] = note[k];
            }
    }
    for (size_t i = 0; i < n && i < 512; i++) {
        const ss_target *t = ss_target_at(i);
        const char *kind = t->mutant ? "mutant" : t->engine->kind;
        char shown[1024];
        ss_text_inert(why[i] ? why[i] : "available", shown, sizeof shown);
        if (note[i]) printf("%-36s %-7s unavailable (note %d)\n", t->name, kind, note[i]);
        else printf("%-36s %-7s %s\n", t->name, kind, shown);
    }
    return SS_EXIT_OK;
}
