/* ss_gen.c - the seeded case generator: layouts, slice bounds and aliasing pairs. */
#include <string.h>
#include "ss_bits.h"
#include "ss_gen.h"
#include "ss_gen_program.h"

/* Every draw comes from a splitmix64 stream keyed by (seed, index): no global
 * state, so case i of a campaign can be regenerated alone (for a crash found
 * in a child, or a replay from the summary's seed). */
typedef struct rng { uint64_t s; } rng;


static uint64_t next(rng *r) { return ss_mix64(r->s += 0x9e3779b97f4a7c15ull); }
/* Uniform in [0, n); the modulo bias (< n / 2^64) is irrelevant here. */
static int64_t below(rng *r, int64_t n) { return n > 0 ? (int64_t)(next(r) % (uint64_t)n) : 0; }
static int64_t range(rng *r, int64_t lo, int64_t hi) { return lo + below(r, hi - lo + 1); }
static int chance(rng *r, unsigned per_mille) { return (unsigned)below(r, 1000) < per_mille; }

static int weighted(rng *r, const unsigned *w, int n) {
    uint64_t total = 0;
    for (int i = 0; i < n; i++) total += w[i];
    if (total == 0) return -1;
    uint64_t x = next(r) % total;
    for (int i = 0; i < n; i++) {
        if (x < w[i]) return i;
        x -= w[i];
    }
    return n - 1;
}

static const char *const kind_names[SS_ALIAS_KIND_COUNT] = {
    "separate", "same-view", "shifted", "permuted", "outside-slice", "interleaved",
    "expanded", "invalid-input",
};

const char *ss_alias_kind_name(ss_alias_kind k) {
    return (unsigned)k < SS_ALIAS_KIND_COUNT ? kind_names[k] : "?";
}

/* Upper bounds (elements) of the size classes; the last is open. The first is
 * the generator's small-case cap, the last its large cases (> 2^20). */
static const int64_t size_class_max[SS_SIZE_CLASS_COUNT - 1] = {4096, 65536, (int64_t)1 << 20};
static const char *const size_class_names[SS_SIZE_CLASS_COUNT] = {
    "up_to_4Ki", "up_to_64Ki", "up_to_1Mi", "over_1Mi"};
static const char *const size_class_labels[SS_SIZE_CLASS_COUNT] = {"<=4Ki", "<=64Ki", "<=1Mi", ">1Mi"};

int ss_size_class(const ss_op *op) {
    int64_t n;
    if (__builtin_add_overflow(op->input_storage_numel, op->src_aliased ? 0 : op->src_storage_numel, &n))
        return SS_SIZE_CLASS_COUNT - 1;
    int k = 0;
    while (k < SS_SIZE_CLASS_COUNT - 1 && n > size_class_max[k]) k++;
    return k;
}

const char *ss_size_class_name(int k) {
    return k >= 0 && k < SS_SIZE_CLASS_COUNT ? size_class_names[k] : "?";
}

const char *ss_size_class_label(int k) {
    return k >= 0 && k < SS_SIZE_CLASS_COUNT ? size_class_labels[k] : "?";
}

void ss_gen_config_default(ss_gen_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    static const unsigned aw[SS_ALIAS_KIND_COUNT] = {3, 2, 6, 2, 2, 3, 2, 1};
    memcpy(cfg->alias_weight, aw, sizeof aw);
    for (int t = 0; t < SS_DTYPE_COUNT; t++) cfg->dtype_weight[t] = 1;
    cfg->dtype_weight[SS_FLOAT32] = 4;
    cfg->max_ndim = 6;
    cfg->max_numel = (int64_t)4 << 20;
    cfg->large_per_mille = 3;
    cfg->swarm = 1;
    cfg->max_bytes = 0;
    cfg->programs = 0;
    cfg->program_steps = 4;
}

/* Layout and slice features a swarm epoch may switch off. */
enum { F_PERMUTE, F_PAD, F_SLICED, F_ODD1, F_OFFSET, F_SLACK, F_NEGDIM, F_BOUNDS, F_STEP,
       F_ZERO, F_LARGE, F_COUNT };

