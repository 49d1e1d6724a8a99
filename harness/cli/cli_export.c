/* cli_export.c - `ssfuzz export --torch`: a standalone PyTorch script that reproduces a case. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ss_cli.h"
#include "ss_export.h"
#include "ss_files.h"
#include "ss_plan_build.h"
#include "ss_escape.h"
#include "ss_replay.h"
#include "ss_storage.h"

/* Storages above this are refused unless --max-bytes says otherwise: the script holds them as hex. */
#define EXPORT_MAX_BYTES ((size_t)16 << 20)

static void usage(FILE *f) {
    fprintf(f,
        "usage: ssfuzz export --torch CASE [--spelling S] [-o FILE] [--max-bytes N]\n"
        "  Prints a standalone Python script whose program is the case as one line of Python\n"
        "  (`x[:, 1:] = x[:, :-1]`). It computes the expected result with torch.slice_scatter on\n"
        "  CPU, then runs the program in place in every mode this torch has (eager, and\n"
        "  torch.compile, each on cpu and on cuda when present), compares the final storages bit\n"
        "  for bit and prints one verdict line per mode. The script exits with the worst:\n"
        "  1 differ (or ran an invalid case), 2 error, 3 refused (eager's overlap check), 0 agree.\n"
        "  --spelling S      how the program writes the update (default setitem): setitem\n"
        "                    (x[a:b] = src), setitem-clone (= src.clone()), copy (x[a:b].copy_(src)),\n"
        "                    scatter-copy, scatter-return, clone-scatter, index-put\n"
        "  -o FILE           write the script to FILE (atomically) instead of stdout\n"
        "  --max-bytes N     largest storages to export (default %zu)\n",
        EXPORT_MAX_BYTES);
}

static const char *torch_dtype(ss_dtype t) {
    static const char *const names[SS_DTYPE_COUNT] = {
        "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
        "float64", "complex64", "complex128"};
    return names[t];
}

static void py_tuple(FILE *f, const int64_t *v, int n) {
    fputc('(', f);
    for (int d = 0; d < n; d++) fprintf(f, "%s%" PRId64, d ? ", " : "", v[d]);
    fputs(n == 1 ? ",)" : ")", f);
}

static void py_view(FILE *f, const char *name, const ss_view *v) {
    fprintf(f, "%s = dict(size=", name);
    py_tuple(f, v->sizes, v->ndim);
    fputs(", stride=", f);
    py_tuple(f, v->strides, v->ndim);
    fprintf(f, ", storage_offset=%" PRId64 ")\n", v->offset);
}

static void py_opt(FILE *f, int has, int64_t v) {
    if (has) fprintf(f, "%" PRId64, v);
    else fputs("None", f);
}

static void py_bytes(FILE *f, const char *name, const uint8_t *data, size_t n) {
    fprintf(f, "%s = bytes.fromhex(\"\"\"", name);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%02x", i % 32 ? "" : "\n", data[i]);
    fputs("\n\"\"\")\n", f);
}

static void py_comment(FILE *f, const char *label, const char *text) {
    char clean[400];
    ss_text_sanitize(text, clean, sizeof clean);
    fprintf(f, "# %s%s\n", label, clean);
}


static void emit(FILE *f, const char *path, const ss_case *c, const ss_plan *p,
                 const ss_storage *in, const ss_storage *src, const char *spelling) {
    ss_pyexpr e;
    ss_pyexpr_derive(c, &e);
    const ss_op *op = &p->op;
    fputs("#!/usr/bin/env python3\n", f);
    py_comment(f, "ssfuzz " SS_VERSION " export --torch of ", path);
    static const char *const keys[] = {"title", "upstream", "found_by", "target", "schedule", "signature"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(c->meta, keys[i]);
        char label[32];
        snprintf(label, sizeof label, "%s: ", keys[i]);
        if (cJSON_IsString(it)) py_comment(f, label, it->valuestring);
    }
    fputs("#\n# The program: ", f);
    fputs(e.line, f);
    fprintf(f, "\n# (%s = the input storage as shape ", e.x);
    py_tuple(f, e.x_shape, e.x_ndim);
    if (!op->src_aliased) {
        fprintf(f, ", %s = the src storage as shape ", e.y);
        py_tuple(f, e.y_shape, e.y_ndim);
    }
    fputs(")\n"
          "# Expected: torch.slice_scatter on CPU (step passed explicitly), the written slice stored\n"
          "# back through the input view. Actual: the program in place, in every mode this torch has\n"
          "# (eager, torch.compile; cpu, cuda), one verdict line each. Exit: the worst of 1 differ\n"
          "# (or ran an invalid case), 2 error, 3 refused (eager's overlap check), 0 agree.\n"
          "# usage: python3 SCRIPT [--mode all|eager|compile] [--spelling S] [--expected-out F] [--actual-out F]\n"
          "import argparse\nimport itertools\nimport json\nimport os\nimport sys\nimport tempfile\n\nimport torch\n\n", f);
    fprintf(f, "DTYPE = torch.%s\nELEM_SIZE = %zu\n", torch_dtype(c->dtype), op->elem_size);
    py_view(f, "INPUT_VIEW", &op->input);
    py_view(f, "SRC_VIEW", &op->src);
    fprintf(f, "SRC_ALIASED = %s\n", op->src_aliased ? "True" : "False");
    fprintf(f, "DIM = %" PRId64 "\nSTART = ", op->dim);
    py_opt(f, op->has_start, op->start);
    fputs("\nEND = ", f);
    py_opt(f, op->has_end, op->end);
    fprintf(f, "\nSTEP = %" PRId64 "\n", op->step);
    fprintf(f, "INVALID = %s  # the input view has internal overlap: every engine must reject it\n",
            p->internal_overlap ? "True" : "False");
    py_bytes(f, "INPUT_BYTES", ss_storage_data(in), in->bytes);
    if (op->src_aliased) fputs("SRC_BYTES = None\n", f);
    else py_bytes(f, "SRC_BYTES", ss_storage_data(src), src->bytes);
    fputs("X_SHAPE = ", f);
    py_tuple(f, e.x_shape, e.x_ndim);
    fputs("\nY_SHAPE = ", f);
    if (op->src_aliased) fputs("None", f);
    else py_tuple(f, e.y_shape, e.y_ndim);
    fprintf(f, "\nSPELLING = '%s'\n", spelling);
    ss_export_programs(f, c, &e);
    fputs(ss_export_torch_body, f);
}

