/* main.c - the ssfuzz command line: dispatches to one subcommand per file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_opts.h"
#include "ss_cli.h"
#include "ss_plugin.h"
#include "ss_pykernel.h"
#include "ss_torch.h"

typedef struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} command;

static const command commands[] = {
    {"fuzz", ss_cmd_fuzz, "run a fuzz campaign (default: 60 s on the default targets)"},
    {"replay", ss_cmd_replay, "replay cases (files or directories) on the reference and targets"},
    {"minimize", ss_cmd_minimize, "shrink a failing case to a 1-minimal reproducer"},
    {"regress", ss_cmd_regress, "check every case's expectations (JUnit, SARIF output)"},
    {"explain", ss_cmd_explain, "show a case's plan, overlap class and memory map"},
    {"export", ss_cmd_export, "print a standalone PyTorch script for a case (--torch)"},
    {"gen", ss_cmd_gen, "write case I of seed S as the fuzz campaign generates it"},
    {"targets", ss_cmd_targets, "list targets and whether each can run here"},
    {"triage", ss_cmd_triage, "classify findings against the ledger: new, known, fixed (nightly)"},
    {"merge", ss_cmd_merge, "fold shard directories into one summary, one reproducer per bug"},
    {"version", ss_cmd_version, "print the version of ssfuzz and of its case format"},
    {"help", NULL, "help CMD: the options of CMD (as CMD --help)"},
};

/* --python PATH (or --python=PATH) anywhere on the line chooses the torch
 * engine's interpreter for every subcommand; --plugin PATH.so (repeatable)
 * loads a kernel library after those of $SSFUZZ_PLUGINS, --py-kernel NAME.py
 * a Python kernel module after those of $SSFUZZ_PY_KERNELS. All are taken out
 * before dispatch; a plugin or module that does not load is one line and exit 2. */
static int set_python(void *unused, const char *path, ss_error *err) {
    (void)unused, (void)err;
    if (!path) {
        fprintf(stderr, "ssfuzz: --python needs the path of a python3 that imports torch\n");
        return -1;
    }
    ss_torch_set_python(path);
    ss_cli_export_python(path);
    return 0;
}

static int load_plugin(void *unused, const char *path, ss_error *err) {
    (void)unused;
    if (!path) fprintf(stderr, "ssfuzz: --plugin needs the path of a kernel library (PATH.so)\n");
    else if (ss_plugin_load(path, ss_target_find, err) == 0) return 0;
    else fprintf(stderr, "ssfuzz: plugin %s: %s\n", path, err->msg);
    return -1;
}

static int load_py_kernel(void *unused, const char *path, ss_error *err) {
    (void)unused;
    if (!path) fprintf(stderr, "ssfuzz: --py-kernel needs the path of a Python kernel module (NAME.py)\n");
    else if (ss_pykernel_load(path, ss_target_find, err) == 0) return 0;
    else fprintf(stderr, "ssfuzz: --py-kernel %s: %s\n", err->field, err->msg);
    return -1;
}

static const cli_opt globals[] = {
    CLI_OPT_CALL(0, "python", "PATH", NULL, set_python, "the python3 (with torch) for torch:* targets (else "
                 "$SSFUZZ_PYTHON, else the first python3 on PATH that imports torch); repeatable for export --issue"),
    CLI_OPT_CALL(0, "plugin", "PATH.so", NULL, load_plugin, "load your kernels as targets PLUGIN:KERNEL "
                 "(repeatable; also $SSFUZZ_PLUGINS=a.so:b.so; see include/ssfuzz_plugin.h)"),
    CLI_OPT_CALL(0, "py-kernel", "NAME.py", NULL, load_py_kernel, "load your Python/Triton kernels as targets "
                 "NAME:KERNEL and NAME:KERNEL@cuda (repeatable; also $SSFUZZ_PY_KERNELS=a.py:b.py; see docs/plugins.md)"),
    CLI_OPT_END};

static void usage(FILE *f) {
    fprintf(f, "usage: ssfuzz [GLOBAL OPTIONS] COMMAND [ARGS...]   (ssfuzz help COMMAND for its options)\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\nglobal options (anywhere on the line, before a `--`):\n");
    cli_print_opts(globals, f);
    fprintf(f, "\nexit codes: 0 agree/nothing found, 1 a finding (mismatch, crash, timeout, ...),\n"
               "            2 invalid case or usage, 3 a requested target cannot run here,\n"
               "            130 fuzz stopped by Ctrl-C (after writing its summary)\n");
}

static int take_global_options(int *argc, char **argv) {
    ss_error err;
    if (ss_plugin_load_env(ss_target_find, &err)) {
        fprintf(stderr, "ssfuzz: plugin %s (from SSFUZZ_PLUGINS): %s\n", err.field, err.msg);
        return -1;
    }
    if (ss_pykernel_load_env(ss_target_find, &err)) {
        fprintf(stderr, "ssfuzz: kernel module %s (from SSFUZZ_PY_KERNELS): %s\n", err.field, err.msg);
        return -1;
    }
    return cli_take_globals(globals, argc, argv);
}

int main(int argc, char **argv) {
    if (take_global_options(&argc, argv)) return SS_EXIT_USAGE;
    atexit(ss_engines_shutdown);
    ss_cli_export_register();
    if (argc < 2) { usage(stderr); return SS_EXIT_USAGE; }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || (!strcmp(argv[1], "help") && argc == 2)) {
        usage(stdout);
        return SS_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) return ss_cmd_version(1, argv + 1);
    const int help = !strcmp(argv[1], "help");   /* help CMD: CMD --help */
    if (help && argc != 3) {
        fprintf(stderr, "ssfuzz help: takes one command name (ssfuzz help lists them)\n");
        return SS_EXIT_USAGE;
    }
    const char *name = argv[1 + help];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (!commands[i].fn || strcmp(name, commands[i].name)) continue;
        if (!help) return commands[i].fn(argc - 1, argv + 1);
        char *hargv[] = {argv[2], "--help", NULL};
        return commands[i].fn(2, hargv);
    }
    if (help && !strcmp(name, "help")) { usage(stdout); return SS_EXIT_OK; }
    fprintf(stderr, "ssfuzz: unknown command '%s' (ssfuzz help lists them)\n", name);
    return SS_EXIT_USAGE;
}
