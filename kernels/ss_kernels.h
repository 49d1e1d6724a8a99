/* ss_kernels.h - the kernels under test (correct variants and mutants) and their names. */
#ifndef SS_KERNELS_H
#define SS_KERNELS_H

/* Order is the registry's order: the three correct variants, then the mutants. */
typedef enum ss_kernel_id {
    SS_KERNEL_REINPLACE = 0,         /* copy src into the slice; stage src when it can overlap */
    SS_KERNEL_FUNCTIONAL,            /* clone input, scatter into the clone, write back */
    SS_KERNEL_INDEX,                 /* build a destination index list, scatter through it */
    SS_KERNEL_MUT_ALIAS_UNCHECKED,   /* never stages */
    SS_KERNEL_MUT_ALIAS_SAME_PTR,    /* stages only when src is the slice (same offset and layout) */
    SS_KERNEL_MUT_OVERLAP_OFF_BY_ONE,/* intersection test misses the last element */
    SS_KERNEL_MUT_IGNORE_OFFSET,     /* slice ignores the input's storage offset */
    SS_KERNEL_MUT_CONTIGUOUS_SRC,    /* indexes src as if it were contiguous */
    SS_KERNEL_MUT_STEP_IGNORED,      /* slice stride ignores the step */
    SS_KERNEL_MUT_END_UNCLAMPED,     /* end is not clamped to the dim size */
    SS_KERNEL_COUNT
} ss_kernel_id;

#define SS_KERNEL_FIRST_MUTANT SS_KERNEL_MUT_ALIAS_UNCHECKED

const char *ss_kernel_name(ss_kernel_id k);          /* "reinplace", "mut-step-ignored", ... */
int ss_kernel_from_name(const char *name, ss_kernel_id *out);   /* 0 ok, -1 unknown */
static inline int ss_kernel_is_mutant(ss_kernel_id k) { return k >= SS_KERNEL_FIRST_MUTANT; }

#endif
