/* naive.c - an example ssfuzz plugin: the in-place slice_scatter a user writes first (no overlap check).
 *
 * Build:  cc -O2 -fPIC -shared -I PATH/TO/ssfuzz/harness naive.c -o naive.so
 * Fuzz:   ssfuzz fuzz --plugin ./naive.so --target naive:copy --time 10
 * It copies src into the slice element by element, reading src while it
 * writes input: when src aliases the slice, later reads see earlier writes. */
#include <stdio.h>
#include <string.h>
#include "ssfuzz_plugin.h"

/* PyTorch's slice bounds: absent means 0/size, negatives add size, clamp to [0, size]. */
static int64_t bound(int present, int64_t v, int64_t dflt, int64_t size) {
    if (!present) return dflt;
    if (v < 0) v += size;
    return v < 0 ? 0 : v > size ? size : v;
}

static int copy(const ssfuzz_case *c, char *message, size_t message_len) {
    const ssfuzz_view *in = &c->input, *src = &c->src;
    const int dim = (int)(c->dim < 0 ? c->dim + in->ndim : c->dim);
    if (dim < 0 || dim >= in->ndim || c->step < 1) {
        snprintf(message, message_len, "bad dim or step");
        return SSFUZZ_REFUSED;
    }
    const int64_t start = bound(c->has_start, c->start, 0, in->sizes[dim]);
    /* Walk src in row-major order; dst moves by step along dim. */
    int64_t numel = 1, idx[SSFUZZ_PLUGIN_MAX_NDIM] = {0}, dst_stride[SSFUZZ_PLUGIN_MAX_NDIM];
    for (int d = 0; d < src->ndim; d++) {
        numel *= src->sizes[d];
        dst_stride[d] = d == dim ? c->step * in->strides[d] : in->strides[d];
    }
    int64_t so = src->offset, dof = in->offset + start * in->strides[dim];
    unsigned char *dst_base = c->input_storage;
    const unsigned char *src_base = c->src_storage;
    for (int64_t i = 0; i < numel; i++) {
        memcpy(dst_base + dof * c->elem_size, src_base + so * c->elem_size, c->elem_size);
        for (int d = src->ndim - 1; d >= 0; d--) {   /* next index: an odometer */
            so += src->strides[d];
            dof += dst_stride[d];
            if (++idx[d] < src->sizes[d]) break;
            so -= src->sizes[d] * src->strides[d];
            dof -= src->sizes[d] * dst_stride[d];
            idx[d] = 0;
        }
    }
    return SSFUZZ_OK;
}

static const ssfuzz_kernel kernels[] = {{"copy", SSFUZZ_MEMORY_HOST, copy}};

SSFUZZ_PLUGIN_EXPORT const ssfuzz_plugin *ssfuzz_plugin_v1(void) {
    static const ssfuzz_plugin plugin = {sizeof(ssfuzz_plugin), SSFUZZ_PLUGIN_ABI_VERSION, "naive",
                                         kernels, 1, NULL, NULL};
    return &plugin;
}
