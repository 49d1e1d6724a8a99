/* ss_export_prog.c - a program case's exported script: the program as ssfuzz prints it, the
 * initial storages, and the reference's result on them (final storages, returned values, open
 * elements, alias facts) as data the body compares every run against. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ss_compare.h"
#include "ss_export.h"
#include "ss_export_py.h"
#include "ss_plan_build.h"
#include "ss_program_py.h"
#include "ss_program_ref.h"
#include "ss_storage.h"

/* harness/engines/ss_torch_program.py, built in: the torch worker loads it too. */
extern const char ss_torch_program_py[];

static const char *storage_word(int s) { return s == SS_STORAGE_SRC ? "'src'" : "'input'"; }

/* The bytes every returned value needs, bounded before it can overflow; -1 over max. */
static int returns_fit(const ss_prog_result *r, size_t max, size_t *total) {
    *total = 0;
    for (int i = 0; i < r->nret; i++) {
        const size_t es = ss_dtype_size(r->ret[i].dtype);
        if (r->ret[i].numel < 0 || (uint64_t)r->ret[i].numel > max / es || *total > max - (size_t)r->ret[i].numel * es)
            return -1;
        *total += (size_t)r->ret[i].numel * es;
    }
    return 0;
}

static void emit_returns(FILE *f, const ss_program *p, const ss_prog_result *r) {
    fputs("# What the program returns, in order: a view must share its storage (x's or src's), a\n"
          "# computed value (a read) must share none; values as each dtype's little-endian bytes.\n"
          "RETURNS = [\n", f);
    for (int i = 0; i < r->nret; i++) {
        const ss_prog_value *v = &r->ret[i];
        fputs("    dict(name=", f);
        ss_export_py_string(f, v->name >= 0 && v->name < p->nnames ? p->names[v->name] : "?");
        fprintf(f, ", view=%s, storage=%s, dtype='%s', shape=", v->is_view ? "True" : "False",
                v->is_view ? storage_word(v->storage) : "None", ss_export_torch_dtype(v->dtype));
        ss_export_py_tuple(f, v->view.sizes, v->view.ndim);
        fputs(", stride=", f);
        ss_export_py_tuple(f, v->view.strides, v->view.ndim);
        fprintf(f, ", offset=%" PRId64 ",\n         values=", v->view.offset);
        ss_export_py_hex(f, v->bytes, (size_t)v->numel * ss_dtype_size(v->dtype));
        fputs("),\n", f);
    }
    fputs("]\n", f);
}

static void emit_open(FILE *f, const ss_prog_result *r) {
    fputs("# Elements a non-accumulating index_put left open (duplicate indices with different\n"
          "# values): any one of their values is right.\n"
          "OPEN = [\n", f);
    for (int i = 0; i < r->nopen; i++) {
        const ss_prog_open *o = &r->open[i];
        fprintf(f, "    dict(storage=%s, byte=%" PRId64 ", size=%d, step=%d, values=[", storage_word(o->storage), o->byte,
                o->size, o->step);
        for (int k = 0; k < o->nvals; k++) {
            fputs(k ? ", " : "", f);
            ss_export_py_hex(f, o->vals + (size_t)k * (size_t)o->size, (size_t)o->size);
        }
        fputs("]),\n", f);
    }
    fputs("]\n", f);
}

