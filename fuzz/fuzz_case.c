/* fuzz_case.c - on any structurally decoded case, every selected emulator target agrees with the CPU reference under every schedule; a disagreement leaves a minimized JSON reproducer, then aborts. */
/*
 * Why tail decoding rather than a custom mutator: the case is a few dozen small
 * integers, so a byte-level decoder covers the space while libFuzzer's own
 * mutators, CMP tracing and crossover keep working unchanged (a custom mutator
 * would have to re-implement all three), and the input stays a plain byte file
 * any regression driver can replay. Parameters come from the tail, the payload
 * (explicit values or the fill seed) from the front, so editing one leaves the
 * other intact. Sizes are capped (rank <= 4, dims <= 5, storages <= 4096
 * elements) so one execution stays well under a millisecond.
 *
 * Environment: SSFUZZ_TARGETS=comma list of target names (default: every
 * available non-mutant target), SSFUZZ_OUT=directory for reproducers
 * (default reports/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "fuzz_helpers.h"
#include "ss_case.h"
#include "ss_check.h"
#include "ss_plan_build.h"
#include "ss_target.h"
#include "fuzz_report.h"

#define FC_MAX_NDIM 4
#define FC_MAX_SIZE 5
#define FC_MAX_NUMEL 4096

static const ss_target *g_targets[SS_MAX_TARGETS];
static size_t g_ntargets;
static ss_check_ctx g_ctx;

static void select_targets(void) {
    const char *list = getenv("SSFUZZ_TARGETS");
    if (!list || !*list) {
        for (size_t i = 0; i < ss_target_count(); i++) {
            const ss_target *t = ss_target_at(i);
            if (!t->mutant && !t->explicit_only && !t->unavailable(t)) ss_target_set_put(g_targets, &g_ntargets, t);
        }
        return;
    }
    char name[128];
    for (const char *p = list; *p;) {
        const size_t n = strcspn(p, ",");
        FUZZ_ASSERT_MSG(n > 0 && n < sizeof name, "SSFUZZ_TARGETS: bad entry in '%s'", list);
        memcpy(name, p, n);
        name[n] = '\0';
        const ss_target *t = ss_target_find(name);
        FUZZ_ASSERT_MSG(t != NULL, "SSFUZZ_TARGETS: unknown target '%s' (ssfuzz targets lists them)", name);
        FUZZ_ASSERT_MSG(!t->unavailable(t), "SSFUZZ_TARGETS: %s cannot run here: %s", name,
                        t->unavailable(t));
        FUZZ_ASSERT_MSG(ss_target_set_put(g_targets, &g_ntargets, t) == 0, "SSFUZZ_TARGETS: more than %d targets",
                        SS_MAX_TARGETS);
        p += n + (p[n] == ',');
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc; (void)argv;
    select_targets();
    ss_check_ctx_init(&g_ctx);
    return 0;
}

/* Storage elements a view needs: one past its farthest element, or its offset
 * when it is empty (the planner's rule for an empty view). */
static int64_t view_extent(const ss_view *v) {
    int64_t last = v->offset;
    for (int d = 0; d < v->ndim; d++) {
        if (v->sizes[d] == 0) return v->offset;
        last += (v->sizes[d] - 1) * v->strides[d];
    }
    return last + 1;
}

static void contiguous_strides(ss_view *v) {
    int64_t s = 1;
    for (int d = v->ndim - 1; d >= 0; d--) {
        v->strides[d] = s;
        s *= v->sizes[d] > 0 ? v->sizes[d] : 1;
    }
}

/* Layouts people actually have: contiguous, permuted (a transpose),
 * padded rows (a slice of something larger) and arbitrary small strides
 * (which include stride 0 and interleavings). */
static void decode_layout(fuzz_producer *p, ss_view *v) {
    switch (fuzz_producer_range(p, 0, 3)) {
    case 0: contiguous_strides(v); break;
    case 1: {
        int perm[FC_MAX_NDIM];
        for (int d = 0; d < v->ndim; d++) perm[d] = d;
        for (int d = v->ndim - 1; d > 0; d--) {
            const int j = (int)fuzz_producer_range(p, 0, d);
            const int t = perm[d]; perm[d] = perm[j]; perm[j] = t;
        }
        int64_t s = 1;
        for (int d = v->ndim - 1; d >= 0; d--) {
            v->strides[perm[d]] = s;
            s *= v->sizes[perm[d]] > 0 ? v->sizes[perm[d]] : 1;
        }
        break;
    }
    case 2: {
        int64_t s = 1;
        for (int d = v->ndim - 1; d >= 0; d--) {
            v->strides[d] = s;
            s = (s * (v->sizes[d] > 0 ? v->sizes[d] : 1)) + fuzz_producer_range(p, 0, 2);
        }
        break;
    }
    default:
        for (int d = 0; d < v->ndim; d++) v->strides[d] = fuzz_producer_range(p, 0, 7);
    }
}