typedef struct features {
    unsigned alias_w[SS_ALIAS_KIND_COUNT];
    unsigned dtype_w[SS_DTYPE_COUNT];
    unsigned char on[F_COUNT];
} features;

/* Keeps each enabled weight with probability 1/2, but never all off. */
static void thin(rng *r, unsigned *w, int n) {
    unsigned kept[64];
    int any = 0;
    for (int i = 0; i < n; i++) {
        kept[i] = (w[i] && chance(r, 500)) ? w[i] : 0;
        any |= kept[i] != 0;
    }
    if (any) memcpy(w, kept, (size_t)n * sizeof *w);
}

static void epoch_features(const ss_gen_config *cfg, uint64_t seed, uint64_t index, features *f) {
    memcpy(f->alias_w, cfg->alias_weight, sizeof f->alias_w);
    memcpy(f->dtype_w, cfg->dtype_weight, sizeof f->dtype_w);
    memset(f->on, 1, sizeof f->on);
    rng r = {ss_mix64(seed ^ 0x5357524dull) ^ ss_mix64(index / SS_GEN_EPOCH)};
    /* A quarter of the epochs keep the full configuration. */
    if (!cfg->swarm || chance(&r, 250)) return;
    thin(&r, f->alias_w, SS_ALIAS_KIND_COUNT);
    thin(&r, f->dtype_w, SS_DTYPE_COUNT);
    for (int i = 0; i < F_COUNT; i++) f->on[i] = (unsigned char)!chance(&r, 333);
}

/* A draft in normalized slice space; encoded into the op at the end. */
typedef struct draft {
    int ndim, dim;
    int64_t sizes[SS_MAX_NDIM];
    int64_t start, end, step, len;   /* normalized: 0 <= start <= end <= size */
} draft;

static int64_t draw_size(rng *r, const features *f) {
    int64_t x = below(r, 1000);
    if (x < 30) return f->on[F_ZERO] ? 0 : 1;
    if (x < 180) return 1;
    if (x < 700) return range(r, 2, 5);
    if (x < 950) return range(r, 6, 16);
    return range(r, 17, 64);
}

static int draw_ndim(rng *r, int max) {
    int64_t x = below(r, 100);
    int n = x < 45 ? 1 : x < 75 ? 2 : x < 90 ? 3 : (int)range(r, 4, max > 4 ? max : 4);
    return n > max ? max : n;
}

static int64_t numel_of(const int64_t *sizes, int n) {
    int64_t p = 1;
    for (int d = 0; d < n; d++) p *= sizes[d];
    return p;
}

/* Sizes of a large case: more than 2^20 elements, within the numel cap. */
static void draw_large(rng *r, draft *dr, int64_t cap) {
    int64_t hi = cap < ((int64_t)4 << 20) ? cap : ((int64_t)4 << 20);
    int64_t target = range(r, ((int64_t)1 << 20) + 1, hi);
    dr->ndim = dr->ndim > 3 ? 3 : dr->ndim;
    int64_t rest = target;
    for (int d = 0; d < dr->ndim - 1; d++) {
        dr->sizes[d] = range(r, 2, 64);
        rest = rest / dr->sizes[d] + 1;
    }
    dr->sizes[dr->ndim - 1] = rest;
}

/* Slice bounds in normalized form: start often 0, end often size; about one
 * slice in twelve is empty (start == end, or start at the size). */
static void draw_slice(rng *r, const features *f, draft *dr) {
    const int64_t S = dr->sizes[dr->dim];
    int64_t x = below(r, 100);
    dr->step = 1;
    if (f->on[F_STEP] && x >= 55) dr->step = x < 85 ? range(r, 2, 4) : S + range(r, 1, 3);
    if (S == 0 || chance(r, 80)) {
        dr->start = dr->end = range(r, 0, S);
        return;
    }
    x = below(r, 10);
    dr->start = x < 5 ? 0 : range(r, 0, S - 1);
    x = below(r, 10);
    dr->end = x < 5 ? S : range(r, dr->start + 1, S);
}

static void set_len(draft *dr) {
    dr->len = (dr->end - dr->start + dr->step - 1) / dr->step;
}

/* Strides for sizes: a (maybe permuted) dense order, with sliced (multiplied)
 * and padded strides and odd strides on size-1 dims. Returns the extent. */