/* The expectation: what the reference left (ok), or the step PyTorch refuses. */
static void emit_expected(FILE *f, const ss_case *c, const ss_prog_result *r, const ss_storage *in,
                          const ss_storage *src) {
    const int ok = r->status == SS_PROG_OK;
    fputs("\n# The expected result: ssfuzz's reference (reference/ss_program_ref.c, the snapshot rule:\n"
          "# each step reads all its operands before it writes any element) on the storages above.\n", f);
    fprintf(f, "EXPECTED_STATUS = '%s'  # 'refused': PyTorch raises at REFUSED_STEP; nothing past it to compare\n",
            ok ? "ok" : "refused");
    if (ok) fputs("REFUSED_STEP = None\nREFUSED_WHY = None\n", f);
    else {
        fprintf(f, "REFUSED_STEP = %d\nREFUSED_WHY = ", r->step);
        ss_export_py_string(f, r->why);
        fputc('\n', f);
    }
    fputs("INEXACT = ", f);   /* a hand-written program may compute values a compiler may round otherwise */
    if (r->inexact_step >= 0) {
        char text[240];
        snprintf(text, sizeof text, "program[%d]: %s", r->inexact_step, r->inexact);
        ss_export_py_string(f, text);
    } else {
        fputs("None", f);
    }
    fputc('\n', f);
    if (ok) {
        ss_export_py_bytes(f, "EXPECTED_INPUT", ss_storage_data(in), in->bytes);
        if (c->op.src_aliased) fputs("EXPECTED_SRC = None\n", f);
        else ss_export_py_bytes(f, "EXPECTED_SRC", ss_storage_data(src), src->bytes);
    } else {
        fputs("EXPECTED_INPUT = None\nEXPECTED_SRC = None\n", f);
    }
    emit_returns(f, c->program, r);
    emit_open(f, r);
}

static void emit(FILE *f, const ss_case *c, const ss_plan *p, const uint8_t *in, const uint8_t *src,
                 const ss_prog_result *r, const ss_storage *fin, const ss_storage *fsrc, const ss_export_defaults *d,
                 const char *label, const char *program) {
    const ss_op *op = &p->op;
    ss_export_py_head(f, c, label);
    fputs("#\n# The program, as ssfuzz prints it (harness/engines/ss_program_py.c) and the torch worker runs it:\n", f);
    for (const char *s = program; *s;) {
        const char *e = strchr(s, '\n');
        const int n = e ? (int)(e - s) : (int)strlen(s);
        fprintf(f, "#   %.*s\n", n, s);
        s = e ? e + 1 : s + n;
    }
    fprintf(f, "# x: the input storage viewed as INPUT_VIEW; src: SRC_VIEW on %s.\n",
            op->src_aliased ? "the same storage (it aliases x)" : "its own storage");
    fputs("# Expected: ssfuzz's reference (EXPECTED_*, RETURNS, OPEN below): the final storages, each\n"
          "# returned value's elements, and which returned values share x's or src's storage (a view\n"
          "# must, a computed value must not: storage identity and a write through it).\n"
          "# Actual: the program run as the torch worker runs it: eager; torch.compile(fullgraph=True)\n"
          "# with backend inductor, aot_eager (dynamo and functionalization) or eager (dynamo alone);\n"
          "# dynamic=True; and the automatic switch to dynamic shapes (a first call on another size).\n"
          "# One verdict line per run. Exit: the worst of 1 differ (or a compiled run raised where\n"
          "# eager runs), 2 error, 3 refused (PyTorch's overlap check), 0 agree.\n"
          "# usage: python3 SCRIPT [--mode M] [--device D] [--stage] [--expected-out F] [--actual-out F]\n", f);
    ss_export_py_case_views(f, c);
    ss_export_py_bytes(f, "INPUT_BYTES", in, (size_t)op->input_storage_numel * op->elem_size);
    if (op->src_aliased) fputs("SRC_BYTES = None\n", f);
    else ss_export_py_bytes(f, "SRC_BYTES", src, (size_t)op->src_storage_numel * op->elem_size);
    fputs("\n# The program's source exactly as printed; each run builds a fresh function from it\n"
          "# (ss_torch_program.build), so no compile cache serves two runs.\n"
          "PROGRAM_SOURCE = ", f);
    ss_export_py_long_string(f, program);
    fputc('\n', f);
    emit_expected(f, c, r, fin, fsrc);
    /* defaults: as found (meta.torch) unless the export's options said otherwise */
    fprintf(f, "\nSPELLING = '%s'\nMODE = '%s'\nDEVICE = '%s'\n", d->spelling, d->mode, d->device);
    fputs("\n# harness/engines/ss_torch_program.py, as the torch worker loads it (PyTorch's overlap refusals,\n"
          "# the returned values' storage identity and write-through)\nSHARED_SOURCE = ", f);
    ss_export_py_long_string(f, ss_torch_program_py);
    fputc('\n', f);
    ss_export_py_common(f);
    ss_export_py_body(f, ss_export_prog_py);
}

