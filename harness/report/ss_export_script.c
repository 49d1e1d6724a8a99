/* ss_export_script.c - the exported script: the case's constants, its defaults (mode, form,
 * spelling, device, from meta.torch or options), the shared refusal module, the programs, the body. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ss_escape.h"
#include "ss_exit.h"
#include "ss_export.h"
#include "ss_export_py.h"
#include "ss_files.h"
#include "ss_plan_build.h"
#include "ss_storage.h"
#include "ss_torch_modes.h"

/* harness/engines/ss_torch_program.py, built in: the torch worker loads it too. */
extern const char ss_torch_program_py[];

static const char *const form_words[] = {"x-input", "storage-input", "two-inputs", "user", "user-two-inputs", "all", NULL};
static const char *const device_words[] = {"cpu", "cuda", "all", NULL};

static int in_list(const char *const *list, const char *w, size_t n) {
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == n && !strncmp(list[i], w, n)) return 1;
    return 0;
}

/* A comma list of known words (nothing else ever reaches the script's source). */
static int check_words(const char *field, const char *v, const char *const *list, size_t cap, ss_error *err) {
    if (!*v || strlen(v) >= cap) return ss_fail(err, field, "must be 1 to %zu characters", cap - 1);
    for (const char *p = v;;) {
        const char *e = strchr(p, ',');
        const size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!in_list(list, p, n)) {
            char known[160] = "";
            for (int i = 0; list[i]; i++) snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", list[i]);
            return ss_fail(err, field, "unknown value '%.*s' (%s)", (int)(n > 40 ? 40 : n), p, known);
        }
        if (!e) return 0;
        p = e + 1;
    }
}

/* The scripts' mode words: every kind of the torch engine's modes (ss_torch_modes.h), in the
 * stage order, and `all` (the listed ones). */
static const char *const *mode_words(void) {
    static const char *words[2 * SS_TB_COUNT + 2];
    if (!words[0]) {
        size_t n = 0;
        for (const ss_torch_mode *m; (m = ss_torch_mode_in_stage_order(n, 0)) && n < 2 * SS_TB_COUNT;) words[n++] = m->kind;
        words[n] = "all";
    }
    return words;
}

/* meta.torch.mode "compile-dynamic-cpu": the mode and the device. */
static int split_meta_mode(const char *field, const char *name, ss_export_defaults *d, ss_error *err) {
    const ss_torch_mode *m = ss_torch_mode_named(name);
    if (!m)
        return ss_fail(err, field, "unknown mode '%.40s' (eager-cpu, compile-cpu, compile-dynamic-cpu, aot-eager-cpu, "
                       "dynamo-eager-cpu or their -cuda forms; --mode overrides)", name);
    snprintf(d->mode, sizeof d->mode, "%s", m->kind);
    snprintf(d->device, sizeof d->device, "%s", m->cuda ? "cuda" : "cpu");
    return 0;
}

static const char *meta_string(const ss_case *c, const char *key) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(c->meta, "torch");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A program case runs its program: the only spelling it has. */
static int program_spelling(const char *field, const char *s, ss_error *err) {
    if (!strcmp(s, "program")) return 0;
    return ss_fail(err, field, "a program case runs its program: spelling 'program' only (got '%.40s')", s);
}