int ss_cmd_export(int argc, char **argv) {
    int torch = 0;
    const char *out_path = NULL, *spelling = "setitem";
    uint64_t max_bytes = EXPORT_MAX_BYTES;
    static const struct option longopts[] = {
        {"torch", no_argument, 0, 'T'}, {"output", required_argument, 0, 'o'},
        {"spelling", required_argument, 0, 's'},
        {"max-bytes", required_argument, 0, 'm'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        ss_error err;
        switch (ch) {
        case 'T': torch = 1; break;
        case 'o': out_path = optarg; break;
        case 's':
            if (!ss_export_spelling_valid(optarg)) {
                fprintf(stderr, "ssfuzz export: --spelling: unknown spelling '%s' (setitem, setitem-clone, "
                                "copy, scatter-copy, scatter-return, clone-scatter, index-put)\n", optarg);
                return SS_EXIT_USAGE;
            }
            spelling = optarg;
            break;
        case 'm':
            if (ss_parse_u64("--max-bytes", optarg, &max_bytes, &err)) {
                fprintf(stderr, "ssfuzz export: %s: %s\n", err.field, err.msg);
                return SS_EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return SS_EXIT_OK;
        default: usage(stderr); return SS_EXIT_USAGE;
        }
    }
    if (!torch || optind != argc - 1) {
        if (!torch) fprintf(stderr, "ssfuzz export: --torch is required (the only export format)\n");
        else usage(stderr);
        return SS_EXIT_USAGE;
    }
    const char *path = argv[optind];
    ss_case c;
    ss_case_init(&c);
    ss_plan plan;
    ss_error err;
    if (ss_case_load(path, &c, &err) || ss_plan_build_limited(&c.op, (size_t)max_bytes, &plan, &err)) {
        fprintf(stderr, "%s: invalid: %s: %s\n", path, err.field, err.msg);
        ss_case_free(&c);
        return SS_EXIT_USAGE;
    }
    const size_t es = c.op.elem_size;
    ss_storage in = {0}, src = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *f = NULL;
    int code = SS_EXIT_TARGET;
    if (ss_storage_reserve(&in, (size_t)c.op.input_storage_numel * es, 0) ||
        ss_storage_reserve(&src, c.op.src_aliased ? 0 : (size_t)c.op.src_storage_numel * es, 0) ||
        !(f = open_memstream(&text, &len))) {
        fprintf(stderr, "ssfuzz export: out of memory\n");
        goto done;
    }
    ss_fill_case(&c, &in, &src);
    emit(f, path, &c, &plan, &in, &src, spelling);
    if (fclose(f)) { f = NULL; fprintf(stderr, "ssfuzz export: out of memory\n"); goto done; }
    f = NULL;
    if (out_path) {
        if (ss_write_atomic(out_path, text, len, &err)) {
            fprintf(stderr, "ssfuzz export: -o %s: %s\n", out_path, err.msg);
            code = SS_EXIT_USAGE;
            goto done;
        }
    } else if (fwrite(text, 1, len, stdout) != len || fflush(stdout)) {
        fprintf(stderr, "ssfuzz export: cannot write the script to stdout\n");
        goto done;
    }
    code = SS_EXIT_OK;
done:
    if (f) fclose(f);
    free(text);
    ss_storage_free(&in);
    ss_storage_free(&src);
    ss_case_free(&c);
    return code;
}