/* Decode a case; 0 when it is within the caps (it may still be invalid). */
static int decode_case(const uint8_t *data, size_t size, ss_case *c) {
    fuzz_producer p = fuzz_producer_make(data, size);
    ss_op *op = &c->op;
    c->dtype = (ss_dtype)fuzz_producer_range(&p, 0, SS_DTYPE_COUNT - 1);
    op->elem_size = ss_dtype_size(c->dtype);

    ss_view *in = &op->input;
    in->ndim = (int)fuzz_producer_range(&p, 1, FC_MAX_NDIM);
    for (int d = 0; d < in->ndim; d++) in->sizes[d] = fuzz_producer_range(&p, 0, FC_MAX_SIZE);
    decode_layout(&p, in);
    in->offset = fuzz_producer_chance(&p, 128) ? 0 : fuzz_producer_range(&p, 0, 7);

    op->dim = fuzz_producer_range(&p, -in->ndim, in->ndim - 1);
    op->has_start = fuzz_producer_chance(&p, 160);
    op->start = op->has_start ? fuzz_producer_range(&p, -7, 8) : 0;
    op->has_end = fuzz_producer_chance(&p, 160);
    op->end = op->has_end ? fuzz_producer_range(&p, -7, 8) : 0;
    op->step = fuzz_producer_chance(&p, 8) ? fuzz_producer_range(&p, -1, 0)
                                           : fuzz_producer_range(&p, 1, 4);

    /* The slice as PyTorch sees it: src must have exactly its sizes. */
    int dim;
    int64_t start, end, len;
    ss_error err;
    if (ss_normalize_slice(in->ndim, op->dim, op->has_start, op->start, op->has_end, op->end,
                           op->step, in->sizes, &dim, &start, &end, &len, &err) != 0)
        return -1;
    ss_view slice = *in;
    slice.offset = in->offset + start * in->strides[dim];
    slice.sizes[dim] = len;
    slice.strides[dim] = in->strides[dim] * op->step;

    ss_view *src = &op->src;
    *src = slice;
    const int kind = (int)fuzz_producer_range(&p, 0, 5);
    op->src_aliased = kind >= 2;
    switch (kind) {
    case 0: src->offset = fuzz_producer_range(&p, 0, 3); contiguous_strides(src); break;
    case 1: src->offset = fuzz_producer_range(&p, 0, 3); decode_layout(&p, src); break;
    case 2: break;                                             /* exactly the written slice */
    case 3: {                                                  /* x[k:] <- x[:-k] and mirror */
        const int64_t shift = fuzz_producer_range(&p, -8, 8);
        src->offset = slice.offset + shift < 0 ? 0 : slice.offset + shift;
        break;
    }
    case 4:                                                    /* same pointer, permuted strides */
        for (int d = src->ndim - 1; d > 0; d--) {
            const int j = (int)fuzz_producer_range(&p, 0, d);
            const int64_t t = src->strides[d]; src->strides[d] = src->strides[j]; src->strides[j] = t;
        }
        break;
    default:                                                   /* anything: interleaved, expanded */
        src->offset = fuzz_producer_range(&p, 0, 15);
        for (int d = 0; d < src->ndim; d++) src->strides[d] = fuzz_producer_range(&p, 0, 7);
    }

    int64_t numel = view_extent(in);
    if (op->src_aliased && view_extent(src) > numel) numel = view_extent(src);
    op->input_storage_numel = numel + fuzz_producer_range(&p, 0, 2);
    op->src_storage_numel = op->src_aliased ? op->input_storage_numel
                                            : view_extent(src) + fuzz_producer_range(&p, 0, 1);
    if (op->input_storage_numel > FC_MAX_NUMEL || op->src_storage_numel > FC_MAX_NUMEL) return -1;

    /* The payload: explicit values when asked for and long enough (so NaN
     * payloads, -0.0 and duplicates get tried), else a fill seed. */
    const size_t in_bytes = (size_t)op->input_storage_numel * op->elem_size;
    const size_t src_bytes = op->src_aliased ? 0 : (size_t)op->src_storage_numel * op->elem_size;
    const int want_values = fuzz_producer_chance(&p, 48);
    const size_t payload = fuzz_producer_remaining(&p);
    if (want_values && payload >= in_bytes + src_bytes) {
        c->explicit_values = 1;
        c->values_input = malloc(in_bytes ? in_bytes : 1);
        c->values_src = src_bytes ? malloc(src_bytes) : NULL;
        if (!c->values_input || (src_bytes && !c->values_src)) return -1;
        memcpy(c->values_input, data, in_bytes);
        if (src_bytes) memcpy(c->values_src, data + in_bytes, src_bytes);
    } else {
        uint64_t h = 1469598103934665603ull;                  /* FNV-1a of the payload */
        for (size_t i = 0; i < payload; i++) h = (h ^ data[i]) * 1099511628211ull;
        c->fill_seed = h >> 12;                                /* stays below 2^53 for JSON */
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!g_ntargets) LLVMFuzzerInitialize(NULL, NULL);     /* drivers that skip initialize */
    ss_case c;
    ss_case_init(&c);
    ss_plan plan;
    ss_error err;
    if (decode_case(data, size, &c) != 0 || ss_plan_build(&c.op, &plan, &err) != 0) {
        ss_case_free(&c);
        return 0;
    }
    ss_run_status ref_status;
    char why[256];
    FUZZ_ASSERT_MSG(ss_check_prepare(&g_ctx, &c, &plan, &ref_status, why, sizeof why) == 0,
                    "reference could not run a capped case: %s", why);
    for (size_t i = 0; i < g_ntargets; i++) {
        const ss_target *t = g_targets[i];
        const int nsched = t->scheduled ? t->scheduled : 1;
        for (int s = 0; s < nsched; s++) {
            const ss_run_opts opts = {s, c.fill_seed, 0};
            ss_check_result res;
            ss_check_target(&g_ctx, &plan, ref_status, t, &opts, &res);
            if (res.verdict == SS_AGREE || res.verdict == SS_TARGET_UNAVAILABLE) continue;
            fuzz_report_finding(&c, &plan, t, &opts, &res);   /* minimizes, writes, aborts */
        }
    }
    ss_case_free(&c);
    return 0;
}
