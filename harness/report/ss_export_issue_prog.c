/* ss_export_issue_prog.c - `ssfuzz export --issue` of a program case: the program's script run
 * under each python, the repro's values (0, 1, 2, ... when they show the bug too), the reference
 * on them, the run's result held to it (the first difference, the step it blames). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include "ss_export_issue_prog.h"
#include "ss_files.h"
#include "ss_program_ref.h"
#include "ss_storage.h"

static const char *str(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int wrong(const char *verdict) { return verdict && (!strcmp(verdict, "differ") || !strcmp(verdict, "raised")); }

/* The first wrong run of `kind` (NULL: any, in ss_issue_kind_at's order) in a script's --actual-out. */
static const cJSON *wrong_run(const ss_issue_run *r, const char *kind) {
    const char *each;
    for (size_t k = 0; (each = ss_issue_kind_at(k)); k++) {
        if (kind && strcmp(kind, each)) continue;
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r->actual, "runs"))
            if (str(e, "kind") && !strcmp(str(e, "kind"), each) && wrong(str(e, "verdict"))) return e;
    }
    return NULL;
}

/* The script's mode that runs a kind (the automatic switch runs under compile-dynamic). */
static const char *mode_of(const char *kind) { return !strcmp(kind, "automatic") ? "compile-dynamic" : kind; }