int ss_export_resolve(const ss_case *c, const ss_export_opts *o, ss_export_defaults *d, ss_error *err) {
    const int program = c->program != NULL;
    snprintf(d->mode, sizeof d->mode, "all");
    snprintf(d->form, sizeof d->form, program ? "two-inputs" : "x-input");   /* a program's one form: x, src */
    snprintf(d->spelling, sizeof d->spelling, program ? "program" : "setitem");
    snprintf(d->device, sizeof d->device, "all");
    const char *mm = meta_string(c, "mode"), *mf = meta_string(c, "form"), *ms = meta_string(c, "spelling");
    if (!o->mode && mm) SS_TRY(split_meta_mode("meta.torch.mode", mm, d, err));
    if (!o->form && mf) {
        SS_TRY(check_words("meta.torch.form", mf, form_words, sizeof d->form, err));
        if (!program) snprintf(d->form, sizeof d->form, "%s", mf);
    }
    if (!o->spelling && ms && program) {
        SS_TRY(program_spelling("meta.torch.spelling", ms, err));
    } else if (!o->spelling && ms) {
        if (!ss_export_spelling_valid(ms)) return ss_fail(err, "meta.torch.spelling", "unknown spelling (--spelling overrides)");
        snprintf(d->spelling, sizeof d->spelling, "%s", ms);
    }
    if (o->mode) {   /* a mode list, or one mode as meta.torch names it ("compile-dynamic-cpu") */
        if (check_words("--mode", o->mode, mode_words(), sizeof d->mode, err) == 0)
            snprintf(d->mode, sizeof d->mode, "%s", o->mode);
        else if (strchr(o->mode, ',') || split_meta_mode("--mode", o->mode, d, NULL))
            return -1;   /* err says which word is unknown */
    }
    if (o->form) {
        SS_TRY(check_words("--form", o->form, form_words, sizeof d->form, err));
        if (!program) snprintf(d->form, sizeof d->form, "%s", o->form);
    }
    if (o->spelling && program) {
        SS_TRY(program_spelling("--spelling", o->spelling, err));
    } else if (o->spelling) {
        if (!ss_export_spelling_valid(o->spelling))
            return ss_fail(err, "--spelling", "unknown spelling '%.40s' (setitem, setitem-clone, copy, scatter-copy, "
                           "scatter-return, clone-scatter, index-put)", o->spelling);
        snprintf(d->spelling, sizeof d->spelling, "%s", o->spelling);
    }
    if (o->device) {
        if (!in_list(device_words, o->device, strlen(o->device)))
            return ss_fail(err, "--device", "unknown device '%.40s' (cpu, cuda, all)", o->device);
        snprintf(d->device, sizeof d->device, "%s", o->device);
    }
    return 0;
}

static void py_opt(FILE *f, int has, int64_t v) {
    if (has) fprintf(f, "%" PRId64, v);
    else fputs("None", f);
}

