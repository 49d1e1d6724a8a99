/* ss_kernels.c - names of the kernels under test. */
#include <string.h>
#include "ss_kernels.h"

static const char *const names[SS_KERNEL_COUNT] = {
    [SS_KERNEL_REINPLACE] = "reinplace",
    [SS_KERNEL_FUNCTIONAL] = "functional",
    [SS_KERNEL_INDEX] = "index",
    [SS_KERNEL_MUT_ALIAS_UNCHECKED] = "mut-alias-unchecked",
    [SS_KERNEL_MUT_ALIAS_SAME_PTR] = "mut-alias-same-ptr",
    [SS_KERNEL_MUT_OVERLAP_OFF_BY_ONE] = "mut-overlap-off-by-one",
    [SS_KERNEL_MUT_IGNORE_OFFSET] = "mut-ignore-offset",
    [SS_KERNEL_MUT_CONTIGUOUS_SRC] = "mut-contiguous-src",
    [SS_KERNEL_MUT_STEP_IGNORED] = "mut-step-ignored",
    [SS_KERNEL_MUT_END_UNCLAMPED] = "mut-end-unclamped",
};

const char *ss_kernel_name(ss_kernel_id k) {
    return (unsigned)k < SS_KERNEL_COUNT ? names[k] : "?";
}

int ss_kernel_from_name(const char *name, ss_kernel_id *out) {
    for (int k = 0; k < SS_KERNEL_COUNT; k++)
        if (!strcmp(name, names[k])) { *out = (ss_kernel_id)k; return 0; }
    return -1;
}
