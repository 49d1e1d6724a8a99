/* ss_plan.h - the operation, its normalized plan, and storages: the header
 * reference/ and kernels/ are built on (with a few core headers besides). Plain C11; no CUDA
 * and no cJSON types.
 *
 * Ownership: every struct here is a value type; ss_storage.base is owned by
 * whoever allocated it (see ss_storage.h in the harness). */
#ifndef SS_PLAN_H
#define SS_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* Limits. Overridable at build time; docs/limits.md documents them. */
#ifndef SS_MAX_NDIM
#define SS_MAX_NDIM 16
#endif
/* Largest numel of one storage (and of one view). 2^40 keeps every byte offset
 * (numel * 16-byte elements) far below 2^63, so offset math cannot overflow
 * once a plan has been validated. */
#ifndef SS_MAX_NUMEL
#define SS_MAX_NUMEL ((int64_t)1 << 40)
#endif
/* Default byte budget for one case's storages (input + src data bytes);
 * CLIs raise or lower it with --max-bytes. */
#ifndef SS_DEFAULT_MAX_BYTES
#define SS_DEFAULT_MAX_BYTES ((size_t)1 << 30)
#endif
/* Largest absolute integer a case file may hold (exactly representable in a
 * JSON double). */
#define SS_MAX_JSON_INT ((int64_t)1 << 53)

/* A strided view into a storage, in elements (PyTorch's as_strided). */
typedef struct ss_view {
    int64_t offset;
    int ndim;
    int64_t sizes[SS_MAX_NDIM];
    int64_t strides[SS_MAX_NDIM];
} ss_view;

/* The raw operation exactly as the case states it: what a kernel receives.
 * Kernels compute their own slice from dim/start/end/step, independently of
 * the reference's normalization. */
typedef struct ss_op {
    size_t elem_size;            /* 1, 2, 4, 8 or 16 */
    int64_t input_storage_numel;
    int src_aliased;             /* 1: src views the input storage */
    int64_t src_storage_numel;   /* equals input_storage_numel when aliased */
    ss_view input;
    ss_view src;
    int64_t dim;                 /* may be negative */
    int has_start, has_end;      /* 0 means None */
    int64_t start, end, step;
    int src_is_operand;          /* 1: a program case (set with its program by the case reader
                                    and the program generator): src is an operand of its steps,
                                    held to their rules, not the slice's source, so it need not
                                    have the slice's shape; no kernel and no ss_ref_run runs it */
} ss_op;

/* How src's storage elements relate to input's (classification for triage). */
typedef enum ss_overlap {
    SS_OVL_SEPARATE = 0,     /* src in its own storage */
    SS_OVL_DISJOINT,         /* same storage, no shared element with input view */
    SS_OVL_SAME_VIEW,        /* src is exactly the written slice */
    SS_OVL_PARTIAL,          /* src shares elements with the written slice */
    SS_OVL_OUTSIDE_SLICE     /* src shares elements with input, none with the slice */
} ss_overlap;

/* The validated, normalized form every engine may consume. */
typedef struct ss_plan {
    ss_op op;
    int dim;                 /* wrapped into [0, ndim) */
    int64_t start, end;      /* clamped to [0, size]; end >= start */
    int64_t step;
    int64_t slice_len;       /* ceil((end - start) / step) */
    ss_view slice;           /* the written slice, as a view of input's storage */
    int64_t input_numel;     /* logical elements of the input view */
    int64_t slice_numel;
    int internal_overlap;    /* input view maps two indices to one element */
    /* The overlap class of src and the slice is not a field: ss_plan_overlap
     * (ss_overlap.h) works it out where it is read (reports, a finding's
     * key), not on every case. */
} ss_plan;

/* A storage buffer with guard bands: data = base + guard, `bytes` long,
 * surrounded by `guard` bytes of SS_GUARD_BYTE on each side. */
typedef struct ss_storage {
    uint8_t *base;
    size_t guard;
    size_t bytes;
    size_t cap;       /* bytes allocated at base (>= bytes + 2 * guard) */
} ss_storage;
#define SS_GUARD_BYTE 0xA5
static inline uint8_t *ss_storage_data(const ss_storage *s) { return s->base + s->guard; }

/* What running an engine on a case did. */
typedef enum ss_run_status {
    SS_RUN_OK = 0,          /* storages hold the result */
    SS_RUN_REJECTED,        /* refused the case (e.g. internal overlap); reason given */
    SS_RUN_UNAVAILABLE,     /* cannot run here (no GPU, not built); reason given */
    SS_RUN_FAILED,          /* internal failure (CUDA error, allocation); reason given */
    SS_RUN_REFUSED,         /* the implementation raised its own safety error (PyTorch's
                               overlap check): not a wrong answer; reason given */
    SS_RUN_RAISED,          /* a compiled path raised where eager of the same code does
                               not (or raised another error): a finding; reason given */
    SS_RUN_ERROR,           /* the implementation raised an error that is neither its
                               refusal nor compile-only (an error of the case or the
                               engine): counted, not a finding; reason given */
    SS_RUN_TIMEOUT,         /* no answer within the engine's time limit; reason given */
    SS_RUN_FLAKY            /* the first run lost its worker, a rerun in a fresh one did
                               not: storages hold the rerun's result; reason given */
} ss_run_status;

/* Emulator schedules: the orders in which a launch's per-element work runs. */
typedef enum ss_schedule {
    SS_SCHED_FORWARD = 0,
    SS_SCHED_REVERSE,
    SS_SCHED_LOCKSTEP,
    SS_SCHED_WARP,
    SS_SCHED_RANDOM,
    SS_SCHED_COUNT
} ss_schedule;

typedef struct ss_run_opts {
    int schedule;            /* index into the target's schedules (ss_target.schedules);
                                the emulator's are ss_schedule values */
    uint64_t seed;           /* for SS_SCHED_RANDOM */
    int dtype;               /* the case's ss_dtype (set by ss_check_target), for engines
                                that interpret values rather than move bytes */
} ss_run_opts;

/* Numel of a view (product of sizes); the caller guarantees it was validated. */
static inline int64_t ss_view_numel(const ss_view *v) {
    int64_t n = 1;
    for (int d = 0; d < v->ndim; d++) n *= v->sizes[d];
    return n;
}

/* PyTorch's slice() bounds on a dim of `size` (None: has_* == 0): negatives
 * add the size once, then both clamp to [0, size], and an end before the
 * start gives an empty slice. The one clamp of the case's slice and of a
 * program's slice views; the kernels compute their own on purpose (a kernel
 * under test gets no help from the reference's normalization). */
static inline void ss_slice_clamp(int64_t size, int has_start, int64_t start, int has_end, int64_t end,
                                  int64_t *start_out, int64_t *end_out) {
    int64_t s = has_start ? start : 0, e = has_end ? end : size;
    if (s < 0) s = s < -size ? 0 : s + size;
    if (e < 0) e = e < -size ? 0 : e + size;
    if (s > size) s = size;
    if (e > size) e = size;
    *start_out = s;
    *end_out = e < s ? s : e;
}

/* One past the last storage element a validated view touches (its offset
 * when empty): the storage numel the view needs. */
static inline int64_t ss_view_end(const ss_view *v) {
    int64_t e = v->offset + 1;
    for (int d = 0; d < v->ndim; d++)   /* first: an empty view's other dims may be huge */
        if (v->sizes[d] == 0) return v->offset;
    for (int d = 0; d < v->ndim; d++) e += (v->sizes[d] - 1) * v->strides[d];
    return e;
}

#endif