/* Hex into exactly n bytes; -1 when it is not that. */
static int unhex_exact(const char *h, uint8_t *out, size_t n) {
    if (!h || strlen(h) != 2 * n) return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

/* A shape from a script's JSON: at most SS_MAX_NDIM sizes, each bounded before it multiplies. */
static int shape_from(const cJSON *a, ss_prog_actual_value *v, int64_t *numel) {
    const cJSON *d;
    v->ndim = 0;
    *numel = 1;
    cJSON_ArrayForEach(d, a) {
        if (!cJSON_IsNumber(d) || v->ndim >= SS_MAX_NDIM || d->valuedouble < 0 || d->valuedouble > 1e9) return -1;
        const int64_t s = (int64_t)d->valuedouble;
        if (s && *numel > (INT64_C(1) << 40) / s) return -1;
        v->sizes[v->ndim++] = s;
        *numel *= s;
    }
    return cJSON_IsArray(a) ? 0 : -1;
}

/* shown's storages and returned values as the comparison takes them; 0, or -1 when the
 * document does not hold a whole result. */
static int actual_of(ss_issue_prog *ip, const cJSON *run) {
    const ss_case *c = ip->iss.c;
    const size_t in_bytes = ip->init_in.bytes, src_bytes = ip->init_src.bytes;
    if (ss_storage_reserve(&ip->act_in, in_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve(&ip->act_src, src_bytes, SS_GUARD_DEFAULT) ||
        unhex_exact(str(run, "input"), ss_storage_data(&ip->act_in), in_bytes) ||
        (!c->op.src_aliased && unhex_exact(str(run, "src"), ss_storage_data(&ip->act_src), src_bytes)))
        return -1;
    const cJSON *rets = cJSON_GetObjectItemCaseSensitive(run, "returns"), *e;
    if (!cJSON_IsArray(rets) || cJSON_GetArraySize(rets) > SS_PROG_MAX_RETURNS) return -1;
    ss_prog_actual *a = &ip->act;
    memset(a, 0, sizeof *a);
    cJSON_ArrayForEach(e, rets) {
        ss_prog_actual_value *v = &a->ret[a->nret];
        const cJSON *sh = cJSON_GetObjectItemCaseSensitive(e, "shares");
        const char *hex = str(e, "bytes");
        int64_t numel;
        if (!str(e, "dtype") || ss_dtype_from_name(str(e, "dtype"), &v->dtype) ||
            shape_from(cJSON_GetObjectItemCaseSensitive(e, "shape"), v, &numel) || !cJSON_IsNumber(sh) || !hex ||
            sh->valuedouble < 0 || sh->valuedouble > 3)
            return -1;
        v->nbytes = strlen(hex) / 2;
        v->shares = (int)sh->valuedouble;
        if (!(ip->act_bytes[a->nret] = malloc(v->nbytes + 1)) || unhex_exact(hex, ip->act_bytes[a->nret], v->nbytes))
            return -1;
        v->bytes = ip->act_bytes[a->nret];
        a->nret++;
    }
    a->in = &ip->act_in;
    a->src = &ip->act_src;
    return 0;
}

/* The repro's initial storages (the case's fill, or in/src over it) and the reference on them;
 * 0 when it ran exactly (a value the dtype cannot hold exactly makes another compiler's answer
 * no less right). */
static int reference_on(ss_issue_prog *ip, const uint8_t *in, const uint8_t *src) {
    const ss_case *c = ip->iss.c;
    const size_t es = c->op.elem_size;
    const size_t in_bytes = (size_t)c->op.input_storage_numel * es;
    const size_t src_bytes = c->op.src_aliased ? 0 : (size_t)c->op.src_storage_numel * es;
    ss_prog_result_free(&ip->ref);
    ip->ref_ok = 0;
    if (ss_storage_reserve(&ip->init_in, in_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve(&ip->init_src, src_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve(&ip->ref_in, in_bytes, SS_GUARD_DEFAULT) ||
        ss_storage_reserve(&ip->ref_src, src_bytes, SS_GUARD_DEFAULT))
        return -1;
    ss_fill_case(c, &ip->init_in, &ip->init_src);
    if (in) memcpy(ss_storage_data(&ip->init_in), in, in_bytes);
    if (src && src_bytes) memcpy(ss_storage_data(&ip->init_src), src, src_bytes);
    ss_storage_copy(&ip->ref_in, &ip->init_in);
    ss_storage_copy(&ip->ref_src, &ip->init_src);
    ip->ref_ok = ss_prog_ref_run(c, &ip->iss.plan, &ip->ref_in, &ip->ref_src, &ip->ref) == SS_PROG_OK;
    return ip->ref_ok && ip->ref.inexact_step < 0 ? 0 : -1;
}

static int export_script(const char *path, const ss_case *c, const ss_export_opts *base, const char *mode,
                         const char *device, const uint8_t *in, const uint8_t *src, ss_error *err) {
    ss_export_opts o = *base;
    if (mode) o.mode = mode;
    if (device) o.device = device;
    o.input_bytes = in;
    o.src_bytes = src;
    return ss_export_torch_file(path, c, &o, err);
}

/* The repro's values: 0, 1, 2, ... when the dtype holds them, the reference stays exact on them
 * and the first python shows the same wrong kind with them; else the case's own. */
static void pick_values(ss_issue_prog *ip, const ss_issue_opts *o, const ss_issue_work *w) {
    const ss_case *c = ip->iss.c;
    const char *kind = str(ip->found, "kind"), *verdict = str(ip->found, "verdict");
    uint8_t *ain = NULL, *asrc = NULL;
    ss_error err;
    if (ss_issue_arange_bytes(c, &ain, &asrc) == 0 && reference_on(ip, ain, asrc) == 0 &&
        export_script(w->arange, c, o->export_opts, mode_of(kind), str(ip->found, "device"), ain, asrc, &err) == 0) {
        ss_issue_run_arange(&ip->iss, w, o);
        const cJSON *r = wrong_run(&ip->iss.arange, kind);
        if (r && !strcmp(str(r, "verdict"), verdict)) {
            ip->shown = r;
            ip->arange = 1;
        }
    }
    if (!ip->shown) {
        reference_on(ip, NULL, NULL);
        ip->shown = ip->found;
    }
    free(ain);
    free(asrc);
}

/* The shown run held to the reference: the first difference and the step it blames. */
static void difference(ss_issue_prog *ip) {
    if (!ip->ref_ok || !ip->shown || strcmp(str(ip->shown, "verdict"), "differ") || actual_of(ip, ip->shown)) return;
    ip->has_act = 1;
    if (!ss_prog_compare(ip->iss.c, &ip->ref, &ip->ref_in, &ip->ref_src, &ip->act, &ip->diff)) return;
    ip->has_diff = 1;
    ss_prog_ref_blame(ip->iss.c, &ip->iss.plan, &ip->init_in, &ip->init_src, &ip->diff);
}

static void free_prog(ss_issue_prog *ip) {
    ss_storage *all[] = {&ip->init_in, &ip->init_src, &ip->ref_in, &ip->ref_src, &ip->act_in, &ip->act_src};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ss_storage_free(all[i]);
    for (int i = 0; i < SS_PROG_MAX_RETURNS; i++) free(ip->act_bytes[i]);
    ss_prog_result_free(&ip->ref);
}

int ss_export_issue_program(const ss_case *c, const char *case_path, const char *out_path, const ss_issue_opts *o,
                            ss_error *err) {
    ss_issue_prog ip;
    ss_issue_work w;
    memset(&ip, 0, sizeof ip);
    ss_prog_result_init(&ip.ref);
    int rc = -1;
    if (ss_issue_begin(&ip.iss, c, case_path, o, &w, err)) goto done;
    ip.expr_ok = ss_pyexpr_derive(c, &ip.iss.expr) == 0;
    if (export_script(w.found, c, o->export_opts, NULL, NULL, NULL, NULL, err)) goto done;
    /* every release: the case's own values, in the modes as found, with the stage */
    ss_issue_run_found(&ip.iss, &w, o);
    ip.found = wrong_run(&ip.iss.runs[0], NULL);
    if (ip.found) {
        pick_values(&ip, o, &w);
        difference(&ip);
    }
    rc = ss_issue_prog_write(out_path, &ip, err);
done:
    ss_issue_end(&ip.iss, &w);
    free_prog(&ip);
    return rc;
}