static void emit(FILE *f, const ss_case *c, const ss_plan *p, const uint8_t *in, size_t in_bytes,
                 const uint8_t *src, size_t src_bytes, const ss_export_defaults *d, const char *label) {
    ss_pyexpr e;
    ss_pyexpr_derive(c, &e);
    const ss_op *op = &p->op;
    ss_export_py_head(f, c, label);
    fputs("#\n# The program: ", f);
    fputs(e.line, f);
    fprintf(f, "\n# (%s = the input storage as shape ", e.x);
    ss_export_py_tuple(f, e.x_shape, e.x_ndim);
    if (!op->src_aliased) {
        fprintf(f, ", %s = the src storage as shape ", e.y);
        ss_export_py_tuple(f, e.y_shape, e.y_ndim);
    }
    fputs(")\n"
          "# Expected: torch.slice_scatter on CPU (step passed explicitly), the written slice stored\n"
          "# back through the input view. Actual: the program in place, run as the torch engine runs\n"
          "# it: eager; torch.compile(dynamic=False); torch.compile(dynamic=True) and the automatic\n"
          "# switch to dynamic shapes (a first call on another size); the backends aot_eager and eager\n"
          "# (modes aot-eager, dynamo-eager, and their -dynamic forms); in the engine's forms x-input,\n"
          "# storage-input, two-inputs, or as user code (form user: x the whole storage; form\n"
          "# user-two-inputs: the input view and src, indexed from it, as two arguments).\n"
          "# One verdict line per run.\n"
          "# Exit: the worst of 1 differ (or a compiled run raised where eager runs, or an invalid\n"
          "# case ran), 2 error, 3 refused (PyTorch's overlap check), 0 agree.\n"
          "# usage: python3 SCRIPT [--mode M] [--form F] [--device D] [--spelling S] [--stage]\n"
          "#                       [--expected-out F] [--actual-out F]\n", f);
    ss_export_py_case_views(f, c);
    fprintf(f, "DIM = %" PRId64 "\nSTART = ", op->dim);
    py_opt(f, op->has_start, op->start);
    fputs("\nEND = ", f);
    py_opt(f, op->has_end, op->end);
    fprintf(f, "\nSTEP = %" PRId64 "\n", op->step);
    fprintf(f, "INVALID = %s  # the input view has internal overlap: every engine must reject it\n",
            p->internal_overlap ? "True" : "False");
    ss_export_py_bytes(f, "INPUT_BYTES", in, in_bytes);
    if (op->src_aliased) fputs("SRC_BYTES = None\n", f);
    else ss_export_py_bytes(f, "SRC_BYTES", src, src_bytes);
    fputs("X_SHAPE = ", f);
    ss_export_py_tuple(f, e.x_shape, e.x_ndim);
    fputs("\nY_SHAPE = ", f);
    if (op->src_aliased) fputs("None", f);
    else ss_export_py_tuple(f, e.y_shape, e.y_ndim);
    /* defaults: as found (meta.torch) unless the export's options said otherwise */
    fprintf(f, "\nSPELLING = '%s'\nMODE = '%s'\nFORM = '%s'\nDEVICE = '%s'\n", d->spelling, d->mode, d->form, d->device);
    fputs("\n# harness/engines/ss_torch_program.py, as the torch worker loads it (PyTorch's overlap refusals)\n"
          "SHARED_SOURCE = ", f);
    ss_export_py_long_string(f, ss_torch_program_py);
    fputc('\n', f);
    ss_export_programs(f, c, &e);
    ss_export_py_common(f);
    ss_export_py_body(f, ss_export_write_py);
}

int ss_export_torch(FILE *f, const ss_case *c, const ss_export_opts *o, ss_error *err) {
    ss_export_defaults d;
    ss_plan plan;
    SS_TRY(ss_export_resolve(c, o, &d, err));
    if (c->program) return ss_export_torch_program(f, c, o, &d, err);
    const size_t max = o->max_bytes ? o->max_bytes : SS_EXPORT_MAX_BYTES;
    SS_TRY(ss_plan_build_limited(&c->op, max, &plan, err));
    const size_t es = c->op.elem_size;
    ss_storage in = {0}, src = {0};
    int rc = -1;
    if (ss_storage_reserve(&in, (size_t)c->op.input_storage_numel * es, 0) ||
        ss_storage_reserve(&src, c->op.src_aliased ? 0 : (size_t)c->op.src_storage_numel * es, 0)) {
        ss_fail(err, "export", "out of memory");
        goto done;
    }
    ss_fill_case(c, &in, &src);
    emit(f, c, &plan, o->input_bytes ? o->input_bytes : ss_storage_data(&in), in.bytes,
         o->src_bytes ? o->src_bytes : ss_storage_data(&src), src.bytes, &d, o->label);
    rc = 0;
done:
    ss_storage_free(&in);
    ss_storage_free(&src);
    return rc;
}

typedef struct { const ss_case *c; const ss_export_opts *o; ss_error *err; } file_job;

static int emit_job(FILE *f, const void *user) {
    const file_job *j = user;
    return ss_export_torch(f, j->c, j->o, j->err);
}

int ss_export_torch_file(const char *path, const ss_case *c, const ss_export_opts *o, ss_error *err) {
    ss_error inner = {0};
    const file_job j = {c, o, &inner};
    if (ss_write_atomic_with(path, emit_job, &j, err) == 0) return 0;
    if (inner.msg[0]) *err = inner;   /* the export's own reason, not "gave up" */
    return -1;
}
