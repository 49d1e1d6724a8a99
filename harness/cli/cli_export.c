/* cli_export.c - `ssfuzz export --torch`: a standalone PyTorch script that reproduces a case as
 * found; `--issue FILE`: its upstream report; the exporter that confirmation uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_opts.h"
#include "ss_cli.h"
#include "ss_confirm.h"
#include "ss_export.h"
#include "ss_files.h"
#include "ss_replay.h"

/* An option's error names the option; anything else is the case's. */
static void say_error(const char *path, const ss_error *err) {
    if (!strncmp(err->field, "--", 2)) fprintf(stderr, "ssfuzz export: %s: %s\n", err->field, err->msg);
    else fprintf(stderr, "%s: invalid: %s: %s\n", path, err->field, err->msg);
}

static const char about[] =
    "--torch prints a standalone Python script that reproduces the case the way the torch\n"
    "engine ran it: it computes the expected result with torch.slice_scatter on CPU, runs the\n"
    "program in place in each mode asked for, compares the final storages bit for bit and\n"
    "prints one verdict line per run. Defaults come from the case's meta.torch (the mode,\n"
    "form and spelling it was found in), else every mode, form x-input, spelling setitem.\n"
    "The script exits with the worst: 1 differ (or a compiled run raised where eager runs),\n"
    "2 error, 3 refused (PyTorch's overlap check), 0 agree.\n"
    "A program case's script runs its program (def program(x, src), as explain prints it)\n"
    "and holds each run to the program's reference: final storages, returned values and\n"
    "which of them share x's or src's storage; forms and spellings do not apply.";

/* Confirmation's exporter: the finding's mode ("compile-dynamic-cpu"), form and spelling. */
static int export_for_confirm(const ss_case *c, const ss_confirm_spec *s, const char *path, ss_error *err) {
    const ss_export_opts o = {s->mode, s->form[0] ? s->form : "x-input", s->spelling, NULL, 0, NULL, NULL,
                              "a finding (standalone confirmation)"};
    return ss_export_torch_file(path, c, &o, err);
}

void ss_cli_export_register(void) { ss_confirm_set_exporter(export_for_confirm); }

static const char *pythons[16];
static size_t n_pythons;

void ss_cli_export_python(const char *path) {
    if (n_pythons < sizeof pythons / sizeof pythons[0]) pythons[n_pythons++] = path;
}

int ss_cmd_export(int argc, char **argv) {
    int torch = 0, quiet = 0;
    const char *out_path = NULL, *issue = NULL;
    uint64_t max_bytes = SS_EXPORT_MAX_BYTES;
    double timeout = 300;
    ss_export_opts o = {0};
    cli_opt opts[] = {
        CLI_OPT_FLAG(0, "torch", &torch, "print the standalone PyTorch script (above)"),
        CLI_OPT_STR(0, "mode", "M", &o.mode, "eager, compile (dynamic=False), compile-dynamic (dynamic=True, and the "
                    "automatic switch: a first call on another size), aot-eager and dynamo-eager (backends "
                    "aot_eager and eager), aot-eager-dynamic, dynamo-eager-dynamic, all (the first five); comma "
                    "list, or one as meta.torch names it (aot-eager-cpu: the device too)"),
        CLI_OPT_STR(0, "form", "F", &o.form, "x-input, storage-input, two-inputs (the engine's forms), user (the "
                    "case's line on the whole storage), user-two-inputs (the line on the input view and src as "
                    "two arguments, def f(x, src)), all; comma list"),
        CLI_OPT_STR(0, "spelling", "S", &o.spelling,
                    "setitem, setitem-clone, copy, scatter-copy, scatter-return, clone-scatter, index-put"),
        CLI_OPT_STR(0, "device", "D", &o.device, "cpu, cuda, all (cuda when present)"),
        CLI_OPT_STR('o', "output", "FILE", &out_path, "write the script to FILE (atomically) instead of stdout"),
        CLI_OPT_UINT(0, "max-bytes", "N", &max_bytes, 0, UINT64_MAX, "largest storages to export (default 16 MiB)"),
        CLI_OPT_STR(0, "issue", "FILE", &issue, "write an upstream-ready Markdown report to FILE (atomically): "
                    "title (a program's: its first wrong step), a repro of at most ten lines (f(x, src) on two "
                    "views of one storage for a two-inputs finding that only that form reproduces), expected and "
                    "actual values (or the aliasing fact), each global --python's torch and its verdicts "
                    "(repeatable; default the python the torch engine uses), the first wrong compile stage"),
        CLI_OPT_SECS(0, "timeout", "S", &timeout, 0, 86400, "time limit of each script run for --issue (default 300)"),
        CLI_OPT_FLAG('q', "quiet", &quiet, "no progress lines for --issue"),
        CLI_OPT_END};
    const cli_cmd cmd = {"export", "--torch CASE [--mode M] [--form F] [--spelling S] [--device D] [-o FILE]\n"
                         "--issue FILE CASE [--mode M] [--form F] [--timeout S]", about,
                         "exit: 0 written, 2 usage or invalid case (or one the script cannot spell), 3 out of memory\n"
                         "      or stdout unwritable\n", opts, "one CASE", 1, 1};
    const int pr = cli_parse(&cmd, &argc, argv);
    if (pr >= 0) return pr;
    if (!torch && !issue) {
        fprintf(stderr, "ssfuzz export: --torch or --issue FILE is required\n");
        return SS_EXIT_USAGE;
    }
    if (torch && issue) {
        fprintf(stderr, "ssfuzz export: --torch and --issue: one at a time\n");
        return SS_EXIT_USAGE;
    }
    const char *path = argv[1];
    o.max_bytes = (size_t)max_bytes;
    o.label = path;
    ss_error err;
    if (issue) {
        const ss_issue_opts io = {pythons, n_pythons, timeout, &o, quiet};
        if (ss_export_issue(path, issue, &io, &err)) {
            fprintf(stderr, "ssfuzz export: --issue: %s: %s\n", err.field, err.msg);
            return SS_EXIT_USAGE;
        }
        if (!quiet) fprintf(stderr, "export: wrote %s\n", issue);
        return SS_EXIT_OK;
    }
    ss_case c;
    ss_case_init(&c);
    if (ss_case_load(path, &c, &err)) {
        fprintf(stderr, "%s: invalid: %s: %s\n", path, err.field, err.msg);
        ss_case_free(&c);
        return SS_EXIT_USAGE;
    }
    int code = SS_EXIT_OK;
    if (out_path) {
        if (ss_export_torch_file(out_path, &c, &o, &err)) {
            say_error(path, &err);
            code = SS_EXIT_USAGE;
        }
    } else {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f) {
            fprintf(stderr, "ssfuzz export: out of memory\n");
            code = SS_EXIT_TARGET;
        } else {
            const int bad = ss_export_torch(f, &c, &o, &err);
            if (fclose(f) || (!bad && (fwrite(text, 1, len, stdout) != len || fflush(stdout)))) {
                fprintf(stderr, "ssfuzz export: cannot write the script to stdout\n");
                code = SS_EXIT_TARGET;
            } else if (bad) {
                say_error(path, &err);
                code = SS_EXIT_USAGE;
            }
            free(text);
        }
    }
    ss_case_free(&c);
    return code;
}