/* The reference's verdict on the program as the case gives it; 0 when it has a result to compare. */
static int usable(const ss_prog_result *r, ss_error *err) {
    switch (r->status) {
    case SS_PROG_OK: return 0;
    case SS_PROG_REFUSED:
        if (r->raises) return 0;   /* PyTorch raises: the script expects the refusal */
        return ss_fail(err, "program", "program[%d] has no defined result (%.160s): nothing to compare", r->step, r->why);
    case SS_PROG_INVALID: return ss_fail(err, r->err.field, "%s", r->err.msg);
    default: return ss_fail(err, "export", "out of memory running the program's reference");
    }
}

int ss_export_torch_program(FILE *f, const ss_case *c, const ss_export_opts *o, const ss_export_defaults *d,
                            ss_error *err) {
    ss_plan plan;
    const size_t max = o->max_bytes ? o->max_bytes : SS_EXPORT_MAX_BYTES;
    SS_TRY(ss_plan_build_limited(&c->op, max, &plan, err));
    const size_t es = c->op.elem_size;
    const size_t in_bytes = (size_t)c->op.input_storage_numel * es;
    const size_t src_bytes = c->op.src_aliased ? 0 : (size_t)c->op.src_storage_numel * es;
    ss_storage in = {0}, src = {0}, init_in = {0}, init_src = {0};
    ss_prog_result res;
    ss_prog_result_init(&res);
    char *program = NULL;
    size_t len = 0, ret_bytes = 0;
    int rc = -1;
    FILE *pf = NULL;
    if (ss_storage_reserve(&in, in_bytes, SS_GUARD_DEFAULT) || ss_storage_reserve(&src, src_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve(&init_in, in_bytes, 0) || ss_storage_reserve(&init_src, src_bytes, 0)) {
        ss_fail(err, "export", "out of memory");
        goto done;
    }
    ss_fill_case(c, &init_in, &init_src);
    if (o->input_bytes) memcpy(ss_storage_data(&init_in), o->input_bytes, in_bytes);
    if (o->src_bytes && src_bytes) memcpy(ss_storage_data(&init_src), o->src_bytes, src_bytes);
    memcpy(ss_storage_data(&in), ss_storage_data(&init_in), in_bytes);
    if (src_bytes) memcpy(ss_storage_data(&src), ss_storage_data(&init_src), src_bytes);
    ss_prog_ref_run(c, &plan, &in, &src, &res);
    if (usable(&res, err)) goto done;
    if (returns_fit(&res, max, &ret_bytes)) {
        ss_fail(err, "program", "the returned values need more than %zu bytes (--max-bytes)", max);
        goto done;
    }
    if (!(pf = open_memstream(&program, &len))) {
        ss_fail(err, "export", "out of memory");
        goto done;
    }
    ss_program_py_function(pf, c, &plan);
    if (fclose(pf)) {
        pf = NULL;
        ss_fail(err, "export", "out of memory");
        goto done;
    }
    emit(f, c, &plan, ss_storage_data(&init_in), ss_storage_data(&init_src), &res, &in, &src, d, o->label, program);
    rc = 0;
done:
    free(program);
    ss_prog_result_free(&res);
    ss_storage_free(&in);
    ss_storage_free(&src);
    ss_storage_free(&init_in);
    ss_storage_free(&init_src);
    return rc;
}
