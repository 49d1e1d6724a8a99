/* ss_export_py.c - Python literals for exported scripts: tuples, views, bytes, comments and
 * strings that untrusted text cannot leave. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <string.h>
#include "ss_escape.h"
#include "ss_exit.h"
#include "ss_export.h"
#include "ss_export_py.h"
#include "ss_torch_modes.h"

const char *ss_export_torch_dtype(ss_dtype t) {
    static const char *const names[SS_DTYPE_COUNT] = {
        "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
        "float64", "complex64", "complex128"};
    return names[t];
}

void ss_export_py_tuple(FILE *f, const int64_t *v, int n) {
    fputc('(', f);
    for (int d = 0; d < n; d++) fprintf(f, "%s%" PRId64, d ? ", " : "", v[d]);
    fputs(n == 1 ? ",)" : ")", f);
}

void ss_export_py_view(FILE *f, const char *name, const ss_view *v) {
    fprintf(f, "%s = dict(size=", name);
    ss_export_py_tuple(f, v->sizes, v->ndim);
    fputs(", stride=", f);
    ss_export_py_tuple(f, v->strides, v->ndim);
    fprintf(f, ", storage_offset=%" PRId64 ")\n", v->offset);
}

void ss_export_py_bytes(FILE *f, const char *name, const uint8_t *data, size_t n) {
    fprintf(f, "%s = bytes.fromhex(\"\"\"", name);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%02x", i % 32 ? "" : "\n", data[i]);
    fputs("\n\"\"\")\n", f);
}

void ss_export_py_hex(FILE *f, const uint8_t *data, size_t n) {
    if (n > 32) {   /* long values wrap as the storages do */
        fputs("bytes.fromhex(\"\"\"", f);
        for (size_t i = 0; i < n; i++) fprintf(f, "%s%02x", i % 32 ? "" : "\n", data[i]);
        fputs("\n\"\"\")", f);
        return;
    }
    fputs("bytes.fromhex('", f);
    for (size_t i = 0; i < n; i++) fprintf(f, "%02x", data[i]);
    fputs("')", f);
}

void ss_export_py_comment(FILE *f, const char *label, const char *text) {
    char clean[400];
    ss_text_sanitize(text, clean, sizeof clean);
    fprintf(f, "# %s%s\n", label, clean);
}

void ss_export_py_long_string(FILE *f, const char *s) {
    fputs("'''", f);
    for (; *s; s++) {
        if (*s == '\\' || *s == '\'') fputc('\\', f);
        fputc(*s, f);
    }
    fputs("'''", f);
}

void ss_export_py_string(FILE *f, const char *s) {
    fputc('\'', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\' || *p == '\'') fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f) fprintf(f, "\\x%02x", *p);
        else fputc(*p, f);
    }
    fputc('\'', f);
}

void ss_export_py_case_views(FILE *f, const ss_case *c) {
    const ss_op *op = &c->op;
    fputs("import argparse\nimport collections\nimport itertools\nimport json\nimport os\nimport sys\n"
          "import platform\nimport tempfile\nimport types\n\nimport torch\n\n", f);
    fprintf(f, "DTYPE = torch.%s\nELEM_SIZE = %zu\n", ss_export_torch_dtype(c->dtype), op->elem_size);
    ss_export_py_view(f, "INPUT_VIEW", &op->input);
    ss_export_py_view(f, "SRC_VIEW", &op->src);
    fprintf(f, "SRC_ALIASED = %s\n", op->src_aliased ? "True" : "False");
}

void ss_export_py_head(FILE *f, const ss_case *c, const char *label) {
    fputs("#!/usr/bin/env python3\n", f);
    ss_export_py_comment(f, "ssfuzz " SS_VERSION " export --torch of ", label ? label : "a case");
    static const char *const keys[] = {"title", "upstream", "found_by", "target", "schedule", "signature"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(c->meta, keys[i]);
        char lab[32];
        snprintf(lab, sizeof lab, "%s: ", keys[i]);
        if (cJSON_IsString(it)) ss_export_py_comment(f, lab, it->valuestring);
    }
}

/* The torch engine's modes as the scripts name them (kinds), from ss_torch_modes.h. */
static void py_modes(FILE *f) {
    const ss_torch_mode *m;
    fputs("\n# the torch engine's modes (harness/engines/ss_torch_modes.h) in the stage order: eager, dynamo\n"
          "# (backend eager), aot (aot_eager), inductor, static shapes first; `all` is ALL_MODES; BACKENDS:\n"
          "# torch.compile's (backend, dynamic) of each; STAGES: (backend, stage) of the compiled stages\nMODES = (", f);
    for (size_t i = 0; (m = ss_torch_mode_in_stage_order(i, 0)); i++) fprintf(f, "%s'%s'", i ? ", " : "", m->kind);
    fputs(")\nALL_MODES = (", f);
    for (size_t i = 0, n = 0; (m = ss_torch_mode_in_stage_order(i, 0)); i++)
        if (m->listed) fprintf(f, "%s'%s'", n++ ? ", " : "", m->kind);
    fputs(")\nBACKENDS = {", f);
    for (size_t i = 0, n = 0; (m = ss_torch_mode_in_stage_order(i, 0)); i++)
        if (m->backend != SS_TB_NONE)
            fprintf(f, "%s'%s': ('%s', %s)", n++ ? ", " : "", m->kind, ss_torch_backend_name(m->backend),
                    m->dynamic ? "True" : "False");
    fputs("}\nSTAGES = (", f);
    for (int b = SS_TB_EAGER; b < SS_TB_COUNT; b++)
        fprintf(f, "%s('%s', '%s')", b > SS_TB_EAGER ? ", " : "", ss_torch_backend_name((ss_torch_backend)b),
                ss_torch_stage_name((ss_torch_backend)b));
    fputs(")\n", f);
}

void ss_export_py_common(FILE *f) {
    py_modes(f);
    ss_export_py_body(f, ss_export_common_py);
}

void ss_export_py_body(FILE *f, const char *source) {
    const char *end = strncmp(source, "\"\"\"", 3) ? NULL : strstr(source + 3, "\"\"\"");
    if (end) source = end + 3 + (end[3] == '\n');
    fputs(source, f);
}
