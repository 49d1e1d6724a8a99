/* ss_gen.h - the seeded case generator: layouts and aliasing pairs. */
#ifndef SS_GEN_H
#define SS_GEN_H

#include <stddef.h>
#include <stdint.h>
#include "ss_case.h"

/* Aliasing kinds for src (what relation src has to input). */
typedef enum ss_alias_kind {
    SS_ALIAS_SEPARATE = 0,     /* own storage */
    SS_ALIAS_SAME_VIEW,        /* src is exactly the written slice */
    SS_ALIAS_SHIFTED,          /* x[k:] <- x[:-k] and its mirror, along any dim */
    SS_ALIAS_PERMUTED,         /* same data pointer, permuted strides (x[0] <- x[0].t()) */
    SS_ALIAS_OUTSIDE_SLICE,    /* overlaps input only outside the slice */
    SS_ALIAS_INTERLEAVED,      /* strided overlap */
    SS_ALIAS_EXPANDED,         /* stride-0 src */
    SS_ALIAS_INVALID_INPUT,    /* input with internal overlap, on purpose */
    SS_ALIAS_KIND_COUNT
} ss_alias_kind;

const char *ss_alias_kind_name(ss_alias_kind k);

/* Size classes of a case by its storage elements (input plus a separate src),
 * for the campaign summary's share of cases and of time per class. */
enum { SS_SIZE_CLASS_COUNT = 4 };
int ss_size_class(const ss_op *op);
const char *ss_size_class_name(int k);    /* summary.json key: "up_to_4Ki", ... */
const char *ss_size_class_label(int k);   /* text: "<=4Ki", ... */

typedef struct ss_gen_config {
    unsigned alias_weight[SS_ALIAS_KIND_COUNT];  /* relative weights; 0 disables */
    unsigned dtype_weight[SS_DTYPE_COUNT];
    int max_ndim;                /* 1..SS_MAX_NDIM */
    int64_t max_numel;           /* cap on each storage's numel */
    unsigned large_per_mille;    /* share of large cases (> 1M elements), if max_numel allows */
    int swarm;                   /* 1: each seed switches some features off */
    size_t max_bytes;            /* cap on input + separate src data bytes; 0 = SS_DEFAULT_MAX_BYTES */
    int programs;                /* 1: each case gets a program (ss_gen_program.h, --programs) */
    int program_steps;           /* its most steps (--program-steps, 1..16; default 4) */
} ss_gen_config;

void ss_gen_config_default(ss_gen_config *cfg);

/* Swarm epochs: with cfg->swarm, cases [k*SS_GEN_EPOCH, (k+1)*SS_GEN_EPOCH) of a
 * seed share one random feature set (some aliasing kinds, dtypes and layout
 * features switched off), so rare combinations get room while every campaign
 * still visits every kind within a few epochs. */
#define SS_GEN_EPOCH 128

/* Case number `index` of the campaign `seed`: deterministic (same inputs,
 * same case). The case validates with ss_plan_build (kind INVALID_INPUT gives
 * a well-formed case whose plan has internal_overlap). `kind_out` may be NULL.
 * `out` is overwritten without being freed; the generated case owns no memory
 * (fill from fill_seed, no meta) unless cfg->programs: then it owns its
 * program (free it with ss_case_free). Returns 0, or -1 on out of memory. */
int ss_gen_case(const ss_gen_config *cfg, uint64_t seed, uint64_t index, ss_case *out,
                ss_alias_kind *kind_out);

#endif