static int64_t layout(rng *r, const features *f, int plain, const int64_t *sizes, int n,
                      int64_t *strides) {
    int order[SS_MAX_NDIM];
    for (int d = 0; d < n; d++) order[d] = d;
    if (!plain && f->on[F_PERMUTE] && chance(r, 350))
        for (int i = n - 1; i > 0; i--) {
            int j = (int)below(r, i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    int64_t running = 1;
    int mults = 0;
    for (int i = n - 1; i >= 0; i--) {
        const int d = order[i];
        if (sizes[d] == 1 && !plain && f->on[F_ODD1] && chance(r, 300)) {
            strides[d] = range(r, 0, 97);
            continue;
        }
        int64_t stride = running;
        if (!plain && f->on[F_SLICED] && mults < 2 && chance(r, 150)) {
            stride *= range(r, 2, 3);
            mults++;
        }
        strides[d] = stride;
        running = stride * (sizes[d] > 0 ? sizes[d] : 1);
        if (!plain && f->on[F_PAD] && chance(r, 200)) running += range(r, 1, 3);
    }
    int64_t extent = 1;
    for (int d = 0; d < n; d++) {
        if (sizes[d] == 0) return 0;
        extent += (sizes[d] - 1) * strides[d];
    }
    return extent;
}

static int64_t draw_offset(rng *r, const features *f) {
    if (!f->on[F_OFFSET]) return 0;
    int64_t x = below(r, 100);
    return x < 55 ? 0 : x < 92 ? range(r, 1, 8) : range(r, 9, 300);
}

static int64_t draw_slack(rng *r, const features *f) {
    return f->on[F_SLACK] && chance(r, 400) ? range(r, 1, 16) : 0;
}

/* PyTorch-style encodings of a normalized bound: null, negative, out of range. */
static void encode_bounds(rng *r, const features *f, const draft *dr, ss_op *op) {
    const int64_t S = dr->sizes[dr->dim];
    op->dim = dr->dim;
    if (f->on[F_NEGDIM] && chance(r, 300)) op->dim = dr->dim - dr->ndim;
    op->step = dr->step;
    op->has_start = op->has_end = 1;
    op->start = dr->start;
    op->end = dr->end;
    if (!f->on[F_BOUNDS]) {
        op->has_start = dr->start != 0 || chance(r, 300);
        op->has_end = dr->end != S || chance(r, 300);
        return;
    }
    int64_t x = below(r, 10);
    if (dr->start == 0) {
        if (x < 5) op->has_start = 0;
        else if (x < 7) op->start = -S - range(r, 0, 5);
    } else if (dr->start == S) {
        if (x < 4) op->start = S + range(r, 1, 5);
    } else if (x < 4) {
        op->start = dr->start - S;
    }
    x = below(r, 10);
    if (dr->end == dr->start && dr->start > 0 && x < 3) {   /* end < start: empty */
        op->end = range(r, 0, dr->start - 1);
        if (op->end < S && chance(r, 500)) op->end -= S;
    } else if (dr->end == S) {
        if (x < 5) op->has_end = 0;
        else if (x < 7) op->end = S + range(r, 1, 5);
    } else if (dr->end == 0) {
        if (x < 4) op->end = -S - range(r, 0, 5);
    } else if (x < 4) {
        op->end = dr->end - S;
    }
}

/* Kind-specific constraints on shape and bounds, applied in normalized space. */
static void shape_for_kind(rng *r, ss_alias_kind kind, draft *dr, int *pa, int *pb,
                           int64_t *src_start) {
    int64_t *S = &dr->sizes[dr->dim];
    if (kind != SS_ALIAS_SEPARATE && kind != SS_ALIAS_SAME_VIEW)
        for (int d = 0; d < dr->ndim; d++)
            if (dr->sizes[d] == 0) dr->sizes[d] = range(r, 1, 4);
    set_len(dr);
    if (kind == SS_ALIAS_OUTSIDE_SLICE) {
        if (dr->len == 0) {
            if (dr->start == *S) dr->start = *S - 1;
            dr->end = dr->start + 1;
            set_len(dr);
        }
        const int64_t last = dr->start + (dr->len - 1) * dr->step;
        if (dr->step >= 2 && chance(r, 500)) {            /* in the gaps of a strided slice */
            *src_start = dr->start + range(r, 1, dr->step - 1);
        } else if (dr->start > (dr->len - 1) * dr->step && chance(r, 500)) {   /* before it */
            *src_start = range(r, 0, dr->start - (dr->len - 1) * dr->step - 1);
        } else {                                          /* after it */
            *src_start = last + range(r, 1, 3);
        }
        const int64_t need = *src_start + (dr->len - 1) * dr->step + 1;
        if (*S < need) *S = need;   /* end stays: grows the input, not the slice */
    } else if (kind == SS_ALIAS_PERMUTED) {
        if (dr->len == 0) {
            if (dr->start == *S) dr->start = 0;
            dr->end = *S;
            set_len(dr);
        }
        int a = (int)below(r, dr->ndim), b = (int)below(r, dr->ndim - 1);
        if (b >= a) b++;
        if (b == dr->dim) { int t = a; a = b; b = t; }
        /* the slice must be square along a and b for the swap to keep sizes */
        dr->sizes[b] = a == dr->dim ? dr->len : dr->sizes[a];
        *pa = a;
        *pb = b;
    } else if (kind == SS_ALIAS_INVALID_INPUT) {
        int d = (int)below(r, dr->ndim);
        if (dr->sizes[d] < 2) dr->sizes[d] = 2;
        *pa = d;
    }
    set_len(dr);
}

/* Src relative to the slice for the aliased kinds (offsets may go negative;
 * the caller translates both views into the storage). */
static void alias_src(rng *r, ss_alias_kind kind, const draft *dr, const ss_view *in,
                      const ss_view *slice, int a, int b, int64_t src_start, ss_view *src) {
    *src = *slice;
    switch (kind) {
    case SS_ALIAS_SHIFTED: {
        /* Whole slice steps along d overlap for sure (x[1:] <- x[:-1]); input
         * steps may land in a strided slice's gaps; raw shifts go anywhere. */
        int cand[SS_MAX_NDIM], nc = 0;
        for (int e = 0; e < dr->ndim; e++) if (slice->sizes[e] >= 2) cand[nc++] = e;
        int d = nc ? cand[below(r, nc)] : (int)below(r, dr->ndim);
        if (slice->sizes[dr->dim] >= 2 && chance(r, 400)) d = dr->dim;
        const int64_t n = slice->sizes[d], sign = chance(r, 500) ? 1 : -1;
        const int64_t x = below(r, 100);
        if (n >= 2 && x < 75) src->offset += sign * range(r, 1, n - 1) * slice->strides[d];
        else if (x < 90) src->offset += sign * range(r, 1, dr->sizes[d] + 1) * in->strides[d];
        else src->offset += sign * range(r, 1, 8);
        break;
    }
    case SS_ALIAS_PERMUTED: {
        int64_t t = src->strides[a];
        src->strides[a] = src->strides[b];
        src->strides[b] = t;
        if (chance(r, 200)) src->offset += range(r, -2, 2);
        break;
    }
    case SS_ALIAS_OUTSIDE_SLICE:
        src->offset = in->offset + src_start * in->strides[dr->dim];
        break;
    case SS_ALIAS_INTERLEAVED: {
        int changed = 0;
        for (int tries = 0; tries < 4 && !changed; tries++)
            for (int d = 0; d < dr->ndim; d++) {
                if (src->sizes[d] < 2 || !chance(r, 600)) continue;
                const int64_t opts[4] = {in->strides[d], slice->strides[d] + 1,
                                         slice->strides[d] > 1 ? slice->strides[d] - 1 : 2, 1};
                const int64_t s = opts[below(r, 4)];
                changed |= s != src->strides[d];
                src->strides[d] = s;
            }
        src->offset += range(r, -3, 3);
        break;
    }
    case SS_ALIAS_EXPANDED: {
        int any = 0;
        for (int d = 0; d < dr->ndim; d++)
            if (src->sizes[d] > 1 && (chance(r, 500) || (!any && d == dr->ndim - 1))) {
                src->strides[d] = 0;
                any = 1;
            }
        if (!any) src->strides[dr->dim] = 0;
        src->offset += range(r, -2, 2);
        break;
    }
    default:
        break;
    }
}

/* One attempt; 1 when the draft fits the caps (else the caller redraws). */
static int attempt(rng *r, const ss_gen_config *cfg, const features *f, ss_case *c,
                   ss_alias_kind *kind_out) {
    const int max_ndim = cfg->max_ndim < 1 ? 1 : cfg->max_ndim > SS_MAX_NDIM ? SS_MAX_NDIM : cfg->max_ndim;
    const int64_t cap = cfg->max_numel > 0 ? cfg->max_numel : SS_MAX_NUMEL;
    const size_t max_bytes = cfg->max_bytes ? cfg->max_bytes : SS_DEFAULT_MAX_BYTES;
    int kind = weighted(r, f->alias_w, SS_ALIAS_KIND_COUNT);
    int dtype = weighted(r, f->dtype_w, SS_DTYPE_COUNT);
    if (kind < 0) kind = SS_ALIAS_SEPARATE;
    if (dtype < 0) dtype = SS_FLOAT32;
    const size_t es = ss_dtype_size((ss_dtype)dtype);
    draft dr;
    memset(&dr, 0, sizeof dr);
    dr.ndim = draw_ndim(r, max_ndim);
    if (kind == SS_ALIAS_PERMUTED && dr.ndim < 2) {
        if (max_ndim < 2) kind = SS_ALIAS_SHIFTED;
        else dr.ndim = 2;
    }
    const int64_t large_min = (int64_t)3 << 20;   /* room for a view over 2^20 plus src */
    const int large = f->on[F_LARGE] && cfg->large_per_mille && cap >= large_min &&
                      (uint64_t)large_min * es <= max_bytes && chance(r, cfg->large_per_mille);
    if (large) {
        draw_large(r, &dr, cap / 3);
    } else {
        for (int d = 0; d < dr.ndim; d++) dr.sizes[d] = draw_size(r, f);
        /* small cases stay small: halve the largest dim down to 4096 elements */
        while (numel_of(dr.sizes, dr.ndim) > 4096) {
            int m = 0;
            for (int d = 1; d < dr.ndim; d++) if (dr.sizes[d] > dr.sizes[m]) m = d;
            dr.sizes[m] /= 2;
        }
    }
    dr.dim = (int)below(r, dr.ndim);
    draw_slice(r, f, &dr);
    int pa = 0, pb = 0;
    int64_t src_start = 0;
    shape_for_kind(r, (ss_alias_kind)kind, &dr, &pa, &pb, &src_start);

    ss_op *op = &c->op;
    memset(op, 0, sizeof *op);
    op->elem_size = es;
    ss_view *in = &op->input, *src = &op->src;
    in->ndim = src->ndim = dr.ndim;
    memcpy(in->sizes, dr.sizes, sizeof dr.sizes);
    layout(r, f, large, in->sizes, in->ndim, in->strides);
    if (kind == SS_ALIAS_INVALID_INPUT) {   /* stride 0, or a stride shared with a dim >= 2 */
        int e = (int)below(r, dr.ndim);
        in->strides[pa] = (e != pa && in->sizes[e] >= 2 && chance(r, 500)) ? in->strides[e] : 0;
    }
    in->offset = large ? 0 : draw_offset(r, f);

    ss_view slice = *in;
    slice.sizes[dr.dim] = dr.len;
    slice.offset += dr.len > 0 ? dr.start * in->strides[dr.dim] : 0;
    slice.strides[dr.dim] = in->strides[dr.dim] * dr.step;

    int separate = kind == SS_ALIAS_SEPARATE ||
                   (kind == SS_ALIAS_EXPANDED && chance(r, 250)) ||
                   (kind == SS_ALIAS_INVALID_INPUT && chance(r, 500));
    int64_t slack = large ? 0 : draw_slack(r, f);
    if (separate) {
        *src = slice;
        if (kind == SS_ALIAS_EXPANDED) alias_src(r, SS_ALIAS_EXPANDED, &dr, in, &slice, 0, 0, 0, src);
        else layout(r, f, large, src->sizes, src->ndim, src->strides);
        src->offset = large ? 0 : draw_offset(r, f);
        op->src_aliased = 0;
        op->src_storage_numel = ss_view_end(src) + (large ? 0 : draw_slack(r, f));
        op->input_storage_numel = ss_view_end(in) + slack;
    } else {
        if (kind == SS_ALIAS_INVALID_INPUT) *src = slice;
        else alias_src(r, (ss_alias_kind)kind, &dr, in, &slice, pa, pb, src_start, src);
        if (src->offset < 0) {   /* translate both views into the storage */
            in->offset -= src->offset;
            src->offset = 0;
        }
        int64_t e_in = ss_view_end(in), e_src = ss_view_end(src);
        op->src_aliased = 1;
        op->input_storage_numel = (e_in > e_src ? e_in : e_src) + slack;
        op->src_storage_numel = op->input_storage_numel;
    }
    encode_bounds(r, f, &dr, op);
    c->dtype = (ss_dtype)dtype;
    c->explicit_values = 0;
    c->fill_seed = next(r) % 100000;
    if (kind_out) *kind_out = (ss_alias_kind)kind;

    const uint64_t total = (uint64_t)op->input_storage_numel +
                           (op->src_aliased ? 0 : (uint64_t)op->src_storage_numel);
    return op->input_storage_numel <= cap && (op->src_aliased || op->src_storage_numel <= cap) &&
           total * es <= max_bytes;
}

/* The features of the last epoch asked for, and what they were drawn from.
 * Consecutive cases almost always share an epoch, and drawing its features
 * (some thirty draws) costs more than the rest of a small case. Per thread, so
 * concurrent campaigns never see each other's epoch. */
typedef struct epoch_cache {
    int valid;
    uint64_t seed, epoch;
    int swarm;
    unsigned alias_weight[SS_ALIAS_KIND_COUNT], dtype_weight[SS_DTYPE_COUNT];
    features f;
} epoch_cache;
static _Thread_local epoch_cache last_epoch;

static const features *cached_features(const ss_gen_config *cfg, uint64_t seed, uint64_t index) {
    epoch_cache *e = &last_epoch;
    const uint64_t epoch = index / SS_GEN_EPOCH;
    if (!e->valid || e->seed != seed || e->epoch != epoch || e->swarm != cfg->swarm ||
        memcmp(e->alias_weight, cfg->alias_weight, sizeof e->alias_weight) ||
        memcmp(e->dtype_weight, cfg->dtype_weight, sizeof e->dtype_weight)) {
        epoch_features(cfg, seed, index, &e->f);
        e->seed = seed;
        e->epoch = epoch;
        e->swarm = cfg->swarm;
        memcpy(e->alias_weight, cfg->alias_weight, sizeof e->alias_weight);
        memcpy(e->dtype_weight, cfg->dtype_weight, sizeof e->dtype_weight);
        e->valid = 1;
    }
    return &e->f;
}

int ss_gen_case(const ss_gen_config *cfg, uint64_t seed, uint64_t index, ss_case *out,
                ss_alias_kind *kind_out) {
    const features *f = cached_features(cfg, seed, index);
    rng r = {ss_mix64(seed) ^ ss_mix64(~index)};
    memset(out, 0, sizeof *out);
    for (int tries = 0; tries < 16; tries++)
        if (attempt(&r, cfg, f, out, kind_out)) return cfg->programs ? ss_gen_program(cfg, seed, index, out) : 0;
    /* Caps too tight for anything drawn: the smallest well-formed case. */
    memset(out, 0, sizeof *out);
    out->dtype = SS_UINT8;
    out->op.elem_size = 1;
    out->op.input_storage_numel = out->op.src_storage_numel = 1;
    out->op.input.ndim = out->op.src.ndim = 1;
    out->op.input.sizes[0] = 1;
    out->op.input.strides[0] = out->op.src.strides[0] = 1;
    out->op.src.sizes[0] = 1;
    out->op.src_aliased = 1;
    out->op.step = 1;
    if (kind_out) *kind_out = SS_ALIAS_SAME_VIEW;
    return cfg->programs ? ss_gen_program(cfg, seed, index, out) : 0;
}
